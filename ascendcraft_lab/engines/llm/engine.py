"""`LlmEngine`: the lowering passes carried out by a model, checked and fed back.

It implements the pass manager's `Engine` protocol (`derives_from_ir = False`: it rewrites the
previous bundle's text, so a user's edit of the previous step is simply its input), for all
passes (`run_pipeline(program, LlmEngine(client), ...)`) or some (`engines={"compute": llm}`).

Per pass: the prompt (`prompts.lower_messages`) holds the pass's rules and what its checker
verifies, the names the plan fixes, the AscendC notes for the kernel's operations, a worked
example from the rule engine, the DSL and the previous bundle. The reply is a set of files
(`files.py`); the new bundle is checked by

1. the reply format (only project paths; every file of the project present after pass 1),
2. the placeholders (no `TODO(pass k ...)` left for k <= this pass),
3. the constraint checkers of this pass and every earlier one (`passes.pipeline.check_step`),
4. g++ against the emulator's AscendC headers (the `compiler` the session layer gives): syntax only
   for passes 1-3 (placeholders remain) and for the host tiling code, a full compile and link of the
   kernel for pass 4.
   Generated code is compiled, never run, here: running it is `ascendcraft check`'s job.

Findings and compiler errors go back to the model, for at most `rounds` rounds. The best
verified candidate is kept. Each pass leaves a `StepReport` (`engine.reports[pass]`,
`engine.last_report`): every attempt with its diff against the previous bundle and its
findings, token counts, and the rule engine's output for the same step beside it. When no
round verifies (or the loop is cancelled, or the endpoint fails for good), `run_pass` raises
`LlmEngineError`, a `PassFailure`: the pipeline records a failed step with that message and
stops there. With `on_failure="keep"` an unverified pass instead returns the candidate with
the fewest problems, for a UI that shows it (from `last_report`) as a diff to fix by hand.
"""
from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Callable

from ...passes.bundle import Bundle, FileDiff, diff, diff_stat
from ...passes.pipeline import PIPELINE, check_step
from ...passes.plan import plan_for
from ...passes.spec import PassFailure, PassSpec
from ..rule import render
from .client import LlmClient
from .errors import LlmError
from .feedback import Checked, FeedbackLoop, Turn, stop_message
from .files import ReplyFormatError, parse_files
from .prompts import lower_follow_up, lower_messages
from .settings import DEFAULT_BASE_URL, LlmConfig

_TODO = re.compile(r"TODO\(pass (\d+)")
_DSL_COMMENT = re.compile(r"//\s*DSL\s+(\d+)\b")


class LlmEngineError(PassFailure):
    """A pass the model could not do (or was stopped from doing); `report` has every attempt.

    A `PassFailure`: inside `run_pipeline` the step fails with this message as its finding and
    later passes do not run (the earlier steps are kept); outside it, a ValueError that
    `ascendcraft lower` prints as one message (e.g. no endpoint configured).
    """

    def __init__(self, message: str, report: "StepReport | None" = None, kind: str = "unverified"):
        super().__init__(message)
        self.message = message
        self.report = report
        self.kind = kind  # "unverified", "cancelled", "error" (a fatal LlmError), "config"


@dataclass(frozen=True)
class LowerAttempt:
    """One proposal of the model for a pass: a diff to accept or reject, with its findings."""

    round: int
    ok: bool
    stage: str                      # llm, reply, placeholder, checker, compile, ok
    feedback: str                   # what went back to the model
    files: tuple[str, ...] = ()     # the paths the reply sent
    bundle: Bundle | None = field(default=None, repr=False)
    diffs: tuple[FileDiff, ...] = field(default=(), repr=False)  # against the previous bundle
    findings: tuple[str, ...] = ()  # rendered checker findings (errors)
    compiler: tuple[str, ...] = ()  # compiler errors
    error: str | None = None
    error_kind: str | None = None
    tokens_in: int = 0
    tokens_out: int = 0
    cached: bool = False

    @property
    def stat(self) -> str:
        return diff_stat(list(self.diffs))

    def to_json(self) -> dict:
        return {"round": self.round, "ok": self.ok, "stage": self.stage, "feedback": self.feedback,
                "files": list(self.files), "stat": self.stat, "diff": "\n".join(d.text for d in self.diffs),
                "findings": list(self.findings), "compiler": list(self.compiler), "error": self.error,
                "error_kind": self.error_kind, "tokens_in": self.tokens_in, "tokens_out": self.tokens_out,
                "cached": self.cached}


@dataclass
class StepReport:
    """How one pass went with the LLM engine: who made the step, every attempt, what it cost."""

    pass_name: str
    engine: str                      # "llm" (the model made it) or "llm-unverified" (on_failure="keep")
    model: str
    attempts: list[LowerAttempt]
    best_round: int | None
    stopped: str                     # verified, bound, cancelled, error
    message: str
    bundle: Bundle | None = field(default=None, repr=False)        # what run_pass returned
    rule_bundle: Bundle | None = field(default=None, repr=False)   # the rule engine's output for this step
    previous: Bundle | None = field(default=None, repr=False)
    tokens_in: int = 0
    tokens_out: int = 0
    requests: int = 0
    cached_calls: int = 0
    seconds: float = 0.0

    @property
    def verified(self) -> bool:
        return self.best_round is not None

    @property
    def vs_rule(self) -> list[FileDiff]:
        """The rule engine's step against the model's (empty when they agree or one is missing)."""
        if self.bundle is None or self.rule_bundle is None:
            return []
        return diff(self.rule_bundle, self.bundle)

    def to_json(self) -> dict:
        return {"pass": self.pass_name, "engine": self.engine, "model": self.model, "best_round": self.best_round,
                "stopped": self.stopped, "message": self.message, "tokens_in": self.tokens_in,
                "tokens_out": self.tokens_out, "requests": self.requests, "cached_calls": self.cached_calls,
                "seconds": round(self.seconds, 3), "vs_rule": diff_stat(self.vs_rule) if self.rule_bundle else None,
                "attempts": [a.to_json() for a in self.attempts]}


# compile feedback for a candidate bundle: (bundle, plan, link=, host=) -> error lines
Compiler = Callable[..., list[str]]


class LlmEngine:
    """The `Engine` protocol over an `LlmClient`; see the module docstring."""

    name = "llm"
    derives_from_ir = False

    def __init__(self, client: LlmClient, *, rounds: int = 3, worked_example: str = "category",
                 compiler: Compiler | None = None, on_failure: str = "raise",
                 on_attempt: Callable[[str, LowerAttempt], None] | None = None):
        if not isinstance(rounds, int) or rounds < 1:
            raise ValueError(f"rounds must be a positive integer (got {rounds!r})")
        if worked_example not in ("category", "self", "none"):
            raise ValueError("worked_example is 'category', 'self' or 'none'")
        if on_failure not in ("raise", "keep"):
            raise ValueError("on_failure is 'raise' or 'keep'")
        self.client = client
        self.rounds = rounds
        self.worked_example = worked_example
        self.compiler = compiler      # g++ feedback (the session layer gives the emulator's); None: none
        self.on_failure = on_failure
        self.on_attempt = on_attempt  # (pass name, attempt), as each round is checked
        self.reports: dict[str, StepReport] = {}
        self.last_report: StepReport | None = None

    def __repr__(self) -> str:
        return f"LlmEngine({self.client!r}, rounds={self.rounds})"

    def cancel(self) -> None:
        """The notebook's stop button: ends the running pass between rounds."""
        self.client.cancel()

    # -- the Engine protocol -----------------------------------------------------------------

    def run_pass(self, spec: PassSpec, program, previous: Bundle | None, options) -> Bundle:
        t0 = time.perf_counter()
        plan = plan_for(program, options)
        rule_bundle = _rule_output(program, options, spec)
        messages = lower_messages(spec, program, previous, options, plan, example_mode=self.worked_example)
        allowed = set(_project_paths(plan)) | set(previous.files if previous else ())
        attempts: list[LowerAttempt] = []

        def on_turn(turn: Turn[Bundle]) -> None:
            attempt = _attempt(turn, previous)
            attempts.append(attempt)
            if self.on_attempt is not None:
                self.on_attempt(spec.name, attempt)

        purpose = f"lower {program.kernel.name} pass {spec.number} {spec.name}"
        loop = FeedbackLoop(self.client, messages, purpose=purpose,
                            check=lambda text: self.check_reply(text, spec, program, previous, options, allowed),
                            follow_up=lambda c: lower_follow_up(c.feedback), rounds=self.rounds, on_turn=on_turn)
        outcome = loop.run()
        replies = [t.reply for t in outcome.turns if t.reply is not None]
        report = StepReport(
            pass_name=spec.name, engine="llm", model=self.client.config.model, attempts=attempts,
            best_round=outcome.best_round, stopped=outcome.stopped,
            message=stop_message(outcome, self.rounds, f"pass {spec.number} {spec.name}"),
            rule_bundle=rule_bundle, previous=previous,
            tokens_in=sum(r.tokens_in for r in replies), tokens_out=sum(r.tokens_out for r in replies),
            requests=sum(r.attempts for r in replies) + sum(t.error.attempts for t in outcome.turns if t.error),
            cached_calls=sum(r.cached for r in replies))
        self.reports[spec.name] = report
        self.last_report = report
        best = outcome.best
        if best is not None:
            report.bundle = best.candidate
        elif self.on_failure == "keep" and outcome.stopped not in ("cancelled", "error"):
            fallback = _least_bad(attempts)
            if fallback is not None:
                report.bundle, report.engine = fallback, "llm-unverified"
        report.seconds = time.perf_counter() - t0
        if report.bundle is None:
            kind = {"cancelled": "cancelled", "error": "error"}.get(outcome.stopped, "unverified")
            raise LlmEngineError(report.message, report, kind)
        return report.bundle

    # -- checking one reply ------------------------------------------------------------------

    def check_reply(self, text: str, spec: PassSpec, program, previous: Bundle | None, options,
                    allowed: set[str] | None = None) -> Checked[Bundle]:
        """Everything a reply for pass `spec` must pass; the feedback lists what it does not."""
        plan = plan_for(program, options)
        if allowed is None:
            allowed = set(_project_paths(plan)) | set(previous.files if previous else ())
        try:
            files = parse_files(text, allowed)
        except ReplyFormatError as exc:
            return Checked(False, f"reply format: {exc}", None, stage="reply")
        bundle = _apply(previous, files, program)
        problems: list[str] = []
        missing = [p for p in _project_paths(plan) if p not in bundle.files]
        if missing:
            problems.append("missing files: after pass 1 the project holds " + ", ".join(f"`{p}`" for p in missing)
                            + " too; send them")
        for path, body in bundle.files.items():
            for n, line in enumerate(body.splitlines(), 1):
                m = _TODO.search(line)
                if m and int(m.group(1)) <= spec.number:
                    problems.append(f"{path}:{n}: the placeholder `{line.strip()[:80]}` is still there: pass "
                                    f"{m.group(1)} must replace it")
        dsl_name = PurePath(program.path).name if program.path else None
        findings = [f for f in check_step(spec, program, bundle, options) if f.severity == "error"]
        rendered = tuple(f.render(dsl_name, program.source) for f in findings)
        compiler: tuple[str, ...] = ()
        if self.compiler is not None:
            link = spec.number == len(PIPELINE) and not findings and not problems
            compiler = tuple(self.compiler(bundle, plan, link=link, host=any(p.startswith("host/") for p in files)))
        if not problems and not rendered and not compiler:
            return Checked(True, "the checker and the compiler accept it", bundle, stage="ok")
        sections = []
        if problems:
            sections.append("Project:\n" + "\n".join(f"- {p}" for p in problems))
        if rendered:
            sections.append("Constraint checker:\n" + "\n".join(rendered))
        if compiler:
            sections.append("Compiler (g++ against the AscendC emulator headers):\n" + "\n".join(compiler))
        stage = "placeholder" if problems else "checker" if rendered else "compile"
        return Checked(False, "\n\n".join(sections), bundle, score=-(len(problems) + len(rendered) + len(compiler)),
                       stage=stage, detail={"findings": rendered, "compiler": compiler, "problems": problems})


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------

def _project_paths(plan) -> list[str]:
    return [plan.tiling_path, plan.tiling_impl_path, plan.host_path, plan.kernel_path, plan.torch_path, plan.cmake_path]


def _rule_output(program, options, spec: PassSpec) -> Bundle | None:
    try:
        return render(program, options, spec.number)
    except Exception:  # a kernel the rule engine cannot lower still gets its LLM step
        return None


def _apply(previous: Bundle | None, files: dict[str, str], program) -> Bundle:
    """The previous bundle with the reply's files; source maps carried over by `remap`, and
    lines the model wrote after a `// DSL n` comment mapped to DSL line n."""
    bundle = (previous or Bundle({})).with_files(files)
    n_dsl = len((program.source or "").splitlines())
    maps = dict(bundle.source_map)
    for path in files:
        current, lines = 0, list(maps.get(path, ()))
        for i, line in enumerate(bundle.files[path].splitlines()):
            m = _DSL_COMMENT.search(line)
            if m and 0 < int(m.group(1)) <= n_dsl:
                current = int(m.group(1))
            elif not line.strip():
                current = 0
            if i < len(lines) and lines[i] == 0 and current:
                lines[i] = current
        maps[path] = tuple(lines)
    return Bundle(bundle.files, maps)


def _attempt(turn: Turn[Bundle], previous: Bundle | None) -> LowerAttempt:
    if turn.error is not None:
        return LowerAttempt(turn.round, False, "llm", turn.error.message, error=turn.error.message,
                            error_kind=turn.error.kind)
    c, r = turn.checked, turn.reply
    detail = c.detail if isinstance(c.detail, dict) else {}
    changed = tuple(d.path for d in diff(previous, c.candidate)) if c.candidate is not None else ()
    return LowerAttempt(turn.round, c.ok, c.stage, c.feedback, changed, c.candidate,
                        tuple(diff(previous, c.candidate)) if c.candidate is not None else (),
                        tuple(detail.get("findings", ())), tuple(detail.get("compiler", ())),
                        tokens_in=r.tokens_in, tokens_out=r.tokens_out, cached=r.cached)


def _least_bad(attempts: list[LowerAttempt]) -> Bundle | None:
    scored = [a for a in attempts if a.bundle is not None]
    if not scored:
        return None
    return min(scored, key=lambda a: (len(a.findings) + len(a.compiler), -a.round)).bundle


def client_from_environment(**settings) -> LlmClient:
    """A client configured by `LlmConfig.resolve(**settings)` (explicit > env > file), for the
    commands (`ascendcraft lower/draft --engine llm`). A missing endpoint (no base URL and no
    key, outside replay mode) or a bad config is one `LlmEngineError` message, never a traceback.
    """
    try:
        config = LlmConfig.resolve(**settings)
    except LlmError as exc:
        raise LlmEngineError(f"the LLM engine is not configured: {exc.message}", kind="config") from None
    if config.mode != "replay" and config.base_url == DEFAULT_BASE_URL and not config.has_key:
        raise LlmEngineError(
            "the LLM engine has no endpoint: set OPENAI_BASE_URL to an OpenAI-compatible server (e.g. "
            "http://localhost:8000/v1 for vLLM or Ollama) or OPENAI_API_KEY for api.openai.com, or put base_url "
            "in ~/.config/ascendcraft/config.toml; `ascendcraft doctor` shows what is found", kind="config")
    # ASCENDCRAFT_LLM_LOG_DIR: where each call is logged (the bench points it at the op's folder).
    return LlmClient(config, log_dir=os.environ.get("ASCENDCRAFT_LLM_LOG_DIR") or None)


def engine_from_environment(**options) -> LlmEngine:
    """An engine on the configured endpoint (the session layer's `engine_for("llm")` adds the compiler)."""
    return LlmEngine(client_from_environment(), **options)


__all__ = ["Compiler", "LlmEngine", "LlmEngineError", "LowerAttempt", "StepReport", "client_from_environment",
           "engine_from_environment"]
