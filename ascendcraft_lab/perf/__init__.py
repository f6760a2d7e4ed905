"""Profile without an NPU: the pipe-level performance model of the emulator's trace (issue 21).

`trace.py` reads the pipe trace a traced emulator run writes; `costs.py` is the per-SoC cost
table (every number cited or marked a guess); `model.py` schedules each block's instructions on
its pipes by the dependencies the kernel declared and estimates the kernel's time; `eager.py`
estimates PyTorch eager for the reference on the same SoC. All results are ESTIMATES.
"""
from .costs import COSTS, Costs, Param, costs_for
from .eager import EagerEstimate, estimate_eager
from .model import BlockEstimate, Estimate, estimate, estimate_trace
from .phases import estimate_phases
from .trace import Block, Event, Launch, TraceError, read_trace

__all__ = ["COSTS", "Costs", "Param", "costs_for",
           "EagerEstimate", "estimate_eager", "BlockEstimate", "Estimate", "estimate",
           "estimate_trace", "estimate_phases", "Block", "Event", "Launch", "TraceError", "read_trace"]
