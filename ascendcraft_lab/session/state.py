"""What a session holds in memory between actions: its settings, its lowered steps, the last verdict.

`SessionState` is the record the function modules (`lower`, `edits`, `check`, `estimate`) read
and update, and `Session` (session.py) is the facade over it. Everything in it can be rebuilt
from the session folder (a fresh process resumes the same steps and verdict); it is the
lowering's result kept so that each action does not lower again.

A step is `pending`, `accepted`, `edited`, `failed` or `unchanged` (`StepState`); a
compile-and-verify result is a `CheckResult`, as its run record in runs/ holds it.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from ..dsl import ir
from ..passes.bundle import Bundle, FileDiff
from ..passes.findings import Finding
from ..passes.manager import Step
from ..passes.merge import Conflict
from ..passes.pipeline import PIPELINE, get_pass
from ..passes.tiling_report import TilingReport
from .errors import SessionError
from .folder import SessionFolder, read_manifest, text_hash

DSL_NAME = "kernel.dsl.py"          # a draft typed in a notebook cell: its name in messages and generated comments
REFERENCE_FILES = "reference_files"  # the files the reference reads (its JSON cases), under their own names
REVIEWED = ("accepted", "edited", "unchanged")


@dataclass(frozen=True)
class StepState:
    """One pass of the pipeline as the user reviews it: status plus the manager's `Step`."""

    step: Step
    status: str                  # pending | accepted | edited | failed | unchanged
    notes: tuple[str, ...] = ()

    spec = property(lambda self: self.step.spec)
    name = property(lambda self: self.step.spec.name)
    number = property(lambda self: self.step.spec.number)
    engine = property(lambda self: self.step.engine)
    seconds = property(lambda self: self.step.seconds)
    bundle = property(lambda self: self.step.bundle)
    previous = property(lambda self: self.step.previous)
    generated = property(lambda self: self.step.generated)
    edited = property(lambda self: self.step.edited)
    report = property(lambda self: self.step.report)   # LLM engine: model, attempts, tokens

    @property
    def findings(self) -> list[Finding]:
        return list(self.step.findings)

    @property
    def conflicts(self) -> tuple[Conflict, ...]:
        return () if self.status == "edited" else tuple(self.step.conflicts)

    @property
    def diffs(self) -> list[FileDiff]:
        return self.step.diffs

    @property
    def stat(self) -> str:
        return self.step.stat

    def __repr__(self) -> str:
        return f"<StepState pass {self.number} {self.name}: {self.status} {self.stat}>"


@dataclass
class CheckResult:
    """A compile-and-verify result, as recorded in `runs/<stamp>.json` of the session folder."""

    correct: bool
    message: str                      # the verdict's first line
    summary: str                      # verdict message plus one line per output
    detail: str = ""                  # emulator findings / compiler errors in the diagnostic format
    backend: str = "emulator"
    soc: str = ""
    max_abs_err: float | None = None
    max_rel_err: float | None = None
    status: str = ""                  # the emulator's: ok | findings | compile-error | crash | timeout | ...
    findings: list[dict] = field(default_factory=list)   # kind, message, file, line, dsl_line, block
    timings: dict = field(default_factory=dict)
    bundle_hash: str = ""
    current: bool = True              # False when the steps changed since this run
    path: str = ""                    # the run record
    cases: dict = field(default_factory=dict)   # every input set's result (session/cases.py CaseReport.to_json)

    @classmethod
    def from_record(cls, record: Mapping[str, Any], path: str = "") -> "CheckResult":
        run = record.get("run") or {}
        return cls(bool(record.get("correct")), str(record.get("message", "")),
                   str(record.get("summary") or record.get("message", "")), str(record.get("detail", "")),
                   str(record.get("backend", "emulator")), str(record.get("soc", "")),
                   finite(record.get("max_abs_err")), finite(record.get("max_rel_err")),
                   str(run.get("status", "")), list(run.get("findings") or []),
                   dict(record.get("timings") or {}), str(record.get("bundle_hash", "")), True, path,
                   dict(record.get("cases") or {}))

    def __str__(self) -> str:
        return self.summary + (f"\n{self.detail}" if self.detail else "")

    def _repr_pretty_(self, p, cycle):
        p.text(str(self))


@dataclass(eq=False)      # compared by identity: views keep sessions in weak sets
class SessionState:
    """One session's settings and lowered steps; the queries every action shares."""

    folder: SessionFolder
    dsl: str = ""
    dsl_name: str = DSL_NAME
    soc: str = ""
    engine: str = "rule"
    until: str | None = None
    overrides: dict[str, Any] = field(default_factory=dict)
    program: ir.Program | None = None
    result: CheckResult | None = None
    notes: list[str] = field(default_factory=list)  # short facts to show beside the steps (stale edits, ...)
    # what the last open or edit wants the user told (a review kept, an edit already made)
    notice: str | None = None
    timings: dict[str, float] = field(default_factory=dict)
    variants: dict[str, Bundle] = field(default_factory=dict)   # a generic kernel's others (ascendc/variants/<dtype>/)
    step_states: list[StepState] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.folder.path.name

    @property
    def steps(self) -> list[StepState]:
        return list(self.step_states)

    def step(self, which: str | int | StepState) -> StepState:
        """A step by pass name (`"init"`), number (2) or StepState."""
        name = which.name if isinstance(which, StepState) else which
        try:
            spec = get_pass(name)
        except ValueError as exc:
            raise SessionError(f"error: {exc}") from None
        for s in self.step_states:
            if s.name == spec.name:
                return s
        raise SessionError(f"error: pass {spec.number} ({spec.name}) has not run: the session stops after "
                           f"`{self.until}`\n  = help: open it without --until to run every pass")

    @property
    def final(self) -> Bundle | None:
        """The AscendC project after pass 4, or None when the session stops earlier."""
        return self.step_states[-1].bundle if len(self.step_states) == len(PIPELINE) else None

    @property
    def project_written(self) -> bool:
        """Whether `ascendc/` holds the project: every pass ran and none failed."""
        return self.final is not None and not any(s.status == "failed" for s in self.step_states)

    @property
    def ready(self) -> bool:
        """Whether compile & verify is allowed: all passes ran and each is accepted or edited."""
        return len(self.step_states) == len(PIPELINE) and all(s.status in REVIEWED for s in self.step_states)

    @property
    def conflicts(self) -> list[Conflict]:
        return [c for s in self.step_states for c in s.conflicts]

    @property
    def reference(self) -> Path | None:
        p = self.folder.path / "reference.py"
        return p if p.is_file() else None

    def reference_as_file(self) -> str | None:
        """Where the folder's reference.py believes it lives: beside the copies of the files it reads."""
        name = read_manifest(self.folder).get("reference_name")
        return str(self.folder.path / REFERENCE_FILES / name) if name else None

    @property
    def tiling(self) -> dict | None:
        """The host pass's tiling explained for the reference's shapes (UB use per buffer), if known."""
        return read_manifest(self.folder).get("tiling") if self.reference is not None else None

    def tiling_text(self) -> str:
        t = self.tiling
        return TilingReport(**t).text() if t else ""

    def tiling_alternatives(self) -> list[str]:
        """The tiling explanation's candidates not taken and any ranking by the estimate, one a line."""
        t = self.tiling
        return TilingReport(**t).alternatives() if t else []


def summary(state: SessionState) -> str:
    """The plain-text view: one line per pass, findings, conflicts, notes and the verdict."""
    lines = [f"ascendcraft session `{state.name}` in {state.folder.path} ({state.soc}, engine {state.engine})"]
    for s in state.step_states:
        lines += _step_lines(state, s)
    for spec in PIPELINE[len(state.step_states):]:
        lines.append(f"  pass {spec.number} {spec.name:<8} not run (--until {state.until})")
    lines.extend(f"  note: {n}" for n in state.notes)
    if state.tiling:
        lines.append(state.tiling_text())
    if state.project_written:
        lines.append(f"AscendC project: {state.folder.path / 'ascendc'}")
    lines += _next_lines(state)
    return "\n".join(lines)


def _step_lines(state: SessionState, s: StepState) -> list[str]:
    lines = [f"  pass {s.number} {s.name:<8} {s.status:<9} {s.stat:>11}  {s.seconds * 1000:6.1f} ms  {s.spec.reason}"]
    lines += ["    " + f.render(state.dsl_name, state.dsl).replace("\n", "\n    ") for f in s.findings]
    lines += [f"    conflict in {c.path}:{c.line}: your edit and the regenerated text overlap; both are kept "
              f"between markers — edit pass {s.number} to resolve" for c in s.conflicts]
    return lines + [f"    note: {n}" for n in s.notes]


def _next_lines(state: SessionState) -> list[str]:
    """The verdict, or what the user does next."""
    if state.result is not None:
        return [("" if state.result.current else "(stale: the steps changed since) ") + str(state.result)]
    if state.ready:
        return ["every step is reviewed: compile & verify with lab.compile_and_verify()"]
    todo = [s.name for s in state.step_states if s.status not in REVIEWED]
    return [f"to review: {', '.join(todo)} (accept or edit each, then compile & verify)"] if todo else []


def bundle_hash(bundle: Bundle) -> str:
    return text_hash("".join(f"{p}\0{t}" for p, t in bundle.files.items()))


def finite(v) -> float | None:
    """A float that JSON and a browser can hold (None for NaN, inf and non-numbers)."""
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if f == f and abs(f) != float("inf") else None


def jsonable(value):
    """Plain JSON (no NaN/inf, no numpy scalars) for records a browser or another tool reads."""
    return json.loads(json.dumps(value, default=_plain), parse_constant=lambda _: None)


def _plain(o):
    if hasattr(o, "tolist"):
        return o.tolist()
    if hasattr(o, "item"):
        return o.item()
    return str(o)
