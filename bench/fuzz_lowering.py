"""Differential fuzzing of the compiler (issue 38): random valid DSL programs on the interpreter and,
lowered through the four passes, on the emulator; every disagreement is shrunk to its smallest
program and printed (and written to --out as a .dsl.py with its inputs as .npz).

    python bench/fuzz_lowering.py --minutes 30 --seed 1
    python bench/fuzz_lowering.py --count 50 --seed 7 --forms rows2d,carried

The generator is `ascendcraft_lab/dsl/generate.py`, the check `ascendcraft_lab/backends/emulator/difftest.py`.
Compiled kernels are cached by hash (the emulator's kernel cache), so a second run of a seed is faster.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from ascendcraft_lab.backends.emulator.difftest import campaign
from ascendcraft_lab.dsl.generate import FORMS


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=None, help="stop after this long (default: --count)")
    ap.add_argument("--count", type=int, default=None, help="stop after this many programs")
    ap.add_argument("--seed", default="0", help="campaign seed: program i is generated from '<seed>-<i>'")
    ap.add_argument("--forms", default=",".join(FORMS), help=f"forms to generate, of {', '.join(FORMS)}")
    ap.add_argument("--shrink", type=int, default=60, help="checks spent shrinking each disagreement")
    ap.add_argument("--out", type=Path, default=None, help="write each disagreement's smallest program here")
    ap.add_argument("-q", "--quiet", action="store_true", help="no line per program")
    args = ap.parse_args(argv)
    if args.minutes is None and args.count is None:
        args.count = 20
    forms = tuple(f for f in args.forms.split(",") if f)

    def report(i, case, outcome):
        if not args.quiet or outcome.failed:
            shapes = " ".join(f"{n}{tuple(a.shape)}" for n, a in case.inputs.items())
            print(f"{i:5d} {outcome.kind:8s} {case.form:8s} {shapes}  [{', '.join(sorted(case.forms))}]", flush=True)

    t0 = time.perf_counter()
    result = campaign(args.seed, count=args.count, minutes=args.minutes, forms=forms, shrink_budget=args.shrink,
                      report=report)
    print(f"\n{result.programs} programs in {time.perf_counter() - t0:.0f} s (seed {args.seed}); outcomes: "
          + ", ".join(f"{k} {v}" for k, v in sorted(result.kinds.items())))
    print("forms and features: " + ", ".join(f"{k} {v}" for k, v in sorted(result.forms.items())))
    print(f"distinct input shapes: {len(result.shapes)}")
    print(f"disagreements: {len(result.disagreements)}")
    for k, dis in enumerate(result.disagreements):
        print(f"\n--- disagreement {k + 1} (program {dis.seed}): {dis.outcome.kind}\n{dis.outcome.message}")
        print(f"--- smallest program found: {dis.minimal_outcome}")
        print(dis.minimal.text)
        print("inputs: " + ", ".join(f"{n}{tuple(a.shape)}" for n, a in dis.minimal.inputs.items()))
        if args.out:
            args.out.mkdir(parents=True, exist_ok=True)
            stem = args.out / f"disagreement-{args.seed}-{k + 1}"
            stem.with_suffix(".dsl.py").write_text(dis.minimal.text)
            np.savez(stem.with_suffix(".npz"), **dis.minimal.inputs)
    return 1 if result.disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
