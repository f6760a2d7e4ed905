"""The Profile action, as every view runs it (the extension through the comm, the ipywidgets view
directly): the ESTIMATED profile offline, the measured one after it on an NPU host. A problem
the user can fix is a `SessionError` (the notebook's `LabError`).
"""
from __future__ import annotations

from ..session import SessionError
from ..session.npu import ProfileFailed, npu_refusal, profile_session


def profile(lab) -> tuple[str, dict]:
    """The session's ESTIMATED profile (offline: the pipe model of the emulator's trace) as a
    compact text (`Profile.summary`: the bound pipe, the roofline fraction, what to try next),
    and on an NPU host the measured one after it; and the pipe timelines of the first blocks as
    data (the extension draws them as SVG)."""
    if not lab.ready:
        raise SessionError("error: profile needs every step accepted or edited, as compile does")
    try:
        estimate = lab.estimate()
    except SessionError as exc:
        raise SessionError(str(exc)) from None
    # The summary, not the whole report: a few lines over the view, alike blocks as one phrase.
    details = (f"  details    per block, the timeline as text and the model's assumptions: "
               f"ascendcraft profile {lab.folder.path}")
    text, timeline = "\n".join(estimate.summary() + [details]), estimate.timeline()
    reason = npu_refusal("profile")
    if reason:
        return f"{text}\nmeasured profile: not here ({reason})", timeline
    try:
        return f"{text}\n\n{profile_session(lab.folder.path).text()}", timeline
    except ProfileFailed as exc:
        raise SessionError(f"error: {exc}") from None
