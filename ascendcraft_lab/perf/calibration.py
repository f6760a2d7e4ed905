"""Public measurements on an Ascend 910B that the model can be held against, with its error.

Only a measurement whose work we can reproduce counts. None yet times a kernel we generate (see
README.md, "Calibration", for where we looked). What there is: `torch.matmul` of square matrices
on an Ascend910B2, which the eager estimate (`eager.py`) models as one cube-bound aten kernel.
"""
from __future__ import annotations

from dataclasses import dataclass

from .eager import estimate_eager

MATMUL_SOURCE = ("https://github.com/zzc0721/torch-performance-test-data/issues/109 (Ascend910B2, torch 2.5.1, "
                 "torch.matmul of n x n by n x n, reported in TFLOPS; time = 2 n^3 / TFLOPS)")


@dataclass(frozen=True)
class Point:
    what: str
    soc: str
    n: int
    dtype: str
    tflops: float          # as published
    source: str
    fitted: bool = False   # a cost parameter was fitted to this point: it checks nothing

    @property
    def measured_s(self) -> float:
        return 2.0 * self.n ** 3 / (self.tflops * 1e12)

    def graph(self) -> dict:
        """The traced graph of `torch.matmul(a, b)` for this point, as `drafter.trace` records one."""
        t = {"kind": "tensor", "shape": [self.n, self.n], "dtype": self.dtype}
        return {"nodes": [{"name": "a", "op": "placeholder", "meta": t}, {"name": "b", "op": "placeholder", "meta": t},
                          {"name": "matmul", "op": "call_function", "target": "torch.matmul",
                           "args": [{"node": "a"}, {"node": "b"}], "meta": t}]}

    def estimated_s(self) -> float:
        return estimate_eager(self.graph(), self.soc).seconds

    @property
    def error(self) -> float:
        """(estimated - measured) / measured: negative when the model is optimistic."""
        return (self.estimated_s() - self.measured_s) / self.measured_s


# float32's cube rate (costs.py) is fitted to the 4096^3 float32 / float16 ratio: the float32 point then
# repeats the float16 one's error, so it checks nothing.
POINTS = tuple(Point(f"torch.matmul {n}^3 {dt}", "Ascend910B2", n, dt, tf, MATMUL_SOURCE, fitted)
               for n, dt, tf, fitted in (
    (1024, "float16", 98.08, False), (2048, "float16", 251.01, False), (4096, "float16", 314.52, False),
    (8192, "float16", 305.46, False), (2048, "float32", 76.92, False), (4096, "float32", 84.53, True),
    (8192, "float32", 80.43, False),
))


def table() -> list[str]:
    """One line per point: measured, ESTIMATED, error."""
    return [f"{p.what:<28} measured {p.measured_s * 1e6:9.1f} us   estimated {p.estimated_s() * 1e6:9.1f} us   "
            f"error {p.error:+.0%}" + ("   (fitted)" if p.fitted else "") for p in POINTS]


if __name__ == "__main__":
    print("\n".join(table()))
