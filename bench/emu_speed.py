"""The emulator at real sizes: emulated kernel time versus PyTorch eager on the same CPU (not a test).

    .venv/bin/python bench/emu_speed.py [--case NAME ...] [--large] [--repeat 5] [--timeout 1800] [--soc Ascend910B2]

Each case is a reference of the bundled suite at a MultiKernelBench-sized shape (the suite's own
`get_inputs()` with overrides). It goes the way `ascendcraft check` and `ascendcraft bench` take
it: the reference is traced and run in the reference child (`reference.run_jobs`), drafted by the
offline drafter (`draft_from_trace`), lowered by the rule engine (the four passes), compiled with
g++ against the emulator and run on every core (`backends.emulator.verify.emulate`), and the
outputs are compared with PyTorch's (the bench's `check_output`, as `ascendcraft bench` judges).
PyTorch eager runs in this process, on the same inputs, with as many threads as the emulator uses
(one per CPU), best of --repeat after a warm-up. Printed per case: the emulated kernel time (all
blocks, inside the child: `kernel_s`), the whole emulated run (child process and argument
transfer: `run_s`), eager, the ratio kernel / eager (lower is better; 1 = as fast as eager), then
the same in CPU seconds (the emulator child's user + system time for the whole run, torch's
process time for the forward: on a loaded machine wall times swing with the other processes,
CPU times much less), the verdict and the worst relative error.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ascendcraft_lab.backends.emulator.verify import emulate  # noqa: E402
from ascendcraft_lab.bench.metrics import check_output  # noqa: E402
from ascendcraft_lab.drafter.draft import draft_from_trace, kernel_name  # noqa: E402
from ascendcraft_lab.dsl.parser import parse  # noqa: E402
from ascendcraft_lab.dsl.verifier import verify  # noqa: E402
from ascendcraft_lab.engines.rule import render  # noqa: E402
from ascendcraft_lab.passes.spec import LowerOptions  # noqa: E402
from ascendcraft_lab.reference import bind, run_jobs, trim_outputs  # noqa: E402
from ascendcraft_lab.soc import get_soc  # noqa: E402

SUITE = ROOT / "ascendcraft_lab" / "suite"

# name -> (reference, overrides, what it stands for)
CASES = {
    "matmul-1024": ("matmul/square_matmul.py", {"N": 1024}, "cube: 1024^3 fp32"),
    "matmul-2048": ("matmul/square_matmul.py", {"N": 2048}, "cube: 2048^3 fp32 (issue 42: within 3x)"),
    "matmul-4d": ("matmul/matmul_4d.py", {"batch_size": 4, "heads": 8, "seq": 512, "head_dim": 64},
                  "cube: Q @ K^T, 4 x 8 x 512 x 512 x 64 fp32"),
    "softmax-row": ("activation/softmax.py", {"batch_size": 64, "dim": 262144}, "vector: softmax of 64 rows of 262144"),
    "sum-big": ("reduce/sum_dim.py", {"batch_size": 64, "dim1": 1024, "dim2": 1024},
                "vector: sum over dim 1 of 64 x 1024 x 1024"),
    "relu-stream": ("activation/relu.py", {"batch_size": 1024, "dim": 65536}, "vector: streaming relu, 64 M fp32"),
    "gelu-stream": ("activation/gelu.py", {"batch_size": 1024, "dim": 16384}, "vector: streaming gelu, 16 M fp32"),
}
# The largest shapes public benchmarks use (MultiKernelBench's 8192-wide matmul and reductions): run
# with --large, or one by one with --case (the matmul alone is 1.1 TFLOP: minutes on 2 cores).
LARGE = {
    "matmul-8192": ("matmul/square_matmul.py", {"N": 8192}, "cube: 8192^2 x 8192 fp32"),
    "softmax-8192sq": ("activation/softmax.py", {"batch_size": 8192, "dim": 8192}, "vector: softmax of 8192 x 8192"),
    "sum-8192sq": ("reduce/sum_dim.py", {"batch_size": 1, "dim1": 8192, "dim2": 8192},
                   "vector: sum over dim 1 of 8192 x 8192"),
}
CASES.update(LARGE)


def child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def eager_seconds(path: Path, run, repeat: int) -> tuple[float, float]:
    """Best-of-`repeat` forward of the reference's Model on the run's inputs, in this process:
    (wall seconds, CPU seconds of all torch threads)."""
    import torch

    spec = importlib.util.spec_from_file_location(f"emu_speed_ref_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    model = module.Model(*run.init_inputs)
    inputs = [torch.from_numpy(np.ascontiguousarray(v)) if isinstance(v, np.ndarray) else v for v in run.inputs]
    best, best_cpu = float("inf"), float("inf")
    with torch.no_grad():
        model(*inputs)
        for _ in range(repeat):
            t0, c0 = time.perf_counter(), time.process_time()
            model(*inputs)
            best, best_cpu = min(best, time.perf_counter() - t0), min(best_cpu, time.process_time() - c0)
    return best, best_cpu


def run_case(name: str, soc: str, repeat: int, timeout: float) -> dict:
    rel, overrides, what = CASES[name]
    path = SUITE / rel
    traced, ref = run_jobs([{"mode": "trace", "path": str(path), "overrides": overrides, "seed": 0},
                            {"mode": "run", "path": str(path), "overrides": overrides, "seed": 0}], timeout=1200)
    for r in (traced, ref):
        if isinstance(r, Exception):
            raise SystemExit(f"{name}: {r}")
    ref = ref["run"]
    d = draft_from_trace(traced["graph"], name=kernel_name(path), soc=soc, source=path.name)
    program = verify(parse(d.text, "kernel.dsl.py"), soc)
    inputs, expected = bind(program, ref)
    shapes = {n: v.shape for n, v in inputs.items() if hasattr(v, "shape")}
    scalars = {p.name: inputs[p.name] for p in program.scalars}
    program = verify(program, soc, shapes=shapes, scalars=scalars)
    bundle = render(program, LowerOptions(soc=soc, shapes=shapes, scalars=scalars), 4)
    tensors = {n: v for n, v in inputs.items() if isinstance(v, np.ndarray)}
    kernel_s, run_s, cpu_s, run = float("inf"), float("inf"), float("inf"), None
    for _ in range(max(2, repeat)):    # the first run compiles (its CPU time counts the compiler too)
        c0 = child_cpu()
        run = emulate(program, bundle, tensors, scalars, soc=soc, timeout=timeout)
        if run.status not in ("ok", "findings"):
            break
        cpu_s = min(cpu_s, child_cpu() - c0)
        kernel_s = min(kernel_s, float(run.timings.get("kernel_s", float("inf"))))
        run_s = min(run_s, float(run.timings.get("run_s", float("inf"))))
    out = {"case": name, "what": what, "template": d.template, "status": run.status, "cores": run.block_dim,
           "kernel_s": kernel_s, "run_s": run_s, "cpu_s": cpu_s}
    if run.status in ("ok", "findings"):
        got = trim_outputs(program, run.outputs)
        checks = [check_output(p.name, got.get(p.name), expected[p.name], "float32") for p in program.outputs]
        out["correct"] = run.status == "ok" and all(c.correct for c in checks)
        out["max_rel_err"] = max((c.max_rel_err for c in checks), default=0.0)
    else:
        out["correct"] = False
        out["error"] = run.message
    out["eager_s"], out["eager_cpu_s"] = eager_seconds(path, ref, repeat)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--case", action="append", choices=sorted(CASES), help="run only these (repeatable)")
    ap.add_argument("--large", action="store_true", help="also the 8192-wide cases (LARGE)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--timeout", type=float, default=1800.0)
    ap.add_argument("--soc", default="Ascend910B2")
    opts = ap.parse_args()
    import torch

    threads = os.cpu_count() or 1
    torch.set_num_threads(threads)
    soc = get_soc(opts.soc).name
    print(f"CPU threads: {threads} (emulator and torch {torch.__version__} alike), SoC {soc}")
    print("| case | template | cores | emu kernel s | emu run s | eager s | kernel / eager | emu CPU s | eager CPU s "
          "| CPU ratio | verdict | max rel err |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name in opts.case or [n for n in CASES if opts.large or n not in LARGE]:
        r = run_case(name, soc, opts.repeat, opts.timeout)
        verdict = "correct" if r["correct"] else f"{r['status']}: {r.get('error', 'INCORRECT')}"
        ratio = r["kernel_s"] / r["eager_s"] if r["eager_s"] > 0 else float("inf")
        print(f"| {name} ({r['what']}) | {r['template']} | {r['cores']} | {r['kernel_s']:.3f} | {r['run_s']:.3f} | "
              f"{r['eager_s']:.4f} | {ratio:.2f} | {r['cpu_s']:.3f} | {r['eager_cpu_s']:.3f} | "
              f"{r['cpu_s'] / r['eager_cpu_s']:.2f} | {verdict} | {r.get('max_rel_err', float('nan')):.1e} |",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
