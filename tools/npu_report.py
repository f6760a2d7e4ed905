#!/usr/bin/env python3
"""Run once on an Ascend NPU host, then attach the archive it writes to an issue.

    source /usr/local/Ascend/cann/set_env.sh      # or your toolkit's set_env.sh
    python tools/npu_report.py                     # writes ascendcraft-npu-report.tar.gz

The project has never run on an NPU; this script is how a first run comes back. It runs, and
records whatever each step prints, success or not:

1. `ascendcraft doctor`, plus the Python, torch, torch_npu and CANN versions;
2. for six bundled examples, chosen to cover what differs on the chip — gelu (elementwise),
   softmax (a reduction along rows), frobenius_norm (a GM Workspace shared by the cores and
   sync_all), matmul (a cube kernel: KERNEL_TYPE_AIC_ONLY), linear_relu (a cube + vector MIX
   kernel: the cross-core sync base and rows for both vector cores of each AI core) and
   rms_norm_cases (dtype-generic: one library of three dtype variants) — `ascendcraft lower` into
   a session, `ascendcraft build`, the NPU check with MultiKernelBench's draws (`ascendcraft
   check --backend cann --draws mkb`: what the exports below would be judged on) and `ascendcraft
   profile` (the offline estimate, then the measured profile: a calibration point of the model);
3. both MultiKernelBench exports of each session (`--format mkb` and `mkb-direct`), to try with
   the benchmark's own harness;
4. one .tar.gz of the log, every session's runs/*.json, CMake's logs from the build folders
   and the exports.

Every step is a child process stopped after `--step-timeout` seconds: a kernel that hangs on the chip
costs one line of the log ("timed out"), and the steps after it still run. The archive is rewritten
after every step, so stopping the script (or a crash of the machine) leaves the report of every step
done so far.

Nothing secret goes in: no environment variable but the CANN ones (ASCEND_*, ASC_DIR,
ASCENDCRAFT_*) is recorded, and the runs hold commands, versions, messages and numbers. Look
through the archive before posting it anyway. Steps that cannot run here (no toolkit, no
device) are recorded with their one-line refusal, so the script also runs on a CPU machine.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

EXAMPLES = ("gelu", "softmax", "frobenius_norm", "matmul", "linear_relu", "rms_norm_cases")
RECORDED_ENV = ("ASCEND_", "ASC_DIR", "ASCENDCRAFT_")
SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD")
STEP_TIMEOUT = 1800.0      # a build of the dtype-generic example takes minutes; only a hang takes this long


class Log:
    """Everything the steps print, on the console and in log.txt (flushed line by line)."""

    def __init__(self, path: Path):
        self.path = path
        self.file = path.open("w", encoding="utf-8")

    def write(self, text: str) -> None:
        sys.stdout.write(text)
        sys.stdout.flush()
        self.file.write(text)
        self.file.flush()


def ascendcraft(*args: str) -> list[str]:
    """The command line of one `ascendcraft` step, in a fresh Python (the package this script belongs to)."""
    return [sys.executable, "-m", "ascendcraft_lab", *args]


def run_step(log: Log, title: str, cmd: list[str], timeout: float) -> str:
    """Run `cmd` in its own process group, its output into the log; a hang is stopped at `timeout` and
    costs one line. Returns how it ended: an exit code, `timed out` or `could not start`."""
    from ascendcraft_lab import procs
    log.write(f"\n$ {title}\n")
    started = time.perf_counter()
    try:
        proc = procs.run(cmd, timeout=timeout)
        log.write((proc.stdout or "") + (proc.stderr or ""))
        ended = f"exit {proc.returncode}"
    except subprocess.TimeoutExpired:
        ended = "timed out"
        log.write(f"timed out after {timeout:g} s: stopped (the step's processes were ended)\n")
    except OSError as exc:
        ended = "could not start"
        log.write(f"could not start: {exc}\n")
    log.write(f"[{ended}, {time.perf_counter() - started:.1f} s]\n")
    return ended


def versions_command() -> list[str]:
    """This script in a child, printing versions() as JSON."""
    return [sys.executable, str(Path(__file__).resolve()), "--versions"]


def versions() -> dict:
    """What this machine has (called in a child: importing torch_npu may crash or hang)."""
    from ascendcraft_lab.backends.cann.detect import detect
    found = {"python": platform.python_version(), "platform": platform.platform()}
    for module in ("torch", "torch_npu", "numpy"):
        try:
            found[module] = getattr(__import__(module), "__version__", "installed")
        except Exception as exc:             # noqa: BLE001 - absent or broken: say which
            found[module] = f"not importable ({type(exc).__name__})"
    tc = detect()
    found["cann"] = tc.version or ("unknown" if tc.home else "no toolkit")
    found["cann_home"] = str(tc.home) if tc.home else ""
    found["environment"] = {k: v for k, v in sorted(os.environ.items())
                            if k.startswith(RECORDED_ENV) and not any(w in k.upper() for w in SECRET_WORDS)}
    return found


def example_steps(name: str, work: Path, exports: Path) -> list[tuple[str, list[str]]]:
    """(title, command) of each step for one bundled example."""
    from ascendcraft_lab.examples import CASE_EXAMPLES, EXAMPLES as ALL
    example = next(e for e in ALL + CASE_EXAMPLES if name in (e.op, e.name))
    session = work / example.op
    steps = [
        (f"ascendcraft lower {example.dsl.name} --ref {example.reference.name} -o {session}",
         ascendcraft("lower", str(example.dsl), "--ref", str(example.reference), "-o", str(session))),
        (f"ascendcraft build {session}", ascendcraft("build", str(session))),
        (f"ascendcraft check {session} --backend cann --draws mkb",
         ascendcraft("check", str(session), "--backend", "cann", "--draws", "mkb")),
        (f"ascendcraft profile {session}", ascendcraft("profile", str(session))),
    ]
    # The exports are for trying in MultiKernelBench even when the check above failed (or could
    # not run): --unverified, and the log keeps export's note saying so.
    for fmt, suffix in (("mkb", ".py"), ("mkb-direct", ".json")):
        out = exports / f"{example.op}_{fmt}{suffix}"
        steps.append((f"ascendcraft export {session} --format {fmt} --unverified -o {out}",
                      ascendcraft("export", str(session), "--format", fmt, "--unverified", "-o", str(out))))
    return steps


def bundle(archive: Path, root: Path) -> list[str]:
    """The archive as it stands: log, versions, exports, and per session its runs and CMake's logs. Written
    beside the target and renamed over it, so a reader never finds half an archive."""
    members = []
    tmp = archive.with_name(archive.name + ".partial")
    with tarfile.open(tmp, "w:gz") as tar:
        def add(path: Path, name: str) -> None:
            tar.add(path, arcname=name)
            members.append(name)
        for name in ("log.txt", "versions.json"):
            if (root / name).is_file():
                add(root / name, name)
        for path in sorted((root / "exports").glob("*")):
            add(path, f"exports/{path.name}")
        for session in sorted(p for p in (root / "sessions").glob("*") if p.is_dir()):
            for path in sorted((session / "runs").glob("*.json")):
                add(path, f"sessions/{session.name}/runs/{path.name}")
            for path in sorted((session / "build").rglob("CMake*.log")):
                add(path, f"sessions/{session.name}/build/{path.relative_to(session / 'build')}")
    os.replace(tmp, archive)
    return members


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Run the NPU path on the bundled examples and bundle what happened.")
    ap.add_argument("-o", "--output", default="ascendcraft-npu-report.tar.gz", help="the archive to write")
    ap.add_argument("--examples", default=",".join(EXAMPLES), help="comma-separated bundled examples")
    ap.add_argument("--keep", metavar="DIR", help="work in DIR and keep the sessions (default: a temporary folder)")
    ap.add_argument("--step-timeout", type=float, default=STEP_TIMEOUT,
                    help=f"seconds one step may take before it is stopped (default {STEP_TIMEOUT:g})")
    ap.add_argument("--versions", action="store_true", help=argparse.SUPPRESS)   # the child that reads versions
    args = ap.parse_args(argv)
    if args.versions:
        print(json.dumps(versions(), indent=2))
        return 0
    archive = Path(args.output).resolve()
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="ascendcraft-npu-report-"))
    (root / "exports").mkdir(parents=True, exist_ok=True)
    log = Log(root / "log.txt")
    log.write(f"AscendCraft Lab NPU report, {time.strftime('%Y-%m-%d %H:%M:%S %Z')}\n")
    try:
        from ascendcraft_lab import procs
        try:
            found = procs.run(versions_command(), timeout=args.step_timeout)
            failed = json.dumps({"error": (found.stderr or "").strip()[-2000:]})
            text = found.stdout if found.returncode == 0 else failed
        except subprocess.TimeoutExpired:
            text = json.dumps({"error": f"reading the versions timed out after {args.step_timeout:g} s"})
        (root / "versions.json").write_text(text.strip() + "\n")
        log.write((root / "versions.json").read_text())
        bundle(archive, root)
        steps = [("ascendcraft doctor", ascendcraft("doctor"))]
        for name in (n.strip() for n in args.examples.split(",") if n.strip()):
            steps += example_steps(name, root / "sessions", root / "exports")
        for title, cmd in steps:
            run_step(log, title, cmd, args.step_timeout)
            bundle(archive, root)          # after every step: what is done so far survives a stop
    finally:
        log.file.close()
        members = bundle(archive, root)
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    print(f"\nwrote {archive} ({len(members)} files); look it over, then attach it to an issue")
    return 0


if __name__ == "__main__":
    sys.exit(main())
