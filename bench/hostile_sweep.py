"""Every command tried as a careless or hostile user would: counts of tracebacks, losses, leaks, hangs.

    .venv/bin/python bench/hostile_sweep.py [--only NAME ...] [--list] [-v]

Each try runs `python -m ascendcraft_lab ...` in a folder of its own (with a copy of a lowered
and checked GELU session where it needs one), then looks at what the command left:

- traceback  the output holds a Python traceback (a user should see one clear message)
- loss       a file the user made or changed is gone or different, without being asked for
- leak       a process the command started is still alive once it has ended (every child gets a
             marker in its environment), a file is left in the command's temporary folder, or an
             emulator scratch folder in /dev/shm
- hang       the command did not end within the try's limit
- unclear    the command answered, but not what it should (an exit code, a message, a file)

The totals are printed at the end (and --json writes them); exit status 0 only when every
count is 0. A full sweep takes a few minutes on two cores (the emulator's compile cache is
shared by the tries, so only the first kernel build is slow).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "ascendcraft_lab" / "examples" / "activation"
GELU_DSL = (EXAMPLES / "gelu.dsl.py").read_text()
GELU_REF = (EXAMPLES / "gelu.py").read_text()
SOFTMAX_DSL = (EXAMPLES / "softmax.dsl.py").read_text()
KERNEL = "ascendc/kernel/gelu_kernel.cpp"
TAG = "ASCENDCRAFT_SWEEP_TAG"


def ref_with(prelude: str) -> str:
    """The GELU reference with `prelude` run at import."""
    return prelude.rstrip() + "\n" + GELU_REF


SLOW_REF = ref_with("import time\ntime.sleep(600)")
THREAD_REF = ref_with("import threading, time\nthreading.Thread(target=time.sleep, args=(600,)).start()")
INPUT_REF = ref_with("input('size? ')")
SPAWN_REF = ref_with("import subprocess, time\nsubprocess.Popen(['sleep', '600'])\ntime.sleep(600)")
ESCAPE_REF = ref_with("import subprocess\nsubprocess.Popen(['sleep', '600'], start_new_session=True)")
ESCAPE_HANG_REF = ref_with("import subprocess, time\nsubprocess.Popen(['sleep', '600'], start_new_session=True)\n"
                           "time.sleep(600)")
PARRICIDE_REF = ref_with("import os, signal\nos.kill(os.getppid(), signal.SIGKILL)")
SUICIDE_REF = ref_with("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)")   # as the OOM killer would
NAN_REF = GELU_REF.replace('torch.nn.functional.gelu(x, approximate="tanh")', 'torch.full_like(x, float("nan"))')
NPUKB = ROOT / "ascendcraft_lab" / "suite_npukb" / "npukernelbench_level1"
FORK_PROGRAM = """#include <unistd.h>
int main() { if (fork() == 0) { sleep(600); } return 0; }
"""
SPIN_KERNEL = """#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void spin(GM_ADDR x) { volatile int v = 0; while (v == 0) { (void)x; } }
"""


@dataclass
class Result:
    rc: int | None
    out: str
    seconds: float
    hung: bool = False


@dataclass
class Try:
    name: str
    argv: list[str] | None = None                      # ascendcraft ARGS (None: `run` does everything)
    setup: Callable[[Path], None] | None = None
    session: bool = False                               # start from a copy of the checked GELU session (as ./s)
    rc: tuple[int, ...] | None = None                   # the exit codes that are right
    says: tuple[str, ...] = ()                          # text the output must hold
    verify: Callable[[Path, Result], str] | None = None  # "" or what is wrong
    keep: tuple[str, ...] = ()                          # files (relative) that must survive unchanged
    signal_after: tuple[float, int] | None = None       # (seconds, signal) sent to the command
    limit: float = 180                                  # seconds before it counts as a hang
    run: Callable[["Sweep", "Try", Path], Result] | None = None
    as_other_user: bool = False                         # a read-only folder means nothing to root


@dataclass
class Outcome:
    name: str
    problems: dict[str, list[str]] = field(default_factory=dict)

    def add(self, kind: str, what: str) -> None:
        self.problems.setdefault(kind, []).append(what)


KINDS = ("traceback", "loss", "leak", "hang", "unclear")
PLURAL = {"traceback": "tracebacks", "loss": "losses", "leak": "leaks", "hang": "hangs", "unclear": "unclear answers"}


class Sweep:
    def __init__(self, work: Path, verbose: bool = False, pythonpath: str | None = None):
        self.work = work
        self.verbose = verbose
        self.pythonpath = pythonpath
        self.tag = uuid.uuid4().hex
        self.tmp = work / "tmp"
        self.env = {**os.environ, TAG: self.tag, "TMPDIR": str(self.tmp), "ASCENDCRAFT_CACHE_DIR": str(work / "cache"),
                    "HOME": str(work / "home"), "PYTHONDONTWRITEBYTECODE": "1"}
        for k in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "ASCENDCRAFT_CONFIG", "ASCENDCRAFT_WORKDIR"):
            self.env.pop(k, None)
        if pythonpath:                    # sweep another checkout (e.g. the code before a fix)
            self.env["PYTHONPATH"] = pythonpath
        for d in (self.tmp, work / "home", work / "cache", work / "tries"):
            d.mkdir(parents=True, exist_ok=True)
        self.base = work / "base"

    # ------------------------------------------------------------------ running a command
    def command(self, argv: list[str], cwd: Path, *, limit: float = 180, signal_after=None,
                env: dict | None = None) -> Result:
        t0 = time.monotonic()
        with tempfile.TemporaryFile() as out:
            proc = subprocess.Popen([sys.executable, "-m", "ascendcraft_lab", *argv], cwd=cwd, stdin=subprocess.DEVNULL,
                                    stdout=out, stderr=subprocess.STDOUT, env=env or self.env, start_new_session=True)
            hung = False
            try:
                if signal_after:
                    delay, sig = signal_after
                    try:
                        proc.wait(timeout=delay)
                    except subprocess.TimeoutExpired:
                        proc.send_signal(sig)
                proc.wait(timeout=limit)
            except subprocess.TimeoutExpired:
                hung = True
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            out.seek(0)
            text = out.read().decode("utf-8", errors="replace")
        return Result(None if hung else proc.returncode, text, time.monotonic() - t0, hung)

    def as_other_user(self, argv: list[str], cwd: Path) -> Result:
        """Run `ascendcraft ARGS` in a forked child that drops to user nobody (this is root)."""
        t0 = time.monotonic()
        self._load_standard_library(argv)
        rfd, wfd = os.pipe()
        pid = os.fork()
        if pid == 0:                       # the child: no exec (the interpreter may not be readable by nobody)
            os.close(rfd)
            os.dup2(wfd, 1)
            os.dup2(wfd, 2)
            code = 3
            try:
                os.chdir(cwd)
                os.setgid(65534)
                os.setuid(65534)
                if self.pythonpath:
                    sys.path.insert(0, self.pythonpath)
                    for name in [m for m in sys.modules if m.startswith("ascendcraft_lab")]:
                        del sys.modules[name]
                from ascendcraft_lab import cli
                code = cli.main(argv)
            except BaseException:          # noqa: BLE001 - reported through the pipe
                import traceback
                traceback.print_exc()
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        os.close(wfd)
        chunks = []
        with os.fdopen(rfd, "rb") as fh:
            chunks.append(fh.read())
        _, status = os.waitpid(pid, 0)
        return Result(os.waitstatus_to_exitcode(status), b"".join(chunks).decode(errors="replace"),
                      time.monotonic() - t0)

    def _load_standard_library(self, argv: list[str]) -> None:
        """Import the command's modules here, once, so that the standard library they need is loaded
        before the fork: the child runs as user nobody, who cannot read this interpreter's files."""
        import concurrent.futures.process  # noqa: F401 - loaded lazily by the commands
        import concurrent.futures.thread  # noqa: F401
        import importlib
        if self.pythonpath:
            sys.path.insert(0, self.pythonpath)
        try:
            for name in ("ascendcraft_lab.cli", f"ascendcraft_lab.cli.{argv[0]}", "ascendcraft_lab.session",
                         "ascendcraft_lab.cli.npu", "ascendcraft_lab.backends.emulator.submission"):
                try:
                    importlib.import_module(name)
                except ImportError:
                    pass
        finally:
            if self.pythonpath:
                sys.path.remove(self.pythonpath)
                for name in [m for m in sys.modules if m.startswith("ascendcraft_lab")]:
                    del sys.modules[name]

    # ------------------------------------------------------------------ the shared session
    def make_base(self) -> None:
        d = self.work / "inputs"
        d.mkdir(exist_ok=True)
        (d / "gelu.dsl.py").write_text(GELU_DSL)
        (d / "gelu.py").write_text(GELU_REF)
        r = self.command(["lower", str(d / "gelu.dsl.py"), "--ref", str(d / "gelu.py"), "-o", str(self.base)],
                         self.work)
        c = self.command(["check", str(self.base)], self.work)
        if r.rc != 0 or c.rc != 0:
            raise SystemExit(f"the base session did not lower and check:\n{r.out}\n{c.out}")

    # ------------------------------------------------------------------ after a command
    def leaks(self) -> list[str]:
        found = []
        deadline = time.monotonic() + 3          # a killed child may need a moment to go
        while True:
            procs = self._tagged()
            if not procs or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        for pid, cmd in procs:
            found.append(f"process {pid} still running: {cmd[:120]}")
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for p in sorted(self.tmp.iterdir()):
            found.append(f"temporary {p.name} left in TMPDIR")
            shutil.rmtree(p, ignore_errors=True) if p.is_dir() else p.unlink()
        return found

    def _tagged(self) -> list[tuple[int, str]]:
        out = []
        needle = f"{TAG}={self.tag}".encode()
        for d in Path("/proc").iterdir():
            if not d.name.isdigit() or int(d.name) == os.getpid():
                continue
            try:
                if needle in (d / "environ").read_bytes().split(b"\0"):
                    status = (d / "stat").read_text().split()
                    if status[2] != "Z":
                        cmdline = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                        out.append((int(d.name), cmdline))
            except OSError:
                continue
        return out

    def shm(self) -> set[str]:
        """Emulator scratch folders of processes that are gone (others may belong to other users' runs)."""
        shm = Path("/dev/shm")
        out = set()
        for p in shm.glob("acemu-run-*-*") if shm.is_dir() else ():
            pid = p.name[len("acemu-run-"):].split("-", 1)[0]
            if pid.isdigit() and not Path(f"/proc/{pid}").exists():
                out.add(p.name)
        return out

    # ------------------------------------------------------------------ one try
    def attempt(self, t: Try) -> Outcome:
        outcome = Outcome(t.name)
        here = self.work / "tries" / t.name
        shutil.rmtree(here, ignore_errors=True)
        here.mkdir(parents=True)
        (here / "gelu.dsl.py").write_text(GELU_DSL)
        (here / "gelu.py").write_text(GELU_REF)
        if t.session:
            shutil.copytree(self.base, here / "s", symlinks=True)
        try:
            if t.setup:
                t.setup(here)
        except Exception as exc:  # noqa: BLE001 - a try that cannot be set up is reported, the sweep goes on
            outcome.add("unclear", f"could not set the try up: {type(exc).__name__}: {exc}")
            return outcome
        before = {rel: _digest(here / rel) for rel in t.keep}
        shm_before = self.shm()
        if t.run is not None:
            result = t.run(self, t, here)
        elif t.as_other_user and os.geteuid() == 0:
            result = self.as_other_user(t.argv, here)
        else:
            result = self.command(t.argv, here, limit=t.limit, signal_after=t.signal_after)
        if self.verbose:
            print(f"--- {t.name}: rc {result.rc} in {result.seconds:.1f} s\n{result.out.rstrip()}")
        if "Traceback (most recent call last)" in result.out:
            outcome.add("traceback", _last_line(result.out))
        if result.hung:
            outcome.add("hang", f"did not end within {t.limit:g} s")
        for what in self.leaks():
            outcome.add("leak", what)
        for name in sorted(self.shm() - shm_before):
            outcome.add("leak", f"/dev/shm/{name} left")
            shutil.rmtree(Path("/dev/shm") / name, ignore_errors=True)
        for rel, digest in before.items():
            now = _digest(here / rel)
            if now != digest:
                outcome.add("loss", f"{rel} {'is gone' if now is None else 'was changed'}")
        if not result.hung:
            if t.rc is not None and result.rc not in t.rc:
                outcome.add("unclear",
                            f"exit {result.rc}, expected {' or '.join(map(str, t.rc))}: {_last_line(result.out)}")
            for text in t.says:
                if text not in result.out:
                    outcome.add("unclear", f"the output does not say {text!r}: {_last_line(result.out)}")
            if t.verify is not None:
                try:
                    problem = t.verify(here, result)
                except Exception as exc:  # noqa: BLE001 - e.g. a file the command should have written
                    problem = f"{type(exc).__name__}: {exc}"
                if problem:
                    outcome.add("unclear", problem)
        return outcome


def _digest(p: Path) -> str | None:
    try:
        if p.is_symlink():
            return "link:" + os.readlink(p)
        return hashlib.sha256(p.read_bytes()).hexdigest()
    except OSError:
        return None


def _last_line(text: str) -> str:
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return lines[-1][:200] if lines else "(no output)"


# ============================================================================ the tries
def write(rel: str, text: str | bytes) -> Callable[[Path], None]:
    def setup(here: Path) -> None:
        p = here / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(text if isinstance(text, bytes) else text.encode())
    return setup


def steps(*fns) -> Callable[[Path], None]:
    def setup(here: Path) -> None:
        for fn in fns:
            fn(here)
    return setup


def edit(rel: str, old: str, new: str) -> Callable[[Path], None]:
    def setup(here: Path) -> None:
        p = here / rel
        p.write_text(p.read_text().replace(old, new, 1))
    return setup


def remove(rel: str) -> Callable[[Path], None]:
    def setup(here: Path) -> None:
        p = here / rel
        shutil.rmtree(p) if p.is_dir() else p.unlink()
    return setup


def gelu_named(name: str) -> str:
    return GELU_DSL.replace("def gelu(", f"def {name}(")


def exists(rel: str, yes: bool = True) -> Callable[[Path, Result], str]:
    def verify(here: Path, r: Result) -> str:
        return "" if (here / rel).exists() == yes else f"{rel} {'is missing' if yes else 'should not exist'}"
    return verify


def all_of(*checks) -> Callable[[Path, Result], str]:
    def verify(here: Path, r: Result) -> str:
        return "; ".join(p for p in (c(here, r) for c in checks) if p)
    return verify


def then(argv: list[str], rc: tuple[int, ...], says: str = "") -> Callable[[Path, Result], str]:
    """A follow-up command that must give `rc` (and say `says`): the folder was left usable."""
    def verify(here: Path, r: Result) -> str:
        again = SWEEP.command(argv, here)
        if again.rc not in rc or says not in again.out or "Traceback" in again.out:
            return f"then `ascendcraft {' '.join(argv)}` gave exit {again.rc}: {_last_line(again.out)}"
        return ""
    return verify


def mode_of(rel: str, want: int) -> Callable[[Path, Result], str]:
    def verify(here: Path, r: Result) -> str:
        got = stat.S_IMODE((here / rel).stat().st_mode)
        return "" if got == want else f"{rel} has mode {oct(got)}, expected {oct(want)}"
    return verify


def concurrent(first: list[str], second: list[str], rcs: set[tuple[int, int]]) -> Callable:
    def run(sweep: Sweep, t: Try, here: Path) -> Result:
        t0 = time.monotonic()
        results = {}
        with tempfile.TemporaryFile() as o1, tempfile.TemporaryFile() as o2:
            ps = [subprocess.Popen([sys.executable, "-m", "ascendcraft_lab", *argv], cwd=here, stdout=o,
                                   stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=sweep.env)
                  for argv, o in ((first, o1), (second, o2))]
            for i, p in enumerate(ps):
                try:
                    results[i] = p.wait(timeout=t.limit)
                except subprocess.TimeoutExpired:
                    p.kill()
                    return Result(None, "", time.monotonic() - t0, True)
            o1.seek(0)
            o2.seek(0)
            text = o1.read().decode(errors="replace") + "\n" + o2.read().decode(errors="replace")
        pair = (results[0], results[1])
        ok = pair in rcs
        return Result(0 if ok else 99, text + f"\nexit codes {pair}", time.monotonic() - t0)
    return run


def sigterm_check_while_kernel_spins(sweep: Sweep, t: Try, here: Path) -> Result:
    """check --adopt-edits of a kernel edited to spin, killed with SIGTERM once the kernel runs."""
    proc = subprocess.Popen([sys.executable, "-m", "ascendcraft_lab", "check", "s", "--adopt-edits"], cwd=here,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=sweep.env,
                            start_new_session=True)
    t0 = time.monotonic()
    spinning = False
    while time.monotonic() - t0 < 120 and proc.poll() is None:
        if any("spec.txt" in cmd for _, cmd in sweep._tagged()):
            spinning = True
            break
        time.sleep(0.2)
    proc.send_signal(signal.SIGTERM)
    try:
        out, _ = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        return Result(None, out.decode(errors="replace"), time.monotonic() - t0, True)
    text = out.decode(errors="replace") + ("" if spinning else "\n(the kernel never started spinning)")
    return Result(proc.returncode if spinning else 98, text, time.monotonic() - t0)


def bench_suite(here: Path) -> None:
    suite = here / "suite" / "activation"
    suite.mkdir(parents=True)
    relu = GELU_REF.replace('torch.nn.functional.gelu(x, approximate="tanh")', "torch.relu(x)").replace(
        "batch_size = 16\ndim = 16384", "batch_size = 4\ndim = 1000")
    (suite / "relu.py").write_text(relu)
    (suite / "slow.py").write_text("import time\ntime.sleep(600)\n" + relu)
    (suite / "zz_relu2.py").write_text(relu)


def latin1(here: Path) -> None:
    (here / "bad.dsl.py").write_bytes(GELU_DSL.replace("GELU (tanh", "GELU caf\u00e9 (tanh").encode("latin-1"))
    (here / "bad.py").write_bytes(GELU_REF.replace("GELU with", "GELU caf\u00e9 with").encode("latin-1"))


def results_state(state: str, n: int) -> Callable[[Path, Result], str]:
    def verify(here: Path, r: Result) -> str:
        try:
            doc = json.loads((here / "out" / "results.json").read_text())
        except (OSError, ValueError) as e:
            return f"no readable results.json ({e})"
        if doc.get("state") != state or len(doc.get("results", [])) != n:
            return (f"results.json is {doc.get('state')} with {len(doc.get('results', []))} results, "
                    f"expected {state} with {n}")
        return ""
    return verify


def tries() -> list[Try]:
    T = []
    add = T.append
    INT, TERM = signal.SIGINT, signal.SIGTERM
    # -------------------------------------------------------------- verified is what ships
    add(Try("check-correct-session", ["check", "s"], session=True, rc=(0,), says=("correct",)))
    add(Try("check-hand-edited-kernel", ["check", "s"], session=True, setup=edit(f"s/{KERNEL}", "0.5f", "0.6f"),
            rc=(2,), says=("changed by hand", "--adopt-edits"), keep=(f"s/{KERNEL}",)))
    add(Try("export-hand-edited-kernel", ["export", "s", "-o", "sub.py"], session=True,
            setup=edit(f"s/{KERNEL}", "0.5f", "0.6f"), rc=(2,), says=("no check has passed",),
            verify=exists("sub.py", False)))
    add(Try("check-deleted-kernel-file", ["check", "s"], session=True, setup=remove(f"s/{KERNEL}"), rc=(0,),
            says=("restored",), verify=exists(f"s/{KERNEL}")))
    add(Try("check-adopts-hand-edit", ["check", "s", "--adopt-edits"], session=True,
            setup=edit(f"s/{KERNEL}", "0.5f", "0.6f"), rc=(1,), says=("incorrect", "adopted"),
            verify=all_of(exists("s/stages/04-align.edit"), then(["export", "s"], (2,), "found it incorrect"))))
    add(Try("export-checked-session", ["export", "s", "-o", "sub.py"], session=True, rc=(0,), verify=exists("sub.py")))
    add(Try("export-unverified-flag", ["export", "s", "--unverified", "-o", "sub.py"], session=True,
            setup=edit(f"s/{KERNEL}", "0.5f", "0.6f"), rc=(0,), says=("unverified",)))
    add(Try("build-hand-edited-no-npu", ["build", "s"], session=True, rc=(1, 2)))
    # -------------------------------------------------------------- nothing deleted
    add(Try("lower-until-host-into-user-folder", ["lower", "gelu.dsl.py", "--until", "host", "-o", "mine"],
            setup=steps(write("mine/ascendc/precious.cpp", "// mine\n"), write("mine/notes.txt", "x\n")), rc=(2,),
            says=("not a session folder",), keep=("mine/ascendc/precious.cpp", "mine/notes.txt")))
    add(Try("lower-keeps-foreign-file-in-ascendc", ["lower", "gelu.dsl.py", "-o", "s"], session=True,
            setup=write("s/ascendc/kernel/notes.txt", "mine\n"), rc=(0,), says=("not written by ascendcraft",),
            keep=("s/ascendc/kernel/notes.txt",)))
    add(Try("lower-keeps-foreign-file-in-stage", ["lower", "gelu.dsl.py", "-o", "s"], session=True,
            setup=write("s/stages/02-init/mine.h", "// mine\n"), rc=(0,), keep=("s/stages/02-init/mine.h",)))
    add(Try("lower-until-host-keeps-foreign", ["lower", "gelu.dsl.py", "--until", "host", "-o", "s"], session=True,
            setup=write("s/ascendc/mine.txt", "mine\n"), rc=(0,), keep=("s/ascendc/mine.txt",),
            verify=exists(f"s/{KERNEL}", False)))
    add(Try("lower-refuses-over-hand-edit", ["lower", "gelu.dsl.py", "-o", "s"], session=True,
            setup=edit(f"s/{KERNEL}", "0.5f", "0.6f"), rc=(2,), says=("changed by hand",), keep=(f"s/{KERNEL}",)))
    add(Try("lower-refuses-hand-edited-stage", ["lower", "gelu.dsl.py", "-o", "s"], session=True,
            setup=edit("s/stages/02-init/kernel/gelu_kernel.cpp", "TPipe pipe;", "TPipe pipe;  // mine"), rc=(2,),
            says=("pass 2 (init)",), keep=("s/stages/02-init/kernel/gelu_kernel.cpp",)))
    add(Try("lower-adopts-hand-edited-stage", ["lower", "gelu.dsl.py", "-o", "s", "--adopt-edits"], session=True,
            setup=edit("s/stages/02-init/kernel/gelu_kernel.cpp", "TPipe pipe;", "TPipe pipe;  // mine"), rc=(0,),
            says=("adopted",),
            verify=lambda h, r: "" if "// mine" in (h / KERNEL.replace("ascendc", "s/ascendc")).read_text()
            else "the adopted edit is not in ascendc/"))
    add(Try("lower-other-kernel-into-session", ["lower", "softmax.dsl.py", "-o", "s"], session=True,
            setup=write("softmax.dsl.py", SOFTMAX_DSL), rc=(2,), says=("session of kernel `gelu`",),
            verify=then(["check", "s"], (0,), "correct")))
    add(Try("lower-into-file", ["lower", "gelu.dsl.py", "-o", "afile"], setup=write("afile", "x\n"), rc=(2,),
            says=("is a file",), keep=("afile",)))
    add(Try("lower-into-empty-folder", ["lower", "gelu.dsl.py", "-o", "empty"], setup=lambda h: (h / "empty").mkdir(),
            rc=(0,)))
    # -------------------------------------------------------------- locking and torn sessions
    add(Try("two-lowers-other-kernels", run=concurrent(["lower", "gelu.dsl.py", "-o", "c"],
                                                       ["lower", "softmax.dsl.py", "-o", "c"], {(0, 2), (2, 0)}),
            setup=write("softmax.dsl.py", SOFTMAX_DSL), rc=(0,),
            verify=then(["check", "c", "--ref", "gelu.py"], (0, 1, 2))))
    add(Try("two-lowers-same-kernel", run=concurrent(["lower", "gelu.dsl.py", "--ref", "gelu.py", "-o", "c"],
                                                     ["lower", "gelu.dsl.py", "--ref", "gelu.py", "-o", "c"], {(0, 0)}),
            rc=(0,), verify=then(["check", "c"], (0,), "correct")))
    add(Try("sigint-lower-in-reference", ["lower", "gelu.dsl.py", "--ref", "slow.py", "-o", "s"], session=True,
            setup=write("slow.py", SLOW_REF), signal_after=(4, INT), rc=(130,),
            verify=then(["check", "s"], (0,), "correct"),
            keep=("s/ascendcraft.json", "s/kernel.dsl.py", "s/reference.py", f"s/{KERNEL}")))
    add(Try("sigterm-lower-in-reference", ["lower", "gelu.dsl.py", "--ref", "slow.py", "-o", "new"],
            setup=write("slow.py", SLOW_REF), signal_after=(4, TERM), rc=(143,), verify=exists("new", False)))
    add(Try("relower-without-ref-tiling-current", ["lower", "g4.dsl.py", "-o", "s"], session=True,
            setup=write("g4.dsl.py", GELU_DSL.replace("live=3", "live=4")), rc=(0,), says=("tile=5824",),
            verify=lambda h, r: ""
            if json.loads((h / "s/ascendcraft.json").read_text())["tiling"]["launch"]["tile"] == 5824
            else "the manifest's tiling is stale"))
    add(Try("check-torn-journal-rolls-forward", ["check", "s"], session=True, setup=torn_commit, rc=(0,),
            says=("correct",)))
    # -------------------------------------------------------------- signals and leaks
    add(Try("sigterm-check-kernel-spinning", run=sigterm_check_while_kernel_spins, session=True,
            setup=edit(f"s/{KERNEL}", "    __aicore__ inline void Process() {",
                       "    __aicore__ inline void Process() {\n        for (volatile int spin = 0; spin == 0;) {}"),
            rc=(143,), limit=150))
    add(Try("sigterm-check-in-reference", ["check", "s", "--ref", "slow.py"], session=True,
            setup=write("slow.py", SLOW_REF), signal_after=(4, TERM), rc=(143,)))
    add(Try("sigint-check-in-reference", ["check", "s", "--ref", "slow.py"], session=True,
            setup=write("slow.py", SLOW_REF), signal_after=(4, INT), rc=(130,)))
    add(Try("reference-children-die-with-timeout", ["draft", "spawn.py", "--timeout", "4"],
            setup=write("spawn.py", SPAWN_REF), rc=(1,), says=("did not finish within 4 s",), limit=60))
    add(Try("emulate-sigterm-spinning", ["emulate", "spin.cpp", "--entry", "spin", "--block-dim", "1", "--arg", "ws:32",
                                         "--out-dir", "out", "--timeout", "600"],
            setup=write("spin.cpp", SPIN_KERNEL), signal_after=(12, TERM), rc=(143,), limit=60))
    add(Try("emulate-timeout", ["emulate", "spin.cpp", "--entry", "spin", "--block-dim", "1", "--arg", "ws:32",
                                "--out-dir", "out", "--timeout", "2"], setup=write("spin.cpp", SPIN_KERNEL), rc=(1,),
            says=("timeout",), limit=60))
    add(Try("compile-cache-hit-on-recheck", ["check", "s"], session=True, rc=(0,), verify=cached_last_run))
    # -------------------------------------------------------------- bench and Ctrl-C
    add(Try("bench-sigint-partial-results", ["bench", "suite", "-o", "out", "--seeds", "1", "--jobs", "1",
                                             "--no-timing", "--shapes", "reference"],
            setup=bench_suite, run=sigint_after_first_op, rc=(130,), says=("--resume",), limit=60,
            verify=results_state("interrupted", 1)))
    add(Try("bench-resume", ["bench", "suite", "-o", "out", "--seeds", "1", "--jobs", "1", "--no-timing", "--shapes",
                             "reference", "--resume", "--timeout", "20"],
            setup=steps(bench_suite, interrupted_results), rc=(0,), verify=results_state("complete", 3), limit=150))
    add(Try("bench-resume-other-settings", ["bench", "suite", "-o", "out", "--seeds", "2", "--resume"],
            setup=steps(bench_suite, interrupted_results), rc=(2,), says=("other settings",)))
    add(Try("bench-double-sigint", run=bench_double_sigint, setup=bench_suite, rc=(130,), limit=60))
    add(Try("bench-stale-results-replaced", ["bench", "suite", "-o", "out", "--seeds", "1", "--only", "relu",
                                             "--no-timing", "--shapes", "reference"],
            setup=steps(bench_suite, write("out/results.json", '{"results": [{"op": "old"}]}')), rc=(0,),
            verify=results_state("complete", 1)))
    for opt, val in (("--seeds", "0"), ("--timeout", "0"), ("--jobs", "0"), ("--timeout", "nan"), ("--seeds", "-3")):
        add(Try(f"bench{opt}={val}", ["bench", "suite", opt, val, "-o", "out"], setup=bench_suite, rc=(2,)))
    add(Try("bench-only-nosuchop", ["bench", "suite", "--only", "nosuchop", "-o", "out"], setup=bench_suite, rc=(2,),
            says=("activation/relu",)))
    add(Try("bench-out-is-file", ["bench", "suite", "-o", "afile"], setup=steps(bench_suite, write("afile", "x")),
            rc=(2,), keep=("afile",)))
    add(Try("bench-non-utf8-reference", ["bench", "suite", "-o", "out", "--seeds", "1", "--no-timing",
                                         "--shapes", "reference", "--only", "bad", "relu"],
            setup=steps(bench_suite,
                        lambda h: (h / "suite/activation/bad.py").write_bytes(b"# caf\xe9\n" + GELU_REF.encode())),
            rc=(0,), verify=results_state("complete", 2)))
    # -------------------------------------------------------------- waits
    add(Try("draft-import-loop-timeout", ["draft", "slow.py", "--timeout", "3"], setup=write("slow.py", SLOW_REF),
            rc=(1,), says=("did not finish within 3 s",), limit=40))
    add(Try("draft-non-daemon-thread", ["draft", "thread.py"], setup=write("thread.py", THREAD_REF), rc=(0,), limit=40))
    add(Try("draft-input-call", ["draft", "input.py"], setup=write("input.py", INPUT_REF), rc=(1,), says=("EOFError",),
            limit=40))
    add(Try("draft-timeout-zero", ["draft", "gelu.py", "--timeout", "0"], rc=(2,)))
    # -------------------------------------------------------------- -o everywhere
    add(Try("export-o-existing-folder", ["export", "s", "-o", "outdir"], session=True,
            setup=lambda h: (h / "outdir").mkdir(), rc=(0,), verify=exists("outdir/gelu.mkb.py")))
    add(Try("export-o-new-folder-slash", ["export", "s", "-o", "newdir/"], session=True, rc=(0,),
            verify=exists("newdir/gelu.mkb.py")))
    add(Try("export-o-existing-file", ["export", "s", "-o", "old.py"], session=True, setup=write("old.py", "x"),
            rc=(2,), says=("--force",), keep=("old.py",)))
    add(Try("export-o-symlink", ["export", "s", "-o", "link.py", "--force"], session=True,
            setup=lambda h: ((h / "real.py").write_text("x"), (h / "link.py").symlink_to("real.py")), rc=(0,),
            verify=lambda h, r: "" if (h / "link.py").is_symlink() and "ModelNew" in (h / "real.py").read_text()
            else "the symlink was replaced instead of written through"))
    add(Try("lower-o-existing-session", ["lower", "gelu.dsl.py", "-o", "s"], session=True, rc=(0,)))
    add(Try("demo-o-user-folder", ["demo", "-o", "mine"], setup=write("mine/notes.txt", "x\n"), rc=(1, 2),
            keep=("mine/notes.txt",), says=("not a session folder",)))
    add(Try("demo-o-file", ["demo", "-o", "afile"], setup=write("afile", "x\n"), rc=(1, 2), keep=("afile",)))
    add(Try("emulate-out-dir-file", ["emulate", "spin.cpp", "--entry", "spin", "--block-dim", "1", "--arg", "ws:32",
                                     "--out-dir", "afile"],
            setup=steps(write("spin.cpp", SPIN_KERNEL), write("afile", "x")), rc=(2,), keep=("afile",)))
    add(Try("emulate-timeout-zero", ["emulate", "spin.cpp", "--entry", "spin", "--block-dim", "1", "--out-dir", "o",
                                     "--timeout", "0"], setup=write("spin.cpp", SPIN_KERNEL), rc=(2,)))
    add(Try("draft-o-existing-folder", ["draft", "gelu.py", "-o", "d"], setup=lambda h: (h / "d").mkdir(), rc=(0,),
            verify=exists("d/gelu.dsl.py")))
    add(Try("draft-o-symlink", ["draft", "gelu.py", "-o", "link.dsl.py"],
            setup=lambda h: ((h / "real.dsl.py").write_text("x"), (h / "link.dsl.py").symlink_to("real.dsl.py")),
            rc=(0,),
            verify=lambda h, r: "" if (h / "link.dsl.py").is_symlink() and "@kernel" in (h / "real.dsl.py").read_text()
            else "the symlink was replaced"))
    # -------------------------------------------------------------- non-UTF-8 input
    for argv in (["lower", "bad.dsl.py", "-o", "x"], ["check", "bad.dsl.py", "--ref", "gelu.py"],
                 ["check", "bad.dsl.py", "--ref", "gelu.py", "--backend", "interpreter"], ["export", "bad.dsl.py"]):
        add(Try(f"non-utf8-dsl-{argv[0]}" + ("-interp" if "interpreter" in argv else ""), argv, setup=latin1, rc=(1, 2),
                says=("offset",)))
    for argv in (["lower", "gelu.dsl.py", "--ref", "bad.py", "-o", "x"], ["check", "gelu.dsl.py", "--ref", "bad.py"],
                 ["draft", "bad.py"]):
        add(Try(f"non-utf8-reference-{argv[0]}", argv, setup=latin1, rc=(1, 2), says=("offset",)))
    add(Try("non-utf8-session-draft", ["check", "s"], session=True,
            setup=lambda h: (h / "s/kernel.dsl.py").write_bytes(b"# caf\xe9\n" + GELU_DSL.encode()), rc=(2,),
            says=("offset",)))
    add(Try("non-utf8-hand-edit-adopt", ["check", "s", "--adopt-edits"], session=True,
            setup=lambda h: (h / f"s/{KERNEL}").write_bytes(b"// caf\xe9\n" + (h / f"s/{KERNEL}").read_bytes()),
            rc=(2,), says=("offset",)))
    # -------------------------------------------------------------- damaged sessions
    for label, text in (("garbage", "{not json"), ("list", "[]"), ("steps-number", '{"steps": 3}'),
                        ("bad-status", '{"steps": {"host": {"status": "zzz"}}}'), ("binary", b"\xff\xfe\x00"),
                        ("newer-schema", '{"schema": 99}'), ("written-outside", '{"written": {"../x": "1"}}')):
        add(Try(f"manifest-{label}", ["check", "s"], session=True, setup=write("s/ascendcraft.json", text), rc=(2,),
                says=("manifest",), keep=("s/kernel.dsl.py",)))
        add(Try(f"manifest-{label}-export", ["export", "s"], session=True, setup=write("s/ascendcraft.json", text),
                rc=(2,)))
    add(Try("manifest-unknown-soc", ["check", "s"], session=True,
            setup=edit("s/ascendcraft.json", '"Ascend910B2"', '"Ascend999"'), rc=(2,), says=("manifest",)))
    add(Try("deleted-kernel-dsl-check", ["check", "s"], session=True, setup=remove("s/kernel.dsl.py"), rc=(2,),
            says=("no DSL draft",)))
    add(Try("deleted-kernel-dsl-export", ["export", "s"], session=True, setup=remove("s/kernel.dsl.py"), rc=(2,)))
    add(Try("deleted-kernel-dsl-build", ["build", "s"], session=True, setup=remove("s/kernel.dsl.py"), rc=(1, 2)))
    add(Try("deleted-kernel-dsl-profile", ["profile", "s"], session=True, setup=remove("s/kernel.dsl.py"), rc=(1, 2)))
    add(Try("deleted-reference-check", ["check", "s"], session=True, setup=remove("s/reference.py"), rc=(2,),
            says=("no PyTorch reference",)))
    add(Try("deleted-ascendc-check", ["check", "s"], session=True, setup=remove("s/ascendc"), rc=(0,),
            says=("restored",)))
    add(Try("deleted-stages-check", ["check", "s"], session=True, setup=remove("s/stages"), rc=(0,)))
    add(Try("read-only-session-check", ["check", "s"], session=True, setup=read_only("s"), rc=(2,), says=("read-only",),
            as_other_user=True))
    add(Try("read-only-session-lower", ["lower", "gelu.dsl.py", "-o", "s"], session=True, setup=read_only("s"), rc=(2,),
            says=("read-only",), as_other_user=True))
    add(Try("read-only-session-export", ["export", "s", "-o", "/tmp/ascendcraft-sweep-export-ro.py"], session=True,
            setup=read_only("s"), rc=(0,), as_other_user=True))
    add(Try("not-a-session-check", ["check", "mine"], setup=write("mine/x.txt", "x"), rc=(2,), keep=("mine/x.txt",)))
    add(Try("not-a-session-export", ["export", "mine"], setup=write("mine/x.txt", "x"), rc=(2,), keep=("mine/x.txt",),
            verify=exists("mine/.ascendcraft.lock", False)))
    # -------------------------------------------------------------- kernel names and late errors
    for name in ("new", "int", "main", "AscendC", "std", "caf\u00e9", "k" * 300, "a__b", "_Upper"):
        label = name if len(name) < 20 else "300-chars"
        add(Try(f"kernel-name-{label}", ["lower", "k.dsl.py", "-o", "x"], setup=write("k.dsl.py", gelu_named(name)),
                rc=(2,), says=("kernel name",), verify=exists("x", False)))
    for tile in ("0", "-8"):
        bad = GELU_DSL.replace("return Launch(cores, rows=rows, tile=min(tile, N))",
                               f"return Launch(cores, rows=rows, tile={tile})")
        add(Try(f"tile={tile}-lower", ["lower", "t.dsl.py", "--ref", "gelu.py", "-o", "x"],
                setup=write("t.dsl.py", bad), rc=(2,), says=("tiles() gets a step of",), limit=60))
        add(Try(f"tile={tile}-check", ["check", "t.dsl.py", "--ref", "gelu.py"], setup=write("t.dsl.py", bad), rc=(2,),
                says=("tiles() gets a step of",), limit=60))
    deep = GELU_DSL.replace("inner = (xu + 0.044715 * xu * xu * xu) * 0.7978845608028654",
                            "inner = " + " + ".join(["xu"] * 3000))
    add(Try("expression-3000-terms", ["lower", "deep.dsl.py", "-o", "x"], setup=write("deep.dsl.py", deep), rc=(2,),
            says=("nested more than 100 levels deep",), verify=lambda h, r: "RecursionError" if "Recursion" in r.out
            else ""))
    deep600 = GELU_DSL.replace("inner = (xu + 0.044715 * xu * xu * xu) * 0.7978845608028654",
                               "inner = " + " + ".join(["xu"] * 600))
    add(Try("expression-600-terms", ["lower", "deep.dsl.py", "-o", "x"], setup=write("deep.dsl.py", deep600), rc=(2,),
            says=("nested",)))
    add(Try("output-8M-elements", ["check", "s", "--override", "batch_size=512"], session=True, rc=(0,),
            says=("correct",), limit=300))
    add(Try("empty-dsl", ["lower", "e.dsl.py", "-o", "x"], setup=write("e.dsl.py", ""), rc=(2,)))
    add(Try("dsl-is-folder", ["lower", "d.dsl.py", "-o", "x"], setup=lambda h: (h / "d.dsl.py").mkdir(), rc=(2,)))
    add(Try("missing-dsl", ["lower", "nope.dsl.py"], rc=(2,)))
    add(Try("missing-ref", ["lower", "gelu.dsl.py", "--ref", "nope.py", "-o", "x"], rc=(2,)))
    add(Try("check-missing-target", ["check", "nope", "--ref", "gelu.py"], rc=(2,)))
    add(Try("check-bad-override", ["check", "s", "--override", "nodim"], session=True, rc=(2,)))
    add(Try("check-unknown-override", ["check", "s", "--override", "zzz=3"], session=True, rc=(2,)))
    add(Try("check-bad-soc", ["check", "s", "--soc", "Ascend1"], session=True, rc=(2,)))
    add(Try("profile-help", ["profile", "--help"], rc=(0,)))
    add(Try("profile-no-npu", ["profile", "s"], session=True, rc=(0,),
            says=("ESTIMATED", "measured profile: not here")))
    add(Try("build-no-npu", ["build", "s"], session=True, rc=(1, 2)))
    add(Try("check-cann-no-npu", ["check", "s", "--backend", "cann"], session=True, rc=(2,)))
    add(Try("doctor-invalid-config", ["doctor"], setup=write("home/.config/ascendcraft/config.toml", "base_url = 3\n"),
            run=doctor_with_home, rc=(0, 1), says=("invalid configuration",)))
    add(Try("doctor", ["doctor"], rc=(0, 1)))
    add(Try("unknown-command", ["nosuch"], rc=(2,)))
    # -------------------------------------------------------------- the notebook's way in
    add(Try("notebook-hand-edit-after-open", run=python(NOTEBOOK_HAND_EDIT), session=True, rc=(0,), says=("held up",)))
    add(Try("notebook-other-kernel", run=python(NOTEBOOK_OTHER_KERNEL), session=True,
            setup=write("softmax.dsl.py", SOFTMAX_DSL), rc=(0,), says=("held up",)))
    add(Try("notebook-damaged-manifest", run=python(NOTEBOOK_DAMAGED), session=True, rc=(0,), says=("held up",)))
    add(Try("lab-help", ["lab", "--help"], rc=(0,)))
    # -------------------------------------------------------------- file modes
    add(Try("umask-modes", ["lower", "gelu.dsl.py", "-o", "m"], rc=(0,),
            verify=all_of(mode_of("m/ascendcraft.json", 0o644), mode_of(f"m/{KERNEL}", 0o644),
                          mode_of("m/kernel.dsl.py", 0o644))))
    add(Try("mode-kept-over-0664", ["lower", "g4.dsl.py", "-o", "s"], session=True,
            setup=steps(write("g4.dsl.py", GELU_DSL.replace("live=3", "live=4")),
                        lambda h: os.chmod(h / "s/ascendcraft.json", 0o664),
                        lambda h: os.chmod(h / f"s/{KERNEL}", 0o664)),
            rc=(0,), verify=all_of(mode_of("s/ascendcraft.json", 0o664), mode_of(f"s/{KERNEL}", 0o664))))
    # -------------------------------------------------------------- second sweep (issue 39)
    add(Try("npukb-relative-session-check", ["check", "rs"], setup=npukb_session, rc=(0,), says=("correct on every",),
            limit=300))
    add(Try("npukb-relative-session-check-dot", run=in_folder("rs", ["check", "."]), setup=npukb_session, rc=(0,),
            says=("correct on every",), limit=300))
    add(Try("npukb-relative-session-profile", ["profile", "rs"], setup=npukb_session, rc=(0,), limit=300))
    add(Try("npukb-all-cases-empty-draft", ["draft", "1_Relu.py"], setup=npukb_task(EMPTY_CASES), rc=(1,),
            says=("every case has an empty tensor",)))
    # a signal that lands before Python runs our code kills the process by that signal (-2 / -15: what a
    # shell shows as 130 / 143); one in the interpreter's own start-up (site, runpy: the first ~0.1 s) is
    # Python's traceback, not ours
    for delay in (0.5, 1.5):
        add(Try(f"sigint-at-start-up-{delay:g}s", ["check", "s"], session=True, signal_after=(delay, INT),
                rc=(130, -INT)))
        add(Try(f"sigterm-at-start-up-{delay:g}s", ["check", "s"], session=True, signal_after=(delay, TERM),
                rc=(143, -TERM)))
    add(Try("reference-new-session-child-returns", ["draft", "escape.py"], setup=write("escape.py", ESCAPE_REF),
            rc=(0,), limit=120))
    add(Try("reference-new-session-child-timeout", ["draft", "escape.py", "--timeout", "4"],
            setup=write("escape.py", ESCAPE_HANG_REF), rc=(1,), says=("did not finish within 4 s",), limit=120))
    add(Try("reference-kills-its-parent", ["draft", "parricide.py"], setup=write("parricide.py", PARRICIDE_REF),
            rc=(1,), says=("was killed (SIGKILL)",), limit=120))
    add(Try("reference-sigkilled-oom-sentence", ["draft", "oom.py"], setup=write("oom.py", SUICIDE_REF), rc=(1,),
            says=("probably by the out-of-memory killer",), limit=120))
    add(Try("draft-leaves-no-torch-cache", ["draft", "gelu.py"], rc=(0,)))
    add(Try("emulate-program-forks", ["emulate", "--program", "fork.cpp"], setup=write("fork.cpp", FORK_PROGRAM),
            rc=(0,), limit=120))
    for argv, says in ((["check", "s", "--rtol", "-1"], "argument --rtol"),
                       (["check", "s", "--seed", "-1"], "argument --seed"),
                       (["profile", "s", "--blocks", "-1"], "argument --blocks"),
                       (["build", "s", "-j", "0"], "argument -j"),
                       (["check", "s", "--override", "=5"], "names no constant")):
        name = "invalid-number-" + "-".join(a.strip("-") for a in argv[2:])
        add(Try(name, argv, session=True, rc=(2,), says=(says,)))
    add(Try("zero-size-override-check", ["check", "s", "--override", "dim=0"], session=True, rc=(0,),
            says=("nothing to compute",)))
    add(Try("zero-size-override-draft", ["draft", "gelu.py", "--override", "dim=0"], rc=(1,), says=("is empty",),
            verify=lambda h, r: "blamed on the drafter" if "drafter error" in r.out else ""))
    add(Try("nan-reference-output", ["check", "s", "--ref", "nan.py"], session=True, setup=write("nan.py", NAN_REF),
            rc=(1,), says=("not finite",), verify=lambda h, r: "numpy's warning leaked" if "Warning" in r.out else ""))
    add(Try("check-nosuchdir", ["check", "nosuchdir"], rc=(2,), says=("does not exist",)))
    add(Try("lower-ref-is-folder", ["lower", "gelu.dsl.py", "--ref", "adir", "-o", "x"],
            setup=lambda h: (h / "adir").mkdir(), rc=(2,), says=("is a directory",)))
    add(Try("draft-ref-is-folder", ["draft", "adir"], setup=lambda h: (h / "adir").mkdir(), rc=(1, 2),
            says=("is a directory",)))
    add(Try("doctor-help", ["doctor", "--help"], rc=(0,), says=("usage: ascendcraft doctor",)))
    add(Try("doctor-unknown-argument", ["doctor", "--json", "x"], rc=(2,), says=("unrecognized arguments",)))
    add(Try("export-o-existing-file-force", ["export", "s", "-o", "old.py", "--force"], session=True,
            setup=write("old.py", "x"), rc=(0,)))
    add(Try("bench-o-session-folder", ["bench", "suite", "-o", "s"], session=True, setup=bench_suite, rc=(2,),
            says=("is a session folder",), keep=("s/ascendcraft.json",)))
    # -------------------------------------------------------------- third round (issue 39, the rest)
    add(Try("disk-full-lower-new-session", run=on_small_disk(["lower", "gelu.dsl.py", "-o", "s"], 100), rc=(2,),
            says=("the disk is full: cannot write s/", "df -h s"),
            verify=lambda h, r: "" if "skipped" in r.out or sorted(x.name for x in (h / "small").iterdir()) ==
            ["gelu.dsl.py"] else f"left {sorted(x.name for x in (h / 'small').iterdir())} behind"))
    add(Try("disk-full-check-shows-verdict", run=on_small_disk(["check", "s"], 400, fill=True), rc=(0,),
            says=("correct", "this verdict is not recorded")))
    add(Try("read-only-mount-profile", run=on_read_only_mount(["profile", "s"]), session=True, rc=(0,),
            says=("ESTIMATED", "is read-only: estimated in a temporary copy")))
    add(Try("read-only-mount-check", run=on_read_only_mount(["check", "s"]), session=True, rc=(2,),
            says=("is read-only",)))
    add(Try("profile-csv-binary", ["profile", "--csv", "bin.csv"], setup=write("bin.csv", bytes(range(256)) * 4),
            rc=(2,), says=("is not a CSV text file (byte 0x00 at offset 0)",)))
    add(Try("lower-rank-tiling-without-ref", ["lower", "gelu.dsl.py", "--rank-tiling", "-o", "rt"], rc=(2,),
            says=("--rank-tiling needs a PyTorch reference",), verify=exists("rt", False)))
    add(Try("submissions-folder-all-broken", ["check", "subs", "--ref", "gelu.py", "-j", "1", "-o", "v.json"],
            setup=broken_submissions, rc=(1,), says=("0/2 correct; 2 invalid",), verify=exists("v.json")))
    add(Try("submission-broken-py", ["check", "subs/cut.py", "--ref", "gelu.py"], setup=broken_submissions, rc=(1,),
            says=("invalid: cut.py: the submission is not Python",)))
    add(Try("submission-broken-json", ["check", "subs/cut.json", "--ref", "gelu.py"], setup=broken_submissions,
            rc=(1,), says=("invalid: cut.json",)))
    relu_only = ["--only", "relu", "--seeds", "1", "--no-timing", "--shapes", "reference", "-o", "out"]
    add(Try("bench-o-two-at-once", run=concurrent(["bench", "suite", *relu_only], ["bench", "suite", *relu_only],
                                                  {(0, 2), (2, 0)}),
            setup=bench_suite, rc=(0,), says=("is in use by another bench",), limit=300))
    add(Try("bench-timeout-is-timeout", ["bench", "suite", "--only", "slow", "--timeout", "10", "--seeds", "1",
                                         "--no-timing", "--shapes", "reference", "-o", "out"],
            setup=bench_suite, rc=(0,), says=("FAIL(timeout)",), limit=120))
    add(Try("draft-non-ascii-file-name", ["draft", "g\u00e9lu\u00df.py", "-o", "./"],
            setup=write("g\u00e9lu\u00df.py", GELU_REF), rc=(0,), verify=exists("gelu.dsl.py"), limit=120))
    add(Try("draft-name-option", ["draft", "g\u00e9lu\u00df.py", "--name", "gelu_v2", "-o", "./"],
            setup=write("g\u00e9lu\u00df.py", GELU_REF), rc=(0,), verify=exists("gelu_v2.dsl.py"), limit=120))
    add(Try("emulate-program-allocates-without-end", run=with_env(["emulate", "--program", "hog.cpp"],
                                                                  ASCENDCRAFT_CHILD_MEMORY="1G"),
            setup=write("hog.cpp", HOG_PROGRAM), rc=(134,), says=("could map at most 1.0 GiB",)))
    return T


HOG_PROGRAM = """#include <vector>
int main() { std::vector<char*> keep; for (int i = 0; i < 1000; ++i) keep.push_back(new char[64 << 20]); }
"""


def with_env(argv: list[str], **env: str) -> Callable:
    def run(sweep: Sweep, t: Try, here: Path) -> Result:
        return sweep.command(argv, here, limit=t.limit, env={**sweep.env, **env})
    return run


def broken_submissions(here: Path) -> None:
    """subs/: a six-string .py and a direct-launch .json, both cut short."""
    (here / "subs").mkdir()
    (here / "subs" / "cut.py").write_text("project_json_src = r'''[\n    {\n        \"op\": \"Ge")
    (here / "subs" / "cut.json").write_text('{\n  "name": "ascendcraft_gelu",\n  "format_version": "0.1",\n  "descr')


def _umount(folder: Path) -> None:
    """Unmount, lazily when busy (a child of the command may still be leaving with its cwd there)."""
    if subprocess.run(["umount", str(folder)], capture_output=True).returncode != 0:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True)


def _mount(folder: Path, size_kb: int) -> bool:
    folder.mkdir(exist_ok=True)
    return subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_kb}k", "tmpfs", str(folder)],
                          capture_output=True).returncode == 0


def on_small_disk(argv: list[str], size_kb: int, fill: bool = False) -> Callable:
    """The command in `small/`, a tmpfs of `size_kb` KiB (root only; skipped elsewhere); with `fill`, a
    GELU session lowered there first and the disk then filled to the last byte."""
    def run(sweep: Sweep, t: Try, here: Path) -> Result:
        small = here / "small"
        if not _mount(small, size_kb):
            return Result(0 if 0 in t.rc else t.rc[0], "skipped: no tmpfs mount here (needs root). " +
                          " ".join(t.says), 0)
        try:
            shutil.copy(here / "gelu.dsl.py", small)
            if fill:
                shutil.copy(here / "gelu.py", small)
                lowered = sweep.command(["lower", "gelu.dsl.py", "--ref", "gelu.py", "-o", "s"], small)
                assert lowered.rc == 0, lowered.out
                (small / "gelu.py").unlink()
                fd = os.open(small / "filler", os.O_WRONLY | os.O_CREAT)
                try:
                    while os.write(fd, b"\0" * 4096):
                        pass
                except OSError:            # the disk is full: what the try wants
                    pass
                finally:
                    os.close(fd)
            return sweep.command(argv, small, limit=t.limit)
        finally:
            result_names = sorted(x.name for x in small.iterdir())
            _umount(small)
            small.mkdir(exist_ok=True)
            for name in result_names:          # what was there, for the verify (as empty files)
                (small / name).touch()
    return run


def on_read_only_mount(argv: list[str]) -> Callable:
    """The command on a copy of the session ./s on a read-only mount (read-only even for root)."""
    def run(sweep: Sweep, t: Try, here: Path) -> Result:
        ro = here / "ro"
        if not _mount(ro, 4096):
            return Result(t.rc[0], "skipped: no tmpfs mount here (needs root). " + " ".join(t.says), 0)
        try:
            shutil.copytree(here / "s", ro / "s", symlinks=True)
            subprocess.run(["mount", "-o", "remount,ro", str(ro)], check=True, capture_output=True)
            return sweep.command(argv, ro, limit=t.limit)
        finally:
            _umount(ro)
    return run


EMPTY_CASES = ('{"inputs": [{"name": "x", "type": "tensor", "dtype": "float32", "shape": [0]}]}\n'
               '{"inputs": [{"name": "x", "type": "tensor", "dtype": "float16", "shape": [4, 0]}]}\n')


def npukb_task(cases: str | None = None) -> Callable[[Path], None]:
    """NPUKernelBench's 1_Relu (its reference and JSON-lines cases; `cases` replaces the cases)."""
    def setup(here: Path) -> None:
        shutil.copy(NPUKB / "1_Relu.py", here / "1_Relu.py")
        (here / "1_Relu.json").write_text(cases if cases is not None else (NPUKB / "1_Relu.json").read_text())
    return setup


def npukb_session(here: Path) -> None:
    """rs: a session of 1_Relu lowered with relative paths (its reference reads reference_files/1_Relu.json)."""
    npukb_task()(here)
    for argv in (["draft", "1_Relu.py", "-o", "relu.dsl.py"],
                 ["lower", "relu.dsl.py", "--ref", "1_Relu.py", "-o", "rs"]):
        r = SWEEP.command(argv, here)
        assert r.rc == 0, r.out
    SWEEP.leaks()                       # what the set-up left is not the try's


def in_folder(rel: str, argv: list[str]) -> Callable:
    """A try whose command runs in `here/rel` (cd rs; ascendcraft check .)."""
    def run(sweep: Sweep, t: Try, here: Path) -> Result:
        return sweep.command(argv, here / rel, limit=t.limit)
    return run


def python(code: str) -> Callable:
    """A try that is a notebook cell: `code` runs in a fresh Python (exit 0: it held up)."""
    def run(sweep: Sweep, t: Try, here: Path) -> Result:
        t0 = time.monotonic()
        try:
            p = subprocess.run([sys.executable, "-c", code], cwd=here, stdin=subprocess.DEVNULL, capture_output=True,
                               text=True, env=sweep.env, timeout=t.limit)
        except subprocess.TimeoutExpired:
            return Result(None, "", time.monotonic() - t0, True)
        return Result(p.returncode, p.stdout + p.stderr, time.monotonic() - t0)
    return run


NOTEBOOK_HAND_EDIT = f"""
from pathlib import Path
from ascendcraft_lab.notebook import LabSession, LabError
lab = LabSession.resume("s")
k = Path("s/{KERNEL}")
k.write_text(k.read_text().replace("0.5f", "0.6f", 1))
try:
    lab.compile_and_verify()
    raise SystemExit("verified a project that is not the one on disk")
except LabError as e:
    assert "changed by hand" in str(e) and "lab.adopt_edits()" in str(e), str(e)
lab.adopt_edits()
assert lab.step("align").status == "edited"
print("held up")
"""
NOTEBOOK_OTHER_KERNEL = """
from pathlib import Path
from ascendcraft_lab.notebook import LabSession, LabError
try:
    LabSession.open("s", Path("softmax.dsl.py").read_text())
    raise SystemExit("opened gelu's folder with softmax")
except LabError as e:
    assert "session of kernel `gelu`" in str(e), str(e)
print("held up")
"""
NOTEBOOK_DAMAGED = """
from pathlib import Path
from ascendcraft_lab.notebook import LabSession, LabError
Path("s/ascendcraft.json").write_text('{"steps": {"host": []}}')
try:
    LabSession.resume("s")
    raise SystemExit("opened a damaged manifest")
except LabError as e:
    assert "steps.host" in str(e), str(e)
print("held up")
"""


def read_only(rel: str) -> Callable[[Path], None]:
    def setup(here: Path) -> None:
        for p in sorted((here / rel).rglob("*"), reverse=True) + [here / rel]:
            p.chmod(p.stat().st_mode & ~0o222)
    return setup


def torn_commit(here: Path) -> None:
    """A switch a killed process left half done: the journal and one renamed file of a re-lowering."""
    from ascendcraft_lab.session.folder import JOURNAL, TEMP_SUFFIX
    s = here / "s"
    manifest = s / "ascendcraft.json"
    tmp = s / f".ascendcraft.json{TEMP_SUFFIX}"
    tmp.write_bytes(manifest.read_bytes())
    (s / JOURNAL).write_text(json.dumps({"renames": [[str(tmp), str(manifest)]], "deletes": []}))


def interrupted_results(here: Path) -> None:
    """results.json as an interrupted run of bench_suite leaves it: relu done, the rest pending."""
    out = here / "out"
    r = SWEEP.command(["bench", "suite", "-o", "out", "--seeds", "1", "--jobs", "1", "--no-timing",
                       "--shapes", "reference", "--only", "relu"], here)
    doc = json.loads((out / "results.json").read_text())
    doc.update(state="interrupted", interrupted=True, pending=["activation/slow", "activation/zz_relu2"])
    doc["meta"]["config"]["suite"] = str((here / "suite").resolve())
    (out / "results.json").write_text(json.dumps(doc))
    assert r.rc == 0, r.out


def bench_double_sigint(sweep: Sweep, t: Try, here: Path) -> Result:
    """Two Ctrl-C in a row while the slow op runs: stopped, nothing left running."""
    t0 = time.monotonic()
    argv = ["bench", "suite", "-o", "out", "--seeds", "1", "--jobs", "2", "--no-timing", "--shapes", "reference"]
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen([sys.executable, "-m", "ascendcraft_lab", *argv], cwd=here, stdout=out,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=sweep.env,
                                start_new_session=True)
        time.sleep(12)
        proc.send_signal(signal.SIGINT)
        time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=t.limit)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            return Result(None, "", time.monotonic() - t0, True)
        out.seek(0)
        return Result(proc.returncode, out.read().decode(errors="replace"), time.monotonic() - t0)


def sigint_after_first_op(sweep: Sweep, t: Try, here: Path) -> Result:
    """Ctrl-C once results.json holds the first finished op (relu; slow.py sleeps): on a loaded machine
    a fixed delay may land before any op finished. Then `t.limit` s for the bench to stop."""
    t0 = time.monotonic()
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen([sys.executable, "-m", "ascendcraft_lab", *t.argv], cwd=here, stdout=out,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=sweep.env,
                                start_new_session=True)
        while proc.poll() is None and time.monotonic() - t0 < 300:
            try:
                if json.loads((here / "out" / "results.json").read_text()).get("results"):
                    break
            except (OSError, ValueError):
                pass
            time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=t.limit)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            return Result(None, "", time.monotonic() - t0, True)
        out.seek(0)
        return Result(proc.returncode, out.read().decode(errors="replace"), time.monotonic() - t0)


def doctor_with_home(sweep: Sweep, t: Try, here: Path) -> Result:
    return sweep.command(["doctor"], here, env={**sweep.env, "HOME": str(here / "home")})


def cached_last_run(here: Path, r: Result) -> str:
    runs = sorted((here / "s" / "runs").glob("*.json"))
    last = json.loads(runs[-1].read_text())
    return "" if last["run"]["timings"].get("cached") else "the compile cache missed on a re-check of the same project"


SWEEP: Sweep


def main(argv: list[str] | None = None) -> int:
    global SWEEP
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="+", help="run only tries whose name contains one of these")
    ap.add_argument("--list", action="store_true", help="list the tries and exit")
    ap.add_argument("--keep", help="work in this folder and keep it (default: a temporary folder, removed)")
    ap.add_argument("--json", help="write the counts and problems here")
    ap.add_argument("--markdown", help="write the summary table (counts per kind, the problems) here")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every command's output")
    ap.add_argument("--pythonpath", help="run the commands with this PYTHONPATH (another checkout of the package)")
    args = ap.parse_args(argv)
    chosen = [t for t in tries() if not args.only or any(o in t.name for o in args.only)]
    if args.list:
        print("\n".join(t.name for t in chosen))
        return 0
    # started in the background of a shell, SIGINT is ignored, and every command would inherit that: the
    # Ctrl-C tries would hang or finish as if never interrupted
    signal.signal(signal.SIGINT, signal.default_int_handler)
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="ascendcraft-sweep-"))
    os.chmod(work, 0o755)
    old_umask = os.umask(0o022)
    t0 = time.monotonic()
    try:
        SWEEP = Sweep(work, args.verbose, args.pythonpath)
        SWEEP.make_base()
        outcomes = []
        for i, t in enumerate(chosen, 1):
            o = SWEEP.attempt(t)
            outcomes.append(o)
            mark = "ok" if not o.problems else ", ".join(f"{k} {len(v)}" for k, v in o.problems.items())
            print(f"[{i:3d}/{len(chosen)}] {t.name:<42} {mark}", flush=True)
            for kind, items in o.problems.items():
                for item in items:
                    print(f"        {kind}: {item}")
    finally:
        os.umask(old_umask)
        if not args.keep:
            for p in work.rglob("*"):           # read-only tries leave read-only folders
                if p.is_dir() and not p.is_symlink():
                    p.chmod(0o755)
            shutil.rmtree(work, ignore_errors=True)
    counts = {k: sum(len(o.problems.get(k, [])) for o in outcomes) for k in KINDS}
    clean = sum(1 for o in outcomes if not o.problems)
    print(f"\n{len(outcomes)} tries in {time.monotonic() - t0:.0f} s: {clean} held up; "
          + ", ".join(f"{counts[k]} {k if counts[k] == 1 else PLURAL[k]}" for k in KINDS))
    if args.json:
        problems = {o.name: o.problems for o in outcomes if o.problems}
        Path(args.json).write_text(json.dumps({"tries": len(outcomes), "held": clean, "counts": counts,
                                               "problems": problems}, indent=1))
    if args.markdown:
        Path(args.markdown).write_text(summary_table(outcomes, counts, clean, time.monotonic() - t0, argv))
    return 0 if not any(counts.values()) else 1


def summary_table(outcomes: list[Outcome], counts: dict, clean: int, seconds: float, argv) -> str:
    """The sweep's result as Markdown: the counts per kind, then each problem."""
    cmd = " ".join(["bench/hostile_sweep.py", *(sys.argv[1:] if argv is None else argv)])
    lines = [f"# Hostile sweep: `{cmd}`", "",
             f"{len(outcomes)} tries in {seconds:.0f} s, {os.cpu_count()} CPUs: {clean} held up.", "",
             "| " + " | ".join(KINDS) + " |", "|" + "---|" * len(KINDS),
             "| " + " | ".join(str(counts[k]) for k in KINDS) + " |", ""]
    bad = [o for o in outcomes if o.problems]
    if bad:
        lines += ["| try | kind | what |", "|---|---|---|"]
        lines += [f"| {o.name} | {k} | {w.replace('|', '/')[:200]} |"
                  for o in bad for k, ws in o.problems.items() for w in ws]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
