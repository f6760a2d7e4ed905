"""`ascendcraft check TARGET --ref REF.py [--backend interpreter|emulator|cann]`.

TARGET is a DSL file or a session folder. `interpreter` runs the DSL in numpy; `emulator`
(the default) compiles the AscendC with g++ against the emulator and runs it; `cann` builds
and runs it on an NPU. A session folder is verified as the session holds it (every step, as
`ascendcraft lower` accepted it); a DSL file is lowered in memory by the rule engine.
Exit 0 only when the result matches PyTorch, 1 when it does not, 2 for bad input.

A MultiKernelBench submission (a six-string .py or a direct-launch .json), or a folder of them,
goes to the emulator's submission checker (backends/emulator/submission.py).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..backends.cann.run import DRAWS
from ..backends.emulator.verify import render_run
from ..dsl.errors import DslError
from ..reference import ReferenceError, check_interpreter
from ..reference import reference_format
from ..session import Session, SessionError, SessionFolder, check_file, check_file_cases, parse_override
from ..soc import DEFAULT_SOC, get_soc
from ..args import tolerance, whole_number

BACKENDS = ("interpreter", "emulator", "cann")


def _target(argv: list[str]) -> str | None:
    """The first positional argument (flags that take a value skip it)."""
    skip = False
    for a in argv:
        if skip:
            skip = False
        elif a.startswith("-"):
            skip = "=" not in a and a not in ("-h", "--help")
        else:
            return a
    return None


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    target = _target(argv)
    if target is not None:
        # A MultiKernelBench submission (six-string .py, direct-launch .json) or a folder of them.
        from ..backends.emulator.submission import is_submission_target, main as submission_main
        if is_submission_target(target):
            return submission_main(argv)
    ap = argparse.ArgumentParser(prog="ascendcraft check",
                                 description="Compile the AscendC (or interpret the DSL) and verify it "
                                             "against PyTorch.")
    ap.add_argument("target", help="a kernel.dsl.py file or a session folder")
    ap.add_argument("--ref", help="the PyTorch reference (default: the session's reference.py)")
    ap.add_argument("--backend", default="emulator", choices=BACKENDS)
    ap.add_argument("--soc", default=None, help=f"SoC from the SoC table (default: the session's, else {DEFAULT_SOC})")
    ap.add_argument("--override", action="append", default=[], metavar="NAME=VALUE",
                    help="set a module-level constant of the reference, e.g. dim=1003")
    ap.add_argument("--seed", type=whole_number(0), default=0)
    ap.add_argument("--draws", choices=DRAWS, default=None,
                    help="--backend cann: how the input sets are drawn: project (seed + t per set) or mkb "
                         "(MultiKernelBench's: seed 1024, the sets drawn one after another; the default for a "
                         "session that holds exported submissions in export/)")
    ap.add_argument("--rtol", type=tolerance, default=None, help="interpreter backend: relative tolerance")
    ap.add_argument("--atol", type=tolerance, default=None, help="interpreter backend: absolute tolerance")
    ap.add_argument("--rule", choices=("dtype-aware", "mkb"), default="dtype-aware",
                    help="cases: the correctness rule that decides the exit code (both are reported)")
    ap.add_argument("--adopt-edits", action="store_true",
                    help="a session folder: make hand edits of ascendc/ and stages/ edits of their steps, then verify")
    args = ap.parse_args(argv)
    target = Path(args.target)
    try:
        overrides = dict(parse_override(o) for o in args.override)
        get_soc(args.soc)
    except ValueError as exc:
        print(f"ascendcraft check: {exc}", file=sys.stderr)
        return 2
    if not target.exists():
        print(f"ascendcraft check: {target} does not exist (a kernel.dsl.py file or a session folder)", file=sys.stderr)
        return 2
    if args.draws and args.backend != "cann":
        print("ascendcraft check: --draws chooses the NPU check's inputs; use it with --backend cann", file=sys.stderr)
        return 2
    if target.is_dir() and not SessionFolder(target).exists() and args.backend != "interpreter" \
            and not _is_program(target):
        print(f"ascendcraft check: {target} is not a session folder (no ascendcraft.json)", file=sys.stderr)
        return 2
    if _is_program(target):
        return _check_program(target, args, overrides)
    try:
        if args.backend == "interpreter":
            return _interpreter(target, args, overrides)
        if target.is_dir():
            session = Session.open(target, soc=args.soc, adopt_edits=args.adopt_edits)
            for note in session.notes:
                print(f"note: {note}", file=sys.stderr)
            draws = args.draws or npu_draws_for(target)
            if args.backend == "cann" and args.draws is None and draws == "mkb":
                print("note: MultiKernelBench's draws: the session holds exported submissions (--draws project for "
                      "the project's)", file=sys.stderr)
            result = session.verify(args.backend, reviewed=False, seed=args.seed, overrides=overrides or None,
                                    reference=args.ref, progress=_progress if result_has_cases(session, args) else None,
                                    npu_draws=draws)
            _clear_progress()
            print(result.summary)
            if result.detail:
                print(result.detail)
            if result.cases and args.rule == "mkb":
                return 0 if result.cases.get("mkb_correct") else 1
            return 0 if result.correct else 1
        if not args.ref:
            print("ascendcraft check: --ref REF.py is needed for a DSL file", file=sys.stderr)
            return 2
        if reference_format(args.ref) == "NPUKernelBench" and args.backend == "emulator":
            report = check_file_cases(target, args.ref, soc=args.soc, overrides=overrides,
                                      progress=lambda i, n, r: _progress(f"case {i}/{n}: {r.line()}"))
            _clear_progress()
            print(report.summary())
            return 0 if (report.mkb_correct if args.rule == "mkb" else report.correct) else 1
        verdict, run, program = check_file(target, args.ref, soc=args.soc, backend=args.backend,
                                           overrides=overrides, seed=args.seed, npu_draws=args.draws or "project")
    except SessionError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except (DslError, ReferenceError) as exc:
        print(exc.render(), file=sys.stderr)
        return 2
    except (OSError, ValueError) as exc:
        print(f"ascendcraft check: {exc}", file=sys.stderr)
        return 2
    print(verdict.summary())
    detail = render_run(run, program) if args.backend == "emulator" else ""
    if detail:
        print(detail)
    return 0 if verdict.correct else 1


EXPORTED = ("*.mkb.py", "*.mkb-direct.json")      # what `ascendcraft export` writes into <session>/export/


def npu_draws_for(folder: Path) -> str:
    """The NPU check's default draws for a session: MultiKernelBench's once it holds exported submissions
    (its verdict is then the one those submissions would get), else the project's."""
    exports = folder / "export"
    return "mkb" if any(p for pattern in EXPORTED for p in exports.glob(pattern)) else "project"


def result_has_cases(session: Session, args) -> bool:
    ref = args.ref or session.reference
    return bool(ref) and reference_format(ref) == "NPUKernelBench"


def _progress(text: str) -> None:
    """One line on stderr, rewritten in place on a terminal (a line per case elsewhere)."""
    if sys.stderr.isatty():
        sys.stderr.write("\r" + text[:150].ljust(150))
    else:
        sys.stderr.write(text + "\n")
    sys.stderr.flush()


def _clear_progress() -> None:
    if sys.stderr.isatty():
        sys.stderr.write("\r" + " " * 150 + "\r")
        sys.stderr.flush()


def _interpreter(target: Path, args, overrides: dict) -> int:
    """The DSL draft on the numpy interpreter: every core and tile, no C++."""
    dsl, ref = target, args.ref
    if dsl.is_dir():                     # a session folder: <dir>/kernel.dsl.py beside <dir>/reference.py
        ref = ref or (str(dsl / "reference.py") if (dsl / "reference.py").is_file() else None)
        dsl = dsl / "kernel.dsl.py"
    if ref is None:
        print("error: no reference given\n  = help: pass --ref REF.py (the PyTorch reference in KernelBench format)")
        return 2
    verdict = check_interpreter(dsl, ref, soc=args.soc, overrides=overrides or None, seed=args.seed,
                                rtol=args.rtol, atol=args.atol)
    print(verdict.summary())
    return 0 if verdict.correct else 1


def _is_program(target: Path) -> bool:
    from ..dsl.program import is_program_text
    from ..session.program import is_program_folder
    if target.is_dir():
        return is_program_folder(target)
    try:
        return is_program_text(target.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return False


def _check_program(target: Path, args, overrides: dict) -> int:
    """A program of kernels: on the interpreter, or every launch on the emulator, named when wrong."""
    from ..session.program import check_program
    if args.backend == "cann":
        print("ascendcraft check: a program runs on the interpreter or the emulator (no CANN build of programs yet)",
              file=sys.stderr)
        return 2
    try:
        verdict, detail = check_program(target, args.ref, backend=args.backend, soc=args.soc,
                                        overrides=overrides or None, seed=args.seed)
    except SessionError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except (DslError, ReferenceError) as exc:
        print(exc.render(), file=sys.stderr)
        return 2
    print(verdict.summary())
    if detail:
        print(detail)
    return 0 if verdict.correct else 1
