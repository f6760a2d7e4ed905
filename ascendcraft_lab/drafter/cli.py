"""`ascendcraft draft REF.py [-o K.dsl.py] [--soc S] [--engine drafter|llm]`."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="ascendcraft draft",
                                 description="PyTorch reference (KernelBench format) -> DSL draft.")
    ap.add_argument("reference", help="the reference file: Model, get_inputs(), get_init_inputs()")
    ap.add_argument("-o", "--out", help="write the draft here (default: print it)")
    ap.add_argument("--soc", default=None, help="SoC from the SoC table (default Ascend910B2)")
    ap.add_argument("--engine", choices=("drafter", "llm"), default="drafter",
                    help="drafter: the offline rule-based drafter (default); llm: the LLM drafter")
    ap.add_argument("--override", action="append", default=[], metavar="NAME=VALUE",
                    help="set a module-level constant of the reference before tracing, e.g. dim=1003")
    ap.add_argument("--check", action="store_true", help="also run the draft on the numpy interpreter against PyTorch")
    args = ap.parse_args(argv)
    from ..soc import get_soc
    try:
        get_soc(args.soc)
        overrides = dict(_override(o) for o in args.override)
    except ValueError as e:
        print(f"ascendcraft draft: {e}", file=sys.stderr)
        return 2
    if args.engine == "llm":
        from .llm import LlmUnavailable, draft_llm
        try:
            notes: list[str] = []
            text = draft_llm(args.reference, soc=args.soc, notes=notes)
        except LlmUnavailable as e:
            print(f"ascendcraft draft: {e}", file=sys.stderr)
            return 2
        except Exception as e:  # noqa: BLE001 - one line, not a traceback
            print(f"ascendcraft draft: {str(e).splitlines()[0] if str(e) else type(e).__name__}", file=sys.stderr)
            return 1
        template = "llm"
        for note in notes:
            print(f"note: {note}", file=sys.stderr)
    else:
        from .draft import DraftError, draft_reference
        try:
            d = draft_reference(args.reference, soc=args.soc, overrides=overrides or None)
        except DraftError as e:
            print(f"ascendcraft draft: {e}", file=sys.stderr)
            return 1
        text, template = d.text, d.template
        for note in d.notes:
            print(f"note: {note}", file=sys.stderr)
    if args.out:
        from ..atomic import write_text
        try:
            write_text(Path(args.out), text)
        except OSError as e:
            print(f"ascendcraft draft: cannot write {args.out}: {e.strerror}", file=sys.stderr)
            return 1
        print(f"wrote {args.out} ({template} template)", file=sys.stderr)
    else:
        sys.stdout.write(text)
    if args.check:
        from ..dsl.check import check_interpreter
        from ..dsl.errors import DslError
        from ..reference import ReferenceError
        try:
            verdict = check_interpreter(text, args.reference, soc=args.soc, overrides=overrides or None)
        except (DslError, ReferenceError) as e:
            print(e.render(), file=sys.stderr)
            return 1
        print(verdict.message, file=sys.stderr)
        return 0 if verdict.correct else 1
    return 0


def _override(text: str):
    import ast
    if "=" not in text:
        raise ValueError(f"override {text!r} is not NAME=VALUE")
    k, v = text.split("=", 1)
    try:
        return k.strip(), ast.literal_eval(v)
    except (ValueError, SyntaxError):
        return k.strip(), v
