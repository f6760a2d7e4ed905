"""Child processes and scratch folders that never outlive the work they were made for.

Every process the package starts (g++, an emulated kernel, the reference child, a bench
worker) goes through `run` or `spawn`: it gets its own process group (so a timeout or an
interrupt stops it *and* whatever it started), its stdin is closed (a reference calling
`input()` fails at once instead of hanging), its output goes to files (a grandchild holding
a pipe open cannot stall the parent), and it learns the parent's pid
(`ASCENDCRAFT_PARENT_PID`) so it can stop itself when the parent dies (`die_with_parent`,
which Python children call first thing; the emulator's generated harness does the same).

`handle_termination()` makes SIGTERM (and SIGHUP) raise `Terminated`, a KeyboardInterrupt,
so `finally` blocks and the process-group kills run on `kill PID` as on Ctrl-C. `shielded()`
holds both signals back while a cleanup or a multi-file switch runs, so a second Ctrl-C
cannot cut it in half.

`scratch_dir(prefix)` is a temporary folder named after this process
(`<prefix><pid>-XXXX`), removed on every way out; folders of the same prefix left by a
process that no longer exists (killed with SIGKILL) are removed the next time one is made,
once they are an hour old (a process of another PID namespace sharing the folder is invisible
here, and no run of ours takes that long).
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Iterator, Mapping, Sequence

PARENT_ENV = "ASCENDCRAFT_PARENT_PID"
_PR_SET_PDEATHSIG = 1
_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP arrived: unwinds like Ctrl-C, so every cleanup runs."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _raise_terminated(signum, frame):
    raise Terminated(signum)


def handle_termination() -> None:
    """In the main thread of a command: SIGTERM and SIGHUP raise `Terminated` (exit 128+N)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) in (signal.SIG_DFL, None):
            signal.signal(sig, _raise_terminated)


@contextlib.contextmanager
def shielded() -> Iterator[None]:
    """SIGINT and SIGTERM are held back while the block runs, and acted on when it ends.

    Python runs signal handlers in the main thread only (and a process-wide signal may land on
    any thread), so the handlers themselves are swapped: elsewhere this does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[int] = []
    old = {sig: signal.signal(sig, lambda signum, frame: pending.append(signum)) for sig in _STOP_SIGNALS}
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
        if pending:
            handler = old[pending[0]]
            if callable(handler):
                handler(pending[0], None)        # raises KeyboardInterrupt / Terminated here, after the block
            elif handler == signal.SIG_DFL:
                os.kill(os.getpid(), pending[0])


def die_with_parent() -> None:
    """Ask Linux to SIGKILL this process when its parent dies; exit now if it already has.

    Python children (the bench worker) call this first; the reference child and the emulator
    harness carry their own copy, as they import nothing from this package."""
    parent = os.environ.get(PARENT_ENV)
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass                 # not Linux: the parent's group kill is the only guard
    if parent and parent.isdigit() and os.getppid() != int(parent):
        os._exit(1)          # the parent died before the request took effect


def child_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    out = dict(os.environ if env is None else env)
    out[PARENT_ENV] = str(os.getpid())
    return out


def kill_group(proc: subprocess.Popen, grace: float = 2.0) -> None:
    """Stop the child's whole process group and reap the child: SIGTERM first (g++ removes its
    temporary files, a Python child runs its clean-up), SIGKILL for whatever is left after `grace` s."""
    stop_groups([proc], grace)


def stop_groups(children: list[subprocess.Popen], grace: float = 2.0) -> None:
    """`kill_group` for several children at once (they get their SIGTERM together)."""
    with shielded():
        for proc in children:
            _signal_group(proc, signal.SIGTERM)
        deadline = time.monotonic() + grace
        for proc in children:
            if proc.poll() is None:
                try:
                    proc.wait(timeout=max(0.0, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    pass
        for proc in children:
            _signal_group(proc, signal.SIGKILL)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:   # unkillable (uninterruptible sleep): leave it to init
                pass


def _signal_group(proc: subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def spawn(cmd: Sequence[str], *, cwd=None, env: Mapping[str, str] | None = None, stdout=None, stderr=None,
          text: bool = False, memory: int | None = None) -> subprocess.Popen:
    """Start `cmd` in its own process group with stdin closed; the caller must `kill_group` it.
    `memory`: the bytes of address space it may map (RLIMIT_AS, see `child_memory`)."""
    return subprocess.Popen(list(map(str, cmd)), stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr, cwd=cwd,
                            env=child_env(env), start_new_session=True, text=text,
                            preexec_fn=_address_space(memory) if memory else None)


def _address_space(limit: int):
    def cap() -> None:           # in the child, before exec: async-signal-safe enough (one system call)
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return cap


MEMORY_ENV = "ASCENDCRAFT_CHILD_MEMORY"        # e.g. 4G: what an emulated kernel's process may map


def child_memory() -> tuple[int, str] | None:
    """(bytes, what) an emulated kernel's process may map at most: `ASCENDCRAFT_CHILD_MEMORY` (bytes,
    or 512M / 4G) when set, else `memory_limit()` (the cgroup's limit, or this machine's RAM).

    Enforced as an rlimit on the child's address space (RLIMIT_AS), which needs no cgroup and no
    privilege: a kernel that allocates beyond it sees its allocation fail (std::bad_alloc, mmap
    ENOMEM) and is reported as out of memory, instead of the machine's out-of-memory killer picking
    a victim, which without a cgroup around the run may be the user's notebook. None: no limit."""
    text = os.environ.get(MEMORY_ENV, "").strip()
    if text:
        units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
        try:
            n = float(text[:-1]) * units[text[-1].upper()] if text[-1].upper() in units else float(text)
        except ValueError:
            n = 0
        if n >= 1 << 20:
            return int(n), f"{MEMORY_ENV}={text}"
    return memory_limit()


def out_of_memory(stderr: str, limit: tuple[int, str] | None) -> str | None:
    """`ran out of memory (...)` when a child capped by `limit` failed an allocation (its stderr says so)."""
    said = stderr.lower()
    if limit is None or not any(s in said for s in ("bad_alloc", "cannot allocate memory", "out of memory")):
        return None
    return (f"ran out of memory: it may map at most {limit[0] / (1 << 30):.1f} GiB ({limit[1]}, as a limit on its "
            f"address space); set {MEMORY_ENV} (e.g. 16G) to give it more")


def run(cmd: Sequence[str], *, timeout: float | None = None, cwd=None, env: Mapping[str, str] | None = None,
        memory: int | None = None) -> subprocess.CompletedProcess:
    """Run `cmd` to the end (or `timeout`): `CompletedProcess` with text stdout and stderr.

    On timeout the process group is killed and `subprocess.TimeoutExpired` raised (with what
    it printed so far); on any interrupt the group is killed before the interrupt goes on.
    Whatever the child left running in its group is killed when it exits, too."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = spawn(cmd, cwd=cwd, env=env, stdout=out, stderr=err, memory=memory)

        def read(fh) -> str:
            fh.seek(0)
            return fh.read().decode("utf-8", errors="replace")
        try:
            code = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            kill_group(proc)
            raise subprocess.TimeoutExpired(proc.args, timeout, output=read(out), stderr=read(err)) from None
        except BaseException:
            kill_group(proc)
            raise
        kill_group(proc)         # its own children, if it left any
        return subprocess.CompletedProcess(proc.args, code, read(out), read(err))


def memory_limit() -> tuple[int, str] | None:
    """(bytes, what) this process may use at most: its cgroup's memory.max, else the machine's RAM."""
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            text = Path(path).read_text().strip()
        except OSError:
            continue
        if text.isdigit() and int(text) < 1 << 60:          # "max" (v2) or a huge number (v1): no limit
            return int(text), "the memory limit of its cgroup"
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024, "this machine's RAM"
    except (OSError, ValueError, IndexError):
        pass
    return None


def killed_by(returncode: int) -> str:
    """What a negative exit code means, in words: a SIGKILL nobody of ours sent is most often the
    out-of-memory killer, so the sentence says so and how much memory there was."""
    try:
        name = signal.Signals(-returncode).name
    except ValueError:
        name = f"signal {-returncode}"
    if returncode != -signal.SIGKILL:
        return f"was killed by {name}"
    limit = memory_limit()
    had = f" ({limit[0] / (1 << 30):.1f} GiB, {limit[1]})" if limit else ""
    return f"was killed (SIGKILL), probably by the out-of-memory killer: it ran out of memory{had}"


# ----------------------------------------------------------------------------- scratch folders
def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_stale(prefix: str, parent: str | os.PathLike | None = None, min_age: float = 3600.0) -> None:
    """Remove `<prefix><pid>-*` folders under `parent` (the temp dir) whose process is gone."""
    root = Path(parent or tempfile.gettempdir())
    try:
        candidates = list(root.glob(f"{prefix}*-*"))
    except OSError:
        return
    now = time.time()
    for d in candidates:
        pid = d.name[len(prefix):].split("-", 1)[0]
        if not pid.isdigit() or int(pid) == os.getpid() or _alive(int(pid)):
            continue
        try:
            if now - d.stat().st_mtime < min_age or not d.is_dir():
                continue
        except OSError:
            continue
        shutil.rmtree(d, ignore_errors=True)


def make_scratch(prefix: str, parent: str | os.PathLike | None = None) -> Path:
    """A new `<prefix><pid>-XXXX` folder (stale ones of dead processes swept first)."""
    sweep_stale(prefix, parent)
    return Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-", dir=parent))


def remove_scratch(path: str | os.PathLike) -> None:
    with shielded():
        shutil.rmtree(path, ignore_errors=True)


@contextlib.contextmanager
def scratch_dir(prefix: str, parent: str | os.PathLike | None = None) -> Iterator[Path]:
    """A scratch folder for the block, removed however the block ends."""
    path = make_scratch(prefix, parent)
    try:
        yield path
    finally:
        remove_scratch(path)
