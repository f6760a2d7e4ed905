"""The pass manager: runs host -> init -> compute -> align and records every step.

Each pass is `(previous Bundle, Program, options) -> Bundle`, produced by an engine. A step
holds the engine's output (`generated`) and the bundle it actually carries on with
(`bundle`): the same, unless the user edited this step, or edited an earlier one and the
generated output was three-way merged with that edit (base = generated step k-1, ours =
edited step k-1, theirs = generated step k). Constraint checkers run on every step.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Mapping, Protocol

from .bundle import Bundle, FileDiff, diff, diff_stat
from .findings import Finding
from .merge import Conflict, merge_bundles
from .pipeline import PIPELINE, check_step, get_pass
from .spec import LowerOptions, PassFailure, PassSpec

__all__ = ["Engine", "LowerOptions", "PassFailure", "Step", "run_pipeline"]


class Engine(Protocol):
    name: str
    # True when a pass's output is computed from the IR alone (the rule engine): an edit of
    # the previous step then has to be merged in. False when the engine rewrites the
    # previous bundle's text (the LLM engine): the edit is already its input.
    derives_from_ir: bool

    def run_pass(self, spec: PassSpec, program, previous: Bundle | None, options: LowerOptions) -> Bundle: ...


@dataclass
class Step:
    spec: PassSpec
    engine: str
    generated: Bundle
    bundle: Bundle
    previous: Bundle | None
    findings: list[Finding]
    conflicts: tuple[Conflict, ...] = ()
    seconds: float = 0.0
    edited: bool = False
    # For an engine that reports on its work (the LLM engine): model, attempts, tokens, requests.
    report: dict | None = None

    @property
    def diffs(self) -> list[FileDiff]:
        return diff(self.previous, self.bundle)

    @property
    def stat(self) -> str:
        return diff_stat(self.diffs)

    @property
    def failed(self) -> bool:
        return bool(self.conflicts) or any(f.severity == "error" for f in self.findings)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]


def run_pipeline(
    program,
    engine: Engine,
    options: LowerOptions = LowerOptions(),
    *,
    edits: Mapping[str, Bundle] | None = None,
    until: str | None = None,
    engines: Mapping[str, Engine] | None = None,
) -> list[Step]:
    """Run the passes up to `until` (inclusive); `edits` maps a pass name to the user's bundle."""
    edits = edits or {}
    last = get_pass(until).number if until else len(PIPELINE)
    steps: list[Step] = []
    previous: Bundle | None = None
    previous_generated: Bundle | None = None
    for spec in PIPELINE[:last]:
        eng = (engines or {}).get(spec.name, engine)
        t0 = time.perf_counter()
        try:
            generated = eng.run_pass(spec, program, previous, options)
        except PassFailure as exc:
            line = exc.span.line if exc.span is not None else 0
            failure = Finding(spec.name, "cannot-lower", str(exc), dsl_line=line,
                              help="change the DSL (see the message) or edit this step by hand")
            stand_in = previous or Bundle({})
            steps.append(Step(spec, eng.name, stand_in, stand_in, previous, [failure], (),
                              time.perf_counter() - t0, False))
            break
        bundle, conflicts = generated, ()
        if (eng.derives_from_ir and previous is not None and previous_generated is not None
                and previous != previous_generated):
            merged = merge_bundles(previous_generated, previous, generated)
            bundle, conflicts = merged.bundle, merged.conflicts
        edited = spec.name in edits
        if edited:            # the user's text replaces the merge, conflicts and all
            bundle, conflicts = edits[spec.name], ()
        findings = check_step(spec, program, bundle, options)
        steps.append(Step(spec, eng.name, generated, bundle, previous, findings, conflicts,
                          time.perf_counter() - t0, edited, _report(eng, spec.name)))
        previous, previous_generated = bundle, generated
    return steps


def _report(engine, pass_name: str) -> dict | None:
    """The engine's account of one pass, when it keeps one (`engine.reports[pass]`)."""
    rep = (getattr(engine, "reports", None) or {}).get(pass_name)
    if rep is None:
        return None
    return {"model": rep.model, "engine": rep.engine, "attempts": len(rep.attempts), "best_round": rep.best_round,
            "stopped": rep.stopped, "tokens_in": rep.tokens_in, "tokens_out": rep.tokens_out,
            "requests": rep.requests, "cached_calls": rep.cached_calls}
