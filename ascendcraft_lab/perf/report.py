"""A kernel's estimated profile beside the estimated eager time of its reference, as text and JSON.

Used by `ascendcraft profile SESSION`, the bench report and the notebook's Profile view. Every
number is labelled an ESTIMATE: it comes from the pipe model (`model.py`) and the cost table
(`costs.py`), not from an NPU.
"""
from __future__ import annotations

from dataclasses import dataclass

from .eager import EagerEstimate
from .model import Estimate

PIPE_ORDER = ("MTE2", "V", "MTE3", "S", "MTE1", "M", "FIX")


@dataclass
class Profile:
    kernel: Estimate
    eager: EagerEstimate | None = None
    name: str = ""

    @property
    def speedup(self) -> float | None:
        """Estimated eager time / estimated kernel time (> 1: the kernel is estimated faster)."""
        if self.eager is None or not self.eager.ops or self.kernel.kernel_s <= 0:
            return None
        return self.eager.seconds / self.kernel.kernel_s

    def to_dict(self, *, blocks: int = 4) -> dict:
        return {"estimate": True, "name": self.name, "kernel": self.kernel.to_dict(blocks=blocks),
                "eager": self.eager.to_dict() if self.eager else None, "speedup": self.speedup}

    def text(self, *, blocks: int = 8) -> str:
        k = self.kernel
        lines = [f"ESTIMATED profile{f' of {self.name}' if self.name else ''} on {k.soc} (pipe model of the emulator's trace; "
                 "not a measurement)",
                 f"  kernel       {_us(k.kernel_s)} estimated ({_us(k.launch_s)} launch + {_us(k.device_s)} on "
                 f"{len(k.blocks)} block(s), {k.cores_used} core(s) busy)",
                 f"  bound pipe   {k.bound_pipe}; overlap of pipes {k.overlap:.0%} of the block time",
                 f"  GM traffic   {_bytes(k.gm_bytes)} at {k.achieved_bandwidth / 1e9:.0f} GB/s = "
                 f"{k.roofline['bandwidth_fraction']:.0%} of the chip's bandwidth; roofline: {k.roofline['bound']}-bound "
                 f"(floors: memory {_us(k.roofline['gm_floor_s'])}, vector {_us(k.roofline['vector_floor_s'])}, "
                 f"cube {_us(k.roofline['cube_floor_s'])})"]
        if self.eager is not None:
            lines.append(f"  eager        {_us(self.eager.seconds)} estimated for {len(self.eager.ops)} aten op(s) "
                         f"(each at its roofline + {_us(self.eager.launch_s)} launch)")
            if self.speedup is not None:
                lines.append(f"  speedup      {self.speedup:.2f}x ESTIMATED (estimated eager / estimated kernel)")
        pipes = [p for p in PIPE_ORDER if any(p in b.busy for b in k.blocks)]
        lines.append("  per block (busy fraction of each pipe; ESTIMATED):")
        lines.append("    block  core  time        bound  overlap  " + "  ".join(f"{p:>5}" for p in pipes))
        for b in k.blocks[:blocks]:
            frac = b.busy_fraction
            tag = "c" if b.cube else ""
            lines.append(f"    {str(b.index) + tag:>5}  {b.core:>4}  {_us(b.elapsed):>10}  {b.bound_pipe:>5}  {b.overlap:>7.0%}  "
                         + "  ".join(f"{frac.get(p, 0.0):>5.0%}" for p in pipes)
                         + ("  (trace cut)" if b.truncated else ""))
        if len(k.blocks) > blocks:
            lines.append(f"    ... {len(k.blocks) - blocks} more block(s)")
        lines.append("  assumptions:")
        lines += [f"    - {a}" for a in k.assumptions]
        return "\n".join(lines)


def _us(s: float) -> str:
    return f"{s * 1e6:.2f} us" if s < 1e-3 else f"{s * 1e3:.3f} ms"


def _bytes(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"
