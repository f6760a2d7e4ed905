"""Normalization modules as canonical nodes: statistics, the normalised value, the affine transform.

`MODULE_RULES` maps an nn module class to a function that turns the module call into the
drafter's canonical nodes, with the Model's own tensors as `param` leaves:

  nn.BatchNorm1d/2d/3d   in training mode (a freshly built module is): the batch's statistics per
                         channel, over every axis but 1; in eval mode the running statistics
                         (running_mean, running_var as `param` leaves); either folded per channel
                         into one scale and shift
  nn.InstanceNorm1d/2d/3d  per (sample, channel) over the spatial axes
  nn.LayerNorm           per sample over the trailing `normalized_shape` axes
  nn.GroupNorm           per (sample, group of channels): x viewed as (N, G, C/G, *spatial)

Every one normalises as (x - mean) * rsqrt(var + eps) with the biased variance computed in two
passes, mean(d * d) with d = x - mean (no cancellation, unlike E[x^2] - E[x]^2), then applies
its per-channel or elementwise weight and bias (batch norm folds both into x * scale + shift). A `param` leaf
carries `dims`: symbolic sizes
of its own shape (input dims), so a draft declares it with the input's dim names; a reshape
that splits the channel axis carries `sym`, the symbolic size of each new axis.
"""
from __future__ import annotations

import math
from typing import Callable

from .graph import Builder, Node, Unsupported


def moments(b: Builder, x: Node, axes, count: Node | None = None) -> tuple[Node, Node, Node]:
    """(mean, deviation x - mean, biased variance) over `axes` (keepdim), the variance in two passes."""
    n = count if count is not None else b.count(x, axes)
    mean = b.div(b.reduce("sum", x, axes, True), n)
    d = b.sub(x, mean)
    return mean, d, b.div(b.reduce("sum", b.mul(d, d), axes, True), n)


def normalize(b: Builder, x: Node, axes, eps, count: Node | None = None) -> Node:
    """(x - mean) * rsqrt(var + eps) over `axes` (keepdim), two-pass biased variance; the deviation
    is one node, so a template computing both in one stage computes it once."""
    _, d, var = moments(b, x, axes, count)
    return b.mul(d, b.ew("rsqrt", b.add(var, eps)))


def leaf(info: dict, module: str, name: str, tensors: dict, dims: tuple) -> Node | None:
    """The module's own tensor `name` as a param leaf (None if the module has no such tensor)."""
    if name not in info.get("tensors", ()):
        return None
    full = f"{module}.{name}" if module else name
    desc = tensors.get(full)
    if desc is None or desc.get("kind") != "tensor":
        return None
    return Node("param", (), {"name": full, "dims": tuple(dims)}, tuple(desc["shape"]), desc["dtype"], name=full)


def affine(b: Builder, y: Node, weight: Node | None, bias: Node | None, bshape: tuple) -> Node:
    """y * weight + bias with both viewed as `bshape` (broadcast against y)."""
    if weight is not None:
        y = b.mul(y, view(weight, bshape))
    if bias is not None:
        y = b.add(y, view(bias, bshape))
    return y


def view(p: Node, shape: tuple) -> Node:
    """A param leaf seen with broadcast shape `shape` (same elements, 1s where it does not vary)."""
    if math.prod(shape) != math.prod(p.shape):
        raise Unsupported(f"internal: parameter `{p.name}` of shape {p.shape} viewed as {shape}")
    return Node("reshape", (p,), {}, tuple(shape), p.dtype)


def _channels(x: Node, what: str) -> int:
    if not x.is_tensor or len(x.shape) < 2:
        raise Unsupported(f"nn.{what} of a tensor with fewer than 2 axes")
    return x.shape[1]


def batch_norm(b: Builder, x: Node, info: dict, module: str, tensors: dict) -> Node:
    """Per channel c: y = x * scale[c] + shift[c] with scale = weight * rsqrt(var + eps) and
    shift = bias - mean * scale, so the output pass costs one multiply and one add per element
    (what PyTorch's own CPU kernel does). The statistics are the batch's (training mode, or no
    running statistics) or the running buffers (eval mode), which are then `param` leaves."""
    attrs = info["attrs"]
    C = _channels(x, info["class"])
    rank = len(x.shape)
    ch = (b.dim_of(x, 1),)
    w, bias = leaf(info, module, "weight", tensors, ch), leaf(info, module, "bias", tensors, ch)
    bshape = tuple(C if i == 1 else 1 for i in range(rank))
    eps = float(attrs.get("eps", 1e-5))
    if info.get("training", True) or not attrs.get("track_running_stats", True):
        mean, _, var = moments(b, x, tuple(i for i in range(rank) if i != 1))
    else:   # eval mode: the running statistics
        mean, var = leaf(info, module, "running_mean", tensors, ch), leaf(info, module, "running_var", tensors, ch)
        if mean is None or var is None:
            raise Unsupported(f"nn.{info['class']} in eval mode without running statistics")
        mean, var = view(mean, bshape), view(var, bshape)
    scale = b.ew("rsqrt", b.add(var, eps))
    if w is not None:
        scale = b.mul(scale, view(w, bshape))
    if bias is None:
        return b.mul(b.sub(x, mean), scale)
    return b.add(b.mul(x, scale), b.sub(view(bias, bshape), b.mul(mean, scale)))


def instance_norm(b: Builder, x: Node, info: dict, module: str, tensors: dict) -> Node:
    attrs = info["attrs"]
    C = _channels(x, info["class"])
    rank = len(x.shape)
    if attrs.get("track_running_stats") and not info.get("training", True):
        raise Unsupported(f"nn.{info['class']} in eval mode with running statistics")
    y = normalize(b, x, tuple(range(2, rank)), float(attrs.get("eps", 1e-5)))
    ch = (b.dim_of(x, 1),)
    w, bias = leaf(info, module, "weight", tensors, ch), leaf(info, module, "bias", tensors, ch)
    return affine(b, y, w, bias, tuple(C if i == 1 else 1 for i in range(rank)))


def layer_norm(b: Builder, x: Node, info: dict, module: str, tensors: dict) -> Node:
    attrs = info["attrs"]
    shape = tuple(attrs.get("normalized_shape") or ())
    rank = len(x.shape)
    k = len(shape)
    if not shape or tuple(x.shape[rank - k:]) != shape:
        raise Unsupported(f"nn.LayerNorm over {shape} of a tensor of shape {tuple(x.shape)}")
    axes = tuple(range(rank - k, rank))
    y = normalize(b, x, axes, float(attrs.get("eps", 1e-5)))
    dims = tuple(b.dim_of(x, a) for a in axes)
    w, bias = leaf(info, module, "weight", tensors, dims), leaf(info, module, "bias", tensors, dims)
    return affine(b, y, w, bias, tuple(x.shape[i] if i in axes else 1 for i in range(rank)))


def group_norm(b: Builder, x: Node, info: dict, module: str, tensors: dict) -> Node:
    attrs = info["attrs"]
    ch = (b.dim_of(x, 1),)
    w, bias = leaf(info, module, "weight", tensors, ch), leaf(info, module, "bias", tensors, ch)
    return grouped(b, x, int(attrs["num_groups"]), int_init(b, int(attrs["num_groups"])),
                   float(attrs.get("eps", 1e-5)), w, bias)


def channel_leaf(b: Builder, x: Node, t: Node | None, what: str) -> Node | None:
    """A per-channel tensor of forward's inputs (F.group_norm's weight) as a leaf whose size is x's
    channel dim, as a module's parameter is (`leaf`)."""
    if t is None:
        return None
    if not isinstance(t, Node) or not t.is_tensor or not t.is_data or len(t.shape) != 1 \
            or t.shape[0] != x.shape[1]:
        raise Unsupported(f"a {what} that is not a tensor of the input's {x.shape[1]} channels")
    return Node(t.op, (), {**t.attrs, "dims": (b.dim_of(x, 1),)}, t.shape, t.dtype, t.value, t.name)


def grouped(b: Builder, x: Node, G: int, groups: Node, eps, w: Node | None, bias: Node | None) -> Node:
    """Group norm of x (N, C, *spatial) in G groups (`groups`: G as a node, a scalar parameter when
    it is one), then the per-channel weight and bias."""
    C = _channels(x, "GroupNorm")
    if C % G:
        raise Unsupported(f"nn.GroupNorm with {C} channels in {G} groups")
    N, rest = x.shape[0], tuple(x.shape[2:])
    cg = b.ew("floordiv", b.dim_of(x, 1), groups)
    sym = (b.dim_of(x, 0), groups, cg) + tuple(b.dim_of(x, 2 + i) for i in range(len(rest)))
    x5 = Node("reshape", (x,), {"sym": sym}, (N, G, C // G) + rest, x.dtype)
    axes = tuple(range(2, len(x5.shape)))
    count = cg
    for s in sym[3:]:
        count = b.mul(count, s)
    y = normalize(b, x5, axes, eps, count)
    y = affine(b, y, w, bias, (1, G, C // G) + (1,) * len(rest))
    return Node("reshape", (y,), {}, tuple(x.shape), y.dtype)


def int_init(b: Builder, value: int) -> Node:
    """`value` as the get_init_inputs() int it came from, when exactly one has that value (so the
    draft reads it as a scalar parameter and works for other values); else a constant."""
    hits = [i for i, d in enumerate(b.init_inputs) if d.get("kind") == "scalar" and d.get("type") == "int"
            and d.get("value") == value]
    if len(hits) != 1:
        return b.const(value)
    i = hits[0]
    names = b.init_names
    name = names[i] if i < len(names) and names[i] else f"init{i}"
    return Node("scalar", (), {"source": "init", "index": i, "pyname": name}, None, "int", value, name=name)


MODULE_RULES: dict[str, Callable] = {
    "BatchNorm1d": batch_norm, "BatchNorm2d": batch_norm, "BatchNorm3d": batch_norm,
    "InstanceNorm1d": instance_norm, "InstanceNorm2d": instance_norm, "InstanceNorm3d": instance_norm,
    "LayerNorm": layer_norm, "GroupNorm": group_norm,
}
