"""The estimate that ranks the covers of a graph by phases (drafter/phases.py), before any kernel runs.

A cover is summarised as plain numbers per phase (`Cover.summary()`: its unit, the GM bytes it moves,
the multiply-adds of its products, their dtype), so this module reads no drafter type. A phase streams
its bytes at the chip's HBM bandwidth (all cores drawing), a product's multiply-adds run at the cube's
fractal rate over every cube core, and each hand-over between phases is a cross-core sync (GM flags).
The numbers come from the cost table (costs.py); the result is an ESTIMATE in seconds, good for
comparing covers of one graph (which differ in the bytes between phases and the hand-overs), not a
kernel's time (the pipe model of an emulator trace, model.py, is that).
"""
from __future__ import annotations

from ..soc import Soc
from .costs import costs_for

FRACTAL_MACS = {"float16": 16 * 16 * 16, "bfloat16": 16 * 16 * 16, "float32": 16 * 16 * 8, "int8": 16 * 16 * 32}


def estimate_phases(phases: list[dict], soc: Soc) -> float:
    """ESTIMATED seconds of one kernel of `phases` ({"unit", "bytes", "macs", "dtype"} each) on `soc`."""
    c = costs_for(soc.name)
    cube_cores = soc.cube_cores
    clock = c.clock_hz.value
    total = 0.0
    for p in phases:
        stream = p["bytes"] / c.gm_bandwidth.value
        cube = 0.0
        if p.get("macs"):
            dtype = p.get("dtype", "float32")
            fractal = c.cube_fractal_cycles.get(dtype) or c.cube_fractal_cycles["float32"]
            cube = p["macs"] / FRACTAL_MACS.get(dtype, FRACTAL_MACS["float32"]) * fractal.value / clock / cube_cores
        total += max(stream, cube)
    hand_overs = max(len(phases) - 1, 0)
    return total + hand_overs * 2 * c.scalar_gm_cycles.value / clock


__all__ = ["estimate_phases"]
