"""The NPU commands: `ascendcraft build SESSION` and `ascendcraft profile SESSION | --csv FILE`.

`build` builds `<session>/ascendc` with CANN's CMake and refuses in one line without a toolkit;
`profile --csv kernel_details.csv --kernel gelu` reads a recorded profile (works anywhere);
`profile SESSION` works offline: the ESTIMATED profile (the pipe model of the emulator's trace,
`ascendcraft_lab.perf`) beside the estimated eager time of the reference, and on an NPU host the
measured profile after it; `--npu` asks for the measured one only (refused without an NPU). The
measured run is a child process stopped after `--timeout` seconds (a hung kernel costs that, not
the command).
Every run is recorded in the session's runs/ folder. The NPU check is
`ascendcraft check SESSION --backend cann`.
"""
from __future__ import annotations

import argparse
import json
import shutil
import stat
import sys
from pathlib import Path

from ..backends.cann.build import render_build
from ..backends.cann.detect import refuse_reason
from ..backends.cann.profile import PROFILE_TIMEOUT, parse_kernel_details
from ..session import Session, SessionError, SessionFolder
from ..procs import scratch_dir
from ..session.folder import LOCK_FILE, files_hash
from ..session.npu import ProfileFailed, build_session, profile_session
from ..session.program import is_program_folder
from ..args import seconds, whole_number


def _fail(cmd: str, message: str, code: int = 2) -> int:
    print(f"ascendcraft {cmd}: {message}", file=sys.stderr)
    return code


def build_main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="ascendcraft build", description="Build a session's AscendC project with CANN.")
    ap.add_argument("session")
    ap.add_argument("-j", "--jobs", type=whole_number(1), default=None)
    args = ap.parse_args(argv)
    reason = refuse_reason("build")
    if reason:
        return _fail("build", reason)
    result = build_session(args.session, jobs=args.jobs)
    print(render_build(result))
    return 0 if result.ok else 1


def profile_main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="ascendcraft profile",
                                 description="Estimate a session's kernel time offline (pipe model of the emulator's "
                                             "trace) and, on an NPU host, profile it there; or show a recorded "
                                             "kernel_details.csv.")
    ap.add_argument("session", nargs="?")
    ap.add_argument("--csv", help="a recorded kernel_details.csv (or a folder holding one)")
    ap.add_argument("--kernel", help="the kernel's name in the profile (default: the session's kernel)")
    ap.add_argument("--html", help="also write the NPU chart as HTML to this file")
    ap.add_argument("--npu", action="store_true", help="only the measured profile on the NPU (refused without one)")
    ap.add_argument("--json", action="store_true", help="print the estimate as JSON")
    ap.add_argument("--blocks", type=whole_number(0), default=8, help="blocks to list (default 8)")
    ap.add_argument("--timeout", type=seconds, default=PROFILE_TIMEOUT,
                    help=f"seconds the measured run may take before it is stopped (default {PROFILE_TIMEOUT:g})")
    args = ap.parse_args(argv)
    if args.csv:
        try:
            report = parse_kernel_details(Path(args.csv), args.kernel)
        except ValueError as exc:
            return _fail("profile", str(exc))
        _show(report, args.html)
        return 0
    if not args.session:
        return _fail("profile", "give a session folder or --csv kernel_details.csv")
    if is_program_folder(Path(args.session)):
        return _profile_program(Path(args.session), args)
    reason = refuse_reason("profile")
    if not args.npu:
        try:
            estimate = _estimate(args.session)
        except SessionError as exc:
            print(str(exc), file=sys.stderr)
            return 1
        if args.json:
            print(json.dumps(estimate.to_dict(blocks=args.blocks), indent=2))
        else:
            print(estimate.text(blocks=args.blocks))
        folder = SessionFolder(args.session)
        if folder.passing_run(files_hash(folder.project_files())) is None:
            print(f"note: no check has passed {folder.project_dir} as it is now: this is the estimate of an "
                  f"unverified kernel (`ascendcraft check {args.session}` verifies it)", file=sys.stderr)
        if reason:
            if not args.json:
                print(f"measured profile: not here ({reason})")
            return 0
    elif reason:
        return _fail("profile", reason)
    try:
        report = profile_session(args.session, args.kernel, timeout=args.timeout)
    except ProfileFailed as exc:
        return _fail("profile", str(exc))
    _show(report, args.html)
    return 0


def _estimate(session: str):
    """The session's ESTIMATED profile. A read-only session (someone else's, a shared copy) is
    estimated in a writable copy of it, since the estimate only reads: its record is not kept."""
    folder = SessionFolder(session)
    if not folder.exists() or folder.unwritable() is None:
        return Session.resume(session).estimate()
    with scratch_dir("ascendcraft-profile-") as tmp:
        copy = tmp / "session"
        shutil.copytree(folder.path, copy, symlinks=True, ignore=shutil.ignore_patterns(LOCK_FILE, "runs"))
        for p in [copy, *copy.rglob("*")]:
            if not p.is_symlink():
                p.chmod(p.stat().st_mode | stat.S_IWUSR)
        estimate = Session.resume(copy).estimate()
    print(f"note: {session} is read-only: estimated in a temporary copy, not recorded in its runs/", file=sys.stderr)
    return estimate


def _show(report, html: str | None) -> None:
    print(report.text())
    if html:
        Path(html).write_text(report.html())


def _profile_program(folder: Path, args) -> int:
    """The ESTIMATED time of a program session: every launch traced on the emulator, summed."""
    from ..session.program import profile_program
    if args.npu:
        return _fail("profile", "a program is profiled offline only (no NPU profile of programs yet)")
    try:
        estimate = profile_program(folder)
    except SessionError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    print(json.dumps(estimate.to_dict(), indent=2) if args.json else estimate.text())
    return 0
