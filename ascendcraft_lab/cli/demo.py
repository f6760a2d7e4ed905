"""`ascendcraft demo`: the main job, offline, on built-in defaults.

Takes a bundled expert example (GELU by default) from its PyTorch reference to verified
AscendC: checks the DSL draft on the numpy interpreter, runs the four lowering passes into
a session folder (printing what each pass added and the tiling it chose), then compiles the
AscendC with g++ against the emulator and compares it with PyTorch, on the reference's own
shape and on a tail shape.
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
from ..session import Session, SessionError
from . import doctor


def main(argv: list[str] | None = None) -> int:
    names = [ex.name for ex in EXAMPLES]
    ap = argparse.ArgumentParser(prog="ascendcraft demo", description=__doc__.splitlines()[0])
    ap.add_argument("example", nargs="?", default="activation/gelu", choices=names, metavar="EXAMPLE",
                    help=f"one of: {', '.join(names)} (default activation/gelu)")
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
    print(f"   reference {ex.reference.relative_to(ex.reference.parents[2])}, DSL draft {ex.dsl.name}")
    try:
        print("\n== 1. the DSL draft on the numpy interpreter")
        verdict = check_interpreter(ex.dsl, ex.reference)
        print("   " + verdict.message)
        print(f"\n== 2. four lowering passes (rule engine) into {folder}")
        session = Session.open(folder, ex.dsl.read_text(), reference=ex.reference, engine="rule",
                               until=PIPELINE[-1].name, overrides={}, dsl_name=ex.dsl.name, accept_all=True)
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
    except (DslError, ReferenceError) as exc:
        print(exc.render(), file=sys.stderr)
        return 1
    except SessionError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    print(f"\n{'verified' if ok else 'NOT verified'}: {ex.name} in {time.perf_counter() - t_start:.1f} s; "
          f"the AscendC project is in {folder / 'ascendc'}")
    print("ran: reference -> DSL (interpreter check) -> host/init/compute/align passes -> emulator verdicts; "
          "drafting from the reference and the LLM engine are not part of this demo yet")
    return 0 if ok else 1
