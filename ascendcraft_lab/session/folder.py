"""The session folder: the unit of persistence for one kernel (ARCHITECTURE.md).

```
<dir>/ascendcraft.json     manifest: DSL hash, SoC, engine and state per step, findings, the edit log
                           (`notebook.edits`), the tiling explained, and the hash of every file the
                           lowering wrote (`written`)
<dir>/kernel.dsl.py        the DSL draft
<dir>/reference.py         the PyTorch reference (when given)
<dir>/reference_files/     the files it reads beside it (an NPUKernelBench reference's JSON cases)
<dir>/stages/NN-pass/      the bundle after each pass (the files the user sees)
<dir>/stages/NN-pass.edit/ the user's edit of that step, when there is one (.base.json: what the step
                          held when the edit was made, the base it is merged from)
<dir>/set-aside/<stamp>/   a review (edits and acceptances) set aside by a fresh start, until restored
<dir>/ascendc/             the final AscendC project: what `check` verifies, `export` ships and CANN builds
                           (a generic kernel's other dtypes in ascendc/variants/<dtype>/)
<dir>/runs/<stamp>.json    compile/verify/profile results (with the hash of the project they ran);
                           runs/llm-calls.jsonl: the LLM engine's calls
```

Three rules keep a folder trustworthy:

- **One writer at a time.** `lock()` takes an exclusive `flock` on `<dir>/.ascendcraft.lock`
  (re-entrant within a process); every change of the folder happens under it.
- **All or nothing.** `commit(files, manifest)` writes the new state of the generated files
  beside the old ones, records the switch in a journal, then renames everything into place
  (signals held back) and writes the manifest last. A process killed in the middle leaves a
  journal that the next `lock()` rolls forward; temporary files of a switch that never began
  are removed. Readers never see a new draft beside old stages.
- **Nothing of the user's is deleted.** A commit removes only files it wrote before and that
  are unchanged since; files it did not write (`foreign`) and generated files changed by hand
  are kept and reported. `drift()` lists the generated files changed or removed since the last
  commit, so the session can treat a hand edit as what it is.

The checks a session makes of its folder before it writes (a file, a foreign folder, a
read-only one, a damaged manifest, a busy lock, hand edits of generated files) are here too,
as `SessionError`s: one message, saying what to do.
"""
from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import re
import shutil
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from .. import procs
from ..atomic import current_umask, stage, write_json
from ..engines.llm.client import LOG_FILE_NAME
from ..passes.bundle import Bundle, read_bundle, write_bundle
from ..passes.manager import Edit
from ..passes.pipeline import PIPELINE, get_pass
from .errors import SessionError

MANIFEST = "ascendcraft.json"
LOCK_FILE = ".ascendcraft.lock"
JOURNAL = ".ascendcraft-commit.json"
TEMP_SUFFIX = ".ascendcraft-tmp"
SOURCEMAP = ".sourcemap.json"
EDIT_BASE = ".base.json"         # in stages/NN-pass.edit/: the step as the edit found it
PROJECT = "ascendc"
SCHEMA_VERSION = 1
STATUSES = ("pending", "accepted", "edited", "failed", "unchanged")
LOCK_TIMEOUT_S = 600.0


def text_hash(text: str | bytes) -> str:
    return hashlib.sha256(text.encode() if isinstance(text, str) else text).hexdigest()[:16]


def files_hash(files: Mapping[str, str | bytes]) -> str:
    """One hash for a set of files (path and content of each, in path order)."""
    h = hashlib.sha256()
    for path in sorted(files):
        data = files[path]
        h.update(path.encode() + b"\0" + (data.encode() if isinstance(data, str) else data) + b"\0")
    return h.hexdigest()[:16]


class ManifestError(ValueError):
    """The manifest is unreadable or not shaped as a manifest: `str()` says where and what."""


class FolderBusy(OSError):
    """Another process holds the folder's lock for longer than we wait."""


# ----------------------------------------------------------------------------- the manifest's shape
def _check(cond: bool, where: str, want: str) -> None:
    if not cond:
        raise ManifestError(f"`{where}` should be {want}")


def validate_manifest(data: Any) -> dict:
    """The manifest as read, or a ManifestError naming the first field of the wrong shape."""
    _check(isinstance(data, dict), "the manifest", "a JSON object")
    schema = data.get("schema", SCHEMA_VERSION)
    _check(isinstance(schema, int) and not isinstance(schema, bool), "schema", "an integer")
    if schema > SCHEMA_VERSION:
        raise ManifestError(f"it has schema {schema}, written by a newer ascendcraft (this one reads {SCHEMA_VERSION})")
    for key in ("kernel", "soc", "dsl_name", "dsl_hash", "reference", "lowered_at"):
        _check(data.get(key) is None or isinstance(data[key], str), key, "a string")
    for key in ("steps", "notebook", "written", "tiling"):
        _check(data.get(key) is None or isinstance(data[key], dict), key, "an object")
    names = {p.name for p in PIPELINE}
    for name, step in (data.get("steps") or {}).items():
        _check(name in names, f"steps.{name}", f"one of the passes ({', '.join(sorted(names))})")
        _check(isinstance(step, dict), f"steps.{name}", "an object")
        _check(step.get("status") in STATUSES, f"steps.{name}.status", f"one of {', '.join(STATUSES)}")
        _check(step.get("hash") is None or isinstance(step["hash"], str), f"steps.{name}.hash", "a string")
    nb = data.get("notebook") or {}
    _check(nb.get("engine") is None or isinstance(nb["engine"], str), "notebook.engine", "a string")
    _check(nb.get("until") is None or isinstance(nb["until"], str), "notebook.until", "a string")
    _check(nb.get("overrides") is None or isinstance(nb["overrides"], dict), "notebook.overrides", "an object")
    _check(nb.get("edits") is None or isinstance(nb["edits"], dict), "notebook.edits", "an object")
    for name, meta in (nb.get("edits") or {}).items():
        _check(isinstance(meta, dict), f"notebook.edits.{name}", "an object")
    for path, digest in (data.get("written") or {}).items():
        _check(isinstance(digest, str) and _inside(path), f"written.{path}", "a hash of a file inside the folder")
    return data


def _inside(rel: str) -> bool:
    return bool(rel) and not rel.startswith("/") and ".." not in Path(rel).parts


# ----------------------------------------------------------------------------- the lock
class _Held:
    def __init__(self):
        self.thread_lock = threading.RLock()
        self.depth = 0
        self.fd: int | None = None


_HELD: dict[str, _Held] = {}
_HELD_GUARD = threading.Lock()


def _say_waiting(path: Path, holder: str) -> None:
    print(f"waiting for {holder or 'another ascendcraft process'} to finish with {path}", file=sys.stderr)


@dataclass
class Drift:
    """Generated files that differ from what the last commit wrote (relative paths)."""
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.changed or self.removed)


@dataclass
class Committed:
    written: int = 0
    deleted: int = 0
    kept: list[str] = field(default_factory=list)      # generated before, changed by hand since: kept
    foreign: list[str] = field(default_factory=list)   # never written by ascendcraft: kept


class SessionFolder:
    def __init__(self, path: str | Path):
        self.path = Path(path)

    # ------------------------------------------------------------------------- manifest
    @property
    def manifest_path(self) -> Path:
        return self.path / MANIFEST

    def exists(self) -> bool:
        return self.manifest_path.is_file()

    def manifest(self) -> dict[str, Any]:
        if not self.exists():
            return {"schema": SCHEMA_VERSION, "steps": {}}
        try:
            data = json.loads(self.manifest_path.read_bytes().decode("utf-8"))
        except json.JSONDecodeError as exc:
            raise ManifestError(f"{self.manifest_path}: manifest is not valid JSON ({exc.msg} at line {exc.lineno})"
                                ) from None
        except UnicodeDecodeError as exc:
            raise ManifestError(f"{self.manifest_path}: manifest is not UTF-8 text (byte offset {exc.start})") from None
        except OSError as exc:
            raise ManifestError(f"{self.manifest_path}: cannot read the manifest ({exc.strerror})") from None
        try:
            return validate_manifest(data)
        except ManifestError as exc:
            raise ManifestError(f"{self.manifest_path}: the manifest is damaged: {exc}") from None

    def save_manifest(self, manifest: dict[str, Any]) -> None:
        write_json(self.manifest_path, manifest)

    # ------------------------------------------------------------------------- layout
    def dsl_path(self) -> Path:
        return self.path / "kernel.dsl.py"

    def stage_dir(self, pass_name: str) -> Path:
        spec = next(p for p in PIPELINE if p.name == pass_name)
        return self.path / "stages" / spec.dirname

    def edit_dir(self, pass_name: str) -> Path:
        return self.stage_dir(pass_name).with_name(self.stage_dir(pass_name).name + ".edit")

    @property
    def project_dir(self) -> Path:
        return self.path / PROJECT

    def generated_roots(self) -> list[str]:
        """The folders (relative) whose files the lowering writes: every stage and the project."""
        return [f"stages/{p.dirname}" for p in PIPELINE] + [PROJECT]

    def owner_of(self, rel: str) -> str | None:
        """The pass whose output `rel` is: `stages/NN-pass/...` -> that pass, `ascendc/...` -> the last."""
        parts = Path(rel).parts
        if parts[:1] == (PROJECT,):
            return PIPELINE[-1].name
        if len(parts) > 2 and parts[0] == "stages":
            return next((p.name for p in PIPELINE if p.dirname == parts[1]), None)
        return None

    # ------------------------------------------------------------------------- edits and stages
    def edits(self) -> dict[str, Edit]:
        """The user's edits, by pass name, each with its base when the folder knows it."""
        out = {}
        for p in PIPELINE:
            d = self.edit_dir(p.name)
            if d.is_dir():
                base = d / EDIT_BASE
                out[p.name] = Edit(read_bundle(d), _bundle_from_json(json.loads(base.read_text()))
                                   if base.is_file() else None)
        return out

    def save_edit(self, pass_name: str, bundle: Bundle, base: Bundle | None = None) -> None:
        """Keep `bundle` as the edit of `pass_name`; `base`: what the step held when it was made."""
        d = self.edit_dir(pass_name)
        write_bundle(d, bundle)            # removes an older edit's .base.json
        if base is not None:
            write_json(d / EDIT_BASE, {"files": dict(base.files),
                                       "source_map": {k: list(v) for k, v in base.source_map.items()}})

    def drop_edit(self, pass_name: str) -> None:
        shutil.rmtree(self.edit_dir(pass_name), ignore_errors=True)

    def read_stage(self, pass_name: str) -> Bundle | None:
        d = self.stage_dir(pass_name)
        return read_bundle(d) if d.is_dir() else None

    def project_files(self) -> dict[str, str]:
        """The files of `ascendc/` as they are on disk (what ships), by project-relative path."""
        root = self.project_dir
        if not root.is_dir():
            return {}
        out = {}
        for p in sorted(root.rglob("*")):
            if p.is_file() and p.name != SOURCEMAP and not _is_temp(p.name):
                out[p.relative_to(root).as_posix()] = p.read_bytes().decode("utf-8", errors="replace")
        return out

    def project_hash(self, files: Mapping[str, str] | None = None) -> str:
        """The hash a run records and an export checks: every file of `ascendc/`."""
        return files_hash(self.project_files() if files is None else files)

    # ------------------------------------------------------------------------- runs
    def record_run(self, result: dict[str, Any]) -> Path:
        with self.lock():
            folder = self.path / "runs"
            stamp = time.strftime("%Y%m%d-%H%M%S") + f"-{int(time.time() * 1000) % 1000:03d}"
            out = folder / f"{stamp}.json"
            n = 1
            while out.exists():          # two runs in one millisecond keep both records
                out = folder / f"{stamp}-{n}.json"
                n += 1
            write_json(out, result)
            return out

    def runs(self) -> Iterator[tuple[dict[str, Any], Path]]:
        """The run records, newest first (unreadable ones skipped)."""
        folder = self.path / "runs"
        for path in sorted(folder.glob("*.json"), reverse=True) if folder.is_dir() else ():
            try:
                record = json.loads(path.read_text())
            except (OSError, ValueError):
                continue
            if isinstance(record, dict):
                yield record, path

    def passing_run(self, project_hash: str) -> dict | None:
        """The newest run record that verified exactly this project and found it correct."""
        for record, path in self.runs():
            if record.get("project_hash") == project_hash and record.get("correct") is True:
                return dict(record, path=str(path))
        return None

    # ------------------------------------------------------------------------- permissions
    def unwritable(self) -> Path | None:
        """The first folder of the session this process cannot write into (None: all writable)."""
        dirs = [self.path]
        for sub in ("stages", PROJECT, "runs"):
            root = self.path / sub
            if root.is_dir():
                dirs += [root] + [d for d in root.rglob("*") if d.is_dir()]
        for d in dirs:
            if d.is_dir() and not os.access(d, os.W_OK | os.X_OK):
                return d
        return None

    def foreign_files(self, ours: tuple[str, ...] = ()) -> list[str]:
        """Entries of a folder that is not a session yet, other than `ours` (names ascendcraft
        itself writes there, such as the LLM call log): a new session only goes where there are none."""
        if not self.path.is_dir():
            return []
        skip = {LOCK_FILE, JOURNAL, *ours}
        return sorted(p.name for p in self.path.iterdir() if p.name not in skip and not _is_temp(p.name))

    # ------------------------------------------------------------------------- the lock
    @contextlib.contextmanager
    def lock(self, timeout: float | None = None, on_wait: Callable[[Path, str], None] | None = _say_waiting
             ) -> Iterator[None]:
        """Hold the folder's exclusive lock for the block (re-entrant in this process).

        Waits up to `timeout` seconds (default `$ASCENDCRAFT_LOCK_TIMEOUT`, else 600) for
        another process to let go, then raises FolderBusy. A journal left by a process that
        died while switching is rolled forward as soon as the lock is ours."""
        key = str(self.path.resolve())
        with _HELD_GUARD:
            held = _HELD.setdefault(key, _Held())
        limit = timeout if timeout is not None else float(os.environ.get("ASCENDCRAFT_LOCK_TIMEOUT", LOCK_TIMEOUT_S))
        if not held.thread_lock.acquire(timeout=limit):
            raise FolderBusy(errno.EBUSY, f"{self.path} is in use by another thread of this process")
        try:
            if held.depth == 0:
                held.fd = self._flock(limit, on_wait)
                if held.fd is not None:
                    self.recover()
            held.depth += 1
            try:
                yield
            finally:
                held.depth -= 1
                if held.depth == 0 and held.fd is not None:
                    fcntl.flock(held.fd, fcntl.LOCK_UN)
                    os.close(held.fd)
                    held.fd = None
        finally:
            held.thread_lock.release()

    def _flock(self, limit: float, on_wait) -> int | None:
        lock_path = self.path / LOCK_FILE
        try:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o666 & ~current_umask())
        except OSError:
            try:                             # a read-only folder: lock if the file is there, else no writer can be
                fd = os.open(lock_path, os.O_RDONLY)
            except OSError:
                return None
        deadline = time.monotonic() + limit
        told = False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                holder = _holder(lock_path)
                if time.monotonic() >= deadline:
                    os.close(fd)
                    raise FolderBusy(errno.EBUSY, f"{self.path} is in use by {holder or 'another ascendcraft process'}")
                if not told and on_wait is not None:
                    on_wait(self.path, holder)
                    told = True
                time.sleep(0.05)
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"pid {os.getpid()}: {' '.join(sys.argv)[:200]}\n".encode(), 0)
        return fd

    # ------------------------------------------------------------------------- the switch
    def written(self) -> dict[str, str]:
        try:
            return dict(self.manifest().get("written") or {})
        except ManifestError:
            return {}

    def drift(self, written: Mapping[str, str] | None = None) -> Drift:
        """Generated files (stages, project) changed or removed since the last commit wrote them."""
        written = self.written() if written is None else written
        roots = tuple(r + "/" for r in self.generated_roots())
        out = Drift()
        for rel, digest in sorted(written.items()):
            if not rel.startswith(roots) or Path(rel).name == SOURCEMAP:
                continue
            p = self.path / rel
            if not p.is_file():
                out.removed.append(rel)
            elif text_hash(p.read_bytes()) != digest:
                out.changed.append(rel)
        return out

    def commit(self, files: Mapping[str, str | bytes], manifest: dict[str, Any]) -> Committed:
        """Make the folder's generated files exactly `files` (relative path -> content), then the
        manifest, as one switch. Call it holding `lock()`."""
        old = self.written()
        data = {rel: (v.encode() if isinstance(v, str) else v) for rel, v in files.items()}
        for rel in data:
            if not _inside(rel):
                raise ValueError(f"refusing to write {rel!r} outside the session folder")
        result = Committed(foreign=self._foreign(set(data) | set(old)))
        writes = {rel: b for rel, b in data.items() if _read(self.path / rel) != b}
        deletes = self._unchanged_leftovers(old, data, result.kept)
        manifest = dict(manifest, written={rel: text_hash(b) for rel, b in data.items()})
        try:
            staged = self._stage([*((self.path / rel, b) for rel, b in writes.items()),
                                  (self.manifest_path, (json.dumps(manifest, indent=2) + "\n").encode())])
        except OSError as exc:
            # a full disk: a session re-opened as it is (a check) is read and run, its timings not refreshed
            if exc.errno in (errno.ENOSPC, errno.EDQUOT) and not writes and not deletes and self._holds(manifest):
                return result
            raise
        # Paths inside the folder are kept relative, so a folder moved after a crash still recovers.
        journal = {"renames": [[self._journal_path(a), self._journal_path(b)] for a, b in staged], "deletes": deletes}
        with procs.shielded():                # the switch runs to its end, whatever Ctrl-C says
            write_json(self.path / JOURNAL, journal)
            _roll_forward(self.path, journal)
        result.written, result.deleted = len(writes), len(deletes)
        return result

    def _unchanged_leftovers(self, old: Mapping[str, str], data: Mapping[str, bytes], kept: list[str]) -> list[str]:
        """Files written before and not now: those unchanged since (to delete); the others go to `kept`."""
        deletes = []
        for rel, digest in sorted(old.items()):
            current = None if rel in data else _read(self.path / rel)
            if current is None:
                continue
            if text_hash(current) == digest:
                deletes.append(rel)
            else:
                kept.append(rel)
        return deletes

    def _foreign(self, known: set[str]) -> list[str]:
        """Files under the generated folders that ascendcraft did not write and is not writing (kept)."""
        found = []
        for root in self.generated_roots():
            base = self.path / root
            for p in sorted(base.rglob("*")) if base.is_dir() else ():
                rel = p.relative_to(self.path).as_posix()
                if p.is_file() and rel not in known and not _is_temp(p.name):
                    found.append(rel)
        return sorted(found)

    def _stage(self, writes: list[tuple[Path, bytes]]) -> list[tuple[str, str]]:
        """(temporary, target) of each write, staged beside its target; none left when one fails,
        nor the folders made for them (a full disk leaves no empty stages/ skeleton)."""
        staged: list[tuple[str, str]] = []
        made: list[Path] = []
        try:
            for path, b in writes:
                made += self._missing_folders(path.parent)
                tmp, target = stage(path, b, TEMP_SUFFIX)     # the renames are the journal's
                staged.append((str(tmp), str(target)))
        except BaseException:
            for tmp, _ in staged:
                Path(tmp).unlink(missing_ok=True)
            for d in sorted(set(made), key=lambda d: len(d.parts), reverse=True):
                with contextlib.suppress(OSError):
                    d.rmdir()
            raise
        return staged

    def _holds(self, manifest: dict[str, Any]) -> bool:
        """The manifest on disk says what `manifest` says, but for when and how fast it was lowered."""
        def lasting(m: Any) -> Any:
            if not isinstance(m, dict):
                return m
            steps = m.get("steps")
            steps = {k: {f: v for f, v in e.items() if f != "seconds"} if isinstance(e, dict) else e
                     for k, e in steps.items()} if isinstance(steps, dict) else steps
            return {**{k: v for k, v in m.items() if k != "lowered_at"}, "steps": steps}
        try:
            return lasting(json.loads(self.manifest_path.read_bytes())) == lasting(json.loads(json.dumps(manifest)))
        except (OSError, ValueError):
            return False

    def _missing_folders(self, d: Path) -> list[Path]:
        """`d` and those of its parents inside the session folder that do not exist yet."""
        missing = []
        while d != self.path and self.path in d.parents and not d.exists():
            missing.append(d)
            d = d.parent
        return missing

    def _journal_path(self, path: str) -> str:
        try:
            return Path(path).relative_to(self.path).as_posix()
        except ValueError:
            return path                      # a symlink's target outside the folder

    def recover(self) -> None:
        """Finish a switch a killed process left half-done; drop temporaries of one never begun."""
        journal_path = self.path / JOURNAL
        if journal_path.is_file():
            try:
                journal = json.loads(journal_path.read_text())
            except (OSError, ValueError):
                journal = None
            if isinstance(journal, dict):
                with procs.shielded():
                    _roll_forward(self.path, journal)
            else:
                journal_path.unlink(missing_ok=True)
        for root in [self.path] + [self.path / r for r in self.generated_roots()]:
            if not root.is_dir():
                continue
            found = root.glob(f".*{TEMP_SUFFIX}") if root == self.path else root.rglob(f".*{TEMP_SUFFIX}")
            for p in list(found):
                with contextlib.suppress(OSError):
                    p.unlink()


def _roll_forward(folder: Path, journal: dict) -> None:
    for tmp, target in journal.get("renames", []):
        tmp, target = folder / tmp, folder / target        # absolute paths stay as they are
        if tmp.name.endswith(TEMP_SUFFIX) and tmp.exists():   # only our own temporaries move
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(tmp, target)
    for path in journal.get("deletes", []):
        if not _inside(path):
            continue
        p = folder / path
        with contextlib.suppress(FileNotFoundError):
            p.unlink()
        _prune_empty(p.parent, folder)
    (folder / JOURNAL).unlink(missing_ok=True)


def _prune_empty(d: Path, stop: Path) -> None:
    """Remove `d` and its parents while they are empty, up to (not including) `stop`."""
    stop = stop.resolve()
    while d.resolve() != stop and stop in d.resolve().parents:
        try:
            d.rmdir()
        except OSError:
            return
        d = d.parent


def _is_temp(name: str) -> bool:
    return name.endswith(TEMP_SUFFIX)


def _read(p: Path) -> bytes | None:
    try:
        return p.read_bytes()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None


def _holder(lock_path: Path) -> str:
    try:
        text = lock_path.read_text(errors="replace").strip()
    except OSError:
        return ""
    m = re.match(r"pid (\d+): ?(.*)", text)
    return f"pid {m.group(1)} ({m.group(2)})" if m and m.group(2) else (f"pid {m.group(1)}" if m else "")


# ----------------------------------------------------------------------------- what a session checks of its folder
def read_manifest(folder: SessionFolder) -> dict[str, Any]:
    """The manifest, or a SessionError saying it is damaged and what to do."""
    try:
        return folder.manifest()
    except ValueError as exc:
        raise SessionError(f"error: {exc}\n  = help: restore the file, or delete the folder to start over") from None


@contextlib.contextmanager
def locked(folder: SessionFolder) -> Iterator[None]:
    """The folder's lock, as a SessionError when another process keeps it too long."""
    try:
        with folder.lock():
            yield
    except FolderBusy as exc:
        raise SessionError(f"error: {exc.strerror}\n  = help: wait for it to finish (or stop it), then run this again"
                           ) from None


def require_session(path: str | Path) -> None:
    """Refuse a folder that holds no session (resuming one); `path` as the user gave it."""
    if not SessionFolder(path).exists():
        raise SessionError(f"error: {path} is not a session folder (no ascendcraft.json)\n"
                           "  = help: create it with %%ascendcraft NAME or `ascendcraft lower K.dsl.py -o DIR`")


def refuse_unsuitable(folder: SessionFolder) -> None:
    """Refuse, before any work, a folder a session cannot safely live in: a file, a folder of
    someone else's files, a read-only folder."""
    path = folder.path
    if path.exists() and not path.is_dir():
        raise SessionError(f"error: {path} is a file, not a session folder\n"
                           "  = help: give -o a folder (it is created when missing)")
    if not path.is_dir():
        return
    if not (path / LOCK_FILE).exists():     # else another process may be writing it: asked under the lock
        refuse_foreign(folder)
    refuse_read_only(folder, "every lowering and check records its result there: make it writable "
                             "(chmod -R u+w) or copy the session somewhere writable")


def refuse_foreign(folder: SessionFolder) -> None:
    """A new session goes only into an empty folder (asked again under the lock: another process
    may be making a session there right now)."""
    if folder.exists():
        return
    foreign = folder.foreign_files(ours=(LOG_FILE_NAME, "runs"))
    if foreign:
        path = folder.path
        raise SessionError(f"error: {path} is not a session folder and is not empty ({listing(foreign, 3)})\n"
                           "  = help: a session writes stages/, ascendc/ and its manifest: give an empty or new "
                           f"folder, e.g. -o {path / 'SESSION'}")


def refuse_read_only(folder: SessionFolder, help: str) -> None:
    blocked = folder.unwritable()
    if blocked is not None:
        raise SessionError(f"error: the session folder {folder.path} is read-only ({blocked} cannot be written)\n"
                           f"  = help: {help}")


def hand_edit_error(folder: SessionFolder, paths: list[str]) -> SessionError:
    """Generated files changed by hand: where such edits belong, and the two ways on."""
    steps = sorted({folder.owner_of(p) for p in paths}, key=lambda n: get_pass(n).number)
    where = ", ".join(f"pass {get_pass(n).number} ({n}), kept in stages/{get_pass(n).dirname}.edit/" for n in steps)
    one = len(paths) == 1
    return SessionError(
        f"error: {listing(paths)} {'was' if one else 'were'} changed by hand since ascendcraft wrote "
        f"{'it' if one else 'them'}\n"
        f"  = note: {PROJECT}/ and stages/ are regenerated from the session's steps: this change would be "
        "overwritten, and it is not what the steps verify\n"
        "  = help: edits belong to a step: --adopt-edits (in a notebook: lab.adopt_edits(), or %%ascendcraft "
        f"... --adopt-edits) makes this an edit of {where}, merged into every later lowering; or delete the "
        "changed file to have it regenerated")


def listing(paths: list[str], limit: int = 4) -> str:
    """`a, b, c, d and 3 more`: a list of paths in a message."""
    return ", ".join(paths[:limit]) + (f" and {len(paths) - limit} more" if len(paths) > limit else "")


def _bundle_from_json(data: Mapping[str, Any]) -> Bundle:
    return Bundle(data["files"], {k: tuple(v) for k, v in data.get("source_map", {}).items()})
