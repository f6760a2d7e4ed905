"""How an estimate moves when one uncertain cost parameter is halved or doubled.

The cost table (`costs.py`) holds guesses, and figures fitted to a few public timings (the HBM
bandwidth, a kernel's launch, an eager op's fixed cost: one harness, one part). A speedup
estimated with one table says little unless it is known how much it moves with them: for one
traced kernel and its reference, `sensitivity` re-runs the model and the eager estimate with each
such parameter scaled by 0.5 and by 2 (the rest unchanged), and the bench turns those into one
line per parameter: the estimated Fast_1 and the geo-mean speedup under that change.
"""
from __future__ import annotations

from dataclasses import replace

from . import trace as tr
from .costs import Costs, Param, costs_for
from .eager import estimate_eager
from .model import estimate

FACTORS = (0.5, 2.0)
# Fitted to a handful of public timings on one part, or cited where measurements disagree (costs.py says where).
UNCERTAIN_CITED = ("gm_bandwidth", "launch_s", "eager_op_s")


def uncertain(costs: Costs) -> list[str]:
    """The parameters a sensitivity run scales: every guess, and the uncertain cited ones."""
    return [name for name, p in costs.params().items() if p.guess or name in UNCERTAIN_CITED]


def scaled(costs: Costs, name: str, factor: float) -> Costs:
    """`costs` with the parameter `name` (as `Costs.params` names it) multiplied by `factor`."""
    p = costs.params()[name]
    new = Param(p.value * factor, p.unit, p.source)
    for table in ("vector_repeat_cycles", "cube_fractal_cycles"):
        if name.startswith(table + "["):
            key = name[len(table) + 1:-1]
            entries = dict(getattr(costs, table))
            entries[tuple(key.split(",")) if table == "vector_repeat_cycles" else key] = new
            return replace(costs, **{table: entries})
    return replace(costs, **{name: new})


def sensitivity(launch: tr.Launch, graph: dict | None, soc: str) -> dict[str, dict[str, list]]:
    """{parameter: {"0.5": [kernel_s, eager_s], "2": [...]}}: the ESTIMATES with that parameter scaled
    (eager_s None without a reference graph)."""
    base = costs_for(soc)
    out: dict[str, dict[str, list]] = {}
    for name in uncertain(base):
        out[name] = {}
        for f in FACTORS:
            c = scaled(base, name, f)
            kernel = estimate(launch, soc, keep_spans=0, costs=c).kernel_s
            eager = estimate_eager(graph, soc, c) if graph else None
            out[name][f"{f:g}"] = [kernel, eager.seconds if eager and eager.ops else None]
    return out
