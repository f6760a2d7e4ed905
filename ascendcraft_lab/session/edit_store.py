"""The user's edits as the session folder keeps them, and what the lowering does with them.

An edit of step k is the bundle the user wants step k to carry on with, kept in
`stages/NN-pass.edit/` (`SessionFolder.save_edit`), and a line of the manifest's edit log
(`notebook.edits.<pass>`: the hash of the DSL draft it was made for and when). The lowering
gives the edits to the pass manager (`edits_for_lowering`): an edit replaces its step's output,
and every later step is regenerated and three-way merged with it (passes/manager.py), an
overlap becoming a conflict on the later step. An edit keeps what its step held when it was
made (its base), so when the step changes under it (a later edit of an earlier step, a new
draft) the edit is merged with the new output, an overlap becoming a conflict on the edited
step itself: a later edit is never silently undone by an earlier one. `edit_notes` says where
the policy may surprise: an edit made for an earlier draft, or (an edit kept without its base,
from an older folder) an edited step that a later edit of an earlier step does not reach.

Nothing here drops an edit on its own: only `drop_edit` does, when the user undoes the edit or
regenerates its step. The user's actions (accept, edit, undo, regenerate, adopt) are in `edits.py`.
"""
from __future__ import annotations

import json
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from ..atomic import NotText, read_text, write_json
from ..passes.bundle import Bundle
from ..passes.manager import Edit, Step
from ..passes.pipeline import get_pass
from .errors import SessionError
from .folder import PROJECT, SessionFolder, listing, locked, read_manifest, text_hash


def edits_for_lowering(folder: SessionFolder) -> dict[str, Edit]:
    """The edits the next lowering applies, by pass name."""
    return folder.edits()


def save_edit(folder: SessionFolder, name: str, bundle: Bundle, dsl: str, base: Bundle | None = None) -> None:
    """Keep `bundle` as the user's edit of pass `name`, made for the draft `dsl` on the step as it
    was (`base`: what the step holds without its edit)."""
    with locked(folder):
        folder.save_edit(name, bundle, base)
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
        notes.append("this edit was made for an earlier DSL draft and is merged into the new output (an overlap "
                     "is a conflict); undo it to take the new output alone" if step.merged_edit else
                     "this edit was made for an earlier DSL draft and replaces the regenerated step; "
                     "undo it to take the new output")
    later_edits = [n for n, m in log.items()
                   if get_pass(n).number < step.spec.number and m.get("at", 0) > meta.get("at", 0)]
    if later_edits and not step.merged_edit:
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
        folder.save_edit(name, step.bundle.with_files(changed), step.before_edit)
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


# ----------------------------------------------------------------------------- setting a review aside
SET_ASIDE = "set-aside"
REVIEW_FILE = "review.json"


@dataclass(frozen=True)
class SetAside:
    """A review (edits and acceptances) moved out of a session's way, kept in `path`."""

    path: Path
    edited: tuple[str, ...]
    accepted: tuple[str, ...]

    def describe(self) -> str:
        """'your edit of pass 2 (init) and the acceptance of pass 1 (host)'."""
        return describe_review(self.edited, self.accepted)


def describe_review(edited, accepted) -> str:
    parts = []
    if edited:
        parts.append(f"your edit{'s' if len(edited) > 1 else ''} of {_passes(edited)}")
    if accepted:
        parts.append(f"the acceptance of {_passes(accepted)}")
    return " and ".join(parts)


def _passes(names) -> str:
    steps = sorted((get_pass(n) for n in names), key=lambda p: p.number)
    return ", ".join(f"pass {p.number} ({p.name})" for p in steps)


def reviewed_steps(folder: SessionFolder) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(edited, accepted) pass names of the review the folder holds."""
    steps = read_manifest(folder).get("steps", {})
    edited = tuple(sorted(folder.edits(), key=lambda n: get_pass(n).number))
    accepted = tuple(n for n, s in steps.items() if s.get("status") == "accepted" and n not in edited)
    return edited, accepted


def set_aside_review(folder: SessionFolder) -> SetAside | None:
    """Move the folder's edits and acceptances into `set-aside/<stamp>/` (None when it holds
    none), so the next lowering starts from the draft alone; `restore_review` brings them back."""
    with locked(folder):
        edited, accepted = reviewed_steps(folder)
        if not edited and not accepted:
            return None
        dest = _fresh_dir(folder.path / SET_ASIDE)
        manifest = read_manifest(folder)
        for name in edited:
            shutil.move(str(folder.edit_dir(name)), str(dest / folder.edit_dir(name).name))
        write_json(dest / REVIEW_FILE, {"accepted": list(accepted), "edited": list(edited),
                                        "edits": manifest.get("notebook", {}).get("edits", {}),
                                        "dsl_hash": manifest.get("dsl_hash")})
        for name, step in manifest.get("steps", {}).items():
            if step.get("status") in ("accepted", "edited"):
                step["status"] = "pending"
        manifest.get("notebook", {}).pop("edits", None)
        folder.save_manifest(manifest)
        return SetAside(dest, edited, accepted)


def restore_review(folder: SessionFolder, stamp: str | None = None) -> SetAside:
    """Bring a set-aside review back (the newest without `stamp`); an edit the folder holds now
    for the same step is itself set aside first, so nothing is lost either way."""
    with locked(folder):
        kept = sorted(p for p in (folder.path / SET_ASIDE).glob("*") if (p / REVIEW_FILE).is_file())
        chosen = [p for p in kept if stamp is None or p.name == stamp]
        if not chosen:
            names = ", ".join(p.name for p in kept) or "none"
            raise SessionError(f"error: no set-aside review {stamp or ''} in {folder.path / SET_ASIDE}\n"
                               f"  = help: the set-aside reviews are: {names}")
        src = chosen[-1]
        review = json.loads(read_text(src / REVIEW_FILE, "set-aside review"))
        clash = [n for n in review["edited"] if folder.edit_dir(n).is_dir()]
        if clash:
            set_aside_review(folder)
        for name in review["edited"]:
            shutil.move(str(src / folder.edit_dir(name).name), str(folder.edit_dir(name)))
        manifest = read_manifest(folder)
        manifest.setdefault("notebook", {}).setdefault("edits", {}).update(review.get("edits", {}))
        for name in review["accepted"]:
            if name in manifest.get("steps", {}):
                manifest["steps"][name]["status"] = "accepted"
        folder.save_manifest(manifest)
        shutil.rmtree(src, ignore_errors=True)
        return SetAside(src, tuple(review["edited"]), tuple(review["accepted"]))


def _fresh_dir(root: Path) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for n in range(100):
        path = root / (stamp if n == 0 else f"{stamp}-{n}")
        try:
            path.mkdir(parents=True)
            return path
        except FileExistsError:
            continue
    raise SessionError(f"error: cannot make a new folder under {root}")
