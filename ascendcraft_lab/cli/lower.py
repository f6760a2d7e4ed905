"""`ascendcraft lower K.dsl.py [--ref REF.py] [-o DIR] [--until PASS] [--soc S] [--engine rule|llm] [--rank-tiling]`."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..atomic import NotText, read_text
from ..config import default_workdir
from ..dsl.errors import DslError
from ..dsl.parser import parse
from ..dsl.program import is_program_text, parse_any
from ..passes.pipeline import PIPELINE
from ..session import Session, SessionError
from ..soc import DEFAULT_SOC


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="ascendcraft lower",
                                 description="Lower a DSL kernel into a session folder with every stage and "
                                             "the AscendC project.")
    ap.add_argument("dsl", help="the kernel (.dsl.py)")
    ap.add_argument("-o", "--out", help="session folder (default: ascendcraft-sessions/<kernel name>)")
    ap.add_argument("--until", choices=[p.name for p in PIPELINE], help="stop after this pass")
    ap.add_argument("--soc", default=None, help=f"SoC (default {DEFAULT_SOC})")
    ap.add_argument("--engine", default="rule", choices=["rule", "llm"])
    ap.add_argument("--ref", help="the PyTorch reference: copied into the session; its shapes explain the tiling")
    ap.add_argument("--adopt-edits", action="store_true",
                    help="make hand edits of the folder's generated files (ascendc/, stages/) edits of their steps")
    ap.add_argument("--rank-tiling", action="store_true",
                    help="rank tiling candidates (tile lengths x buffers per queue) by the ESTIMATED kernel time: each "
                         "runs traced on the emulator on the reference's inputs (needs --ref; a few seconds "
                         "per candidate)")
    args = ap.parse_args(argv)
    path = Path(args.dsl)
    try:
        text = read_text(path, "DSL file")
    except NotText as exc:
        print(f"ascendcraft lower: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"ascendcraft lower: cannot read {path}: {exc.strerror}", file=sys.stderr)
        return 2
    if is_program_text(text):
        return _lower_program(text, path, args)
    try:
        name = parse(text, str(path)).kernel.name
    except DslError as exc:
        print(exc.render(), file=sys.stderr)
        return 2
    out = Path(args.out) if args.out else default_workdir() / name
    if args.rank_tiling and args.ref is None and not (out / "reference.py").is_file():
        # refused before anything is written: the ranking runs every candidate on the reference's inputs
        print(f"ascendcraft lower: --rank-tiling needs a PyTorch reference, and {out} holds none\n"
              f"  = help: give it with --ref REF.py (ascendcraft lower {args.dsl} --ref REF.py --rank-tiling)",
              file=sys.stderr)
        return 2
    try:
        # the command line says everything: every pass unless --until, no reference overrides
        session = Session.open(out, text, reference=args.ref, soc=args.soc, engine=args.engine,
                               until=args.until or PIPELINE[-1].name, overrides={}, dsl_name=str(path), accept_all=True,
                               adopt_edits=args.adopt_edits)
    except SessionError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    if args.rank_tiling and not any(s.status == "failed" for s in session.steps):
        try:
            session.rank_tiling(progress=lambda msg: print(msg, file=sys.stderr, flush=True))
        except SessionError as exc:
            print(session.summary())
            print(str(exc), file=sys.stderr)
            return 1
    print(session.summary())
    return 1 if any(s.status == "failed" for s in session.steps) else 0


def _lower_program(text: str, path: Path, args) -> int:
    """A program of kernels: every kernel through the passes, its folder with one stage list per kernel."""
    from ..session.program import lower_program
    if args.until or args.engine != "rule" or args.adopt_edits or args.rank_tiling:
        print("ascendcraft lower: a program is lowered whole by the rule engine (no --until, --engine llm, "
              "--adopt-edits or --rank-tiling yet)", file=sys.stderr)
        return 2
    try:
        mp_name = parse_any(text, str(path)).name
        out = Path(args.out) if args.out else default_workdir() / mp_name
        session = lower_program(text, str(path), out, reference=args.ref, soc=args.soc)
    except DslError as exc:
        print(exc.render(), file=sys.stderr)
        return 2
    except SessionError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    print(session.summary())
    return 0
