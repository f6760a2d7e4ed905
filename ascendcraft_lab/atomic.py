"""Atomic file writes (write beside the target, fsync, rename over it) and strict text reads.

An interrupted write leaves the old file intact, never a half-written one. The new file gets
the mode the old one had, or the user's umask for a new file (as `open()` would give it), and
a symlink is written through: its target is replaced, the link stays.

`read_text` reads UTF-8 and names the file and the byte offset when it is not UTF-8 text.
"""
from __future__ import annotations

import json
import os
import stat
import tempfile
import threading
from pathlib import Path
from typing import Any

_UMASK_LOCK = threading.Lock()


class NotText(ValueError):
    """A file that is not UTF-8 text: `str()` names it and the first bad byte's offset."""


def read_text(path: str | os.PathLike, what: str = "file") -> str:
    path = Path(path)
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise NotText(f"{what} {path} is not UTF-8 text: byte 0x{data[exc.start]:02x} at offset {exc.start} "
                      f"(line {line})") from None


def current_umask() -> int:
    with _UMASK_LOCK:            # the only portable way to read it is to set it
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def write_bytes(path: str | os.PathLike, data: bytes) -> None:
    path = Path(path)
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~current_umask()
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fchmod(fh.fileno(), mode)
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text(path: str | os.PathLike, text: str) -> None:
    write_bytes(path, text.encode("utf-8"))


def write_json(path: str | os.PathLike, data: Any) -> None:
    write_text(path, json.dumps(data, indent=2, sort_keys=False) + "\n")
