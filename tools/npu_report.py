#!/usr/bin/env python3
"""Run once on an Ascend NPU host, then attach the archive it writes to an issue.

    source /usr/local/Ascend/cann/set_env.sh      # or your toolkit's set_env.sh
    python tools/npu_report.py                     # writes ascendcraft-npu-report.tar.gz

The project has never run on an NPU; this script is how a first run comes back. It runs, and
records whatever each step prints, success or not:

1. `ascendcraft doctor`, plus the Python, torch, torch_npu and CANN versions;
2. for three bundled examples, chosen to cover what differs on the chip — gelu (elementwise),
   softmax (a reduction along rows), frobenius_norm (a GM Workspace shared by the cores and
   sync_all, so a zeroed workspace and every core of the launch) — `ascendcraft lower` into
   a session, `ascendcraft build`, the NPU check (5 input sets, the project's and
   MultiKernelBench's tolerances, timing against eager; `ascendcraft check --backend cann`)
   and `ascendcraft profile` (the offline estimate, then the measured profile: a calibration point of the model);
3. both MultiKernelBench exports of each session (`--format mkb` and `mkb-direct`), to try with
   the benchmark's own harness;
4. one .tar.gz of the log, every session's runs/*.json, CMake's logs from the build folders
   and the exports.

Nothing secret goes in: no environment variable but the CANN ones (ASCEND_*, ASC_DIR,
ASCENDCRAFT_*) is recorded, and the runs hold commands, versions, messages and numbers. Look
through the archive before posting it anyway. Steps that cannot run here (no toolkit, no
device) are recorded with their one-line refusal, so the script also runs on a CPU machine.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import platform
import shutil
import sys
import tarfile
import tempfile
import time
import traceback
from pathlib import Path

EXAMPLES = ("gelu", "softmax", "frobenius_norm")
RECORDED_ENV = ("ASCEND_", "ASC_DIR", "ASCENDCRAFT_")
SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD")


class Log:
    """Everything the steps print, on the console and in log.txt."""

    def __init__(self, path: Path):
        self.path = path
        self.file = path.open("w", encoding="utf-8")

    def write(self, text: str) -> None:
        sys.stdout.write(text)
        self.file.write(text)
        self.file.flush()

    def step(self, title: str, fn, *args) -> int | None:
        """Run fn(*args) with its output captured into the log; a crash is logged, not raised."""
        self.write(f"\n$ {title}\n")
        out = io.StringIO()
        started = time.perf_counter()
        code = None
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            try:
                code = fn(*args)
            except SystemExit as exc:        # argparse and a few commands exit this way
                code = exc.code if isinstance(exc.code, int) else 2
            except Exception:                # noqa: BLE001 - the report must go on and say what broke
                traceback.print_exc()
                code = "crashed"
        self.write(out.getvalue())
        self.write(f"[exit {code}, {time.perf_counter() - started:.1f} s]\n")
        return code


def versions() -> dict:
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


def report_example(log: Log, name: str, work: Path, exports: Path) -> Path:
    from ascendcraft_lab import cli
    from ascendcraft_lab.examples import get_example
    example = get_example(name)
    session = work / name
    log.step(f"ascendcraft lower {example.dsl.name} --ref {example.reference.name} -o {session}",
             cli.main, ["lower", str(example.dsl), "--ref", str(example.reference), "-o", str(session)])
    log.step(f"ascendcraft build {session}", cli.main, ["build", str(session)])
    log.step(f"ascendcraft check {session} --backend cann", cli.main, ["check", str(session), "--backend", "cann"])
    log.step(f"ascendcraft profile {session}", cli.main, ["profile", str(session)])
    # The exports are for trying in MultiKernelBench even when the check above failed (or could
    # not run): --unverified, and the log keeps export's note saying so.
    for fmt, suffix in (("mkb", ".py"), ("mkb-direct", ".json")):
        out = exports / f"{name}_{fmt}{suffix}"
        log.step(f"ascendcraft export {session} --format {fmt} --unverified -o {out}", cli.main,
                 ["export", str(session), "--format", fmt, "--unverified", "-o", str(out)])
    return session


def bundle(archive: Path, root: Path, sessions: list[Path]) -> list[str]:
    """The archive: log, versions, exports, and per session its runs and CMake's logs."""
    members = []
    with tarfile.open(archive, "w:gz") as tar:
        def add(path: Path, name: str) -> None:
            tar.add(path, arcname=name)
            members.append(name)
        for name in ("log.txt", "versions.json"):
            add(root / name, name)
        for path in sorted((root / "exports").glob("*")):
            add(path, f"exports/{path.name}")
        for session in sessions:
            for path in sorted((session / "runs").glob("*.json")):
                add(path, f"sessions/{session.name}/runs/{path.name}")
            for path in sorted((session / "build").rglob("CMake*.log")):
                add(path, f"sessions/{session.name}/build/{path.relative_to(session / 'build')}")
    return members


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Run the NPU path on three examples and bundle what happened.")
    ap.add_argument("-o", "--output", default="ascendcraft-npu-report.tar.gz", help="the archive to write")
    ap.add_argument("--examples", default=",".join(EXAMPLES), help="comma-separated bundled examples")
    ap.add_argument("--keep", metavar="DIR", help="work in DIR and keep the sessions (default: a temporary folder)")
    args = ap.parse_args(argv)
    from ascendcraft_lab.cli import doctor
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="ascendcraft-npu-report-"))
    (root / "exports").mkdir(parents=True, exist_ok=True)
    log = Log(root / "log.txt")
    log.write(f"AscendCraft Lab NPU report, {time.strftime('%Y-%m-%d %H:%M:%S %Z')}\n")
    (root / "versions.json").write_text(json.dumps(versions(), indent=2) + "\n")
    log.write((root / "versions.json").read_text())
    log.step("ascendcraft doctor", doctor.main, [])
    sessions = [report_example(log, name.strip(), root / "sessions", root / "exports")
                for name in args.examples.split(",") if name.strip()]
    log.file.close()
    members = bundle(Path(args.output), root, sessions)
    print(f"\nwrote {args.output} ({len(members)} files); look it over, then attach it to an issue")
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
