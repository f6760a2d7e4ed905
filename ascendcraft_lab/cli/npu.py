"""The NPU commands: `ascendcraft build SESSION` and `ascendcraft profile SESSION | --csv FILE`.

`build` builds `<session>/ascendc` with CANN's CMake and refuses in one line without a toolkit;
`profile --csv kernel_details.csv --kernel gelu` reads a recorded profile (works anywhere);
`profile SESSION` profiles on the NPU (refuses without one). Every run is recorded in the
session's runs/ folder. The NPU check is `ascendcraft check SESSION --backend cann`.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..backends.cann.build import render_build
from ..backends.cann.detect import refuse_reason
from ..backends.cann.profile import parse_kernel_details
from ..session.npu import ProfileFailed, build_session, profile_session


def _fail(cmd: str, message: str, code: int = 2) -> int:
    print(f"ascendcraft {cmd}: {message}", file=sys.stderr)
    return code


def build_main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="ascendcraft build", description="Build a session's AscendC project with CANN.")
    ap.add_argument("session")
    ap.add_argument("-j", "--jobs", type=int, default=None)
    args = ap.parse_args(argv)
    reason = refuse_reason("build")
    if reason:
        return _fail("build", reason)
    result = build_session(args.session, jobs=args.jobs)
    print(render_build(result))
    return 0 if result.ok else 1


def profile_main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="ascendcraft profile",
                                 description="Show pipe utilisation from a kernel_details.csv, or profile a session on the NPU.")
    ap.add_argument("session", nargs="?")
    ap.add_argument("--csv", help="a recorded kernel_details.csv (or a folder holding one)")
    ap.add_argument("--kernel", help="the kernel's name in the profile (default: the session's kernel)")
    ap.add_argument("--html", help="also write the chart as HTML to this file")
    args = ap.parse_args(argv)
    if args.csv:
        try:
            report = parse_kernel_details(Path(args.csv), args.kernel)
        except ValueError as exc:
            return _fail("profile", str(exc))
    else:
        if not args.session:
            return _fail("profile", "give a session folder or --csv kernel_details.csv")
        reason = refuse_reason("profile")
        if reason:
            return _fail("profile", reason)
        try:
            report = profile_session(args.session, args.kernel)
        except ProfileFailed as exc:
            return _fail("profile", str(exc))
    print(report.text())
    if args.html:
        Path(args.html).write_text(report.html())
    return 0
