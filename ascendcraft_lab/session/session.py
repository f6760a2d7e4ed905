"""`Session`: the facade through which the CLI, the notebook and the demo drive one session folder.

It opens or resumes a session and offers every action as a method that returns the session,
so a notebook cell ending in `lab.accept("host")` shows the updated pipeline; views register
a callback (`on_change`) and redraw after every change. The work is done by plain functions
over the session folder, one module per concern:

- `lower.py`: settings, binding the reference, the four passes with the folder's edits, each
  step's state, the one commit that writes stages, project and manifest;
- `edits.py`: accept, edit, undo, regenerate, adopt hand edits (the edits as the folder keeps
  them, and how they are merged, in `edit_store.py`);
- `check.py`: compile & verify on the emulator or an NPU, one record per run in runs/;
- `estimate.py`: the ESTIMATED profile and the tiling ranking;
- `folder.py`: the folder's format and the checks made of it before writing;
- `state.py`: what the session holds between actions (`SessionState`, which this class is).

Everything lives in the folder, so `Session.resume(folder)` in a fresh process shows the same
steps and verdict. Every failure a user can cause is a `SessionError` whose `str` is one
diagnostic, pointing at the DSL line where there is one; the cause stays attached.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping

from ..perf.report import Profile
from . import check, edit_store, edits, estimate
from .errors import SessionError
from .folder import SessionFolder, refuse_unsuitable, require_session
from .lower import lower, reference_source, settle
from .state import CheckResult, SessionState, summary

Progress = Callable[[str], None]


def resume_notice(lab: SessionState, kept: tuple[tuple[str, ...], tuple[str, ...]],
                  aside: "edit_store.SetAside | None") -> str | None:
    """What became of the review the folder held when it was opened: set aside by a fresh
    start, or kept (a notebook cell run again resumes its session; say so, so that nobody is
    surprised by steps already accepted or edited)."""
    if aside is not None:
        them = "them" if len(aside.edited + aside.accepted) > 1 else "it"
        return (f"started `{lab.name}` afresh from this draft: {aside.describe()} set aside in "
                f"{aside.path} (`.restore_set_aside()` brings {them} back)")
    edited = tuple(s.name for s in lab.step_states if s.edited and s.name in kept[0])
    accepted = tuple(s.name for s in lab.step_states if s.status == "accepted" and s.name in kept[1])
    if not edited and not accepted:
        return None
    return (f"resumed `{lab.name}` from {lab.folder.path}: kept {edit_store.describe_review(edited, accepted)} "
            "from an earlier run")


class Session(SessionState):
    """The pipeline of one kernel in its session folder; see the module docstring.

    Open with `Session.open(folder, dsl, reference=..., soc=...)` (creates or resumes) or
    `Session.resume(folder)` (everything from the folder). Mutators return the session.
    """

    def __init__(self, folder: str | Path):
        super().__init__(SessionFolder(folder))
        self._listeners: list[Callable[["Session"], None]] = []

    # ----------------------------------------------------------------------------- opening
    @classmethod
    def open(cls, folder: str | Path, dsl: str | None = None, *, reference: str | Path | None = None,
             soc: str | None = None, engine: str | None = None, until: str | None = None,
             overrides: Mapping[str, Any] | None = None, dsl_name: str | None = None,
             accept_all: bool = False, adopt_edits: bool = False, fresh: bool = False) -> "Session":
        """Lower `dsl` into `folder` (created, or resumed with its edits and acceptances).

        `dsl=None` takes the draft already in the folder. `reference` is copied into the folder;
        without it the folder's copy is used. `dsl_name` is the name the draft is known by in
        messages and generated comments (default: the folder's record, else `kernel.dsl.py`).
        Settings left as None come from the folder. `accept_all` accepts every step that does
        not fail (as the command line does). Generated files changed by hand are refused (they
        would be overwritten), unless `adopt_edits` makes each an edit of the step it belongs to
        (`ascendc/` is the last step's output). `fresh` starts from the draft alone: the
        folder's edits and acceptances are set aside in set-aside/<stamp>/ (`restore_set_aside`).
        `notice` says what became of an earlier review (kept, or set aside). When the lowering
        fails (the draft has an error), the folder is left as it was, its review included.
        """
        lab = cls(folder)
        refuse_unsuitable(lab.folder)
        settle(lab, dsl, soc=soc, engine=engine, until=until, overrides=overrides, dsl_name=dsl_name)
        source = reference_source(reference)
        aside = edit_store.set_aside_review(lab.folder) if fresh and lab.folder.exists() else None
        kept = edit_store.reviewed_steps(lab.folder) if lab.folder.exists() else ((), ())
        try:
            (edits.adopt if adopt_edits else lower)(lab, source, accept_all)
        except SessionError:
            if aside is not None:      # a draft that does not lower changes nothing: the review comes back
                edit_store.restore_review(lab.folder, aside.path.name)
            raise
        lab.notice = resume_notice(lab, kept, aside)
        return lab

    @classmethod
    def resume(cls, folder: str | Path) -> "Session":
        """The session as its folder holds it (draft, SoC, edits, acceptances, last verdict)."""
        require_session(folder)
        return cls.open(folder)

    # ----------------------------------------------------------------------------- views
    def diff(self, which, path: str | None = None) -> str:
        """The unified diff a step made (every file it changed, or only `path`)."""
        s = self.step(which)
        texts = [d.text for d in s.diffs if path is None or d.path == path]
        return "\n".join(texts) if texts else f"pass {s.number} ({s.name}) did not change {path or 'any file'}"

    def text(self, path: str, which=None) -> str:
        """A file of the project as it stands after a step (default: the last step that ran)."""
        s = self.step(which) if which is not None else self.step_states[-1]
        if path not in s.bundle.files:
            raise SessionError(f"error: no file {path} after pass {s.number} ({s.name})\n"
                               f"  = help: its files are {', '.join(s.bundle.files)}")
        return s.bundle.files[path]

    def summary(self) -> str:
        """The plain-text view: one line per pass, findings, conflicts, notes and the verdict."""
        return summary(self)

    def __repr__(self) -> str:
        states = ", ".join(f"{s.name}={s.status}" for s in self.step_states)
        return f"<{type(self).__name__} {self.name} at {self.folder.path}: {states}>"

    def _repr_pretty_(self, p, cycle):
        p.text(self.summary())

    # ----------------------------------------------------------------------------- review (edits.py)
    def accept(self, which) -> "Session":
        """Mark a step reviewed as generated. A failed step cannot be accepted: fix it first."""
        edits.accept(self, which)
        return self._changed()

    def accept_all(self) -> "Session":
        """Accept every pending step (as `ascendcraft lower` does); failed steps stay failed."""
        edits.accept_all(self)
        return self._changed()

    def edit(self, which, text_or_files: str | Mapping[str, str], path: str | None = None) -> "Session":
        """Replace a step's output with your text; later steps are re-derived and merged with it.

        `text_or_files` is the new text of one file (`path`, needed when the step changed
        several files) or a mapping {path: text}. The edit is saved in the session folder;
        overlaps with regenerated text become conflicts on the later step (see `conflicts`).
        """
        self.notice = None
        if not edits.edit(self, which, text_or_files, path):
            s = self.step(which)
            self.notice = (f"note: pass {s.number} ({s.name}) already holds this text: nothing to change "
                           f"({'your edit is kept' if s.edited else 'it is what the pass generated'})")
        return self._changed()

    def restore_set_aside(self, stamp: str | None = None) -> "Session":
        """Bring back the edits and acceptances a fresh start set aside (the newest, or `stamp`'s)
        and lower with them; what the folder held instead is set aside in its turn."""
        back = edit_store.restore_review(self.folder, stamp)
        lower(self)
        self.notice = f"restored {back.describe()} from {back.path}"
        return self._changed()

    def undo(self, which) -> "Session":
        """Drop a step's edit (later steps are re-derived without it), or withdraw its acceptance."""
        edits.undo(self, which)
        return self._changed()

    def regenerate(self, which) -> "Session":
        """Run the pass again from the previous step, dropping any edit of it; review it anew."""
        edits.regenerate(self, which)
        return self._changed()

    def adopt_edits(self) -> "Session":
        """Make the hand edits of generated files (stages/NN-pass/, ascendc/) edits of their steps.

        `ascendc/` is the last step's output, so a change there becomes an edit of pass 4;
        the edit is kept in stages/NN-pass.edit/ and merged into every later lowering."""
        edits.adopt(self)
        return self._changed()

    # ----------------------------------------------------------------------------- verify (check.py, estimate.py)
    def verify(self, backend: str = "emulator", *, reviewed: bool = True, seed: int = 0,
               overrides: Mapping[str, Any] | None = None, reference: str | Path | None = None,
               progress: Progress | None = None, npu_draws: str = "project") -> CheckResult:
        """Compile the final AscendC project, run it and compare with the PyTorch reference.

        `reviewed=False` verifies without asking for every step to be accepted (the CLI's
        `check`, which reviews nothing); `overrides` and `seed` pick the input set (default: the
        session's), `reference` another reference file; `npu_draws` how the cann backend draws
        its inputs. Every run is recorded in runs/."""
        result = check.verify_session(self, backend, reviewed=reviewed, seed=seed, overrides=overrides,
                                      reference=reference, progress=progress, npu_draws=npu_draws)
        self._changed()
        return result

    def compile_and_verify(self, backend: str = "emulator", *, progress: Progress | None = None) -> CheckResult:
        """The notebook's Compile & verify: every step must be reviewed first."""
        return self.verify(backend, progress=progress)

    def estimate(self, *, seed: int = 0, overrides: Mapping[str, Any] | None = None,
                 reference: str | Path | None = None, progress: Progress | None = None) -> Profile:
        """The ESTIMATED profile, offline (estimate.py); recorded in runs/ (backend `model`)."""
        return estimate.estimate(self, seed=seed, overrides=overrides, reference=reference, progress=progress)

    def rank_tiling(self, *, seed: int = 0, progress: Progress | None = None) -> list[dict]:
        """Rank the tiling candidates by the ESTIMATED kernel time (estimate.py); the ranking
        joins the tiling explanation until the next lowering, and views redraw with it."""
        ranking = estimate.rank_tiling(self, seed=seed, progress=progress)
        self._changed()
        return ranking

    # ----------------------------------------------------------------------------- callbacks
    def on_change(self, callback: Callable[["Session"], None]) -> None:
        """Call `callback(session)` after every change (views refresh themselves with it)."""
        self._listeners.append(callback)

    def _changed(self) -> "Session":
        for fn in list(self._listeners):
            fn(self)
        return self
