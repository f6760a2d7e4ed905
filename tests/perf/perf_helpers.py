"""Run a test kernel of tests/perf/kernels traced on the emulator and estimate it with the pipe model."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from ascendcraft_lab.backends.emulator.runner import Arg, pack_tiling, run_kernel
from ascendcraft_lab.perf import Estimate, estimate_trace

KERNELS = Path(__file__).parent / "kernels"
SOC = "Ascend910B2"


def traced(name: str, blocks: int, n: int, tile: int, tmp_path: Path, *, flags=()) -> Estimate:
    """The estimate of `name` over `n` float32 elements in tiles of `tile`, on `blocks` blocks."""
    src = KERNELS / f"{name}.cpp"
    entry, nargs = re.search(r"entry=(\w+) args=(\d+)", src.read_text()).groups()
    x = np.arange(n, dtype=np.float32)
    ins = [Arg.input(x)] + ([Arg.input(x)] if int(nargs) == 5 else [])
    tiling = pack_tiling([("uint32", n), ("uint32", tile)])
    args = ins + [Arg.output("float32", (n,)), Arg.workspace(0), Arg.tiling(tiling)]
    path = tmp_path / f"{name}-{blocks}-{n}-{tile}-{len(flags)}.trace"
    report = run_kernel([src], entry, blocks, args, soc=SOC, extra_flags=flags, trace=path)
    assert report.ok, report.summary()
    expect = x + x if int(nargs) == 5 else x
    assert np.array_equal(report.outputs[len(ins)], expect)
    (est,) = estimate_trace(path, SOC)
    return est
