"""Helpers of the session tests: the CLI in a child process, and what it left behind.

Every child gets a marker in its environment (inherited by everything it starts) and a
temporary folder of its own, so a test can see whether a process or a file outlived it.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

TAG = "ASCENDCRAFT_TEST_TAG"
KERNEL = "ascendc/kernel/gelu_kernel.cpp"     # the GELU session's kernel, as its folder holds it


@dataclass
class Child:
    rc: int | None
    out: str
    seconds: float


class Sandbox:
    """`ascendcraft ...` in child processes that share one marker and one TMPDIR."""

    def __init__(self, root: Path):
        self.root = root
        self.tag = uuid.uuid4().hex
        self.tmp = root / "tmp"
        self.tmp.mkdir(parents=True, exist_ok=True)
        # torch's caches (torchinductor_<user>, which torch.export makes) must not land in TMPDIR either:
        # the reference child points them into its own scratch folder unless the user named one
        self.env = {k: v for k, v in os.environ.items() if k not in ("TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR")}
        self.env.update({TAG: self.tag, "TMPDIR": str(self.tmp)})

    def start(self, *argv, cwd: Path | None = None) -> subprocess.Popen:
        # a command typed at a terminal starts with SIGINT at its default; a test run started in the
        # background of a non-interactive shell ignores SIGINT, and its children would inherit that
        return subprocess.Popen([sys.executable, "-m", "ascendcraft_lab", *map(str, argv)], cwd=cwd or self.root,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                env=self.env, start_new_session=True, preexec_fn=_default_sigint)

    def run(self, *argv, cwd: Path | None = None, timeout: float = 120, signal_after: tuple[float, int] | None = None,
            when=None) -> Child:
        """Run to the end; with `signal_after=(s, SIG)` send SIG after s seconds, or as soon as
        `when()` is true (polled) if given."""
        t0 = time.monotonic()
        proc = self.start(*argv, cwd=cwd)
        if signal_after:
            delay, sig = signal_after
            while time.monotonic() - t0 < delay and proc.poll() is None and not (when and when()):
                time.sleep(0.05)
            if proc.poll() is None:
                proc.send_signal(sig)
        try:
            out, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate()
            return Child(None, out.decode(errors="replace"), time.monotonic() - t0)
        return Child(proc.returncode, out.decode(errors="replace"), time.monotonic() - t0)

    def processes(self, settle: float = 3.0) -> list[str]:
        """Command lines of processes still carrying the marker (after `settle` s for killed ones to go)."""
        deadline = time.monotonic() + settle
        while True:
            found = tagged(self.tag)
            if not found or time.monotonic() > deadline:
                for pid, _ in found:          # do not leave them to the next test
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                return [cmd for _, cmd in found]
            time.sleep(0.1)

    def temporaries(self) -> list[str]:
        return sorted(p.name for p in self.tmp.iterdir())


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def tagged(tag: str) -> list[tuple[int, str]]:
    needle = f"{TAG}={tag}".encode()
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            if needle in (d / "environ").read_bytes().split(b"\0") and (d / "stat").read_text().split()[2] != "Z":
                out.append((int(d.name), (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")))
        except OSError:
            continue
    return out


def reference_running(tag: str) -> bool:
    """A reference child runs: a cold `child.py`, or a fork of the warm parent (reference/zygote.py:
    the zygote and its fork share the command line, so two of them)."""
    cmds = [cmd for _, cmd in tagged(tag)]
    return any("reference/child.py" in c for c in cmds) or sum("reference/zygote.py" in c for c in cmds) >= 2


def dead_scratch(prefix: str = "acemu-run-") -> list[str]:
    """Emulator scratch folders in /dev/shm whose process is gone."""
    shm = Path("/dev/shm")
    out = []
    for p in shm.glob(f"{prefix}*-*") if shm.is_dir() else ():
        pid = p.name[len(prefix):].split("-", 1)[0]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            out.append(p.name)
    return out


def ref_with(reference: str, prelude: str) -> str:
    """A reference that runs `prelude` when imported."""
    return prelude.rstrip() + "\n" + reference
