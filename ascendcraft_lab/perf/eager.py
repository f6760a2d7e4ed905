"""An ESTIMATED PyTorch-eager time for a reference on the same SoC, from its traced graph.

Eager runs each aten op of the forward as its own kernel: this counts every node of the traced
graph (reference/child.py: `nodes` with the shapes each produced) as one kernel that reads its
tensor inputs and writes its outputs at the chip's full GM bandwidth, or computes at the chip's
peak when that takes longer, plus one launch. Ops that only relabel memory (views, shapes,
getitem) cost nothing. This is generous to eager (every op at its roofline), so an estimated
speedup is conservative about the generated kernel's side. Every number is an ESTIMATE.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..soc import get_soc
from .costs import Costs, costs_for

_ITEM = {"float32": 4, "float16": 2, "bfloat16": 2, "float64": 8,
         "int64": 8, "int32": 4, "int16": 2, "int8": 1, "uint8": 1,
         "bool": 1}
# Nodes that launch no kernel in eager (metadata, views, Python-level plumbing).
_FREE = {"view", "reshape", "size", "dim", "shape", "getattr", "getitem", "unsqueeze", "squeeze", "expand", "expand_as",
         "permute", "transpose", "t", "flatten", "unflatten", "contiguous", "detach", "numel", "type_as", "to", "float",
         "chunk", "split", "unbind", "narrow", "select", "view_as", "dtype", "device", "len"}
_MATMUL = {"matmul", "mm", "bmm", "linear", "addmm", "baddbmm", "einsum", "Linear", "conv1d", "conv2d", "conv3d",
           "Conv1d", "Conv2d", "Conv3d", "conv_transpose2d", "ConvTranspose2d", "scaled_dot_product_attention"}


@dataclass
class EagerOp:
    node: str
    target: str
    bytes: int
    flops: float
    seconds: float
    bound: str


@dataclass
class EagerEstimate:
    soc: str
    ops: list[EagerOp] = field(default_factory=list)
    launch_s: float = 0.0

    @property
    def seconds(self) -> float:
        return sum(o.seconds for o in self.ops)

    def to_dict(self) -> dict:
        return {"estimate": True, "soc": self.soc, "seconds": self.seconds, "launch_s": self.launch_s,
                "ops": [{"node": o.node, "target": o.target, "bytes": o.bytes, "flops": o.flops, "seconds": o.seconds,
                         "bound": o.bound} for o in self.ops]}


def _short(target: str) -> str:
    t = target.split(":")[-1]
    return t.split(".")[-1] if "." in t else t


def _tensors(meta) -> list[tuple[list[int], str]]:
    if not isinstance(meta, dict):
        return []
    if meta.get("kind") == "tensor":
        return [(meta["shape"], meta["dtype"])]
    if meta.get("kind") == "sequence":
        return [t for item in meta.get("items", []) for t in _tensors(item)]
    return []


def _nbytes(ts) -> int:
    return sum(math.prod(s) * _ITEM.get(d, 4) for s, d in ts)


def _refs(arg, out: list[str]) -> list[str]:
    if isinstance(arg, dict):
        if "node" in arg:
            out.append(arg["node"])
        for k in ("list", "tuple", "slice"):
            for a in arg.get(k, []) or []:
                _refs(a, out)
    return out


def estimate_eager(graph: dict, soc: str, costs: Costs | None = None) -> EagerEstimate:
    """The eager estimate of a traced reference graph (`drafter.trace.trace_reference`), with `soc`'s cost
    table or the `costs` given."""
    costs, chip = costs or costs_for(soc), get_soc(soc)
    hz, bw = costs.clock_hz.value, costs.gm_bandwidth.value
    # Peaks over the whole chip: vector = 256 B per cycle per vector core; cube = 16x16x16 MACs per cycle per cube core.
    cube_flops = 2 * 16 * 16 * 16 * hz * chip.cube_cores / costs.cube_fractal_cycles["float16"].value
    vec_bytes_per_s = chip.repeat_bytes * hz * chip.vector_cores
    nodes = graph.get("nodes", [])
    meta = {n["name"]: n.get("meta") for n in nodes}
    est = EagerEstimate(soc, launch_s=costs.eager_op_s.value)
    for n in nodes:
        if n.get("op") not in ("call_function", "call_method", "call_module"):
            continue
        target = n.get("module", {}).get("class") if n.get("op") == "call_module" else _short(str(n.get("target", "")))
        target = target or str(n.get("target"))
        if target in _FREE:
            continue
        outs = _tensors(n.get("meta"))
        if not outs:
            continue
        ins = []
        for a in list(n.get("args", [])) + list((n.get("kwargs") or {}).values()):
            for ref in _refs(a, []):
                ins += _tensors(meta.get(ref))
        moved = _nbytes(ins) + _nbytes(outs)
        attrs = n.get("module", {}).get("attrs", {}) if n.get("op") == "call_module" else {}
        if "in_features" in attrs and "out_features" in attrs:   # nn.Linear reads its weight too
            moved += int(attrs["in_features"]) * int(attrs["out_features"]) * _ITEM.get(outs[0][1], 4)
        out_elems = sum(math.prod(s) for s, _ in outs)
        if target in _MATMUL and ins:
            # 2 * output elements * the contracted length (the last dim of the first input).
            k = ins[0][0][-1] if ins[0][0] else 1
            flops = 2.0 * out_elems * k
            compute_s = flops / cube_flops
            item = _ITEM.get(outs[0][1], 4)
            if item == 4:
                compute_s *= costs.cube_fractal_cycles["float32"].value / costs.cube_fractal_cycles["float16"].value
        else:   # element-wise or a reduction: one pass over the larger side
            flops = float(max(out_elems, max((math.prod(s) for s, _ in ins), default=0)))
            compute_s = flops * _ITEM.get(outs[0][1], 4) / vec_bytes_per_s
        memory_s = moved / bw
        bound = "compute" if compute_s > memory_s else "memory"
        est.ops.append(EagerOp(n["name"], target, moved, flops, est.launch_s + max(compute_s, memory_s), bound))
    return est
