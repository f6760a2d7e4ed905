"""The pipeline as every view shows it: the steps, their states, and what each button may do.

`view_model(lab)` projects a session (its public API only) once; the three renderers draw the
result and decide nothing themselves: the JupyterLab extension receives it inside the MIME
payload (payload.py adds the text bodies), the ipywidgets view (widget.py) and the static HTML
(render.py) read it in-process. For every step and for the pipeline it says which actions are
open, what each does (a button's tooltip) and, when one is closed, why — so a button is never
offered that the session would refuse, and the reason a person sees is the same in every view.

Undo of a failed step (the views disagreed: the ipywidgets view refused every failed step, the
extension offered every one and let the kernel refuse): Undo is open on a failed step exactly
when that step holds the user's edit — then it drops the edit, which is the way back from an
edit that broke the step's checks. A step that failed as generated, or through a conflict with
the user's edit of an earlier step, holds nothing of its own to undo; its reason names what to
do instead (change the draft, edit the step, or undo the earlier edit it names). Only Python
can tell these cases apart (`StepState.edited`): a failed edited step's status is `failed`.

What stays with each renderer is its own state: the selection, a request in flight, the link
to the kernel, an open editor.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..passes.pipeline import PIPELINE

STEP_ACTIONS = ("accept", "edit", "undo", "regenerate")
PIPELINE_ACTIONS = ("compile", "profile")
# A status as a person reads it in a pass list.
STATUS_LABELS = {"pending": "to review", "accepted": "accepted", "edited": "edited", "failed": "failed",
                 "unchanged": "unchanged", "not-run": "not run"}
REVIEWED = ("accepted", "edited", "unchanged")


@dataclass(frozen=True)
class Action:
    """One button: open or not, what it does, and why not when it is closed."""

    enabled: bool
    does: str
    why_not: str = ""

    @property
    def title(self) -> str:
        """The button's tooltip: what it does when open, why not when closed."""
        return self.does if self.enabled else self.why_not

    def to_json(self) -> dict:
        return {"enabled": self.enabled, "does": self.does, "why_not": self.why_not}


@dataclass(frozen=True)
class FileChange:
    path: str
    change: str          # added | modified | removed
    added: int
    removed: int


@dataclass(frozen=True)
class StepView:
    """One pass as the views list it (a pass that did not run is `not-run`)."""

    number: int
    name: str
    status: str
    label: str           # the status as a person reads it ("to review")
    stat: str            # "+N -M" against the previous step ("" when not run)
    added: int
    removed: int
    unchanged: bool      # the pass changed nothing: "hide unchanged" hides it (never a failed or not-run one)
    seconds: float
    engine: str
    reason: str
    explain: str
    files: tuple[FileChange, ...]
    findings: tuple[dict, ...]
    conflicts: tuple[dict, ...]
    notes: tuple[str, ...]
    report: dict | None
    actions: dict[str, Action] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"number": self.number, "name": self.name, "status": self.status, "label": self.label,
                "stat": self.stat, "added": self.added, "removed": self.removed, "unchanged": self.unchanged,
                "seconds": round(self.seconds, 6), "engine": self.engine, "reason": self.reason,
                "explain": self.explain, "findings": list(self.findings), "conflicts": list(self.conflicts),
                "notes": list(self.notes), "report": self.report,
                "files": [{"path": f.path, "change": f.change, "added": f.added, "removed": f.removed}
                          for f in self.files],
                "actions": {k: a.to_json() for k, a in self.actions.items()}}


@dataclass(frozen=True)
class DraftError:
    """The cell's DSL draft did not lower: its diagnostic (rustc-style, with the line and carets)
    and its line. The view shows the session as the folder holds it, its review kept."""

    text: str
    line: int

    def to_json(self) -> dict:
        return {"text": self.text, "line": self.line}


@dataclass(frozen=True)
class StatusLine:
    """Where the pipeline stands and what to do next, in one line.

    `state`: draft-error | failed | incomplete | review | no-reference | ready | stale | verified | wrong."""

    state: str
    text: str

    def to_json(self) -> dict:
        return {"state": self.state, "text": self.text}


@dataclass(frozen=True)
class ViewModel:
    steps: tuple[StepView, ...]              # always the four passes, in order
    actions: dict[str, Action]               # compile, profile
    ready: bool
    review_next: str | None                  # the first step that needs review (pending or failed)
    status: StatusLine
    draft_error: DraftError | None = None    # the cell's draft did not lower (the session is shown as it was)

    def step(self, name: str) -> StepView:
        return next(s for s in self.steps if s.name == name)

    def to_json(self) -> dict:
        return {"passes": [s.to_json() for s in self.steps],
                "actions": {k: a.to_json() for k, a in self.actions.items()},
                "ready": self.ready, "review_next": self.review_next, "status": self.status.to_json(),
                "draft_error": self.draft_error.to_json() if self.draft_error else None}


def view_model(lab) -> ViewModel:
    """The view model of one session (a `Session`; only its public API is used)."""
    ran = list(lab.steps)
    steps = [_step_view(lab, s, ran) for s in ran]
    steps += [_not_run_view(lab, spec, ran) for spec in PIPELINE[len(ran):]]
    gate = _pipeline_gate(lab, ran)
    actions = {
        "compile": Action(gate is None, "compile the AscendC project on the emulator and compare it with the "
                                        "PyTorch reference", gate or ""),
        "profile": Action(gate is None, "ESTIMATED kernel time from the pipe model of the emulator's trace (not a "
                                        "measurement): the pipe that bounds it, its roofline fraction, what to try "
                                        "next, and its pipe timeline", gate or ""),
    }
    review_next = next((s.name for s in ran if s.status in ("pending", "failed")), None)
    draft_error = getattr(lab, "draft_error", None)
    status = _status_line(lab, ran, gate)
    if draft_error is not None:
        status = StatusLine("draft-error", f"the cell's DSL draft has an error at line {draft_error.line}, so it "
                                           "was not lowered: this is the session as it was, your review kept; "
                                           "fix the draft and run the cell again")
    return ViewModel(tuple(steps), actions, bool(lab.ready), review_next, status, draft_error)


# ----------------------------------------------------------------------------- steps
def _step_view(lab, s, ran: list) -> StepView:
    before = s.previous
    files = tuple(FileChange(d.path, _change(before, s.bundle, d.path), d.added, d.removed) for d in s.diffs)
    added, removed = sum(f.added for f in files), sum(f.removed for f in files)
    findings = tuple({**f.to_json(), "text": _finding_text(f, s, lab.dsl)} for f in s.findings)
    conflicts = tuple({"path": c.path, "line": c.line, "ours": list(c.ours), "theirs": list(c.theirs)}
                      for c in s.conflicts)
    return StepView(
        number=s.number, name=s.name, status=s.status, label=STATUS_LABELS[s.status], stat=s.stat,
        added=added, removed=removed,
        unchanged=s.status != "failed" and (s.status == "unchanged" or not (added or removed)),
        seconds=s.seconds, engine=s.engine, reason=s.spec.reason, explain=s.spec.explain, files=files,
        findings=findings, conflicts=conflicts, notes=tuple(s.notes), report=s.report,
        actions={"accept": _accept(s, ran), "edit": _edit(s, files), "undo": _undo(s, ran),
                 "regenerate": _regenerate(lab, s)})


def _finding_text(f, s, dsl: str) -> str:
    """A finding as the step it is shown at names it: `[compute/queue-balance]`; a check of an
    earlier pass, run again on this step's text, says whose check it is."""
    text = f.render("kernel.dsl.py", dsl)
    if f.pass_name == s.name:
        return text
    origin = next((p for p in PIPELINE if p.name == f.pass_name), None)
    whose = f"pass {origin.number} ({origin.name})'s check, run again on this step" if origin else f.pass_name
    return text.replace(f"[{f.pass_name}/{f.kind}]", f"[{s.name}/{f.kind}, {whose}]", 1)


def _not_run_view(lab, spec, ran: list) -> StepView:
    why = _not_run(lab, spec, ran)
    closed = {a: Action(False, _DOES_NOT_RUN[a].format(n=spec.number, name=spec.name), why) for a in STEP_ACTIONS}
    return StepView(number=spec.number, name=spec.name, status="not-run", label=STATUS_LABELS["not-run"], stat="",
                    added=0, removed=0, unchanged=False, seconds=0.0, engine=lab.engine, reason=spec.reason,
                    explain=spec.explain, files=(), findings=(), conflicts=(), notes=(), report=None,
                    actions=closed)


_DOES_NOT_RUN = {"accept": "accept pass {n} ({name}) as generated", "edit": "edit pass {n} ({name})",
                 "undo": "undo pass {n} ({name})", "regenerate": "run pass {n} ({name}) again"}


def _change(before, after, path: str) -> str:
    if before is None or path not in before.files:
        return "added"
    return "removed" if path not in after.files else "modified"


def _pass(s) -> str:
    return f"pass {s.number} ({s.name})"


def _accept(s, ran: list) -> Action:
    does = f"accept {_pass(s)} as generated"
    if s.status == "pending":
        return Action(True, does)
    if s.status == "failed":
        return Action(False, does, f"a failed step cannot be accepted: {_fix(s, ran)}")
    why = {"accepted": f"{_pass(s)} is already accepted (Undo withdraws the acceptance)",
           "edited": f"your edit is the output of {_pass(s)}: there is nothing to accept (Undo drops the edit)",
           "unchanged": f"{_pass(s)} changed nothing: there is nothing to accept"}[s.status]
    return Action(False, does, why)


def _edit(s, files: tuple[FileChange, ...]) -> Action:
    does = f"edit the output of {_pass(s)} (later steps are re-derived and merged with your edit)"
    if not files:
        return Action(False, does, f"{_pass(s)} changed no file: there is no output of its own to edit")
    return Action(True, does)


def _undo(s, ran: list) -> Action:
    if s.edited:
        return Action(True, f"drop your edit of {_pass(s)}: its generated output comes back and later steps "
                            "are re-derived")
    if s.status == "accepted":
        return Action(True, f"withdraw the acceptance of {_pass(s)}: it goes back to review")
    does = f"undo your edit or acceptance of {_pass(s)}"
    if s.status == "failed":
        return Action(False, does, f"nothing to undo: {_pass(s)} holds no edit of yours; {_fix(s, ran)}")
    why = {"pending": f"nothing to undo: {_pass(s)} is neither accepted nor edited",
           "unchanged": f"nothing to undo: {_pass(s)} changed nothing"}[s.status]
    return Action(False, does, why)


def _regenerate(lab, s) -> Action:
    if s.edited:
        return Action(True, f"run {_pass(s)} again from the previous step, dropping your edit of it")
    if lab.engine == "rule":
        return Action(True, f"run {_pass(s)} again from the previous step (the rule engine is deterministic: "
                            "the same output, to review again)")
    return Action(True, f"run {_pass(s)} again from the previous step and review it again")


def _fix(s, ran: list) -> str:
    """What mends a failed step, as the last part of a sentence."""
    if s.conflicts and s.edited:   # the user's edit of this step and a later edit of an earlier one overlap
        c = s.conflicts[0]
        origin = next((e for e in reversed(ran) if e.number < s.number and e.edited), None)
        since = f"your edit of {_pass(origin)}" if origin is not None else "the step's new output"
        return (f"resolve its conflict at {c.path}:{c.line} (your edit of this step against {since}, made since) "
                "by editing this step, or Undo to drop this step's edit")
    if s.conflicts:
        c = s.conflicts[0]
        origin = next((e for e in reversed(ran) if e.number < s.number and e.edited), None)
        undo = f"undo your edit of {_pass(origin)}" if origin is not None else "undo the earlier edit"
        return f"resolve its conflict at {c.path}:{c.line} (from an earlier edit) by editing this step, or {undo}"
    earlier = next((e for e in ran if e.number < s.number and e.status == "failed"), None)
    if earlier is not None:        # an earlier pass's errors count again at every later step
        return f"{_pass(earlier)} failed before it: mend that step first"
    if not s.diffs:                # the pass could not lower the draft: there is no output to edit
        return "change the DSL draft (the pass could not lower it, so it made no output to edit)"
    return "change the DSL draft, or edit the step so its checks pass"


def _not_run(lab, spec, ran: list) -> str:
    failed = next((s for s in ran if s.status == "failed"), None)
    if lab.until and spec.number > len(ran) and failed is None:
        return f"pass {spec.number} ({spec.name}) has not run: the session stops after `{lab.until}` (--until)"
    if failed is not None:
        return f"pass {spec.number} ({spec.name}) has not run: {_pass(failed)} failed before it"
    return f"pass {spec.number} ({spec.name}) has not run"


# ----------------------------------------------------------------------------- the pipeline
def _pipeline_gate(lab, ran: list) -> str | None:
    """Why compile & verify (and Profile, which runs the same project) cannot run now, or None."""
    failed = next((s for s in ran if s.status == "failed"), None)
    if failed is not None:
        return f"{_pass(failed)} failed, so there is nothing to compile: {_fix(failed, ran)}"
    if len(ran) < len(PIPELINE):
        return (f"the session stops after pass `{lab.until}` (--until): there is no AscendC project to compile; "
                "open it without --until")
    todo = [s.name for s in ran if s.status not in REVIEWED]
    if todo:
        return f"accept or edit every step first (to review: {', '.join(todo)})"
    if lab.reference is None:
        return "this session has no PyTorch reference to verify against: give it one with --ref REF.py"
    return None


def _status_line(lab, ran: list, gate: str | None) -> StatusLine:
    r = lab.result
    stale = "the steps changed since the last run; " if r is not None and not r.current else ""
    if gate is not None:
        failed = next((s for s in ran if s.status == "failed"), None)
        if failed is not None:
            return StatusLine("failed", f"{stale}{_pass(failed)} failed: {_fix(failed, ran)}")
        if len(ran) < len(PIPELINE):
            return StatusLine("incomplete", stale + gate)
        if lab.reference is None and lab.ready:
            return StatusLine("no-reference", stale + gate)
        return StatusLine("review", f"{stale}to compile & verify, {gate}")
    if r is None:
        return StatusLine("ready", "every step is reviewed: Compile & verify runs it on the emulator and "
                                   "compares it with PyTorch")
    if stale:
        return StatusLine("stale", "the steps changed since the last run: compile & verify again")
    return StatusLine("verified" if r.correct else "wrong",
                      f"{'verified' if r.correct else 'not verified'} on the {r.backend} ({r.soc}): {r.message}")
