"""The Ray executor's overhead on one machine: the same ops on the local pool and on a local Ray cluster (not a test).

    .venv/bin/python bench/ray_bench.py [--ops 20] [--seeds 2] [-o bench-out/ray-bench]
                                        [--write bench/results/ray-executor.md]

The same ops of the bundled suite (round robin over --categories, --ops of them) are run by
`ascendcraft bench` twice per executor: on the local pool (`--jobs 2`) and with `--executor ray`
on a Ray cluster on this machine's loopback (tests/bench/ray_cluster.py: a head with no CPUs and
one worker node with 2 CPUs, so both run two ops at a time). The first run of each starts from an
empty compiled-kernel cache of its own (cold), the second reuses it (warm). One machine, so the
difference is Ray's overhead (the driver connecting and shipping the package, a task's start on
its worker, the op's folder packed and sent back, and on a cold run the kernels compiled again
for the node's copy of the emulator headers), not a speed-up. Prints a Markdown table; `--write`
saves it with the machine's load, which on a shared machine moves every figure.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "bench"))

from ascendcraft_lab.bench.suite import discover  # noqa: E402
from ray_cluster import LocalCluster  # noqa: E402

SUITE = ROOT / "ascendcraft_lab" / "suite"


def pick(categories: list[str], count: int) -> list[str]:
    """`count` ops, the first of each category in turn, then the second, ..."""
    per = [[op.name for op in discover(SUITE / c)] for c in categories]
    names: list[str] = []
    for i in range(max(map(len, per))):
        names += [ops[i] for ops in per if i < len(ops)]
    return names[:count]


def run(argv: list[str], env: dict, log: Path) -> tuple[float, dict]:
    """`ascendcraft bench ...`: its wall time (process start to exit) and its results.json."""
    t0 = time.perf_counter()
    with open(log, "w") as fh:
        proc = subprocess.run([sys.executable, "-m", "ascendcraft_lab", "bench", *argv], env=env, stdout=fh,
                              stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    out = Path(argv[argv.index("-o") + 1])
    if proc.returncode != 0:
        raise SystemExit(f"bench exited with {proc.returncode}; see {log}")
    return wall, json.loads((out / "results.json").read_text())


def correct(doc: dict) -> str:
    ok = sum(1 for r in doc["results"] if all(s.get("correct") for s in r["shapes"].values()))
    return f"{ok}/{len(doc['results'])}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", type=int, default=20)
    ap.add_argument("--categories", default="activation,reduce,normalization,loss,math")
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("-o", "--out", default="bench-out/ray-bench")
    ap.add_argument("--write", default=None, help="also write the table to this Markdown file")
    args = ap.parse_args()
    ops = pick(args.categories.split(","), args.ops)
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    common = [str(SUITE), "--only", *ops, "--seeds", str(args.seeds), "--no-timing"]
    base_env = {**os.environ, "PYTHONPATH": str(ROOT)}
    load = [os.getloadavg()[0]]
    rows = []

    with tempfile.TemporaryDirectory(prefix="ray-bench-cache-") as caches:
        env = {**base_env, "ASCENDCRAFT_CACHE_DIR": str(Path(caches) / "local")}
        for kind in ("cold", "warm"):
            wall, doc = run([*common, "--jobs", "2", "-o", str(out / f"local-{kind}")], env, out / f"local-{kind}.log")
            rows.append(("local pool, --jobs 2", kind, wall, doc))
            print(f"local {kind}: {wall:.0f} s, {correct(doc)} ops correct", flush=True)
        load.append(os.getloadavg()[0])

        # the nodes take their cache from their own environment, as on a cluster host
        os.environ["ASCENDCRAFT_CACHE_DIR"] = str(Path(caches) / "ray-node")
        t0 = time.perf_counter()
        with LocalCluster() as cluster:
            cluster.add_worker(num_cpus=2)
            started = time.perf_counter() - t0
            print(f"cluster up in {started:.0f} s (not in the figures below)", flush=True)
            for kind in ("cold", "warm"):
                wall, doc = run([*common, "--executor", "ray", "--address", cluster.address,
                                 "-o", str(out / f"ray-{kind}")], base_env, out / f"ray-{kind}.log")
                rows.append(("Ray: head + 1 worker node of 2 CPUs", kind, wall, doc))
                print(f"ray {kind}: {wall:.0f} s, {correct(doc)} ops correct", flush=True)
        load.append(os.getloadavg()[0])

    local = {k: w for name, k, w, _ in rows if name.startswith("local")}
    lines = [f"# The Ray executor's overhead on one machine ({len(ops)} ops)", "",
             f"`python bench/ray_bench.py --ops {args.ops} --seeds {args.seeds}` on {platform.machine()}, "
             f"{os.cpu_count()} CPU threads, Python {platform.python_version()}; load average (1 min) "
             f"{', '.join(f'{x:.1f}' for x in load)} (start, between, end). Ops: {' '.join(ops)}; "
             f"`--seeds {args.seeds} --no-timing`, both shapes. Wall time of the `ascendcraft bench` process, start "
             f"to exit; the Ray cluster's own start ({started:.0f} s) is not in it.", "",
             "| executor | kernel cache | wall time | vs local pool | ops correct on both shapes |",
             "|---|---|---|---|---|"]
    for name, kind, wall, doc in rows:
        lines.append(f"| {name} | {kind} | {wall:.0f} s | {wall / local[kind]:.2f}x | {correct(doc)} |")
    lines += ["", "One machine: the difference is what Ray adds (connecting, shipping the package, a task's start "
              "on the node, the op's folder sent back; cold, the node compiles every kernel again for its copy of "
              "the emulator headers), not a speed-up. Across hosts the ops spread over every node's CPUs."]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.write:
        Path(args.write).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
