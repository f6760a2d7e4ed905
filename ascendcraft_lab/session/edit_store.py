"""The user's edits as the session folder keeps them, and what the lowering does with them.

An edit of step k is the bundle the user wants step k to carry on with, kept in
`stages/NN-pass.edit/` (`SessionFolder.save_edit`), and a line of the manifest's edit log
(`notebook.edits.<pass>`: the hash of the DSL draft it was made for and when). The lowering
gives the edits to the pass manager (`edits_for_lowering`): an edit replaces its step's output,
and every later step is regenerated and three-way merged with it (passes/manager.py), an
overlap becoming a conflict on the later step. `edit_notes` says where that policy may
surprise: an edit made for an earlier draft, or an edited step that an edit of an earlier step,
made after it, does not reach.

Nothing here drops an edit on its own: only `drop_edit` does, when the user undoes the edit or
regenerates its step. The user's actions (accept, edit, undo, regenerate, adopt) are in `edits.py`.
"""
from __future__ import annotations

import time
from typing import Mapping

from ..atomic import NotText, read_text
from ..passes.bundle import Bundle
from ..passes.manager import Step
from ..passes.pipeline import get_pass
from .errors import SessionError
from .folder import PROJECT, SessionFolder, listing, locked, read_manifest, text_hash


def edits_for_lowering(folder: SessionFolder) -> dict[str, Bundle]:
    """The edits the next lowering applies, by pass name."""
    return folder.edits()


def save_edit(folder: SessionFolder, name: str, bundle: Bundle, dsl: str) -> None:
    """Keep `bundle` as the user's edit of pass `name`, made for the draft `dsl`."""
    with locked(folder):
        folder.save_edit(name, bundle)
        manifest = read_manifest(folder)
        log_edit(manifest, name, dsl)
        folder.save_manifest(manifest)


def drop_edit(folder: SessionFolder, name: str) -> None:
    """Forget the user's edit of pass `name` (its bundle and its line of the log)."""
    with locked(folder):
        folder.drop_edit(name)
        manifest = read_manifest(folder)
        manifest.get("notebook", {}).get("edits", {}).pop(name, None)
        folder.save_manifest(manifest)


def log_edit(manifest: dict, name: str, dsl: str) -> None:
    manifest.setdefault("notebook", {}).setdefault("edits", {})[name] = {"dsl_hash": text_hash(dsl), "at": time.time()}


def edit_log(manifest: dict, steps: list[Step]) -> dict[str, dict]:
    """The manifest's edit log, without the lines of steps that are not edited any more."""
    log = manifest.setdefault("notebook", {}).setdefault("edits", {})
    edited = {s.spec.name for s in steps if s.edited}
    for name in [n for n in log if n not in edited]:
        log.pop(name)
    return log


def edit_notes(step: Step, log: Mapping[str, dict], dsl: str) -> list[str]:
    """What the user should know about the edit of `step`: it was made for another draft, or an
    edit of an earlier step made after it is not in it (an edit replaces its step)."""
    if not step.edited:
        return []
    notes = []
    meta = log.get(step.spec.name, {})
    if meta.get("dsl_hash") and meta["dsl_hash"] != text_hash(dsl):
        notes.append("this edit was made for an earlier DSL draft and replaces the regenerated step; "
                     "undo it to take the new output")
    later_edits = [n for n, m in log.items()
                   if get_pass(n).number < step.spec.number and m.get("at", 0) > meta.get("at", 0)]
    if later_edits:
        notes.append(f"your later edit of {', '.join(later_edits)} is not in this edited step "
                     "(an edit replaces the step); undo this edit to re-derive it")
    return notes


def adopt_hand_edits(folder: SessionFolder, paths: list[str], steps: list[Step], manifest: dict, dsl: str) -> list[str]:
    """Keep hand edits of generated files (`paths`, relative to the folder) as edits of the steps
    whose output they are (`ascendc/` is the last step's); the notes saying so."""
    notes = []
    step_of = {s.spec.name: s for s in steps}
    for name, changed in _hand_edits_by_step(folder, paths).items():
        step = step_of.get(name)
        if step is None:
            raise SessionError(f"error: pass {get_pass(name).number} ({name}) did not run this time, so its hand "
                               "edit cannot become an edit of it\n  = help: lower without --until")
        unknown = [p for p in changed if p not in step.bundle.files]
        if unknown:
            raise SessionError(f"error: {unknown[0]} is not a file of pass {step.spec.number} ({name})")
        folder.save_edit(name, step.bundle.with_files(changed))
        log_edit(manifest, name, dsl)
        notes.append(f"adopted the hand edit of {listing(sorted(changed))} as an edit of pass "
                     f"{step.spec.number} ({name}), kept in stages/{step.spec.dirname}.edit/")
    folder.save_manifest(manifest)
    return notes


def _hand_edits_by_step(folder: SessionFolder, paths: list[str]) -> dict[str, dict[str, str]]:
    """{pass: {file in the step's bundle: text on disk}}; the same file changed differently in its
    stage and in the project is refused."""
    by_step: dict[str, dict[str, str]] = {}
    for rel in paths:
        name = folder.owner_of(rel)
        inner = rel.split("/", 2)[2] if rel.startswith("stages/") else rel.split("/", 1)[1]
        try:
            text = read_text(folder.path / rel)
        except NotText as exc:
            raise SessionError(f"error: {exc}") from None
        mine = by_step.setdefault(name, {})
        if mine.get(inner, text) != text:
            raise SessionError(f"error: {inner} was changed by hand both in stages/{get_pass(name).dirname}/ and in "
                               f"{PROJECT}/, differently\n  = help: keep one of the two changes, then adopt it")
        mine[inner] = text
    return by_step
