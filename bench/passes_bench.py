"""Time the four lowering passes (rule engine + constraint checkers) for every expert example.

Reports, per example, the time of a full `run_pipeline` (host, init, compute, align, each
with its checkers) on a freshly parsed program (nothing cached), and the generated kernel's
size. Usage: .venv/bin/python bench/passes_bench.py [--repeat N]
"""
from __future__ import annotations

import argparse
import statistics
import time

from ascendcraft_lab.dsl.parser import parse
from ascendcraft_lab.dsl.verifier import verify
from ascendcraft_lab.engines.rule import RuleEngine
from ascendcraft_lab.examples import EXAMPLES
from ascendcraft_lab.passes import plan as plan_module
from ascendcraft_lab.passes.manager import LowerOptions, run_pipeline


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    print(f"{'example':28} {'passes ms (median)':>18} {'per pass ms':>28} {'kernel lines':>12}")
    worst = (0.0, "")
    for ex in EXAMPLES:
        text = ex.dsl.read_text()
        times, per_pass = [], None
        for _ in range(args.repeat):
            plan_module._plan_cached.cache_clear()
            program = verify(parse(text, str(ex.dsl)))
            t0 = time.perf_counter()
            steps = run_pipeline(program, RuleEngine(), LowerOptions())
            times.append((time.perf_counter() - t0) * 1000)
            per_pass = [s.seconds * 1000 for s in steps]
        kernel = next(p for p in steps[-1].bundle.files if p.startswith("kernel/"))
        med = statistics.median(times)
        worst = max(worst, (med, ex.name))
        print(f"{ex.name:28} {med:18.1f} {' / '.join(f'{t:.1f}' for t in per_pass):>28} "
              f"{len(steps[-1].bundle[kernel].splitlines()):12d}")
    print(f"slowest: {worst[1]} at {worst[0]:.1f} ms for all four passes")


if __name__ == "__main__":
    main()
