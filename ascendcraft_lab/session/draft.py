"""A DSL draft from a PyTorch reference: the offline drafter, or an LLM seeded with its draft.

The one place that decides how a draft is made, for `ascendcraft draft`, the notebook's
`%ascendcraft NAME --ref REF.py` and the bench. Every failure is a `DraftFailed` whose `str`
is one line.

An NPUKernelBench-format reference (`get_input_groups()`) is drafted for all its cases: the
offline draft is made from one case (`trace_case`), then generalized over the cases' dtypes and
ranks (drafter/cases.py) and its tile budget fitted to the largest cases of each variant.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..drafter.cases import broadcast_pattern, case_signature, fit_live, generalize, largest_cases
from ..drafter.draft import DraftError, draft_from_trace, draft_reference, kernel_name
from ..dsl.errors import DslError
from ..dsl.generic import VariantMismatch, binding_for, instantiate
from ..dsl.parser import parse
from ..dsl.verifier import verify
from ..engines.llm.draft import draft_with_llm
from ..engines.llm.engine import LlmEngineError, client_from_environment
from ..perf import estimate_phases
from ..reference import ReferenceError, ReferenceRun, load_cases, reference_format, run_jobs
from .draft_lowering import lowering_check

HOW = ("drafter", "llm")


class DraftFailed(Exception):
    """No draft: `str()` is one line. `unavailable` when the LLM engine cannot run at all."""

    def __init__(self, message: str, unavailable: bool = False):
        super().__init__(message)
        self.unavailable = unavailable


@dataclass
class DraftOutcome:
    text: str
    template: str                    # the drafter's template, or "llm"
    notes: list[str] = field(default_factory=list)
    traced_case: int | None = None   # an NPUKernelBench reference: the case the offline draft was made from
    cases: list | None = None        # ... and every case that ran (ReferenceRuns): a check reuses them, no second load


def draft(reference: str | Path, *, how: str = "drafter", soc: str | None = None, overrides: dict | None = None,
          reference_run=None, client_settings: dict | None = None, rounds: int = 3,
          timeout: float = 300, cases: list | None = None) -> DraftOutcome:
    """Draft the reference: `how="drafter"` offline; `"llm"` by the model, seeded with the offline
    draft when the drafter has one (and told so when it already verifies). `timeout`: seconds the
    reference may take to import and trace; `cases`: every input set the model's draft must serve
    (an NPUKernelBench reference's cases; its failing ones go back to the model one line each)."""
    if how not in HOW:
        raise DraftFailed(f"unknown drafting engine `{how}`; use drafter or llm")
    if cases is None and reference_format(reference) == "NPUKernelBench":
        cases = case_runs(reference, timeout=timeout)
    pick = trace_case(cases) if cases else None
    try:
        if cases:
            offline, pick = _draft_some_case(reference, cases, soc, timeout)
        else:
            offline = draft_reference(reference, soc=soc, overrides=overrides or None, timeout=timeout,
                                      estimate=estimate_phases)
    except DraftError as exc:
        if how == "drafter":
            raise DraftFailed(str(exc)) from None
        offline = None
    traced = pick.case if pick is not None else None
    if how == "drafter":
        return DraftOutcome(offline.text, offline.template, list(offline.notes), traced, cases)
    try:
        client = client_from_environment(**(client_settings or {}))
    except LlmEngineError as exc:
        raise DraftFailed(str(exc).splitlines()[0], unavailable=True) from None
    result = draft_with_llm(Path(reference), client=client, soc=soc, rounds=rounds,
                            start_draft=offline.text if offline else None, reference=reference_run or pick, cases=cases,
                            lowered=lowering_check(soc))
    notes = [result.message.splitlines()[0]] if result.message else []
    if result.dsl is None:
        raise DraftFailed(f"the LLM drafter found no verified draft ({result.stopped}): "
                          f"{result.message.splitlines()[0]}")
    return DraftOutcome(result.dsl, "llm", notes, traced, cases)


def case_runs(reference, *, timeout: float = 300) -> list[ReferenceRun]:
    """The cases of an NPUKernelBench reference that ran (a failing case is that case's failure, later)."""
    try:
        cases = load_cases(reference, timeout=timeout)
    except ReferenceError as e:
        raise DraftFailed(str(e).splitlines()[0]) from None
    runs = [c for c in cases if isinstance(c, ReferenceRun)]
    if not runs:
        raise DraftFailed(f"no case of {Path(reference).name} runs: {str(cases.cases[0]).splitlines()[0]}"
                          if len(cases) else f"{Path(reference).name}: get_input_groups() returns no case")
    return runs


RETRACES = 2     # other cases a refused draft is tried from


def _draft_some_case(reference, runs: list[ReferenceRun], soc, timeout) -> tuple["DraftOutcome", ReferenceRun]:
    """The draft for every case from the best case to trace (`trace_case`), or, when the drafter
    refuses that one (a group norm whose groups are single channels), from the next best of other
    shapes or attributes, up to RETRACES more; the first refusal when none drafts."""
    if runs and all(_empty(r) for r in runs):
        raise DraftError(f"cannot draft {Path(reference).name}: every case has an empty tensor (e.g. "
                         f"{runs[0].describe()}): there is nothing to compute, so no shape to draft from; add a "
                         "non-empty case to its cases (the kernel then serves the empty ones as no-ops)")
    first, tried = None, []
    for _ in range(1 + RETRACES):
        left = [r for r in runs if not any(r.describe() == t.describe() or _same_kind(r, t) for t in tried)]
        if not left:
            break
        pick = trace_case(left)
        tried.append(pick)
        try:
            return draft_for_cases(reference, pick, runs, soc=soc, timeout=timeout), pick
        except DraftError as e:
            first = first or e
    raise first


def _empty(r: ReferenceRun) -> bool:
    return any(np.size(v) == 0 for v in r.tensor_inputs) or any(np.size(o) == 0 for o in r.outputs
                                                                  if isinstance(o, np.ndarray))


def _same_kind(a: ReferenceRun, b: ReferenceRun) -> bool:
    """Two cases a drafter would draft alike: the same tensor shapes and the same other arguments."""
    return [np.shape(v) for v in a.tensor_inputs] == [np.shape(v) for v in b.tensor_inputs] and \
        [_plain(v) for v in a.inputs if not isinstance(v, np.ndarray)] == \
        [_plain(v) for v in b.inputs if not isinstance(v, np.ndarray)]


def _plain(v):
    """An argument as a comparable value: arrays (also inside lists, a list of tensors) by dtype and shape."""
    if isinstance(v, np.ndarray):
        return ("array", str(v.dtype), v.shape)
    if isinstance(v, (list, tuple)):
        return tuple(_plain(x) for x in v)
    return v


def trace_case(runs: list[ReferenceRun]) -> ReferenceRun:
    """The case a draft is made from: non-empty, of the way of broadcasting most cases share (the
    others are drafted again by the bench), float32 first (then the half types, traced in
    float32 as well; an integer case last), at least 2-d (leading axes are
    what dim packs generalize; a 1-d case reads as a whole-tensor reduction), then the fewest
    elements (a quick trace). A case whose first tensor's last dim is 1 comes after the others: it
    hides the rows (x * scale[..., None] reads as two tensors of one shape)."""
    patterns = [broadcast_pattern([np.shape(v) for v in r.tensor_inputs]) for r in runs]
    count = {p: patterns.count(p) for p in patterns}
    of = {id(r): p for r, p in zip(runs, patterns)}

    def key(r):
        ranks = [len(v.shape) for v in r.tensor_inputs] or [0]
        size = sum(int(np.size(v)) for v in r.tensor_inputs)
        empty = size == 0 or any(np.size(o) == 0 for o in r.outputs if isinstance(o, np.ndarray))
        unit_row = bool(r.tensor_inputs) and np.shape(r.tensor_inputs[0])[-1:] == (1,)
        floats = r.dtypes[:1] in (("float32",), ("float16",), ("bfloat16",))
        return (empty, -count[of[id(r)]], r.dtypes[:1] != ("float32",), not floats, max(ranks) < 2, unit_row, size)
    return min(runs, key=key)


def draft_for_cases(reference, pick: ReferenceRun, runs: list[ReferenceRun], *, soc: str | None = None,
                    timeout: float = 300) -> DraftOutcome:
    """The offline draft for every case: drafted from `pick`, generalized over `runs`. Raises DraftError."""
    # traced in float32 (a half-type case's floats cast up, an integer case's tensors too when they are all
    # of one integer type, no index beside data): the draft is generalized over the dtypes anyway
    cast = "float32" if any(d in ("float16", "bfloat16") for d in pick.dtypes) else None
    if pick.dtypes and len(set(pick.dtypes)) == 1 and pick.dtypes[0] in ("int8", "int16", "int32"):
        cast = "float32:integers"
    d, text, notes = _draft_traced(reference, pick, runs, cast, soc, timeout)
    if cast is not None and not _serves(text, pick, soc):
        # the float32 draft uses an operation the vector unit lacks in the case's dtype (a Select of
        # int16 values): a draft traced in that dtype may choose another way (select in f32, exactly)
        try:
            own = _draft_traced(reference, pick, runs, None, soc, timeout)
        except DraftError:
            own = None
        if own is not None and _serves(own[1], pick, soc):
            d, text, notes = own[0], own[1], [*own[2], f"traced in {pick.dtypes[0]}: the float32 draft's "
                                               f"{pick.dtypes[0]} variant lacks an operation"]
    text = fit_live(text, largest_cases(text, runs), soc)
    return DraftOutcome(text, d.template, [*d.notes, *notes], pick.case)


def _draft_traced(reference, pick: ReferenceRun, runs: list[ReferenceRun], cast, soc, timeout):
    """(draft, generalized text, notes) of `pick` traced with its inputs cast to `cast` (None: as they are)."""
    traced = run_jobs([{"mode": "trace", "path": str(reference), "case": pick.case, "cast_inputs": cast}],
                      timeout=timeout)[0]
    if isinstance(traced, ReferenceError):
        raise DraftError(str(traced).splitlines()[0])
    d = draft_from_trace(traced["graph"], name=kernel_name(reference), soc=soc, source=Path(reference).name,
                         estimate=estimate_phases)
    text, notes = generalize(d.text, [case_signature(r) for r in runs])
    return d, text, notes


def _serves(text: str, pick: ReferenceRun, soc) -> bool:
    """Does the variant of the generic draft that `pick`'s dtypes select verify?"""
    try:
        program = parse(text, "kernel.dsl.py")
        verify(instantiate(program, binding_for(program, list(pick.dtypes))), soc)
    except (DslError, VariantMismatch):
        return False
    return True
