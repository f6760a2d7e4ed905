"""DSL interpreter speed versus PyTorch eager on the same CPU (not a test).

    .venv/bin/python bench/interp_bench.py [--repeat 5] [--ops gelu softmax layer_norm]

For each example at its reference shape: the interpreter's time for one kernel run (every
core and every tile, after parse and verify), PyTorch eager's time for the reference forward,
and their ratio. The reference module is our own example file, imported in-process here (user
references only ever run in a child process). Medians of `--repeat` runs after one warm-up.
"""
from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from ascendcraft_lab.dsl import parse, verify  # noqa: E402
from ascendcraft_lab.dsl.check import bind  # noqa: E402
from ascendcraft_lab.dsl.interp import run  # noqa: E402
from ascendcraft_lab.examples import get_example  # noqa: E402
from ascendcraft_lab.reference import ReferenceRun  # noqa: E402
from ascendcraft_lab.soc import get_soc  # noqa: E402


def _module(path: Path):
    spec = importlib.util.spec_from_file_location(f"bench_{path.stem}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _times(fn, repeat: int) -> tuple[float, float]:
    """(median, best) of `repeat` timed calls after one warm-up; the best is the figure least
    disturbed by other processes on a shared machine."""
    fn()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), min(times)


def bench(op: str, repeat: int, soc_name: str | None) -> dict:
    ex = get_example(op)
    mod = _module(ex.reference)
    torch.manual_seed(0)
    inputs = mod.get_inputs()
    init = mod.get_init_inputs()
    torch.manual_seed(0)
    model = mod.Model(*init)
    with torch.no_grad():
        outputs = model(*inputs)
    outs = list(outputs) if isinstance(outputs, (tuple, list)) else [outputs]

    def arr(v):
        return v.detach().numpy() if isinstance(v, torch.Tensor) else v
    ref = ReferenceRun(str(ex.reference), [arr(v) for v in inputs], list(init), [arr(o) for o in outs],
                       {k: arr(v) for k, v in model.named_parameters()}, {k: arr(v) for k, v in model.named_buffers()},
                       input_dtypes=[str(v.dtype).replace("torch.", "") if isinstance(v, torch.Tensor) else None
                                     for v in inputs],
                       output_dtypes=[str(o.dtype).replace("torch.", "") for o in outs])
    program = parse(ex.dsl.read_text(), str(ex.dsl))
    kernel_inputs, expected = bind(program, ref)
    shapes = {n: np.shape(v) for n, v in kernel_inputs.items() if isinstance(v, np.ndarray)}
    scalars = {p.name: kernel_inputs[p.name] for p in program.scalars}
    soc = get_soc(soc_name)
    typed = verify(program, soc, shapes=shapes, scalars=scalars)
    result = run(typed, kernel_inputs, soc)
    for name, want in expected.items():
        assert np.allclose(result[name], want, rtol=1e-4, atol=1e-4), f"{op}: interpreter disagrees with PyTorch"

    t_interp, best_interp = _times(lambda: run(typed, kernel_inputs, soc), repeat)

    def eager():
        with torch.no_grad():
            model(*inputs)
    t_torch, best_torch = _times(eager, max(repeat, 20))
    shape = " x ".join(str(s) for s in ref.inputs[0].shape)
    return {"op": ex.name, "shape": shape, "cores": result.launch["cores"], "interp_ms": t_interp * 1e3,
            "torch_ms": t_torch * 1e3, "ratio": t_interp / t_torch,
            "best_interp_ms": best_interp * 1e3, "best_torch_ms": best_torch * 1e3,
            "best_ratio": best_interp / best_torch}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--ops", nargs="+", default=["gelu", "softmax", "layer_norm"])
    ap.add_argument("--soc", default=None)
    ap.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's own choice)")
    args = ap.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads; numpy {np.__version__}; "
          f"median (best) of {args.repeat} interpreter runs and of {max(args.repeat, 20)} eager runs")
    print(f"{'example':26} {'input':>15} {'cores':>5} {'interpreter ms':>17} {'torch eager ms':>17} {'ratio':>12}")
    for op in args.ops:
        r = bench(op, args.repeat, args.soc)
        print(f"{r['op']:26} {r['shape']:>15} {r['cores']:>5} {r['interp_ms']:>8.2f} ({r['best_interp_ms']:>6.2f}) "
              f"{r['torch_ms']:>8.3f} ({r['best_torch_ms']:>6.3f}) {r['ratio']:>5.0f}x ({r['best_ratio']:>4.0f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
