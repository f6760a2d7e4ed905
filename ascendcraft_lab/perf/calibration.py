"""Public measurements on Ascend NPUs that the model can be held against, with its error.

Only a measurement whose work we can reproduce counts. None yet times a kernel we generate (see
README.md, "Calibration", for where we looked). What there is:

- `torch.matmul` of square matrices on an Ascend910B2, which the eager estimate (`eager.py`)
  models as one cube-bound aten kernel;
- torch_npu's swiglu (one fused aten op: reads x of [..., 2d], writes [..., d]) per shape, and a
  Triton-Ascend swiglu at the same shapes, timed by one harness (FlagGems' benchmark, mode=kernel)
  on an Ascend NPU whose part the pull request does not name (costs.py's A2 table is used).

A point a parameter was fitted to checks nothing and says so. A point outside the premise of the
estimate (eager.py puts each op at its roofline) is listed with the reason, not checked.
`python -m ascendcraft_lab.perf.calibration` prints the table.
"""
from __future__ import annotations

from dataclasses import dataclass

from .costs import costs_for
from .eager import estimate_eager

MATMUL_SOURCE = ("https://github.com/zzc0721/torch-performance-test-data/issues/109 (Ascend910B2, torch 2.5.1, "
                 "torch.matmul of n x n by n x n, reported in TFLOPS; time = 2 n^3 / TFLOPS)")
SWIGLU_SOURCE = ("https://github.com/flagos-ai/FlagGems/pull/6424 (an Ascend NPU, FlagGems benchmark mode=kernel: "
                 "torch_npu's swiglu and a Triton-Ascend swiglu, latency per call in ms)")


def _tensor(shape, dtype: str) -> dict:
    return {"kind": "tensor", "shape": list(shape), "dtype": dtype}


@dataclass(frozen=True)
class Point:
    """torch.matmul of n x n by n x n, published as TFLOPS."""
    what: str
    soc: str
    n: int
    dtype: str
    tflops: float          # as published
    source: str
    fitted: bool = False   # a cost parameter was fitted to this point: it checks nothing
    unchecked: str = ""    # why the point is outside what the estimate claims ("" when it is checked)

    @property
    def measured_s(self) -> float:
        return 2.0 * self.n ** 3 / (self.tflops * 1e12)

    def graph(self) -> dict:
        """The traced graph of `torch.matmul(a, b)` for this point, as `drafter.trace` records one."""
        t = _tensor([self.n, self.n], self.dtype)
        return {"nodes": [{"name": "a", "op": "placeholder", "meta": t}, {"name": "b", "op": "placeholder", "meta": t},
                          {"name": "matmul", "op": "call_function", "target": "torch.matmul",
                           "args": [{"node": "a"}, {"node": "b"}], "meta": t}]}

    def estimated_s(self) -> float:
        return estimate_eager(self.graph(), self.soc).seconds

    @property
    def error(self) -> float:
        """(estimated - measured) / measured: negative when the model is optimistic."""
        return (self.estimated_s() - self.measured_s) / self.measured_s


@dataclass(frozen=True)
class SwigluPoint:
    """One swiglu call on x of `shape` (the last axis halves): torch_npu's op as one eager aten op, or
    (triton=True) a custom kernel, whose estimate here is the launch alone (its copies are not traced)."""
    what: str
    soc: str
    shape: tuple
    dtype: str
    measured_us: float
    source: str
    triton: bool = False
    fitted: bool = False
    unchecked: str = ""

    @property
    def measured_s(self) -> float:
        return self.measured_us * 1e-6

    def graph(self) -> dict:
        out = list(self.shape[:-1]) + [self.shape[-1] // 2]
        return {"nodes": [{"name": "x", "op": "placeholder", "meta": _tensor(self.shape, self.dtype)},
                          {"name": "swiglu", "op": "call_function", "target": "torch_npu.npu_swiglu",
                           "args": [{"node": "x"}], "meta": _tensor(out, self.dtype)}]}

    def estimated_s(self) -> float:
        if self.triton:
            return costs_for(self.soc).launch_s.value
        return estimate_eager(self.graph(), self.soc).seconds

    @property
    def error(self) -> float:
        return (self.estimated_s() - self.measured_s) / self.measured_s


# float32's cube rate (costs.py) is fitted to the 4096^3 float32 / float16 ratio: the float32 point then
# repeats the float16 one's error, so it checks nothing.
_MATMUL_SETUP = ("an eager matmul's own set-up (aclnn tiling, the first K step; ~10-15 us by these points) is not "
                 "modelled: eager is estimated too fast here, which is generous to eager")
MATMUL_POINTS = tuple(Point(f"torch.matmul {n}^3 {dt}", "Ascend910B2", n, dt, tf, MATMUL_SOURCE, fitted, unchecked)
                      for n, dt, tf, fitted, unchecked in (
    (1024, "float16", 98.08, False, _MATMUL_SETUP), (2048, "float16", 251.01, False, ""),
    (4096, "float16", 314.52, False, ""), (8192, "float16", 305.46, False, ""), (2048, "float32", 76.92, False, ""),
    (4096, "float32", 84.53, True, ""), (8192, "float32", 80.43, False, ""),
))

_ODD_ROWS = "rows of 100 halve to 50 elements (100 B, not 32-B aligned): the op runs far below its roofline"
# The HBM bandwidth is fitted to the two streams beyond the L2 (0.8 and 2 GB), the eager op's fixed cost to the
# four calls of at most 32 K elements (their geo-mean), the launch to the three smallest Triton kernels.
SWIGLU_POINTS = tuple(
    SwigluPoint(f"{'triton' if tri else 'torch_npu'} swiglu {'x'.join(map(str, shape))} {dt}", "Ascend910B2",
                shape, dt, us, SWIGLU_SOURCE, tri, fitted, unchecked)
    for shape, dt, us, tri, fitted, unchecked in (
        ((4, 32), "float16", 4.305, False, True, ""), ((256, 128), "float16", 3.351, False, True, ""),
        ((4, 32), "float32", 2.645, False, True, ""), ((100, 1, 100), "float16", 4.599, False, True, ""),
        ((8192, 128), "float16", 11.770, False, False, ""), ((15000, 128), "float16", 12.526, False, False, ""),
        ((10000, 256), "float16", 13.705, False, False, ""), ((2560, 2048), "float16", 16.990, False, False, ""),
        ((15000, 2048), "float16", 48.428, False, False, ""),
        ((268435456,), "float16", 657.737, False, True, ""), ((10000, 65536), "float16", 1602.858, False, True, ""),
        ((100, 256, 100), "float16", 32.502, False, False, _ODD_ROWS),
        ((100, 65536, 100), "float16", 6303.485, False, False, _ODD_ROWS),
        ((4, 32), "float16", 2.041, True, True, ""), ((256, 128), "float16", 1.963, True, True, ""),
        ((4, 32), "float32", 1.464, True, True, ""),
    ))

POINTS = MATMUL_POINTS + SWIGLU_POINTS


def table(points=POINTS) -> list[str]:
    """One line per point: measured, ESTIMATED, error."""
    return [f"{p.what:<38} measured {p.measured_s * 1e6:9.1f} us   estimated {p.estimated_s() * 1e6:9.1f} us   "
            f"error {p.error:+.0%}" + ("   (fitted)" if p.fitted else "")
            + (f"   (not checked: {p.unchecked})" if p.unchecked else "") for p in points]


if __name__ == "__main__":
    print("\n".join(table()))
