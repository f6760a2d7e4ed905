"""The ESTIMATED time of a program of kernels: every launch's kernel estimate, in program order.

A program's time is the sum over its launches of the kernel's estimate (`model.Estimate.kernel_s`:
the per-launch overhead `launch_s` of perf/costs.py, a cited guess, plus the last core's finish);
launches on one stream do not overlap. The host's other work (tiling functions, one upload of each
launch statement's tiling struct, allocations) happens once before the first launch and is left out. A kernel launched
again with the same shapes is estimated once (the model's time depends on the shapes, not on the
data). Compared with the estimated eager time of the reference, where each aten op is one kernel
and one launch (eager.py): the difference is what the program's fusion saves in launches and
in GM traffic.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .eager import EagerEstimate
from .model import Estimate


@dataclass
class LaunchTime:
    where: str            # the launch as a program names it: `kernel` (line N, s = 2)
    kernel: str
    estimate: Estimate


@dataclass
class ProgramEstimate:
    soc: str
    launches: list[LaunchTime] = field(default_factory=list)
    eager: EagerEstimate | None = None
    name: str = ""

    @property
    def seconds(self) -> float:
        return sum(t.estimate.kernel_s for t in self.launches)

    @property
    def launch_seconds(self) -> float:
        return sum(t.estimate.launch_s for t in self.launches)

    def per_kernel(self) -> dict[str, tuple[int, float]]:
        """Kernel -> (launches, estimated seconds of them all)."""
        out: dict[str, tuple[int, float]] = {}
        for t in self.launches:
            n, s = out.get(t.kernel, (0, 0.0))
            out[t.kernel] = (n + 1, s + t.estimate.kernel_s)
        return out

    def text(self) -> str:
        lines = [f"ESTIMATED profile of program `{self.name}` on {self.soc} "
                 "(pipe model of the emulator's trace; no NPU)",
                 f"  program    {_us(self.seconds)} estimated: {len(self.launches)} launches, "
                 f"{_us(self.launch_seconds)} of it launch overhead (launch_s per launch, perf/costs.py)"]
        for kernel, (n, s) in self.per_kernel().items():
            one = next(t.estimate for t in self.launches if t.kernel == kernel)
            lines.append(f"  {kernel:<10} {n} launch{'es' if n > 1 else ''}, {_us(s)} "
                         f"(one: {_us(one.kernel_s)} on {one.cores_used} cores, bound by {one.bound_pipe})")
        if self.eager is not None and self.eager.seconds > 0:
            lines.append(f"  eager      {_us(self.eager.seconds)} estimated ({len(self.eager.ops)} aten ops, each a "
                         f"kernel and a launch): speedup {self.eager.seconds / self.seconds:.2f}x (estimated)")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {"estimate": True, "soc": self.soc, "seconds": self.seconds, "launch_seconds": self.launch_seconds,
                "launches": [{"where": t.where, "kernel": t.kernel,
                                                     "kernel_s": t.estimate.kernel_s} for t in self.launches],
                "eager_s": self.eager.seconds if self.eager is not None else None}


def program_estimate(name: str, soc: str, launches: list[tuple[str, str, Estimate]],
                     eager: EagerEstimate | None = None) -> ProgramEstimate:
    return ProgramEstimate(soc, [LaunchTime(w, k, e) for w, k, e in launches], eager, name)


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:.1f} us"
