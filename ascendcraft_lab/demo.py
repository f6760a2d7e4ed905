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

from . import doctor
from .config import default_workdir


def main(argv: list[str] | None = None) -> int:
    from .examples import EXAMPLES
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

    from .dsl.check import bind, check_interpreter
    from .dsl.errors import DslError
    from .passes.lower import load_dsl, lower_session, summary
    from .passes.verify import check_emulator, render_run
    from .reference import ReferenceError, load_reference

    print(f"== {ex.name}: {ex.about}")
    print(f"   reference {ex.reference.relative_to(ex.reference.parents[2])}, DSL draft {ex.dsl.name}")
    try:
        ref = load_reference(ex.reference)
        tail = load_reference(ex.reference, overrides=ex.tail_overrides)
        text = ex.dsl.read_text()
        print("\n== 1. the DSL draft on the numpy interpreter")
        verdict = check_interpreter(ex.dsl, ex.reference, reference=ref)
        print("   " + verdict.message)
        program = load_dsl(text, str(ex.dsl), None)
        inputs, _ = bind(program, ref)
        shapes = {n: v.shape for n, v in inputs.items() if hasattr(v, "shape")}
        scalars = {p.name: inputs[p.name] for p in program.scalars}
        folder = Path(args.out) if args.out else default_workdir() / ex.op
        print(f"\n== 2. four lowering passes (rule engine) into {folder}")
        result = lower_session(text, folder, reference=ex.reference, accept_all=True, shapes=shapes,
                               scalars=scalars, dsl_name=ex.dsl.name)
        print("   " + summary(result).replace("\n", "\n   "))
        if result.final is None or any(s.failed for s in result.steps):
            print("demo: lowering reported errors (above)")
            return 1
        ok = verdict.correct
        print("\n== 3. the AscendC on the CPU emulator (g++, every core), against PyTorch")
        for label, run_ref in (("reference shape", ref), ("tail shape " + str(ex.tail_overrides), tail)):
            v, run = check_emulator(program, result.final, run_ref)
            print(f"   {label}: {v.message}")
            detail = render_run(run, program)
            if detail:
                print("   " + detail.replace("\n", "\n   "))
            result.session.record_run({"backend": "emulator", "shape": label, "correct": v.correct,
                                       "message": v.message, "run": run.to_json()})
            ok = ok and v.correct
    except (DslError, ReferenceError) as exc:
        print(exc.render(), file=sys.stderr)
        return 1
    print(f"\n{'verified' if ok else 'NOT verified'}: {ex.name} in {time.perf_counter() - t_start:.1f} s; "
          f"the AscendC project is in {folder / 'ascendc'}")
    print("ran: reference -> DSL (interpreter check) -> host/init/compute/align passes -> emulator verdicts; "
          "drafting from the reference and the LLM engine are not part of this demo yet")
    return 0 if ok else 1
