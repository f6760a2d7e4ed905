"""The UB-plan property over many random kernels (not a test; tests/passes/test_ub_plan_property.py
runs a few hundred).

    .venv/bin/python bench/ub_plan_property.py [--cases 5000] [--emulate-every 100] [--soc Ascend910B2]

For each random well-typed kernel (tests/passes/random_kernels.py): the verifier's UB plan total
equals what Init allocates and every scratch slot it sizes is used; every `--emulate-every`-th
kernel also runs on the emulator, whose InitBuffer total must be the plan's. Prints the counts
(ok / rejected by the verifier / failed), the time, and the first failures.
"""
from __future__ import annotations

import argparse
import collections
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "passes"))

from random_kernels import check_case, random_kernel  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", type=int, default=5000)
    ap.add_argument("--first", type=int, default=0, help="first seed")
    ap.add_argument("--emulate-every", type=int, default=100, help="0: never run the emulator")
    ap.add_argument("--soc", default=None)
    args = ap.parse_args()
    counts: collections.Counter[str] = collections.Counter()
    failures: list[str] = []
    emulated = 0
    t0 = time.perf_counter()
    for seed in range(args.first, args.first + args.cases):
        emulate = bool(args.emulate_every) and seed % args.emulate_every == 0
        try:
            counts[check_case(random_kernel(seed), emulate=emulate, soc=args.soc)] += 1
            emulated += emulate
        except AssertionError as e:
            counts["failed"] += 1
            failures.append(str(e))
    seconds = time.perf_counter() - t0
    print(f"{args.cases} random kernels in {seconds:.1f} s: {counts['ok']} ok, {counts['rejected']} rejected "
          f"by the verifier, {counts['failed']} failed; {emulated} of the ok ones run on the emulator")
    for f in failures[:5]:
        print("---\n" + f[:2000])
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
