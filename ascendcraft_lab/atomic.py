"""Atomic file writes (write beside the target, fsync, rename over it) and strict text reads.

The package's one implementation of it: `write_bytes` / `write_text` / `write_json`, and
`stage` when the rename is the caller's (the session folder's journalled commit renames many
files as one switch).

An interrupted write leaves the old file intact, never a half-written one. The new file gets
the mode the old one had, or the user's umask for a new file (as `open()` would give it), and
a symlink is written through: its target is replaced, the link stays.

`read_text` reads UTF-8 and names the file and the byte offset when it is not UTF-8 text.
`disk_full` is the one message for a write the disk (or the user's quota) had no room for.
"""
from __future__ import annotations

import errno
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


def disk_full(exc: BaseException, kept: str = "") -> str | None:
    """The message for a write that found no room (ENOSPC, EDQUOT): which file, and what to do;
    None for any other error. `kept` says what was left as it was (e.g. "the session folder s")."""
    if not isinstance(exc, OSError) or exc.errno not in (errno.ENOSPC, errno.EDQUOT):
        return None
    where = Path(exc.filename).parent if exc.filename else Path(".")
    what = "the disk is full" if exc.errno == errno.ENOSPC else "the disk quota is used up"
    return (f"error: {what}: cannot write {exc.filename or 'a file'}\n"
            + (f"  = note: {kept} is as it was before this command\n" if kept else "")
            + f"  = help: free some space on the disk holding {where} (`df -h {where}` shows it), then run this again")


def current_umask() -> int:
    with _UMASK_LOCK:            # the only portable way to read it is to set it
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def stage(path: str | os.PathLike, data: bytes, suffix: str | None = None) -> tuple[Path, Path]:
    """(temporary, target): `data` written and fsync'd in a temporary beside `path`'s target, with
    the target's mode (the umask's for a new file). Renaming the temporary over the target is the
    write. With `suffix` the temporary is `.<name><suffix>`, a name a journal can find again (the
    session folder's commit); without, a unique name."""
    target = Path(os.path.realpath(path)) if Path(path).is_symlink() else Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~current_umask()
    if suffix is None:
        fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        tmp = Path(name)
    else:
        tmp = target.with_name(f".{target.name}{suffix}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fchmod(fh.fileno(), mode)
            os.fsync(fh.fileno())
    except BaseException as exc:
        tmp.unlink(missing_ok=True)
        if isinstance(exc, OSError) and exc.filename is None:   # ENOSPC from write or fsync names no file
            raise OSError(exc.errno, exc.strerror, str(target)) from exc
        raise
    return tmp, target


def write_bytes(path: str | os.PathLike, data: bytes) -> None:
    tmp, target = stage(path, data)
    try:
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_text(path: str | os.PathLike, text: str) -> None:
    write_bytes(path, text.encode("utf-8"))


def write_json(path: str | os.PathLike, data: Any) -> None:
    write_text(path, json.dumps(data, indent=2, sort_keys=False) + "\n")
