"""Emulated cube matmul versus torch.matmul on the same CPU, measured in one process (not a test).

    .venv/bin/python bench/cube_bench.py [--big] [--repeat 3] [--soc Ascend910B2]

The kernel is tests/emulator/kernels/matmul_api.cpp: the high-level Matmul API as
MultiKernelBench's matmul operators use it, float32 A [M, K] and B [K, N], tiled by the host
side's MultiCoreMatmulTiling over all the SoC's vector cores (a mixed kernel: numBlocks =
cores / 2). Per shape it prints the emulated kernel time (all blocks, inside the child process),
the whole emulated run (child process, argument transfer), torch.matmul's time (best of --repeat,
torch on all CPU threads), the ratio kernel / torch, and the largest error against torch.
--big adds 4096^3 and 8205 x 2949 x 5921 (one emulated run each). --basic also times the
basic-API kernel tests/emulator/kernels/mm_multicore.cpp (half inputs, 128 x 256 x 64 tiles over
the SoC's cube cores: Nd2Nz, LoadData, Mmad, Fixpipe and the pipe-order check all emulated) on
2048^3, against torch.matmul of the same values in float32.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ascendcraft_lab.backends.emulator import runner  # noqa: E402
from ascendcraft_lab.backends.emulator.runner import Arg, pack_tiling  # noqa: E402
from ascendcraft_lab.soc import get_soc  # noqa: E402

KERNEL = ROOT / "tests" / "emulator" / "kernels" / "matmul_api.cpp"
BASIC = ROOT / "tests" / "emulator" / "kernels" / "mm_multicore.cpp"  # basic API, half in, float out
TILING_GEN = ROOT / "tests" / "emulator" / "host" / "mm_tiling_gen.cpp"


def host_tiling(gen: Path, m: int, n: int, k: int, dim: int, soc: str) -> bytes:
    r = subprocess.run([str(gen), str(m), str(n), str(k), "2", "0", "0", str(dim)], capture_output=True,
                       env={**os.environ, **runner.soc_env(soc)}, timeout=60, check=True)
    return r.stdout


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--big", action="store_true", help="also 4096^3 and 8205 x 2949 x 5921")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--soc", default="Ascend910B2")
    ap.add_argument("--basic", action="store_true", help="also the basic-API kernel on 2048^3 (half in)")
    opts = ap.parse_args()
    import torch

    torch.set_num_threads(os.cpu_count() or 1)
    chip = get_soc(opts.soc)
    gen = runner.compile_sources([TILING_GEN], host=True)
    comp = runner.compile_sources([KERNEL], entry="matmul_api", n_args=6)
    if not (gen.ok and comp.ok):
        raise SystemExit(gen.stderr + comp.stderr)
    shapes = [(2048, 2048, 2048)] + ([(4096, 4096, 4096), (8205, 2949, 5921)] if opts.big else [])
    print(f"CPU threads: {os.cpu_count()}, torch {torch.__version__} ({torch.get_num_threads()} threads), "
          f"SoC {chip.name} ({chip.vector_cores} vector cores)")
    print("| M x N x K | blocks | emu kernel s | emu run s | torch s | kernel / torch | max rel err |")
    print("|---|---|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    for m, n, k in shapes:
        a = rng.standard_normal((m, k), dtype=np.float32)
        b = rng.standard_normal((k, n), dtype=np.float32)
        cube = host_tiling(gen.binary, m, n, k, chip.vector_cores, chip.name)
        used = int.from_bytes(cube[:4], "little")
        blocks = (used + 1) // 2
        args = [Arg.input(a), Arg.input(b), Arg.input(np.zeros(n, np.float32)), Arg.output("float32", (m, n)),
                Arg.workspace(1024), Arg.tiling(pack_tiling([("uint32", 2), ("uint32", 0)]) + cube)]
        emu_repeat = opts.repeat if m * n * k <= 2048 ** 3 else 1
        kernel_s, run_s, out = float("inf"), float("inf"), None
        for _ in range(emu_repeat):
            report = runner.run_kernel([KERNEL], "matmul_api", blocks, args, soc=chip.name, timeout=3600)
            if report.status != "ok":
                raise SystemExit(report.summary())
            kernel_s = min(kernel_s, report.timings["kernel_s"])
            run_s = min(run_s, report.timings["run_s"])
            out = report.outputs[3]
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        torch.matmul(ta, tb)
        torch_s, ref = float("inf"), None
        for _ in range(opts.repeat):
            t0 = time.perf_counter()
            ref = torch.matmul(ta, tb)
            torch_s = min(torch_s, time.perf_counter() - t0)
        ref_np = ref.numpy()
        err = float(np.max(np.abs(out - ref_np)) / max(1e-30, float(np.max(np.abs(ref_np)))))
        print(f"| {m} x {n} x {k} | {blocks} | {kernel_s:.3f} | {run_s:.3f} | {torch_s:.3f} | "
              f"{kernel_s / torch_s:.2f} | {err:.1e} |")
    if opts.basic:
        bench_basic(chip, opts.repeat, torch)


def bench_basic(chip, repeat: int, torch) -> None:
    m = n = k = 2048
    rng = np.random.default_rng(1)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    tiling = pack_tiling([("uint32", v) for v in (m, n, k, 128, 256, 64)])
    args = [Arg.input(a), Arg.input(b), Arg.output("float32", (m, n)), Arg.tiling(tiling)]
    kernel_s, run_s, out = float("inf"), float("inf"), None
    for _ in range(repeat):
        report = runner.run_kernel([BASIC], "mm_multicore", chip.cube_cores, args, soc=chip.name, timeout=3600)
        if report.status != "ok":
            raise SystemExit(report.summary())
        kernel_s, run_s = min(kernel_s, report.timings["kernel_s"]), min(run_s, report.timings["run_s"])
        out = report.outputs[2]
    ta, tb = torch.from_numpy(a.astype(np.float32)), torch.from_numpy(b.astype(np.float32))
    torch_s = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        ref = torch.matmul(ta, tb)
        torch_s = min(torch_s, time.perf_counter() - t0)
    err = float(np.max(np.abs(out - ref.numpy())) / float(np.max(np.abs(ref.numpy()))))
    print(f"| basic API, half: {m} x {n} x {k} | {chip.cube_cores} | {kernel_s:.3f} | {run_s:.3f} | {torch_s:.3f} | "
          f"{kernel_s / torch_s:.2f} | {err:.1e} |")


if __name__ == "__main__":
    main()
