"""Emulator speed versus PyTorch eager on the same CPU (not a test).

    .venv/bin/python bench/emulator_bench.py [--repeat 10]

Runs the elementwise add and the tanh-formula GELU kernels (tests/emulator/kernels/) on 16x16384
and 4096x4096 fp32 and prints, per case: the emulated kernel time (all blocks, inside the child),
the whole emulated run (child process and argument transfer), PyTorch eager time, their ratios,
the cold compile time of the kernel and the warm (cached) compile lookup.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ascendcraft_lab.backends.emulator import runner  # noqa: E402
from ascendcraft_lab.backends.emulator.runner import Arg, pack_tiling  # noqa: E402

KERNELS = ROOT / "tests" / "emulator" / "kernels"
SHAPES = [(16, 16384), (4096, 4096)]


def best_of(fn, repeat: int) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def case_add(shape, block_dim):
    n = shape[0] * shape[1]
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    tile = 4096
    args = [Arg.input(x), Arg.input(y), Arg.output("float32", n), Arg.workspace(0),
            Arg.tiling(pack_tiling([("uint32", n), ("uint32", tile)]))]
    return (KERNELS / "add_double_buffer.cpp", "add_custom", args, 2, x + y,
            lambda tx, ty: tx + ty, (x, y))


def case_gelu(shape, block_dim):
    n = shape[0] * shape[1]
    rng = np.random.default_rng(1)
    x = rng.standard_normal(n, dtype=np.float32)
    args = [Arg.input(x), Arg.output("float32", n), Arg.tiling(pack_tiling([("uint32", n), ("uint32", 8192)]))]
    k = float(np.sqrt(2 / np.pi))

    def torch_gelu(tx):
        import torch
        return 0.5 * tx * (1 + torch.tanh(k * (tx + 0.044715 * tx * tx * tx)))

    xd = x.astype(np.float64)
    ref = (0.5 * xd * (1 + np.tanh(k * (xd + 0.044715 * xd ** 3)))).astype(np.float32)
    return KERNELS / "gelu_tanh.cpp", "gelu_tanh", args, 1, ref, torch_gelu, (x,)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=10)
    ns = ap.parse_args()
    import torch

    # Cold compiles go to a fresh cache; the runtime object (built once per emulator version) is timed apart.
    cold_cache = tempfile.mkdtemp(prefix="acemu-bench-cache-")
    os.environ["ASCENDCRAFT_CACHE_DIR"] = cold_cache
    t0 = time.perf_counter()
    runner._runtime_object()
    runtime_s = time.perf_counter() - t0

    rows = []
    compiled: set[str] = set()
    for name, make in (("add", case_add), ("gelu_tanh", case_gelu)):
        for shape in SHAPES:
            n = shape[0] * shape[1]
            block_dim = 8 if n <= 1 << 20 else 32
            src, entry, args, out_idx, ref, torch_fn, inputs = make(shape, block_dim)
            cold = "-"
            if str(src) not in compiled:
                c = runner.compile_sources([src], entry=entry, n_args=len(args))
                assert c.ok, c.stderr
                cold = f"{c.compile_s:.2f}"
                compiled.add(str(src))
            warm = runner.compile_sources([src], entry=entry, n_args=len(args))
            assert warm.cached
            e2e, rep = best_of(lambda: runner.run_kernel([src], entry, block_dim, args), ns.repeat)
            assert rep.status == "ok", rep.summary()
            np.testing.assert_allclose(rep.outputs[out_idx].reshape(-1), ref, rtol=1e-5, atol=1e-5)
            kernel_s = min(runner.run_kernel([src], entry, block_dim, args).timings["kernel_s"]
                           for _ in range(ns.repeat))
            tin = [torch.from_numpy(a) for a in inputs]
            torch_fn(*tin)
            # cheap: more tries against scheduler noise
            t_torch, _ = best_of(lambda: torch_fn(*tin), max(ns.repeat, 30))
            rows.append((name, f"{shape[0]}x{shape[1]}", block_dim, kernel_s, e2e, t_torch, cold, warm.compile_s))

    shutil.rmtree(cold_cache, ignore_errors=True)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads; {os.cpu_count()} cores; "
          f"runtime object build (once per emulator version): {runtime_s:.2f} s\n")
    hdr = ("kernel", "shape", "blocks", "emu kernel ms", "emu run ms", "torch ms", "kernel/torch", "run/torch",
           "cold compile s", "warm s")
    print("| " + " | ".join(hdr) + " |")
    print("|" + "---|" * len(hdr))
    for name, shape, blocks, ks, e2e, tt, cold, warm in rows:
        print(f"| {name} | {shape} | {blocks} | {ks * 1e3:.2f} | {e2e * 1e3:.1f} | {tt * 1e3:.2f} | "
              f"{ks / tt:.2f} | {e2e / tt:.1f} | {cold} | {warm:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
