"""`ascendcraft draft REF.py [-o K.dsl.py] [--name NAME] [--soc S] [--engine drafter|llm] [--check]`."""
from __future__ import annotations

import argparse
import math
import re
import sys
from pathlib import Path

from ..atomic import write_text
from ..drafter.draft import kernel_name
from ..dsl.errors import DslError
from ..dsl.parser import parse
from ..dsl.generic import VariantMismatch
from ..reference import ReferenceError, check_interpreter, reference_format
from ..session import DraftFailed, case_runs, draft, parse_override
from ..soc import DEFAULT_SOC, get_soc


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="ascendcraft draft",
                                 description="PyTorch reference (KernelBench format) -> DSL draft.")
    ap.add_argument("reference", help="the reference file: Model, get_inputs(), get_init_inputs()")
    ap.add_argument("-o", "--out", help="write the draft here (default: print it)")
    ap.add_argument("--soc", default=None, help=f"SoC from the SoC table (default {DEFAULT_SOC})")
    ap.add_argument("--engine", choices=("drafter", "llm"), default="drafter",
                    help="drafter: the offline rule-based drafter (default); llm: the LLM drafter")
    ap.add_argument("--override", action="append", default=[], metavar="NAME=VALUE",
                    help="set a module-level constant of the reference before tracing, e.g. dim=1003")
    ap.add_argument("--name", help="the kernel's name (default: the reference's file name, as C++ can carry it)")
    ap.add_argument("--check", action="store_true", help="also run the draft on the numpy interpreter against PyTorch")
    ap.add_argument("--timeout", type=float, default=300,
                    help="seconds the reference may take to import and trace (default 300)")
    args = ap.parse_args(argv)
    try:
        get_soc(args.soc)
        overrides = dict(parse_override(o) for o in args.override)
        if not (math.isfinite(args.timeout) and args.timeout > 0):
            raise ValueError(f"--timeout must be a positive number of seconds, not {args.timeout:g}")
        if args.name is not None and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", args.name):
            raise ValueError(f"--name {args.name!r} is not a C++ name: use ASCII letters, digits and underscores, "
                             "e.g. gelu_v2")
    except ValueError as e:
        print(f"ascendcraft draft: {e}", file=sys.stderr)
        return 2
    try:
        outcome = draft(args.reference, how=args.engine, soc=args.soc, overrides=overrides or None,
                        timeout=args.timeout)
    except DraftFailed as e:
        print(f"ascendcraft draft: {e}", file=sys.stderr)
        return 2 if e.unavailable else 1
    except Exception as e:  # noqa: BLE001 - the model's failure: one line, not a traceback
        print(f"ascendcraft draft: {str(e).splitlines()[0] if str(e) else type(e).__name__}", file=sys.stderr)
        return 1
    for note in outcome.notes:
        print(f"note: {note}", file=sys.stderr)
    name = args.name or kernel_name(args.reference)
    text = outcome.text
    if args.name:
        try:
            text = _renamed(text, args.name)
        except DslError as exc:          # a name C++ reserves (int, main, a__b ...): the parser's own words
            print(exc.render(), file=sys.stderr)
            return 2
    if args.out:
        out = Path(args.out)
        if out.is_dir() or args.out.endswith(("/", "\\")):   # a folder: the draft goes inside it
            out = out / f"{name}.dsl.py"
        try:
            write_text(out, text)
        except OSError as e:
            print(f"ascendcraft draft: cannot write {out}: {e.strerror}", file=sys.stderr)
            return 1
        print(f"wrote {out} ({outcome.template} template)", file=sys.stderr)
    else:
        sys.stdout.write(text)
    if args.check:
        return _check(text, args, overrides, outcome.cases)
    return 0


def _renamed(text: str, name: str) -> str:
    """The draft with its kernel function called `name` (checked as the parser checks any kernel name)."""
    old = parse(text, "draft").kernel.name
    text = text.replace(f"def {old}(", f"def {name}(", 1)
    parse(text, "the draft (--name)")
    return text


def _check(text: str, args, overrides: dict, cases: list | None = None) -> int:
    """The draft on the numpy interpreter against PyTorch: the reference's input set, or every
    case of an NPUKernelBench reference (the first failing case is named). `cases`: the cases
    the draft was made from (loading them again would cost another reference child)."""
    try:
        if not cases:
            cases = (case_runs(args.reference, timeout=args.timeout)
                     if reference_format(args.reference) == "NPUKernelBench" else [None])
        for i, case in enumerate(cases):
            verdict = check_interpreter(text, args.reference, soc=args.soc, overrides=overrides or None, reference=case)
            if not verdict.correct:
                where = f"{case.label} ({case.describe()}): " if case is not None else ""
                print(f"{where}{verdict.message}", file=sys.stderr)
                return 1
    except (DslError, ReferenceError) as e:
        print(e.render(), file=sys.stderr)
        return 1
    except (DraftFailed, VariantMismatch) as e:
        print(f"ascendcraft draft: {e}", file=sys.stderr)
        return 1
    print(verdict.message if cases == [None] else f"correct on the interpreter on all {len(cases)} cases",
          file=sys.stderr)
    return 0
