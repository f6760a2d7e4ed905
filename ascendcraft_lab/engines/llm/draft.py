"""Drafting a DSL kernel with an LLM: `draft_with_llm(ref_path, client=...) -> DraftResult`.

The library entry point behind `ascendcraft draft --engine llm` (and the notebook). The prompt
(see `prompts.draft_messages`) holds the DSL specification generated from the grammar and the
ops table, 1-2 expert examples of the reference's category with the closest input shapes, the
reference file with the shapes a run of it gives, and, when the offline drafter made one, its
draft to improve. Each reply's ```python block is extracted (never executed), parsed, verified
with the reference's shapes and run on the numpy interpreter against the reference; parse
errors, verifier findings and interpreter mismatches go back to the model, for at most
`rounds` rounds. An NPUKernelBench reference's other cases (`cases=`) are checked too, each on
the variant its dtypes pick, and each failing one goes back as one line naming the case, its
dtypes and shapes, and why (at most CASE_LINES of them). The best verified draft is kept (a later,
worse round never replaces it) and every attempt is returned for the UI.

Verified means lowered too: a caller that can lower and emulate (session/draft.py; this layer
cannot import the backends) passes `lowered`, a `LowerCheck`. A draft the interpreter accepts is
then lowered through the four passes and run on the emulator before it is accepted; a refusal of
a pass, a compile error, an emulator finding or an answer the emulator computes differently goes
back to the model as an error (stage "lower" or "emulator") naming the DSL lines involved.

A start draft that already verifies is returned as is, without a call, unless
`keep_improving=True` asks the model to improve it. A reference that cannot run raises
`ReferenceError` before any call.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from ...reference.bind import Verdict, check_interpreter
from ...dsl.errors import DslError
from ...dsl.generic import VariantMismatch, binding_for, instantiate
from ...dsl.ir import Program
from ...dsl.rules import RULES
from ...dsl.parser import parse
from ...examples import CATEGORIES
from ...reference import ReferenceRun, load_reference
from ...soc import get_soc
from .client import LlmClient
from .errors import LlmError
from .extract import extract_code
from .feedback import Checked, FeedbackLoop, Turn, stop_message
from .prompts import DRAFT_NAME, closest_examples, draft_follow_up, draft_messages, guess_category


@dataclass(frozen=True)
class DraftAttempt:
    """One candidate: the offline drafter's start draft (round 0) or a model reply."""

    round: int
    source: str                 # "drafter" (the start draft) or "llm"
    ok: bool
    stage: str                  # what decided: reply, parse, verify, interpreter, cases, lower, emulator,
                                # internal, llm, ok
    feedback: str               # what went (or would go) back to the model
    dsl: str | None = None      # the extracted draft, when there was one
    reply_text: str | None = None
    error: str | None = None    # the LlmError message of a failed call
    error_kind: str | None = None
    verdict: Verdict | None = None
    tokens_in: int = 0
    tokens_out: int = 0
    cached: bool = False

    def to_json(self) -> dict:
        out = {k: getattr(self, k) for k in self.__dataclass_fields__ if k != "verdict"}
        out["verdict"] = self.verdict.message if self.verdict is not None else None
        return out


@dataclass
class DraftResult:
    dsl: str | None                     # the best verified draft; None when no candidate verified
    best_round: int | None              # 0: the start draft
    attempts: list[DraftAttempt]
    stopped: str                        # verified, bound, cancelled, error, start-verified
    message: str
    category: str
    examples: tuple[str, ...] = ()
    model: str = ""
    tokens_in: int = 0
    tokens_out: int = 0
    requests: int = 0                   # HTTP requests (cached replies make none)
    verdict: Verdict | None = None      # of the best draft
    messages: list = field(default_factory=list, repr=False)  # the conversation as last sent

    @property
    def verified(self) -> bool:
        return self.dsl is not None

    def to_json(self) -> dict:
        return {"dsl": self.dsl, "best_round": self.best_round, "stopped": self.stopped, "message": self.message,
                "category": self.category, "examples": list(self.examples), "model": self.model,
                "tokens_in": self.tokens_in, "tokens_out": self.tokens_out, "requests": self.requests,
                "attempts": [a.to_json() for a in self.attempts]}


CASE_LINES = 8      # failing cases listed in one feedback (the rest are counted)

# (the draft's program for the reference's dtypes, not yet verified; the reference run) -> None when the
# draft's lowering computes on the emulator what the interpreter computed, else (stage, feedback) with
# stage "lower" (a pass refused it, a checker found a violation) or "emulator" (compile error, finding,
# crash, wrong answer). Supplied by the session layer, which may import the backends.
LowerCheck = Callable[[Program, ReferenceRun], Optional[tuple[str, str]]]


def check_draft(dsl: str, ref_path: str | Path, ref: ReferenceRun, soc: str,
                cases: list[ReferenceRun] | None = None, lowered: LowerCheck | None = None) -> Checked[str]:
    """Parse, verify and interpret one draft against the reference (and its other `cases`); then,
    with `lowered`, lower and emulate it on the reference: the feedback a model gets."""
    try:
        program = parse(dsl, DRAFT_NAME)
    except DslError as exc:
        return Checked(False, _render(exc, dsl), dsl, stage="parse")
    try:
        verdict = check_interpreter(_variant(program, ref), ref_path, soc=soc, reference=ref)
    except VariantMismatch as exc:
        return Checked(False, f"{ref.label} ({ref.describe()}): {exc}", dsl, stage="cases")
    except DslError as exc:
        return Checked(False, _render(exc, dsl), dsl, stage="verify")
    except RecursionError:
        return Checked(False, "the draft nests too deeply to check: write the expressions in several lines",
                       dsl, stage="verify")
    except Exception as exc:  # the draft is untrusted input: a checker crash is feedback, not a crash of the loop
        return Checked(False, f"checking this draft failed inside the interpreter ({type(exc).__name__}: {exc}); "
                       "write it more plainly", dsl, stage="internal")
    if not verdict.correct:
        return Checked(False, verdict.summary(), dsl, stage="interpreter", detail=verdict)
    others = [c for c in cases or [] if c is not ref]
    failures = case_failures(program, others, ref_path, soc)
    if failures:
        n = len(others) + 1
        shown = failures[:CASE_LINES]
        more = f"\n... and {len(failures) - len(shown)} more failing cases" if len(failures) > len(shown) else ""
        text = (f"{ref.label} passes, but {len(failures)} of the {n} cases fail (the kernel must serve every case: "
                "its dtypes through @kernel(T=(...)), its ranks through dim packs such as (*S,) or ((*S, N),)):\n"
                + "\n".join(shown) + more)
        return Checked(False, text, dsl, score=-len(failures), stage="cases", detail=verdict)
    if lowered is not None:
        try:
            disagreement = lowered(_variant(program, ref), ref)
        except DslError as exc:      # the reference's concrete shapes reach a check the draft alone did not
            return Checked(False, _render(exc, dsl), dsl, stage="verify", detail=verdict)
        except Exception as exc:  # noqa: BLE001 - a crash of the lowering on untrusted input is that draft's feedback
            disagreement = ("lower", f"the draft verifies on the interpreter, but lowering it to AscendC failed "
                            f"({type(exc).__name__}: {exc}); write it more plainly")
        if disagreement is not None:
            stage, text = disagreement
            return Checked(False, text, dsl, score=-1.0, stage=stage, detail=verdict)
    return Checked(True, verdict.summary(), dsl, score=-verdict.max_rel_err, stage="ok", detail=verdict)


def _variant(program, case: ReferenceRun):
    """The variant of a generic draft that serves `case` (a plain draft as it is)."""
    return instantiate(program, binding_for(program, list(case.dtypes), case.label)) if program.generics else program


def case_failures(program, cases: list[ReferenceRun], ref_path, soc: str) -> list[str]:
    """One line per case the draft does not serve on the interpreter: `case 3 (float16 [3, 5]): why`."""
    lines = []
    for case in cases:
        head = f"{case.label} ({case.describe()})"
        if case.outputs and all(getattr(o, "size", 1) == 0 for o in case.outputs):
            continue                    # nothing to write: the launch code returns before the launch
        try:
            verdict = check_interpreter(_variant(program, case), ref_path, soc=soc, reference=case)
        except VariantMismatch as exc:          # its text starts with the case's label, which `head` gives
            lines.append(f"{head}: {str(exc).removeprefix(case.label + ' ')}")
            continue
        except DslError as exc:
            lines.append(f"{head}: {exc.message.strip().splitlines()[0]}")
            continue
        except Exception as exc:  # noqa: BLE001 - the draft is untrusted input: a crash on one case is that case's line
            lines.append(f"{head}: the interpreter failed ({type(exc).__name__}: {exc})")
            continue
        if not verdict.correct:
            lines.append(f"{head}: {verdict.message}")
    return lines


def _render(exc: DslError, source: str) -> str:
    if exc.path in (None, "<dsl>"):
        exc.path = DRAFT_NAME
    exc.with_source(DRAFT_NAME, source)
    rule = RULES.get(exc.rule)          # the rule it breaks, as the DSL reference states it
    return exc.render() + (f"\n  = rule: {rule.statement}" if rule is not None else "")


def _check_reply(text: str, ref_path, ref, soc, cases=None, lowered: LowerCheck | None = None) -> Checked[str]:
    try:
        dsl = extract_code(text, "python")
    except LlmError as exc:
        return Checked(False, f"{exc.message}: send the complete DSL file in one ```python block", None, stage="reply")
    return check_draft(dsl, ref_path, ref, soc, cases, lowered)


def draft_with_llm(
    ref_path: str | Path,
    *,
    client: LlmClient,
    soc: str | None = None,
    rounds: int = 3,
    start_draft: str | None = None,
    category: str | None = None,
    reference: ReferenceRun | None = None,
    overrides: dict | None = None,
    examples: int = 2,
    keep_improving: bool = False,
    on_attempt: Callable[[DraftAttempt], None] | None = None,
    cases: list[ReferenceRun] | None = None,
    lowered: LowerCheck | None = None,
) -> DraftResult:
    """Draft a DSL kernel for the PyTorch reference at `ref_path` with the model behind `client`.

    `rounds` bounds the chat calls (each may make up to `client.config.max_retries + 1` HTTP
    requests); `start_draft` is the offline drafter's draft to improve; `category` overrides
    the guess (else: the reference's folder when it is a category, else its words);
    `reference` reuses a loaded run of `ref_path` (`overrides` are its constants otherwise);
    `keep_improving` spends every round, keeping the best verified draft; `on_attempt` sees
    each attempt as it is checked; `cases` are the other input sets every draft must serve (an
    NPUKernelBench reference's cases); `lowered` lowers and emulates a draft the interpreter
    accepted, on the reference's inputs (see `LowerCheck`; the start draft too).
    `client.cancel()` stops the loop between rounds.
    """
    if not isinstance(rounds, int) or rounds < 1:
        raise ValueError(f"rounds must be a positive integer (got {rounds!r})")
    ref_path = Path(ref_path)
    soc_name = get_soc(soc).name
    ref_text = ref_path.read_text(encoding="utf-8")
    ref = reference if reference is not None else load_reference(ref_path, overrides=overrides)
    if category is None:
        folder = ref_path.parent.name
        category = folder if folder in CATEGORIES else guess_category(ref_text, ref_path.stem)
    elif category not in CATEGORIES:
        raise ValueError(f"unknown category {category!r}; categories are {', '.join(CATEGORIES)}")
    ranks = [len(v.shape) for v in ref.inputs if hasattr(v, "shape")]
    chosen = closest_examples(category, ranks, exclude_op=ref_path.stem.removesuffix(".dsl"), count=examples)

    attempts: list[DraftAttempt] = []

    def record(attempt: DraftAttempt) -> None:
        attempts.append(attempt)
        if on_attempt is not None:
            on_attempt(attempt)

    start: Checked[str] | None = None
    if start_draft is not None:
        start = check_draft(start_draft, ref_path, ref, soc_name, cases, lowered)
        record(DraftAttempt(0, "drafter", start.ok, start.stage, start.feedback, start_draft,
                            verdict=start.detail if isinstance(start.detail, Verdict) else None))
    base = dict(category=category, examples=tuple(e.name for e in chosen), model=client.config.model)
    if start is not None and start.ok and not keep_improving:
        return DraftResult(start_draft, 0, attempts, "start-verified",
                           "the offline drafter's draft already verifies; no model call was made "
                           "(keep_improving=True asks the model to improve it)", verdict=start.detail, **base)

    messages = draft_messages(ref_text, ref_path.name, ref, soc=soc_name, examples=chosen, start_draft=start_draft,
                              start_feedback=start.feedback if start is not None and not start.ok else "")

    def on_turn(turn: Turn[str]) -> None:
        record(_attempt(turn))

    loop = FeedbackLoop(client, messages, purpose=f"draft {ref_path.name}",
                        check=lambda text: _check_reply(text, ref_path, ref, soc_name, cases, lowered),
                        follow_up=lambda c: draft_follow_up(c.feedback, c.ok),
                        rounds=rounds, keep_improving=keep_improving, on_turn=on_turn)
    outcome = loop.run()
    best = outcome.best
    best_round = outcome.best_round
    if start is not None and start.ok and (best is None or best.score <= start.score):
        best, best_round = start, 0
    message = stop_message(outcome, rounds, f"draft of {ref_path.name}")
    if best_round == 0:
        message += "; the offline drafter's draft is kept (no reply beat it)"
    llm_turns = [t for t in outcome.turns if t.reply is not None]
    return DraftResult(
        dsl=best.candidate if best is not None else None, best_round=best_round, attempts=attempts,
        stopped=outcome.stopped, message=message,
        tokens_in=sum(t.reply.tokens_in for t in llm_turns), tokens_out=sum(t.reply.tokens_out for t in llm_turns),
        requests=sum(t.reply.attempts for t in llm_turns) + sum(t.error.attempts for t in outcome.turns if t.error),
        verdict=best.detail if best is not None and isinstance(best.detail, Verdict) else None,
        messages=loop.messages, **base)


def _attempt(turn: Turn[str]) -> DraftAttempt:
    if turn.error is not None:
        return DraftAttempt(turn.round, "llm", False, "llm", turn.error.message, reply_text=turn.error.reply_text,
                            error=turn.error.message, error_kind=turn.error.kind)
    c, r = turn.checked, turn.reply
    return DraftAttempt(turn.round, "llm", c.ok, c.stage, c.feedback, c.candidate, r.text,
                        verdict=c.detail if isinstance(c.detail, Verdict) else None,
                        tokens_in=r.tokens_in, tokens_out=r.tokens_out, cached=r.cached)


__all__ = ["DraftAttempt", "DraftResult", "LowerCheck", "check_draft", "draft_with_llm"]
