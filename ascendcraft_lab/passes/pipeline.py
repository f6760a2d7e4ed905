"""The pipeline: four named passes in order, each with a one-line reason.

This list is the single description of the passes that the pass manager, the CLI, the
notebook view and the LLM prompts read.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PassSpec:
    number: int
    name: str
    reason: str        # one line: what the pass adds and why
    explain: str       # a few sentences for newcomers

    @property
    def dirname(self) -> str:
        return f"{self.number:02d}-{self.name}"


PIPELINE: tuple[PassSpec, ...] = (
    PassSpec(1, "host", "tiling struct, tiling function and launch code: how the work splits over cores and UB-sized tiles",
             "The host side runs on the CPU before the kernel starts. It reads the input shapes, decides how many "
             "AI cores to use and how long a tile is (so that every live tile, double-buffered, fits the Unified "
             "Buffer), packs those numbers into the tiling struct and launches the kernel with that many blocks."),
    PassSpec(2, "init", "kernel entry, kernel class, GlobalTensors with per-core offsets, TPipe and its queues and buffers",
             "Every core runs the same kernel function; GetBlockIdx() tells it which rows are its own. Init points "
             "GlobalTensors at that core's slice of global memory and carves the Unified Buffer into queues "
             "(VECIN for data coming in, VECOUT for results going out) and TBuf scratch space with InitBuffer."),
    PassSpec(3, "compute", "the Process loop and CopyIn / Compute / CopyOut, DSL ops mapped to AscendC vector APIs",
             "Process walks the tiles. CopyIn moves a tile from GM to UB (the MTE2 pipe), Compute runs vector "
             "instructions on it (the V pipe), CopyOut moves results back (MTE3). AllocTensor/EnQue/DeQue/FreeTensor "
             "hand tiles between the pipes so they overlap safely; functions AscendC lacks are expanded here."),
    PassSpec(4, "align", "32-byte alignment and tails: DataCopyPad where a length is not provably aligned, aligned buffer sizes",
             "DataCopy moves whole 32-byte blocks: a length that is not a multiple of 32 bytes is silently rounded "
             "down by the hardware. This pass proves each copy aligned or replaces it with DataCopyPad (or a padded "
             "copy on chips without it), and rounds every buffer size up to 32 bytes."),
)

PASS_NAMES = tuple(p.name for p in PIPELINE)


def get_pass(name_or_number: str | int) -> PassSpec:
    for p in PIPELINE:
        if name_or_number in (p.name, p.number, str(p.number)):
            return p
    raise ValueError(f"unknown pass {name_or_number!r}; passes are {', '.join(PASS_NAMES)}")
