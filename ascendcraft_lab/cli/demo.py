"""`ascendcraft demo`: the main job, offline, on built-in defaults: a PyTorch reference in,
verified AscendC out.

Takes a bundled example's PyTorch reference (softmax by default: rows longer than UB, so three
sweeps with scalar carries) and drafts its DSL kernel with the offline drafter, checks the draft
on the numpy interpreter, runs the four lowering passes into a session folder (printing what each
pass added and the tiling it chose), compiles the AscendC with g++ against the emulator and
compares it with PyTorch on the reference's shape and on a tail shape, then profiles it: the
ESTIMATED kernel time (the pipe model of the emulator's trace) beside the estimated eager time.
`--dsl` starts from the example's hand-written DSL draft instead of drafting one.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ..config import default_workdir
from ..dsl.errors import DslError
from ..examples import EXAMPLES
from ..passes.pipeline import PIPELINE
from ..reference import ReferenceError, check_interpreter
from ..session import DraftFailed, Session, SessionError, draft
from . import doctor

DEFAULT = "activation/softmax"


def main(argv: list[str] | None = None) -> int:
    names = [ex.name for ex in EXAMPLES]
    ap = argparse.ArgumentParser(prog="ascendcraft demo", description=__doc__.splitlines()[0])
    ap.add_argument("example", nargs="?", default=DEFAULT, choices=names, metavar="EXAMPLE",
                    help=f"one of: {', '.join(names)} (default {DEFAULT}; matmul/linear_relu: a matmul "
                         "on the cube with its epilogue on the vector cores)")
    ap.add_argument("--dsl", action="store_true",
                    help="start from the example's hand-written DSL draft instead of drafting one from the reference")
    ap.add_argument("-o", "--out", help="session folder (default ascendcraft-sessions/<op>)")
    args = ap.parse_args(argv)

    checks = doctor.run_checks()
    missing = [c for c in checks if c.required and not c.ok]
    if missing:
        print(doctor.render(checks))
        return 1
    ex = next(e for e in EXAMPLES if e.name == args.example)
    t_start = time.perf_counter()
    folder = Path(args.out) if args.out else default_workdir() / ex.op
    print(f"== {ex.name}: {ex.about}")
    print(f"   reference {ex.reference.relative_to(ex.reference.parents[2])}")
    try:
        if args.dsl:
            text, dsl_name = ex.dsl.read_text(), ex.dsl.name
            print(f"\n== 1. the hand-written DSL draft {ex.dsl.name}, on the numpy interpreter")
        else:
            text, dsl_name = _draft(ex), f"{ex.op}.dsl.py"
            print("   on the numpy interpreter against PyTorch:")
        verdict = check_interpreter(text, ex.reference)
        print("   " + verdict.message)
        print(f"\n== 2. four lowering passes (rule engine) into {folder}")
        session = Session.open(folder, text, reference=ex.reference, engine="rule", until=PIPELINE[-1].name,
                               overrides={}, dsl_name=dsl_name, accept_all=True)
        print("   " + session.summary().replace("\n", "\n   "))
        if not session.project_written:
            print("demo: lowering reported errors (above)")
            return 1
        ok = verdict.correct
        print("\n== 3. the AscendC on the CPU emulator (g++, every core), against PyTorch")
        for label, overrides in (("reference shape", {}), ("tail shape " + str(ex.tail_overrides), ex.tail_overrides)):
            result = session.verify(overrides=overrides)
            print(f"   {label}: {result.message}")
            if result.detail:
                print("   " + result.detail.replace("\n", "\n   "))
            ok = ok and result.correct
        print("\n== 4. profile: the pipe model of the emulator's trace (an ESTIMATE, no NPU here)")
        print("   " + "\n   ".join(session.estimate().summary()))
    except (DslError, ReferenceError) as exc:
        print(exc.render(), file=sys.stderr)
        return 1
    except (SessionError, DraftFailed) as exc:
        print(str(exc), file=sys.stderr)
        return 1
    print(f"\n{'verified' if ok else 'NOT verified'}: {ex.name} in {time.perf_counter() - t_start:.1f} s; "
          f"the AscendC project is in {folder / 'ascendc'}")
    start = "the hand-written DSL draft" if args.dsl else "PyTorch reference -> DSL draft (offline drafter)"
    print(f"ran: {start} -> interpreter check -> host/init/compute/align passes -> emulator verdicts -> "
          "ESTIMATED profile; `ascendcraft lab` shows the same steps in a notebook (the LLM engine: `--engine llm`"
          " of `ascendcraft draft` and `lower`)")
    return 0 if ok else 1


def _draft(ex) -> str:
    """The example's reference drafted offline; prints the draft and how it was made."""
    print("\n== 1. the DSL draft, drafted from the PyTorch reference (offline drafter: trace, op graph, template)")
    outcome = draft(ex.reference, how="drafter")
    print(f"   template `{outcome.template}`" + "".join(f"; {n}" for n in outcome.notes))
    print("   " + outcome.text.strip().replace("\n", "\n   "))
    return outcome.text
