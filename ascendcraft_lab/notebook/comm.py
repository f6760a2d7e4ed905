"""The kernel side of the JupyterLab extension: the `ascendcraft.pipeline` comm.

The extension (extension/) opens one comm per notebook and sends JSON requests; each names
the session by its folder, as the pipeline payload gives it (`session.folder`):

    {"id": 7, "action": "accept", "session": "ascendcraft-sessions/gelu", "step": "host"}

| action       | extra fields                            | reply (besides `id` and `ok`)     |
|--------------|-----------------------------------------|-----------------------------------|
| `state`      |                                         | `payload`                         |
| `accept`     | `step`                                  | `payload`                         |
| `edit`       | `step`, `files` {path: text}            | `payload`                         |
| `undo`       | `step`                                  | `payload`                         |
| `regenerate` | `step`                                  | `payload`                         |
| `compile`    | `backend` (default `emulator`)          | `payload` (its `verdict`)         |
| `profile`    |                                         | `payload`, `profile`, `timeline`  |
| `fetch_body` | `step`, `path`, `side` (before / after / final / dsl), `full` | `body`      |
| `bundle`     |                                         | `bundle`: the cell's MIME bundle  |

`profile` is the ESTIMATED profile as text (the measured one after it on an NPU host) and
`timeline` the first blocks' pipe spans (`perf.report.timeline_data`); see profile.py.

`payload` is `payload.pipeline_payload(lab)` with every pass body left out (`omitted: true`):
the view fetches the bodies of the pass it shows with `fetch_body`, so a browser never holds
every stage at once. `full: true` lifts the per-body cap up to `HARD_BODY_CHARS`. After an action the view asks for
the `bundle` (payload with bodies, static HTML, text; no widget) and stores it in the cell's
output, so a notebook saved afterwards shows the reviewed state without a kernel.

A failure is `{"id", "ok": false, "error": "<one paragraph>"}` — a `LabError`'s message, never a
traceback. The kernel also sends, unasked, `{"event": "progress", "id", "text"}` while a compile
runs and `{"event": "changed", "session", "payload"}` when the session changed from code (a
cell calling `lab.accept(...)`), so every view of it stays current.

Which `LabSession` a request acts on: the one the notebook already holds for that folder (the
last one displayed, see `remember`, or the newest in `Out` and the user's variables), so the
view and the code in cells share one state; after a kernel restart there is none, and the
session is resumed from its folder — the review survives the restart.

`register_comm_target()` is idempotent and cheap; the extension calls it (silently) before it
opens the comm, so neither `%load_ext` nor a re-run cell is needed after a restart.
"""
from __future__ import annotations

import traceback
import weakref
from typing import Any

from IPython import get_ipython

from .display import mimebundle
from .lab import LabError, LabSession, find_session, remember
from .payload import MAX_BODY_CHARS, body, pipeline_payload
from .profile import profile

TARGET = "ascendcraft.pipeline"
PROTOCOL_VERSION = 1
HARD_BODY_CHARS = 2_000_000
ACTIONS = ("state", "accept", "edit", "undo", "regenerate", "compile", "profile", "fetch_body", "bundle")
SIDES = ("before", "after", "final", "dsl")


def _user_ns() -> dict:
    ip = get_ipython()
    return ip.user_ns if ip is not None else {}


def lazy_payload(lab: LabSession) -> dict:
    """The pipeline payload with every pass body left out (`omitted`), for `fetch_body` later."""
    doc = pipeline_payload(lab)
    for p in doc["passes"]:
        for f in p["files"]:
            for side in ("before", "after"):
                b = f[side]
                if b is not None and not b["omitted"]:
                    b.update(text="", dsl_lines=[], shown_lines=0, omitted=True)
    return doc


def fetch_body(lab: LabSession, side: str, path: str | None = None, step: str | None = None,
               full: bool = False) -> dict:
    """One body of the session: a pass's `before`/`after` file, a `final` file or the `dsl`."""
    cap = HARD_BODY_CHARS if full else MAX_BODY_CHARS
    if side == "dsl":
        return {"path": "kernel.dsl.py", **body(lab.dsl, range(1, len(lab.dsl.splitlines()) + 1), cap)}
    if side == "final":
        final = lab.final
        if final is None or path not in final.files:
            raise LabError(f"error: the final project has no file {path}")
        return body(final.files[path], final.source_map.get(path, ()), cap)
    if side not in SIDES:
        raise LabError(f"error: unknown side {side!r}: one of {', '.join(SIDES)}")
    s = lab.step(step)
    bundle = s.previous if side == "before" else s.bundle
    if bundle is None or path not in bundle.files:
        return {"text": "", "lines": 0, "shown_lines": 0, "truncated": False, "omitted": False, "dsl_lines": [],
                "missing": True}
    return body(bundle.files[path], bundle.source_map.get(path, ()), cap)


class PipelineChannel:
    """One open comm: answers requests and forwards session changes made elsewhere."""

    def __init__(self, comm, user_ns: dict | None = None):
        self.comm = comm
        self.user_ns = user_ns
        self.closed = False
        self._busy = 0
        self._watched: "weakref.WeakSet[LabSession]" = weakref.WeakSet()
        comm.on_msg(self.on_msg)
        comm.on_close(self._on_close)

    def _on_close(self, msg=None) -> None:
        self.closed = True

    def send(self, data: dict) -> None:
        if not self.closed:
            self.comm.send(data)

    def on_msg(self, msg: dict) -> None:
        data = (msg.get("content") or {}).get("data") or {}
        self.send(self.handle(data))

    def handle(self, data: dict) -> dict:
        """The reply to one request (also the unit tests' entry point)."""
        rid = data.get("id")
        try:
            reply = self._dispatch(data)
        except LabError as exc:
            return {"id": rid, "ok": False, "error": str(exc)}
        except Exception as exc:  # noqa: BLE001 - the lab's own bug: one paragraph, details in the kernel log
            traceback.print_exc()
            return {"id": rid, "ok": False,
                    "error": f"internal error in AscendCraft Lab: {type(exc).__name__}: {exc} "
                             "(the traceback is in the kernel's log; please report it)"}
        return {"id": rid, "ok": True, **reply}

    def _dispatch(self, data: dict) -> dict:
        action = data.get("action")
        if action not in ACTIONS:
            raise LabError(f"error: unknown action {action!r}: one of {', '.join(ACTIONS)}")
        folder = data.get("session")
        if not isinstance(folder, str) or not folder:
            raise LabError("error: the request names no session folder")
        lab = find_session(folder, self.user_ns if self.user_ns is not None else _user_ns())
        self._watch(lab)
        step = data.get("step")
        if action == "fetch_body":
            return {"body": fetch_body(lab, str(data.get("side", "after")), data.get("path"), step,
                                       bool(data.get("full")))}
        if action == "bundle":
            return {"bundle": mimebundle(lab, widget=False)}
        extra: dict[str, Any] = {}
        self._busy += 1
        try:
            if action == "accept":
                lab.accept(step)
            elif action == "edit":
                files = data.get("files")
                if not isinstance(files, dict) or not files:
                    raise LabError("error: an edit names no files")
                lab.edit(step, {str(p): str(t) for p, t in files.items()})
            elif action == "undo":
                lab.undo(step)
            elif action == "regenerate":
                lab.regenerate(step)
            elif action == "compile":
                rid = data.get("id")
                lab.compile_and_verify(str(data.get("backend") or "emulator"),
                                       progress=lambda text: self.send({"event": "progress", "id": rid, "text": text}))
            elif action == "profile":
                extra["profile"], extra["timeline"] = profile(lab)
        finally:
            self._busy -= 1
        return {"payload": lazy_payload(lab), **extra}

    def _watch(self, lab: LabSession) -> None:
        if lab in self._watched:
            return
        self._watched.add(lab)
        channel = weakref.ref(self)

        def changed(session: LabSession) -> None:
            me = channel()
            if me is None or me.closed or me._busy:     # our own request answers with the payload
                return
            me.send({"event": "changed", "session": str(session.folder.path), "payload": lazy_payload(session)})

        lab.on_change(changed)


def _open(comm, msg) -> None:
    ip = get_ipython()
    PipelineChannel(comm, ip.user_ns if ip is not None else None)
    comm.send({"event": "hello", "version": PROTOCOL_VERSION})


def register_comm_target(ip=None) -> bool:
    """Register `ascendcraft.pipeline` with the running kernel; False outside a kernel."""
    ip = ip if ip is not None else get_ipython()
    kernel = getattr(ip, "kernel", None)
    manager = getattr(kernel, "comm_manager", None)
    if manager is None:
        return False
    if TARGET not in getattr(manager, "targets", {}):
        manager.register_target(TARGET, _open)
    return True


__all__ = ["TARGET", "PROTOCOL_VERSION", "PipelineChannel", "register_comm_target", "remember", "find_session",
           "lazy_payload", "fetch_body", "profile"]
