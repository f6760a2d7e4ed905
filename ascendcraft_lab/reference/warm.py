"""The parent's side of the warm reference parent (`zygote.py`): `run_child(jobs, cwd, timeout)` runs
`child.py jobs` in a fork of a Python that has imported torch already, with what `procs.run` gives
a cold child: its own process group, stdin closed, output in files, killed with everything it
started on a timeout or an interrupt.

The zygote starts at the first call and lives as long as this process (it dies with it). It serves
one request at a time: a call from another thread while it is busy, a zygote that cannot start
(torch does not import), or `ASCENDCRAFT_WARM_REFERENCE=0` returns None, and the caller starts a cold
child as before. A zygote that misbehaves (an interrupt mid-request, a garbled reply) is killed and
started again next time.
"""
from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from .. import procs

ZYGOTE = Path(__file__).with_name("zygote.py")
START_TIMEOUT = 120.0            # seconds for the zygote to import torch


class _Broken(Exception):
    """The zygote died or answered something else than the protocol's next line."""


class _Zygote:
    def __init__(self):
        self.proc: subprocess.Popen | None = None
        self.lock = threading.Lock()
        self.buf = b""
        self.failed = False          # it could not start once: cold children from now on

    def _start(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-I", str(ZYGOTE)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=procs.child_env(),
                                     start_new_session=True)
        self.buf = b""
        if "ready" not in self._reply(time.monotonic() + START_TIMEOUT):
            raise _Broken("the zygote did not start")

    def close(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None:
            procs.kill_group(proc, grace=0.5)
            for stream in (proc.stdin, proc.stdout):
                try:
                    stream.close()
                except OSError:
                    pass

    def _reply(self, deadline: float) -> dict:
        """The next line of JSON from the zygote (raises TimeoutError past `deadline`, _Broken on EOF)."""
        fd = self.proc.stdout.fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while b"\n" not in self.buf:
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(left):
                    raise TimeoutError
                chunk = os.read(fd, 65536)
                if not chunk:
                    raise _Broken("the zygote exited")
                self.buf += chunk
        line, _, self.buf = self.buf.partition(b"\n")
        try:
            reply = json.loads(line)
        except ValueError:
            raise _Broken(f"the zygote answered {line[:80]!r}") from None
        if not isinstance(reply, dict) or "error" in reply:
            raise _Broken(str(reply))
        return reply

    def run(self, jobs: Path, cwd: Path, timeout: float) -> subprocess.CompletedProcess | None:
        if self.failed or not self.lock.acquire(blocking=False):
            return None
        try:
            if self.proc is None or self.proc.poll() is not None:
                try:
                    self._start()
                except (OSError, TimeoutError, _Broken):
                    self.close()
                    self.failed = True
                    return None
                except BaseException:          # an interrupt while torch imports: no zygote left behind
                    self.close()
                    raise
            return self._request(jobs, cwd, timeout)
        finally:
            self.lock.release()

    def _request(self, jobs: Path, cwd: Path, timeout: float) -> subprocess.CompletedProcess | None:
        out, err = cwd / "child.stdout", cwd / "child.stderr"
        req = {"jobs": str(jobs), "cwd": str(cwd), "stdout": str(out), "stderr": str(err), "env": procs.child_env()}
        args = [sys.executable, "-I", str(ZYGOTE.with_name("child.py")), str(jobs)]   # what a cold child runs
        pid = None
        try:
            self.proc.stdin.write((json.dumps(req) + "\n").encode())
            self.proc.stdin.flush()
            pid = int(self._reply(time.monotonic() + 30)["pid"])
            try:
                rc = int(self._reply(time.monotonic() + timeout)["rc"])
            except TimeoutError:
                _kill(pid, signal.SIGTERM)                  # the child kills what the reference started
                try:
                    self._reply(time.monotonic() + 2)       # its exit, so the next request starts clean
                except TimeoutError:
                    _kill(pid)
                    self._reply(time.monotonic() + 30)
                raise subprocess.TimeoutExpired(args, timeout, output=_read(out), stderr=_read(err)) from None
            _kill(pid)                                       # whatever it left running in its group
            return subprocess.CompletedProcess(args, rc, _read(out), _read(err))
        except subprocess.TimeoutExpired:
            raise
        except (OSError, TimeoutError, _Broken, KeyError, ValueError):
            if pid is not None:
                _kill(pid)
            self.close()                                     # cold children for this call; a new zygote next time
            return None
        except BaseException:                                # an interrupt: stop the child and the zygote
            if pid is not None:
                _kill(pid)
            self.close()
            raise


def _kill(pgid: int, sig: int = signal.SIGKILL) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


_ZYGOTE = _Zygote()


def run_child(jobs: Path, cwd: Path, timeout: float) -> subprocess.CompletedProcess | None:
    """`python -I child.py jobs` in a warm fork (see the module docstring); None: start a cold one."""
    if os.environ.get("ASCENDCRAFT_WARM_REFERENCE", "1") == "0":
        return None
    return _ZYGOTE.run(jobs, cwd, timeout)
