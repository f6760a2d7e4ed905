"""`LabSession`: the session layer's `Session` as a notebook shows it, and the live sessions.

A `LabSession` is a `Session` whose display in a cell is the pipeline view (`display.py`);
`remember` / `find_session` keep track of the session each folder's view acts on, so the
view and the code in cells share one state (see `comm.py`).
"""
from __future__ import annotations

import weakref
from pathlib import Path

from ..session import Session, SessionError
from .display import mimebundle

LabError = SessionError           # the notebook's name for a problem the user can fix


class LabSession(Session):
    """A `Session` that displays as the pipeline view. `draft_error` (a `viewmodel.DraftError`):
    the cell's draft did not lower, and this is the session as its folder holds it."""

    draft_error = None

    def edit(self, which, text_or_files, path=None) -> "LabSession":
        """`Session.edit`, saying so in the cell when the step already holds the text (a notebook
        run again repeats its edits: that is no reason to stop it)."""
        super().edit(which, text_or_files, path)
        if self.notice:
            print(self.notice)
        return self

    def restore_set_aside(self, stamp: str | None = None) -> "LabSession":
        super().restore_set_aside(stamp)
        print(self.notice)
        return self

    def _repr_mimebundle_(self, include=None, exclude=None):
        remember(self)          # the extension's requests for this folder act on this very session
        return mimebundle(self)


# Sessions displayed in this kernel (weak: the notebook's Out keeps them alive) and sessions the
# comm resumed from their folder itself (strong: nothing else holds them).
_DISPLAYED: "weakref.WeakValueDictionary[str, Session]" = weakref.WeakValueDictionary()
_RESUMED: dict[str, LabSession] = {}


def _key(folder: str | Path) -> str:
    return str(Path(folder).expanduser().resolve())


def remember(lab: Session) -> None:
    """Note `lab` as the live session for its folder (call it where a session is displayed)."""
    _DISPLAYED[_key(lab.folder.path)] = lab
    _RESUMED.pop(_key(lab.folder.path), None)


def find_session(folder: str | Path, user_ns: dict) -> Session:
    """The live session for `folder` (displayed, or in `Out` / the user's variables), or the
    session resumed from the folder."""
    key = _key(folder)
    lab = _DISPLAYED.get(key)
    if lab is not None:
        return lab
    out = user_ns.get("Out")
    candidates = [out[k] for k in sorted(out, reverse=True)] if isinstance(out, dict) else []
    candidates += list(user_ns.values())
    for value in candidates:
        if isinstance(value, Session) and _key(value.folder.path) == key:
            return value
    if key not in _RESUMED:
        _RESUMED[key] = LabSession.resume(folder)
    return _RESUMED[key]
