"""Check MultiKernelBench submissions on the CPU: `ascendcraft check SUBMISSION --ref REF.py`.

A submission is a six-string ``.py`` (msopgen op project) or a direct-launch ``.json``
(submission_build.py). Each one is checked in a child process of its own (submission_child.py):
built as a CPU torch extension against the emulator, run beside the PyTorch reference with
MultiKernelBench's correctness protocol and tolerance, and held to its anti-hack rule
(mkb_protocol.py). Compiler errors and sanitizer findings point at the submission's own lines
(``kernel_src:42 (submission line 97)``, ``kernel/relu_kernel.cpp:42``).

    check_submission(path, reference) -> Verdict
    check_batch(paths, reference, jobs=1) -> [Verdict]      (a progress bar on stderr)

A verdict's ``status``: ``correct`` | ``incorrect`` | ``findings`` (outputs match, the sanitizer
found bugs) | ``rejected`` (anti-hack rule) | ``compile-error`` | ``runtime-error`` | ``crash`` |
``timeout`` | ``invalid`` (the submission or reference is malformed).
"""
from __future__ import annotations

import argparse
import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ... import procs
from . import mkb_protocol as mkb

STATUSES = ("correct", "incorrect", "findings", "rejected", "compile-error", "runtime-error", "crash", "timeout",
            "invalid")


@dataclass
class Verdict:
    submission: str
    reference: str
    status: str
    message: str = ""
    format: str = ""
    problem: str = ""
    trials: list[dict] = field(default_factory=list)
    findings: list[dict] = field(default_factory=list)
    notes: list[dict] = field(default_factory=list)
    diagnostics: list[dict] = field(default_factory=list)
    anti_hack: dict | None = None
    launches: int = -1  # kernel launches during the trials (-1: none were run)
    timings: dict = field(default_factory=dict)
    stderr: str = ""

    @property
    def correct(self) -> bool:
        return self.status == "correct"

    def to_dict(self) -> dict:
        return asdict(self)

    def summary(self) -> str:
        """One line for the verdict, then one per finding, compiler error or note."""
        name = Path(self.submission).name
        head = f"{self.status}: {name}"
        if self.format:
            head += f" ({self.format}, {self.problem})"
        if self.status == "correct":
            worst = max((t["max_abs_err"] for t in self.trials), default=0.0)
            tol = max((t["tolerance"] for t in self.trials), default=0.0)
            head += (f": {len(self.trials)}/{len(self.trials)} input sets within atol = rtol = {tol:g} "
                     f"(max abs error {worst:.3g})")
        elif self.message:
            head += f": {self.message}"
        if self.timings.get("total_s") is not None:
            head += f" [{self.timings['total_s']:.1f} s]"
        lines = [head]
        if self.launches == 0 and self.trials:
            lines.append("  warning: no kernel of the submission ran during the trials: the outputs come from its "
                         "host or binding code, which MultiKernelBench's anti-hack rule does not read")
        for d in self.diagnostics:
            lines.append(f"  {d.get('source') or d.get('file')}: error: {d['message']}")
        for f in self.findings:
            times = f" (x{f['count']})" if f.get("count", 1) > 1 else ""
            lines.append(f"  {f.get('source') or f['file'] + ':' + str(f['line'])}: {f['kind']} in {f['api']}{times}: "
                         f"{f['message']}")
        for f in self.notes:
            lines.append(f"  {f.get('source') or f['file'] + ':' + str(f['line'])}: note: {f['kind']} in {f['api']}: "
                         f"{f['message']}")
        return "\n".join(lines)


def _crash_message(stderr: str) -> str:
    line = next((ln for ln in stderr.splitlines() if ln.startswith("acemu:")), "")
    return line[len("acemu: "):] if line else (stderr.strip().splitlines()[-1] if stderr.strip()
                                               else "the check process died")


def check_submission(path: str | Path, reference: str | Path, *, trials: int = mkb.TRIALS, soc: str | None = None,
                     timeout: float = 900.0) -> Verdict:
    """Check one submission against its PyTorch reference in a child process."""
    from .runner import cache_dir
    from .submission_build import SubmissionError, read_submission
    path, reference = Path(path).resolve(), Path(reference).resolve()
    if not reference.is_file():
        return Verdict(str(path), str(reference), "invalid", f"the reference {reference} does not exist")
    try:
        sub = read_submission(path)
    except SubmissionError as exc:
        return Verdict(str(path), str(reference), "invalid", str(exc))
    # One build folder per problem and format, reused: the submissions of a problem differ in few
    # files, and the objects of the others (the torch binding is the slow one) stay cached.
    build_dir = cache_dir() / "submissions" / f"{sub.format}-{sub.problem}"
    build_dir.mkdir(parents=True, exist_ok=True)
    lock = open(build_dir / ".lock", "w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    work = Path(tempfile.mkdtemp(prefix="acemu-submission-"))
    spec = {"submission": str(path), "reference": str(reference), "work": str(build_dir / "src"),
            "result": str(work / "result.json"),
            "trials": int(trials), "soc": soc}
    (work / "spec.json").write_text(json.dumps(spec))
    t0 = time.perf_counter()
    try:
        from .runner import program_env
        env = {**program_env(soc), "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1")}
        # Its own process group, stopped with this one (ascendcraft_lab.procs).
        proc = procs.run([sys.executable, "-m", "ascendcraft_lab.backends.emulator.submission_child",
                          str(work / "spec.json")],
                         timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        shutil.rmtree(work, ignore_errors=True)
        lock.close()
        return Verdict(str(path), str(reference), "timeout",
                       f"the check did not finish within {timeout:g} s (an endless loop in the kernel?)",
                       timings={"total_s": round(time.perf_counter() - t0, 1)})
    try:
        result_file = work / "result.json"
        if proc.returncode != 0 or not result_file.exists():
            status = "crash" if proc.returncode < 0 or "acemu:" in proc.stderr else "runtime-error"
            return Verdict(str(path), str(reference), status, _crash_message(proc.stderr), stderr=proc.stderr[-4000:],
                           timings={"total_s": round(time.perf_counter() - t0, 1)})
        data = json.loads(result_file.read_text())
        data["timings"]["total_s"] = round(time.perf_counter() - t0, 1)
        return Verdict(str(path), str(reference), data.pop("status"), data.pop("message"),
                       format=data.get("format", ""), problem=data.get("problem", ""), trials=data["trials"],
                       findings=data["findings"], notes=data["notes"],
                       diagnostics=data["diagnostics"], anti_hack=data["anti_hack"], launches=data.get("launches", -1),
                       timings=data["timings"], stderr=proc.stderr[-4000:])
    finally:
        shutil.rmtree(work, ignore_errors=True)
        lock.close()


# ----------------------------------------------------------------------------- finding submissions


# What marks a file as meant to be a submission, even a broken one (cut short, a string missing): the
# six strings' names in a .py, a direct-launch document's keys in a .json (a DSL draft, a reference or
# an NPUKernelBench cases file has none of them). A broken one is checked, and said to be invalid.
_SIX_STRINGS = ("project_json_src", "host_tiling_src", "host_operator_src", "kernel_src", "python_bind_src",
                "model_src")
_DIRECT_KEYS = ('"sources"', '"entry"', '"ascendc_direct_launch"', '"format_version"')


def is_submission(path: Path) -> bool:
    """A six-string .py (names one of the six strings) or a direct-launch .json (one of its keys)."""
    if not path.is_file():
        return False
    try:
        head = path.read_text(errors="replace")
    except OSError:
        return False
    if path.suffix == ".py":
        return any(re.search(rf"^\s*{name}\s*=", head, re.M) for name in _SIX_STRINGS)
    if path.suffix == ".json":
        return any(key in head for key in _DIRECT_KEYS)
    return False


def submissions_in(target: Path) -> list[Path]:
    if target.is_dir():
        return sorted(p for p in target.rglob("*") if p.suffix in (".py", ".json") and is_submission(p))
    return [target]


def is_submission_target(target: str | Path) -> bool:
    """What `ascendcraft check` hands to this module: a submission, or a folder of them (not a session)."""
    p = Path(target)
    if p.is_dir():
        return not (p / "ascendcraft.json").exists() and bool(submissions_in(p))
    # a .json can be nothing else `check` takes (a DSL draft is .py): whatever it holds, it is judged as one
    return (p.suffix == ".json" and p.is_file()) or (p.suffix == ".py" and is_submission(p))


def find_reference(sub: Path, ref: Path) -> Path | None:
    """The reference of a submission: `ref` itself, or `<problem>.py` somewhere under the folder `ref`."""
    if ref.is_file():
        return ref
    names = [sub.stem]
    try:
        from .submission_build import read_submission
        s = read_submission(sub)
        names.insert(0, s.problem)
    except Exception:  # malformed: the check itself will say so
        pass
    for name in names:
        hits = sorted(ref.rglob(f"{name}.py"))
        if hits:
            return hits[0]
    return None


class _Progress:
    """A one-line progress bar on stderr (a line per submission when stderr is not a terminal)."""

    def __init__(self, total: int):
        self.total, self.n, self.t0 = total, 0, time.perf_counter()
        self.tty = sys.stderr.isatty()
        self.lock = threading.Lock()

    def done(self, name: str, status: str) -> None:
        with self.lock:
            self.n += 1
            filled = int(30 * self.n / max(self.total, 1))
            text = (f"[{'#' * filled}{'.' * (30 - filled)}] {self.n}/{self.total} submissions  "
                    f"{time.perf_counter() - self.t0:5.0f} s  {name}: {status}")
            sys.stderr.write(("\r" + text[:150].ljust(150)) if self.tty else text + "\n")
            if self.tty and self.n == self.total:
                sys.stderr.write("\n")
            sys.stderr.flush()


def check_batch(paths: list[Path], reference: str | Path, *, jobs: int = 1, progress: bool = True,
                **kw) -> list[Verdict]:
    """Check many submissions (each in its own child process), `jobs` at a time."""
    ref = Path(reference).resolve()
    bar = _Progress(len(paths)) if progress else None

    def one(p: Path) -> Verdict:
        r = find_reference(p, ref)
        v = (check_submission(p, r, **kw) if r is not None else
             Verdict(str(p), str(ref), "invalid", f"no reference for {p.name} under {ref} (looked for <problem>.py)"))
        if bar:
            bar.done(p.name, v.status)
        return v

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(one, paths))


# ----------------------------------------------------------------------------- command


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, no usage dump
        raise ValueError(message)


def main(argv: list[str] | None = None) -> int:
    ap = _Parser(prog="ascendcraft check", description="Check MultiKernelBench submissions on the CPU emulator.")
    ap.add_argument("target", help="a six-string .py, a direct-launch .json, or a folder of them")
    ap.add_argument("--ref", required=True, help="the PyTorch reference (.py), or a folder holding <problem>.py files")
    ap.add_argument("--trials", type=int, default=mkb.TRIALS, help=f"input sets (default {mkb.TRIALS})")
    ap.add_argument("--soc", default=None, help="the SoC to emulate (default: the SoC table's default)")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per submission, build included")
    ap.add_argument("--jobs", "-j", type=int, default=1, help="submissions checked at once")
    ap.add_argument("-o", "--out", help="write every verdict as JSON here")
    ap.add_argument("--backend", default="emulator", help=argparse.SUPPRESS)
    try:
        ns = ap.parse_args(argv)
        if ns.backend != "emulator":
            raise ValueError(f"submissions are checked on the emulator only "
                             f"(--backend {ns.backend} is for DSL kernels and sessions)")
        target, ref = Path(ns.target), Path(ns.ref)
        if not target.exists():
            raise ValueError(f"{target} does not exist")
        if not ref.exists():
            raise ValueError(f"the reference {ref} does not exist")
        paths = submissions_in(target)
        if not paths:
            raise ValueError(f"{target} holds no six-string .py or direct-launch .json submission")
    except ValueError as exc:
        print(f"ascendcraft check: {exc}", file=sys.stderr)
        return 2
    kw = {"trials": ns.trials, "soc": ns.soc, "timeout": ns.timeout}
    if target.is_dir():
        verdicts = check_batch(paths, ref, jobs=ns.jobs, **kw)
        for v in verdicts:
            print(v.summary())
        counts = {s: sum(v.status == s for v in verdicts) for s in STATUSES}
        print(f"{counts['correct']}/{len(verdicts)} correct; "
              + ", ".join(f"{n} {s}" for s, n in counts.items() if n and s != "correct"))
    else:
        r = find_reference(paths[0], ref)
        verdicts = [check_submission(paths[0], r, **kw) if r else
                    Verdict(str(paths[0]), str(ref), "invalid", f"no reference for {paths[0].name} under {ref}")]
        print(verdicts[0].summary())
    if ns.out:
        Path(ns.out).write_text(json.dumps([v.to_dict() for v in verdicts], indent=1, default=str))
    return 0 if all(v.correct for v in verdicts) else 1


__all__ = ["STATUSES", "Verdict", "check_batch", "check_submission", "find_reference", "is_submission",
           "is_submission_target", "main"]
