"""Command functions of the NPU path: `ascendcraft build`, `ascendcraft profile`, and the cann backend
of `ascendcraft check`.

- `build_main(["SESSION"])`: build `<session>/ascendc` with CANN's CMake; refuses in one line
  without a toolkit;
- `run_main(["SESSION", "--ref", "REF.py"])`: build, run on the NPU, compare and time;
  refuses without an NPU; `check_main` is the same behind `ascendcraft check SESSION --backend
  cann` (a DSL-file target is lowered on the fly by the emulator's check command instead);
- `profile_main(["--csv", "kernel_details.csv", "--kernel", "gelu"])` reads a recorded profile
  (works anywhere); `profile_main(["SESSION"])` profiles on the NPU (refuses without one).
Every run is recorded in the session's runs/ folder.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .detect import refuse_reason


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
    from .build import build_session, render_build
    result = build_session(args.session, jobs=args.jobs)
    print(render_build(result))
    return 0 if result.ok else 1


def check_session(folder: str | Path, ref_path: str | Path | None = None, *, soc: str | None = None,
                  overrides: dict | None = None, seed: int = 0):
    """Lower-free NPU check of a session: its final project against its reference."""
    from ...passes.lower import load_dsl
    from ...passes.session import SessionFolder
    from ...reference import load_reference
    from .run import check_cann
    session = SessionFolder(folder)
    manifest = session.manifest()
    soc = soc or manifest.get("soc")
    program = load_dsl(session.dsl_path().read_text(), str(session.dsl_path()), soc)
    bundle = session.read_stage("align")
    ref = load_reference(ref_path or session.path / "reference.py", overrides=overrides, seed=seed)
    verdict, run = check_cann(program, bundle, ref, soc, seed=seed)
    session.record_run({"backend": "cann", "action": "check", "soc": verdict.soc, "correct": verdict.correct,
                        "message": verdict.message, "run": run.to_json(), "overrides": overrides or {}})
    return verdict, run


def check_main(argv: list[str] | None = None) -> int:
    """`ascendcraft check SESSION --backend cann [--ref REF.py] [--soc S] [--override N=V] [--seed K]`."""
    ap = argparse.ArgumentParser(prog="ascendcraft check", description="Build, run and time a session on the NPU.")
    ap.add_argument("target", help="a session folder (a kernel.dsl.py file is lowered on the fly, not recorded)")
    ap.add_argument("--ref", default=None)
    ap.add_argument("--backend", default="cann")
    ap.add_argument("--soc", default=None)
    ap.add_argument("--override", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if not Path(args.target).is_dir():
        from ...passes.lower import check_main as lowered_check
        return lowered_check(argv)
    reason = refuse_reason("run")
    if reason:
        return _fail("check", reason)
    from ...dsl.check import _parse_override
    from ...reference import ReferenceError
    try:
        overrides = dict(_parse_override(o) for o in args.override)
        verdict, _ = check_session(args.target, args.ref, soc=args.soc, overrides=overrides, seed=args.seed)
    except ReferenceError as exc:
        print(exc.render(), file=sys.stderr)
        return 2
    except (OSError, ValueError) as exc:
        return _fail("check", str(exc))
    print(verdict.summary())
    return 0 if verdict.correct else 1


def run_main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="ascendcraft run", description="Build, run and time a session on the NPU.")
    ap.add_argument("session")
    ap.add_argument("--ref", default=None)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    reason = refuse_reason("run")
    if reason:
        return _fail("run", reason)
    verdict, _ = check_session(args.session, args.ref, seed=args.seed)
    print(verdict.summary())
    return 0 if verdict.correct else 1


def profile_main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="ascendcraft profile",
                                 description="Show pipe utilisation from a kernel_details.csv, or profile a session on the NPU.")
    ap.add_argument("session", nargs="?")
    ap.add_argument("--csv", help="a recorded kernel_details.csv (or a folder holding one)")
    ap.add_argument("--kernel", help="the kernel's name in the profile (default: the session's kernel)")
    ap.add_argument("--html", help="also write the chart as HTML to this file")
    args = ap.parse_args(argv)
    from .profile import parse_kernel_details
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
        from .device import DeviceRefusal
        try:
            report = _profile_session(args.session, args.kernel)
        except DeviceRefusal as exc:         # the device is not the session SoC (core count)
            return _fail("profile", str(exc))
    print(report.text())
    if args.html:
        Path(args.html).write_text(report.html())
    return 0


def _profile_session(folder: str, kernel: str | None):
    """Build the session and profile its op on the NPU (not yet run on hardware by the project)."""
    from ...passes.lower import load_dsl
    from ...passes.session import SessionFolder
    from .build import build_session
    from .profile import profile_on_npu
    from .signature import OpSignature
    session = SessionFolder(folder)
    built = build_session(folder)
    if not built.ok:
        raise SystemExit(_fail("profile", built.message))
    program = load_dsl(session.dsl_path().read_text(), str(session.dsl_path()), session.manifest().get("soc"))
    sig = OpSignature.of(program)
    report = profile_on_npu(built.library, str(session.path / "reference.py"), sig.entry, session.path / "profile",
                            n_scalars=len(sig.scalars), param_names=tuple(p.param_name for p in sig.params),
                            soc=session.manifest().get("soc"))
    if kernel:
        from .profile import parse_kernel_details
        report = parse_kernel_details(session.path / "profile", kernel)
    session.record_run({"backend": "cann", "action": "profile", **report.to_json()})
    return report
