"""The user's review of the steps: accept, edit, undo, regenerate, adopt hand edits.

Each action changes the session folder (a step's status in the manifest, or an edit in
`stages/NN-pass.edit/`, edit_store.py) and, when an edit changed, lowers again so that every
later step is re-derived and merged with it (the merge policy is in edit_store.py; a
conflict is resolved by editing the conflicted step). A step's status changes only here and
in the lowering (lower.py); a failed step cannot be accepted.
"""
from __future__ import annotations

from pathlib import Path
from typing import Mapping

from .edit_store import adopt_hand_edits, drop_edit, save_edit
from .errors import SessionError
from .folder import locked, read_manifest
from .lower import commit, lower, lowering, plan_lowering, rerun
from .state import SessionState, StepState, bundle_hash


def accept(state: SessionState, which) -> None:
    """Mark a step reviewed as generated. A failed step cannot be accepted: fix it first."""
    s = state.step(which)
    if s.status == "failed":
        raise SessionError(f"error: pass {s.number} ({s.name}) failed and cannot be accepted\n"
                           f"  = help: {fix_hint(s)}")
    if s.status in ("pending", "accepted"):
        set_status(state, s.name, "accepted")


def accept_all(state: SessionState) -> None:
    """Accept every pending step (as `ascendcraft lower` does); failed steps stay failed."""
    for s in state.step_states:
        if s.status == "pending":
            set_status(state, s.name, "accepted", save=False)
    save_statuses(state)


def edit(state: SessionState, which, text_or_files: str | Mapping[str, str], path: str | None = None) -> bool:
    """Replace a step's output with your text; later steps are re-derived and merged with it.

    `text_or_files` is the new text of one file (`path`, needed when the step changed several
    files) or a mapping {path: text}. The edit is saved in the session folder; overlaps with
    regenerated text become conflicts on the later step (`SessionState.conflicts`). False, and
    nothing written, when the step already holds that text (e.g. a notebook run again that
    repeats an edit its first run made)."""
    s = state.step(which)
    files = edited_files(s, text_or_files, path)
    if all(s.bundle.files[p] == t for p, t in files.items()):
        return False
    with locked(state.folder):
        save_edit(state.folder, s.name, s.bundle.with_files(files), state.dsl, s.step.before_edit)
        lower(state)
    return True


def edited_files(s: StepState, text_or_files: str | Mapping[str, str], path: str | None) -> dict[str, str]:
    """{path: text} of an edit of step `s`, each path one of its files, each text ending in a newline."""
    if isinstance(text_or_files, str):
        if path is None:
            changed = [d.path for d in s.diffs]
            if len(changed) != 1:
                raise SessionError(f"error: pass {s.number} ({s.name}) changed {len(changed)} files: name the one "
                                   f"you edit\n  = help: lab.edit({s.name!r}, text, path=...) with one of: "
                                   f"{', '.join(s.bundle.files)}")
            path = changed[0]
        files = {path: text_or_files}
    else:
        files = dict(text_or_files)
    unknown = [p for p in files if p not in s.bundle.files]
    if unknown:
        raise SessionError(f"error: pass {s.number} ({s.name}) has no file {unknown[0]}\n"
                           f"  = help: its files are {', '.join(s.bundle.files)}")
    return {p: t if t.endswith("\n") or not t else t + "\n" for p, t in files.items()}


def undo(state: SessionState, which) -> None:
    """Drop a step's edit (later steps are re-derived without it), or withdraw its acceptance."""
    s = state.step(which)
    if s.status == "edited" or s.edited:
        drop_edit(state.folder, s.name)
        lower(state)
    elif s.status == "accepted":
        set_status(state, s.name, "pending")
    else:
        raise SessionError(f"error: pass {s.number} ({s.name}) is {s.status}: there is no edit or acceptance to undo")


def regenerate(state: SessionState, which) -> None:
    """Run the pass again from the previous step, dropping any edit of it; review it anew."""
    s = state.step(which)
    if s.edited:
        drop_edit(state.folder, s.name)
    set_status(state, s.name, "pending")
    before = bundle_hash(s.generated)
    lower(state)
    if state.engine == "rule" and bundle_hash(state.step(s.name).generated) == before:
        state.notes.append(f"pass {s.number} ({s.name}) regenerated: the rule engine is deterministic, "
                           "so its output is the same")


def adopt(state: SessionState, reference: Path | None = None, accept_all: bool = False) -> None:
    """Lower, making the hand edits of generated files (stages/NN-pass/, ascendc/) edits of their steps.

    `ascendc/` is the last step's output, so a change there becomes an edit of pass 4; the
    edit is kept in stages/NN-pass.edit/ and merged into every later lowering."""
    with lowering(state) as engine:
        plan = plan_lowering(state, engine, reference)
        if plan.by_hand:
            state.notes += adopt_hand_edits(state.folder, plan.by_hand, plan.steps, plan.manifest, state.dsl)
            plan = rerun(state, plan)
        commit(state, plan, accept_all)


def set_status(state: SessionState, name: str, status: str, save: bool = True) -> None:
    state.step_states = [StepState(s.step, status, s.notes) if s.name == name else s for s in state.step_states]
    if save:
        save_statuses(state)


def save_statuses(state: SessionState) -> None:
    """Every step's status into the manifest; a verdict no longer covers steps that are not all reviewed."""
    with locked(state.folder):
        manifest = read_manifest(state.folder)
        for s in state.step_states:
            if s.name in manifest.get("steps", {}):
                manifest["steps"][s.name]["status"] = s.status
        state.folder.save_manifest(manifest)
    if state.result is not None and not state.ready:
        state.result.current = False


def fix_hint(s: StepState) -> str:
    """How to fix a failed step: resolve its conflict, or change the draft or the step."""
    if s.conflicts:
        c = s.conflicts[0]
        return (f"resolve the conflict at {c.path}:{c.line}: lab.edit({s.name!r}, ...) with the markers removed, "
                f"or undo the earlier edit")
    return "change the DSL draft, or edit the step so its checks pass"
