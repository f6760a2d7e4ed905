"""Write ascendcraft_lab/suite_npukb: NPUKernelBench-format tasks, one reference and one JSON-lines file each.

    python tools/make_npukb_suite.py

Each task is `<level>/<n>_<Name>.py` (class Model, get_input_groups(), get_init_inputs()), whose
get_input_groups() reads `<n>_<Name>.json` beside it, one case per line:

    {"inputs": [{"name": "x", "type": "tensor", "dtype": "float16", "shape": [3, 5]},
                {"name": "negative_slope", "type": "attr", "value": 0.1}]}

as MultiKernelBench's `reference/npukernelbench_level*` tasks do. The references are written out
as plain files (this script is how they were made, not something the bench runs): the bench reads
them as any user's folder. Levels are the bench's categories:

- npukernelbench_level1: elementwise, broadcast (a per-row operand; operands broadcast a different way
  per case), index (a bool mask), layout (permute, transpose, split, chunk, cat, stack, repeat: the
  axes, sizes and repeats per case), activation backward (aten's *_backward ops), sorting (sort,
  argsort, topk, kthvalue along the last dim) and data-dependent sizes (47-51: histc, repeat_interleave
  with per-case dims, nonzero of float / int32 / int64, argwhere of a mask, masked_select);
- npukernelbench_level2: reductions and normalizations over the last dim (weights and biases as
  inputs, several outputs), group norm, dynamic quantization.

Shapes cover 0-d, empty, 1-D to 5-D, odd sizes (not multiples of 32 bytes) and a few large
ones; dtypes float32 / float16 / bfloat16 for every floating op, int32 / int16 where the op has an
integer form on the vector unit, int8 where the op's result is one of its operands' values (relu,
maximum) or a sum, difference or negation (which an int8 variant wraps modulo 256, as PyTorch does:
dsl/generic.py), bool as masks. Values are drawn by the reference (torch.randn, seeded by the
harness), so the JSON holds only what a case is.
"""
from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "ascendcraft_lab" / "suite_npukb"

HEADER = '''\
"""{doc}"""
import json
import os

import torch
import torch.nn as nn
import torch.nn.functional as F  # noqa: F401 - some tasks call F

DTYPES = {{"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
          "int64": torch.int64, "int32": torch.int32, "int16": torch.int16, "int8": torch.int8, "bool": torch.bool}}


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, {args}):
{body}


def make_tensor(info):
    """A tensor as the case describes it: floats from randn, integers from a small range, bools half set."""
    dtype = DTYPES[info["dtype"]]
    if dtype == torch.bool:
        return torch.rand(info["shape"]) < 0.5
    if not dtype.is_floating_point:
        return torch.randint(-100, 100, info["shape"]).to(dtype)
    return (torch.randn(info["shape"]) * {scale}{shift}).to(dtype)


def get_input_groups():
    json_path = os.path.join(os.path.dirname(__file__), os.path.splitext(os.path.basename(__file__))[0] + ".json")
    with open(json_path, "r") as f:
        cases = [json.loads(line) for line in f if line.strip()]
    input_groups = []
    for case in cases:
        group = []
        for info in case["inputs"]:
            group.append(make_tensor(info) if info["type"] == "tensor" else info["value"])
        input_groups.append(group)
    return input_groups


def get_init_inputs():
    return []
'''

FLOATS = ("float32", "float16", "bfloat16")

# Shapes every elementwise task runs: 0-d, empty, 1-D to 5-D, odd and large.
ELEMENTWISE_SHAPES = [[], [0], [1], [7], [1000], [3, 0, 5], [16, 1024], [13, 20011], [3, 5, 7], [2, 1, 33],
                      [2, 3, 4, 5], [4, 1, 8, 16], [2, 3, 4, 5, 6], [1, 1, 1, 1, 129]]
# Rows for last-dim reductions and normalizations: 1-D to 5-D, odd widths, a size-1 and an empty batch.
ROW_SHAPES = [[1000], [1], [16, 1024], [13, 2011], [7, 1], [0, 64], [3, 5, 7], [2, 3, 4, 65], [2, 2, 3, 4, 33],
              [64, 4096], [1, 1, 257]]


def cases_for(shapes, dtypes, n_tensors=1, names=("x",), mask=None, attrs=None):
    """One case per (shape, dtype), dtypes round-robin over the shapes (and every dtype on the first shapes)."""
    out = []
    combos = [(s, dtypes[i % len(dtypes)]) for i, s in enumerate(shapes)]
    combos += [(shapes[6], d) for d in dtypes if (shapes[6], d) not in combos]
    combos += [(shapes[-2], d) for d in dtypes if (shapes[-2], d) not in combos]
    for shape, dtype in combos:
        inputs = []
        for k in range(n_tensors):
            is_mask = mask is not None and k == mask
            inputs.append({"name": names[k], "type": "tensor", "dtype": "bool" if is_mask else dtype, "shape": shape})
        for name, value in (attrs or {}).items():
            inputs.append({"name": name, "type": "attr", "value": value})
        out.append({"inputs": inputs})
    return out


def row_operand_cases(dtypes):
    """x [..., N] with a per-row operand r [..., 1] (the same leading dims)."""
    out = []
    for i, shape in enumerate(ROW_SHAPES):
        for d in ([dtypes[i % len(dtypes)]] if i != 2 else dtypes):
            out.append({"inputs": [{"name": "x", "type": "tensor", "dtype": d, "shape": shape},
                                   {"name": "r", "type": "tensor", "dtype": d, "shape": shape[:-1] + [1]}]})
    return out


def row_cases(dtypes, attrs=None, shapes=ROW_SHAPES):
    out = []
    for i, shape in enumerate(shapes):
        for d in ([dtypes[i % len(dtypes)]] if i not in (2, 7) else dtypes):
            inputs = [{"name": "x", "type": "tensor", "dtype": d, "shape": shape}]
            inputs += [{"name": k, "type": "attr", "value": v} for k, v in (attrs or {}).items()]
            out.append({"inputs": inputs})
    return out


def unary(doc, expr, dtypes=FLOATS, scale="4", shift="", attrs=None):
    extra = "".join(f", {k}" for k in (attrs or {}))
    return dict(doc=doc, args="x: torch.Tensor" + extra, body=f"        return {expr}", scale=scale, shift=shift,
                cases=cases_for(ELEMENTWISE_SHAPES, dtypes, attrs=attrs))


def binary(doc, expr, dtypes=FLOATS, scale="4"):
    return dict(doc=doc, args="x: torch.Tensor, y: torch.Tensor", body=f"        return {expr}", scale=scale, shift="",
                cases=cases_for(ELEMENTWISE_SHAPES, dtypes, n_tensors=2, names=("x", "y")))


def rows(doc, expr, dtypes=FLOATS, scale="1", shift="", attrs=None, shapes=ROW_SHAPES):
    extra = "".join(f", {k}" for k in (attrs or {}))
    return dict(doc=doc, args="x: torch.Tensor" + extra, body=f"        return {expr}", scale=scale, shift=shift,
                cases=row_cases(dtypes, attrs, shapes))


def backward(doc, call, scale="4", shift="", saved="x"):
    """An activation's backward as aten spells it: (grad_output, the forward's input x or output) -> grad_input."""
    return dict(doc=doc, args=f"grad_output: torch.Tensor, {saved}: torch.Tensor",
                body=f"        return torch.ops.aten.{call}", scale=scale, shift=shift,
                cases=cases_for(ELEMENTWISE_SHAPES, FLOATS, 2, ("grad_output", saved)))


# Layout (views): pure data movement, so every dtype is exact. Each case: (shape, per-case attributes).
LAYOUT_DTYPES = ("float32", "float16", "bfloat16", "int32", "int16")
PERMUTE_CASES = [([16, 1024], [1, 0]), ([13, 2011], [1, 0]), ([3, 5, 7], [2, 0, 1]), ([2, 3, 17, 19], [0, 2, 3, 1]),
                 ([2, 3, 4, 65], [0, 2, 1, 3]), ([2, 3, 4, 5, 6], [4, 2, 0, 3, 1]), ([1, 1, 129], [2, 1, 0]),
                 ([4, 1, 8, 16], [0, 3, 2, 1]), ([5, 33], [1, 0]), ([7, 9, 11], [2, 0, 1]), ([0, 5], [1, 0]),
                 ([3, 2, 40, 8], [0, 2, 1, 3])]
TRANSPOSE_CASES = [([16, 1024], 0, 1), ([3, 5, 7], 1, 2), ([3, 5, 7], 0, 2), ([2, 3, 4, 65], 1, 2),
                   ([2, 3, 4, 5, 6], 0, 4), ([13, 2011], -1, -2), ([4, 1, 8, 16], 1, 3), ([0, 4, 3], 1, 2)]

SPLIT_CASES = [([16, 1024], 256, 1), ([13, 2011], 1000, -1), ([3, 5, 7], 2, 1), ([2, 3, 4, 65], 16, 3),
               ([2, 3, 4, 5, 6], 2, 2), ([8, 33], 3, 0), ([4, 1, 8, 16], 5, 2)]
CHUNK_CASES = [([16, 1024], 4, 1), ([13, 2011], 3, -1), ([3, 5, 7], 2, 1), ([2, 3, 4, 65], 2, 3), ([9, 40], 3, 0),
               ([2, 3, 4, 5, 6], 3, 4)]
# cat / stack: two inputs, x (the shape) and y (its size along dim changed by `extra` for cat)
CAT_CASES = [([16, 1024], 512, 1), ([13, 2011], 5, -1), ([3, 5, 7], 2, 1), ([2, 3, 4, 65], 3, 0),
             ([2, 3, 4, 5, 6], 1, 3), ([4, 1, 8, 16], 7, 2)]
STACK_CASES = [([16, 1024], 1), ([13, 2011], 0), ([3, 5, 7], 3), ([2, 3, 4, 65], 2), ([5, 33], -1)]
REPEAT_CASES = [([16, 1024], [2, 1]), ([13, 201], [1, 3]), ([3, 5, 7], [2, 1, 1]), ([2, 3, 4, 65], [1, 2, 1, 1]),
                ([7], [4]), ([4, 1, 8, 16], [1, 3, 1, 1])]

# elements moved within rows (the remap template): pads of every mode, rolls, flips along any axes
# F.pad in a mode other than constant pads the last 1-3 dims of a 2-5-d input (as PyTorch requires)
PAD_CASES = [([16, 1024], [3, 5], "constant", 0.0), ([4, 13, 201], [2, 2, 1, 0], "reflect", None),
             ([3, 5, 7], [1, 2], "replicate", None), ([3, 4, 65], [4, 3], "circular", None),
             ([2, 3, 9, 17], [2, 3, 1, 2], "reflect", None),
             ([2, 2, 3, 4, 33], [1, 1, 1, 1, 1, 1], "replicate", None),
             ([7, 33], [-2, 4], "constant", 1.5), ([1000], [3, 5], "constant", -1.0),
             ([4, 1, 8, 16], [0, 0, 2, 2], "circular", None)]
ROLL_CASES = [([16, 1024], [3], [1]), ([13, 201], [-5, 2], [1, 0]), ([3, 5, 7], [2], [-1]), ([2, 3, 4, 65], [70], [3]),
              ([1000], [-1], [0]), ([2, 3, 17, 19], [1, 4], [2, 3])]
FLIP_CASES = [([16, 1024], [1]), ([13, 2011], [0, 1]), ([3, 5, 7], [2]), ([2, 3, 4, 65], [1, 3]), ([1000], [0]),
              ([2, 2, 3, 4, 33], [0, 4]), ([5, 1], [1])]


def pad_cases():
    """Per case: pad sizes, mode and value; a constant pad of floats only (its Select takes float types)."""
    out = []
    for i, (shape, pad, mode, value) in enumerate(PAD_CASES):
        dtypes = FLOATS if mode == "constant" else LAYOUT_DTYPES
        for d in (dtypes if i in (0, 1) else [dtypes[i % len(dtypes)]]):
            out.append({"inputs": [{"name": "x", "type": "tensor", "dtype": d, "shape": shape},
                                   {"name": "pad", "type": "attr", "value": pad},
                                   {"name": "mode", "type": "attr", "value": mode},
                                   {"name": "value", "type": "attr", "value": value}]})
    return out


def two_input_cases(items, dtypes=LAYOUT_DTYPES, cat=True):
    """x and y: the same shape, y longer along dim by `extra` for a cat; the dim a per-case attribute."""
    out = []
    for i, item in enumerate(items):
        shape, *rest = item
        dim = rest[-1]
        yshape = list(shape)
        if cat:
            yshape[dim] = rest[0]
        for d in (dtypes if i == 0 else [dtypes[i % len(dtypes)]]):
            out.append({"inputs": [{"name": "x", "type": "tensor", "dtype": d, "shape": shape},
                                   {"name": "y", "type": "tensor", "dtype": d, "shape": yshape},
                                   {"name": "dim", "type": "attr", "value": dim}]})
    return out


def layout_cases(items, names, dtypes=LAYOUT_DTYPES, every=0):
    """One case per (shape, attributes) item, dtypes round-robin, and every dtype on item `every`."""
    out = []
    for i, (shape, *attrs) in enumerate(items):
        for d in (dtypes if i == every else [dtypes[i % len(dtypes)]]):
            inputs = [{"name": "x", "type": "tensor", "dtype": d, "shape": shape}]
            inputs += [{"name": n, "type": "attr", "value": v} for n, v in zip(names, attrs)]
            out.append({"inputs": inputs})
    return out


# Rows to sort: a row is held whole in UB (argsort's scratch is 6 slots of the padded row), 1-D to
# 4-D, odd widths, a single element, an empty batch; f16 rows of 1024 randn values hold many ties.
SORT_SHAPES = [[1000], [1], [16, 1024], [13, 2011], [7, 1], [3, 5, 7], [2, 3, 4, 65], [64, 2048], [1, 1, 257], [0, 64]]


def sort_cases(attrs_for, dtypes=FLOATS, tie_free=False):
    """One case per shape (dtypes round-robin, every dtype on the third), with per-case attributes
    `attrs_for(i, shape)` (dim as -1 or as its positive number, the order, k). `tie_free`: float16 /
    bfloat16 only on rows short enough to hold no equal values, for topk / kthvalue, whose order among
    equal values PyTorch leaves undocumented (its CPU selection algorithm picks one; the kernel keeps
    input order): long rows are float32 there, where randn rows hold distinct values."""
    out = []
    for i, shape in enumerate(SORT_SHAPES):
        choice = dtypes if i == 2 else [dtypes[i % len(dtypes)]]
        if tie_free and shape[-1] > 65:
            choice = ["float32"]
        for j, d in enumerate(choice):
            attrs = attrs_for(i + j, shape)
            out.append({"inputs": [{"name": "x", "type": "tensor", "dtype": d, "shape": shape}]
                        + [{"name": k, "type": "attr", "value": v} for k, v in attrs.items()]})
    return out


def _last_dim(i, shape):
    return -1 if i % 2 == 0 else len(shape) - 1


def sorting(doc, args, expr, attrs_for, tie_free=False):
    return dict(doc=doc, args="x: torch.Tensor, " + args, body=f"        return {expr}", scale="1", shift="",
                cases=sort_cases(attrs_for, tie_free=tie_free))


def attr_cases(specs):
    """One case per (shape, dtype, attributes): `specs` lists (shape, dtype, {attr: value})."""
    return [{"inputs": [{"name": "x", "type": "tensor", "dtype": d, "shape": shape}]
             + [{"name": k, "type": "attr", "value": v} for k, v in attrs.items()]} for shape, d, attrs in specs]


def datadep(doc, args, expr, cases, scale="1", shift=""):
    """A data-dependent task (histc, repeat_interleave, nonzero): attributes per case."""
    return dict(doc=doc, args=args, body=f"        return {expr}", scale=scale, shift=shift, cases=cases)


# histc: float32 only (PyTorch computes a half type's bin positions in that type); min == max is the data's range
HISTC_CASES = attr_cases([
    ([1000], "float32", {"bins": 10, "min": -2.0, "max": 2.0}),
    ([16, 1024], "float32", {"bins": 100, "min": 0, "max": 0}),
    ([13, 2011], "float32", {"bins": 37, "min": -1.0, "max": 1.5}),
    ([3, 5, 7], "float32", {"bins": 1, "min": 0, "max": 0}),
    ([2, 3, 4, 65], "float32", {"bins": 64, "min": -3, "max": 3}),
    ([2, 2, 3, 4, 33], "float32", {"bins": 5, "min": 0.0, "max": 0.0}),
    ([7], "float32", {"bins": 3, "min": -0.5, "max": 0.5}),
    ([64, 4096], "float32", {"bins": 256, "min": -4.0, "max": 4.0})])
# repeat_interleave by an int: dims per case, dim=None (the flattened tensor) drafted on its own
INTERLEAVE_CASES = attr_cases([
    ([1000], "float32", {"repeats": 3, "dim": 0}), ([16, 1024], "float16", {"repeats": 2, "dim": -1}),
    ([13, 2011], "bfloat16", {"repeats": 2, "dim": 1}), ([3, 5, 7], "float32", {"repeats": 4, "dim": -1}),
    ([2, 3, 4, 65], "float32", {"repeats": 1, "dim": 3}), ([7], "float16", {"repeats": 5, "dim": 0}),
    ([16, 1024], "float32", {"repeats": 2, "dim": -1}), ([16, 1024], "bfloat16", {"repeats": 3, "dim": -1}),
    ([3, 5, 7], "float32", {"repeats": 2, "dim": 1}), ([2, 3, 4, 65], "float16", {"repeats": 3, "dim": 1}),
    ([3, 5, 7], "float32", {"repeats": 3, "dim": None}), ([2, 33], "float16", {"repeats": 2, "dim": None})])
# nonzero of numbers: float inputs about half zero (randn times a random mask), integers from [-100, 100)
NONZERO_SHAPES = [[1000], [16, 1024], [13, 201], [3, 5, 7], [2, 3, 4, 65], [2, 2, 3, 4, 33], [7], [1, 1, 257]]
NONZERO_DTYPES = ("float32", "float16", "int32", "int64")
NONZERO_CASES = [{"inputs": [{"name": "x", "type": "tensor", "dtype": d, "shape": s}]}
                 for i, s in enumerate(NONZERO_SHAPES)
                 for d in (NONZERO_DTYPES if i in (1, 3) else [NONZERO_DTYPES[i % 4]])]
MASK_CASES = [{"inputs": [{"name": "x", "type": "tensor", "dtype": "bool", "shape": s}]} for s in NONZERO_SHAPES]
SELECT_CASES = [{"inputs": [{"name": "x", "type": "tensor", "dtype": d, "shape": s},
                            {"name": "mask", "type": "tensor", "dtype": "bool", "shape": s}]}
                for i, s in enumerate(NONZERO_SHAPES) for d in (["float32", "float16", "int32"] if i == 1
                                                                 else [("float32", "float16", "int32")[i % 3]])]

# Non-empty rows only: max/min and a norm of an empty row have no value.
NONEMPTY_ROWS = [s for s in ROW_SHAPES if 0 not in s]

# (x, y) shapes that broadcast either way: a vector (N,) or a row of 1s against rows, a per-row (M, 1), one
# element, a 0-d operand, x the smaller one, size-1 axes on both sides, a per-channel (1, C, 1, 1), empty, 5-D.
BROADCAST_PAIRS = [([16, 1024], [1024]), ([13, 2011], [13, 1]), ([7, 33], [1]), ([3, 5, 7], []), ([65], [9, 65]),
                   ([2, 3, 4, 5], [1, 3, 1, 1]), ([2, 1, 5], [1, 4, 5]), ([2, 3, 4, 5, 6], [6]), ([4, 8], [4, 8]),
                   ([1], [3, 17]), ([0, 7], [7]), ([2, 2, 3, 4, 33], [2, 2, 3, 4, 1])]


def broadcast_cases(dtypes, attrs=None, pairs=BROADCAST_PAIRS, names=("x", "y")):
    """One case per shape pair, dtypes round-robin (every dtype on the first pair); per-case attributes
    `attrs(dtype) -> {name: value}` (an alpha that is an int for integer tensors, as PyTorch requires)."""
    out = []
    combos = [(p, dtypes[i % len(dtypes)]) for i, p in enumerate(pairs)] + [(pairs[0], d) for d in dtypes[1:]]
    for (xs, ys), d in combos:
        inputs = [{"name": names[0], "type": "tensor", "dtype": d, "shape": xs},
                  {"name": names[1], "type": "tensor", "dtype": d, "shape": ys}]
        inputs += [{"name": k, "type": "attr", "value": v} for k, v in (attrs(d) if attrs else {}).items()]
        out.append({"inputs": inputs})
    return out


def weighted_rows_cases(dtypes, n_rows=1, weights=("weight",), attrs=None, shapes=None):
    """x [..., N] (and `n_rows` - 1 more tensors of its shape), one (N,) tensor per name in `weights`,
    per-case attrs."""
    out = []
    shapes = shapes or [s for s in ROW_SHAPES if 0 not in s]
    for i, shape in enumerate(shapes):
        for d in ([dtypes[i % len(dtypes)]] if i != 2 else dtypes):
            inputs = [{"name": n, "type": "tensor", "dtype": d, "shape": shape}
                      for n in ("x", "residual", "other")[:n_rows]]
            inputs += [{"name": w, "type": "tensor", "dtype": d, "shape": shape[-1:]} for w in weights]
            inputs += [{"name": k, "type": "attr", "value": v} for k, v in (attrs or {}).items()]
            out.append({"inputs": inputs})
    return out


def group_norm_cases(dtypes):
    """x (N, C, *spatial) of rank 3 to 5 with a per-channel weight and bias, num_groups a per-case attribute."""
    shapes = [([2, 8, 5, 5], 4), ([3, 6, 7], 3), ([2, 4, 3, 3, 3], 2), ([4, 12, 33], 6), ([1, 32, 16, 16], 8),
              ([5, 3, 10], 1), ([2, 6, 4, 4], 6)]
    out = []
    for i, (shape, g) in enumerate(shapes):
        for d in ([dtypes[i % len(dtypes)]] if i != 0 else dtypes):
            out.append({"inputs": [{"name": "x", "type": "tensor", "dtype": d, "shape": shape},
                                   {"name": "weight", "type": "tensor", "dtype": d, "shape": [shape[1]]},
                                   {"name": "bias", "type": "tensor", "dtype": d, "shape": [shape[1]]},
                                   {"name": "num_groups", "type": "attr", "value": g},
                                   {"name": "eps", "type": "attr", "value": 1e-5}]})
    return out


INTS = ("int32", "int16", "int8")

TASKS = {
    "npukernelbench_level1": {
        # elementwise
        "1_Relu": unary("Relu: max(x, 0), also on integers.", "torch.relu(x)", FLOATS + ("int32", "int8")),
        "2_Gelu": unary("Gelu (erf form).", "F.gelu(x)"),
        "3_GeluTanh": unary("Gelu, tanh approximation.", "F.gelu(x, approximate='tanh')"),
        "4_Sigmoid": unary("Sigmoid.", "torch.sigmoid(x)"),
        "5_Silu": unary("Silu: x * sigmoid(x).", "F.silu(x)"),
        "6_Abs": unary("Abs.", "torch.abs(x)"),
        "7_Neg": unary("Neg, also on integers.", "torch.neg(x)", FLOATS + ("int32", "int16")),
        "8_LeakyRelu": unary("LeakyRelu with the slope as an attribute.", "F.leaky_relu(x, negative_slope)",
                             attrs={"negative_slope": 0.1}),
        "9_Hardtanh": unary("Hardtanh with bounds -2, 2.", "F.hardtanh(x, -2.0, 2.0)"),
        "10_Softplus": unary("Softplus.", "F.softplus(x)"),
        "11_Exp": unary("Exp.", "torch.exp(x)", scale="2"),
        "12_Sqrt": unary("Sqrt of |x|.", "torch.sqrt(torch.abs(x))"),
        "13_Add": binary("Add of two tensors of one shape, also on integers.", "x + y", FLOATS + ("int32", "int16")),
        "14_Mul": binary("Mul of two tensors of one shape, also on integers.", "x * y", FLOATS + ("int32", "int16")),
        "15_Maximum": binary("Maximum of two tensors, also on integers.", "torch.maximum(x, y)",
                             FLOATS + ("int32", "int16", "int8")),
        "16_SubMul": binary("A fused (x - y) * y.", "(x - y) * y"),
        # rounding to whole numbers (a Cast to the same float type)
        "33_Round": unary("Round to the nearest whole number, ties to even.", "torch.round(x)"),
        "34_Floor": unary("Floor.", "torch.floor(x)"),
        # broadcast: a per-row operand
        "17_MulRowScale": dict(doc="Broadcast: each row of x times its own scale r[..., 0].",
                               args="x: torch.Tensor, r: torch.Tensor", body="        return x * r", scale="2",
                               shift="", cases=row_operand_cases(FLOATS)),
        "18_AddRowBias": dict(doc="Broadcast: each row of x plus its own bias r[..., 0].",
                              args="x: torch.Tensor, r: torch.Tensor", body="        return x + r", scale="2",
                              shift="", cases=row_operand_cases(FLOATS)),
        # index: a bool mask
        "19_MaskedFill": dict(doc="Index: x with the elements where mask is set replaced by -1.",
                              args="x: torch.Tensor, mask: torch.Tensor",
                              body="        return x.masked_fill(mask, -1.0)", scale="4", shift="",
                              cases=cases_for(ELEMENTWISE_SHAPES, FLOATS, 2, ("x", "mask"), mask=1)),
        "20_Where": dict(doc="Index: where(cond, x, y) with a bool condition.",
                         args="cond: torch.Tensor, x: torch.Tensor, y: torch.Tensor",
                         body="        return torch.where(cond, x, y)", scale="4", shift="",
                         cases=[{"inputs": [dict(c["inputs"][0], name="cond", dtype="bool"),
                                            dict(c["inputs"][0], name="x"), dict(c["inputs"][0], name="y")]}
                                for c in cases_for(ELEMENTWISE_SHAPES, FLOATS)]),
        # activation backward: aten's *_backward ops, grad_output and the forward's input (or output)
        "21_ReluBackward": backward("Relu backward: grad where x > 0, else 0.",
                                    "threshold_backward(grad_output, x, 0.0)"),
        "22_EluBackward": backward("Elu backward from the input (alpha 1.0).",
                                   "elu_backward(grad_output, 1.0, 1.0, 1.0, False, x)"),
        "23_EluResultBackward": backward("Elu backward from the forward's output (alpha 0.5, is_result).",
                                         "elu_backward(grad_output, 0.5, 1.0, 1.0, True, output)", saved="output"),
        "24_MishBackward": backward("Mish backward.", "mish_backward(grad_output, x)"),
        "25_HardsigmoidBackward": backward("Hardsigmoid backward: grad / 6 inside (-3, 3).",
                                           "hardsigmoid_backward(grad_output, x)"),
        "26_GeluBackward": backward("Gelu backward (erf form).", "gelu_backward(grad_output, x)"),
        "27_GeluTanhBackward": backward("Gelu backward, tanh approximation.",
                                        "gelu_backward(grad_output, x, approximate='tanh')"),
        # values of a sigmoid's / tanh's output: around 0.5, around 0
        "28_SigmoidBackward": backward("Sigmoid backward from the forward's output y: grad (1 - y) y.",
                                       "sigmoid_backward(grad_output, output)", "0.2", " + 0.5", "output"),
        "29_TanhBackward": backward("Tanh backward from the forward's output y: grad (1 - y^2).",
                                    "tanh_backward(grad_output, output)", "0.4", saved="output"),
        "30_SiluBackward": backward("Silu backward.", "silu_backward(grad_output, x)"),
        "31_SoftplusBackward": backward("Softplus backward (beta 2, threshold 10).",
                                        "softplus_backward(grad_output, x, 2.0, 10.0)"),
        "32_HardtanhBackward": backward("Hardtanh backward with bounds -2, 2.",
                                        "hardtanh_backward(grad_output, x, -2.0, 2.0)"),
        # layout (35-42): views and data movement, the permutation / axes a per-case attribute
        "35_Permute": dict(doc="Layout: x.permute(dims), made contiguous; dims a per-case attribute (2-D to 5-D).",
                           args="x: torch.Tensor, dims", body="        return x.permute(dims).contiguous()",
                           scale="4", shift="", cases=layout_cases(PERMUTE_CASES, ("dims",))),
        "36_Transpose": dict(doc="Layout: torch.transpose(x, dim0, dim1), made contiguous; the axes per case.",
                             args="x: torch.Tensor, dim0, dim1",
                             body="        return torch.transpose(x, dim0, dim1).contiguous()",
                             scale="4", shift="", cases=layout_cases(TRANSPOSE_CASES, ("dim0", "dim1"))),
        "37_Split": dict(doc="Layout: torch.split(x, split_size, dim): a tuple of outputs, the last part shorter.",
                         args="x: torch.Tensor, split_size, dim", body="        return torch.split(x, split_size, dim)",
                         scale="4", shift="", cases=layout_cases(SPLIT_CASES, ("split_size", "dim"))),
        "38_Chunk": dict(doc="Layout: torch.chunk(x, chunks, dim): a tuple of outputs of cdiv(size, chunks).",
                         args="x: torch.Tensor, chunks, dim", body="        return torch.chunk(x, chunks, dim)",
                         scale="4", shift="", cases=layout_cases(CHUNK_CASES, ("chunks", "dim"))),
        "39_Cat": dict(doc="Layout: torch.cat([x, y], dim), y of another size along dim.",
                       args="x: torch.Tensor, y: torch.Tensor, dim", body="        return torch.cat([x, y], dim)",
                       scale="4", shift="", cases=two_input_cases(CAT_CASES)),
        "40_Stack": dict(doc="Layout: torch.stack([x, y], dim): a new axis of 2 at dim.",
                         args="x: torch.Tensor, y: torch.Tensor, dim", body="        return torch.stack([x, y], dim)",
                         scale="4", shift="", cases=two_input_cases(STACK_CASES, cat=False)),
        "41_Repeat": dict(doc="Layout: x.repeat(repeats), the repeats a per-case list.",
                          args="x: torch.Tensor, repeats", body="        return x.repeat(repeats)",
                          scale="4", shift="", cases=layout_cases(REPEAT_CASES, ("repeats",))),
        "42_Pad": dict(doc="Layout: F.pad(x, pad, mode, value): constant, reflect, replicate or circular per case.",
                       args="x: torch.Tensor, pad, mode, value",
                       body="        return F.pad(x, pad, mode=mode, value=value)",
                       scale="4", shift="", cases=pad_cases()),
        "52_Roll": dict(doc="Layout: torch.roll(x, shifts, dims): a cyclic shift along the given dims.",
                        args="x: torch.Tensor, shifts, dims", body="        return torch.roll(x, shifts, dims)",
                        scale="4", shift="", cases=layout_cases(ROLL_CASES, ("shifts", "dims"))),
        "61_Flip": dict(doc="Layout: torch.flip(x, dims), the last axis among them in most cases.",
                        args="x: torch.Tensor, dims", body="        return torch.flip(x, dims)",
                        scale="4", shift="", cases=layout_cases(FLIP_CASES, ("dims",))),
        # sorting along the last dim (Sort32 + MrgSort + Extract; stable: equal values keep their order)
        "43_Sort": sorting("Sort along the last dim, stable (values and int64 indices), ascending or descending.",
                           "dim: int, descending: bool",
                           "torch.sort(x, dim=dim, descending=descending, stable=True)",
                           lambda i, shape: {"dim": _last_dim(i, shape), "descending": i % 3 == 1}),
        "44_Argsort": sorting("Argsort along the last dim, stable.", "dim: int, descending: bool",
                              "torch.argsort(x, dim=dim, descending=descending, stable=True)",
                              lambda i, shape: {"dim": _last_dim(i, shape), "descending": i % 2 == 0}),
        "45_TopK": sorting("TopK along the last dim: the k largest (or smallest) values, sorted, and their indices.",
                           "k: int, dim: int, largest: bool", "torch.topk(x, k, dim=dim, largest=largest, sorted=True)",
                           lambda i, shape: {"k": min(shape[-1], (1, 5, 16, 37)[i % 4]), "dim": _last_dim(i, shape),
                                             "largest": i % 3 != 2}, tie_free=True),
        "46_KthValue": sorting("KthValue along the last dim: the k-th smallest value and its index.",
                               "k: int, dim: int, keepdim: bool", "torch.kthvalue(x, k, dim=dim, keepdim=keepdim)",
                               lambda i, shape: {"k": 1 + (7 * i) % shape[-1], "dim": _last_dim(i, shape),
                                                 "keepdim": i % 2 == 1}, tie_free=True),
        # data-dependent sizes and addressing (drafter/datadep.py)
        "47_Histc": datadep("Histc: counts in `bins` equal bins over [min, max]; min == max: the data's range.",
                            "x: torch.Tensor, bins, min, max", "torch.histc(x, bins=bins, min=min, max=max)",
                            HISTC_CASES),
        "48_RepeatInterleave": datadep("RepeatInterleave by an int along dim (None: the flattened tensor).",
                                       "x: torch.Tensor, repeats, dim", "torch.repeat_interleave(x, repeats, dim=dim)",
                                       INTERLEAVE_CASES, scale="4"),
        "49_Nonzero": datadep("Nonzero: the (count, rank) int64 indices of the nonzero elements, row-major.",
                              "x: torch.Tensor", "torch.nonzero(x)", NONZERO_CASES,
                              scale='(torch.rand(info["shape"]) < 0.5)'),     # about half the floats zero
        "50_ArgwhereMask": datadep("Argwhere of a bool mask: the indices of the set elements.", "x: torch.Tensor",
                                   "torch.argwhere(x)", MASK_CASES),
        "51_MaskedSelect": datadep("MaskedSelect: the elements of x where mask is set, as a 1-D tensor.",
                                   "x: torch.Tensor, mask: torch.Tensor", "torch.masked_select(x, mask)", SELECT_CASES,
                                   scale="4"),
        # per-case broadcasting (either operand, 0-d, one element) and int8 that wraps as PyTorch does
        "53_AddAlphaBroadcast": dict(doc="torch.add(x, y, alpha=alpha): y (or x) broadcast in a different way "
                                         "per case.",
                                     args="x: torch.Tensor, y: torch.Tensor, alpha: float",
                                     body="        return torch.add(x, y, alpha=alpha)", scale="4", shift="",
                                     cases=broadcast_cases(FLOATS,
                                                           lambda d: {"alpha": 0.5 if d == "float32" else 2.0})),
        "54_MulBroadcast": dict(doc="x * y, broadcast in a different way per case.",
                                args="x: torch.Tensor, y: torch.Tensor", body="        return x * y", scale="2",
                                shift="",
                                cases=broadcast_cases(FLOATS)),
        "55_MaximumBroadcast": dict(doc="torch.maximum(x, y), broadcast in a different way per case.",
                                    args="x: torch.Tensor, y: torch.Tensor", body="        return torch.maximum(x, y)",
                                    scale="4", shift="", cases=broadcast_cases(FLOATS)),
        "56_AddInt": binary("Add of two tensors of one shape on every integer type: int8 wraps as PyTorch's does.",
                            "x + y", INTS + FLOATS),
        "57_SubInt": binary("Sub of two tensors of one shape on every integer type: int8 wraps.", "x - y",
                            INTS + FLOATS),
        "58_NegInt": unary("Neg on every integer type: -(-128) is -128 in int8.", "torch.neg(x)", INTS + FLOATS),
        "59_AddSubChainInt": binary("A chain x + y - x - y + x: int8 wraps once per statement, "
                                    "as PyTorch's does per op.",
                                    "x + y - x - y + x", INTS + FLOATS),
        "60_SwiGlu": unary("SwiGlu: the last dim chunked in two, silu(a) * b (each half a slice of x).",
                           "F.silu(x.chunk(2, dim=-1)[0]) * x.chunk(2, dim=-1)[1]"),
    },
    "npukernelbench_level2": {
        # reductions over the last dim
        "1_SumLastDim": rows("Sum over the last dim.", "torch.sum(x, dim=-1)"),
        "2_MeanLastDim": rows("Mean over the last dim.", "torch.mean(x, dim=-1)", shapes=NONEMPTY_ROWS),
        "3_AmaxLastDim": rows("Amax over the last dim.", "torch.amax(x, dim=-1)", shapes=NONEMPTY_ROWS),
        "4_SumKeepdim": rows("Sum over the last dim, keepdim.", "torch.sum(x, dim=-1, keepdim=True)"),
        # normalizations over the last dim
        "5_Softmax": rows("Softmax over the last dim.", "torch.softmax(x, dim=-1)"),
        "6_LogSoftmax": rows("LogSoftmax over the last dim.", "torch.log_softmax(x, dim=-1)"),
        "7_RmsNorm": rows("RmsNorm without weight: x / sqrt(mean(x^2) + eps).",
                          "x * torch.rsqrt(torch.mean(x * x, dim=-1, keepdim=True) + 1e-6)", shapes=NONEMPTY_ROWS),
        "8_LayerNorm": dict(doc="LayerNorm over the last dim, no affine.", args="x: torch.Tensor",
                            body="        return F.layer_norm(x, x.shape[-1:])", scale="1", shift="",
                            cases=row_cases(FLOATS, shapes=NONEMPTY_ROWS)),
        "9_L2Normalize": rows("L2 normalize each row (F.normalize).", "F.normalize(x, dim=-1)", shapes=NONEMPTY_ROWS),
        "10_SubRowMax": rows("Broadcast: each row minus its own max.", "x - torch.amax(x, dim=-1, keepdim=True)",
                             shapes=NONEMPTY_ROWS),
        # normalizations with per-column weights and biases passed as inputs, several outputs, quantization
        "11_AddRmsNorm": dict(doc="Fused add + RmsNorm: s = x + residual, then s * rsqrt(mean(s^2) + eps) * weight; "
                                  "returns both.",
                              args="x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float",
                              body="        s = x + residual\n"
                                   "        y = s * torch.rsqrt(s.pow(2).mean(-1, keepdim=True) + eps) * weight\n"
                                   "        return y, s", scale="1", shift="",
                              cases=weighted_rows_cases(FLOATS, 2, attrs={"eps": 1e-6})),
        "12_LayerNormAffine": dict(doc="F.layer_norm over the last dim with a weight and bias of the row's size.",
                                   args="x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float",
                                   body="        return F.layer_norm(x, x.shape[-1:], weight, bias, eps)", scale="1",
                                   shift="",
                                   cases=weighted_rows_cases(FLOATS, 1, ("weight", "bias"), {"eps": 1e-5})),
        "13_RmsNormFunctional": dict(doc="F.rms_norm over the last dim with a weight "
                                         "(eps left to PyTorch: the dtype's).",
                                     args="x: torch.Tensor, weight: torch.Tensor",
                                     body="        return F.rms_norm(x, x.shape[-1:], weight)", scale="1", shift="",
                                     cases=weighted_rows_cases(("float32",), 1)),
        "14_GroupNormAffine": dict(doc="F.group_norm with a per-channel weight and bias; num_groups per case.",
                                   args="x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, num_groups: int, "
                                        "eps: float",
                                   body="        return F.group_norm(x, num_groups, weight, bias, eps)", scale="1",
                                   shift="", cases=group_norm_cases(FLOATS)),
        "15_DynamicQuant": dict(doc="Dynamic per-row int8 quantization: scale = amax(|x|) / 127, "
                                    "y = round(x / scale); returns y and the scales.",
                                args="x: torch.Tensor",
                                body="        scale = x.abs().amax(dim=-1, keepdim=True).float() / 127.0\n"
                                     "        y = torch.round(x.float() / scale).clamp(-128, 127).to(torch.int8)\n"
                                     "        return y, scale.squeeze(-1)", scale="1", shift="",
                                cases=row_cases(FLOATS, shapes=NONEMPTY_ROWS)),
        "16_LayerNormResidual": dict(doc="x + residual, then a LayerNorm with weight and bias; "
                                         "returns the normalized sum.",
                                     args="x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, "
                                          "bias: torch.Tensor",
                                     body="        return F.layer_norm(x + residual, x.shape[-1:], weight, bias, 1e-5)",
                                     scale="1", shift="", cases=weighted_rows_cases(FLOATS, 2, ("weight", "bias"))),
    },
}


def main() -> None:
    for level, tasks in TASKS.items():
        folder = ROOT / level
        folder.mkdir(parents=True, exist_ok=True)
        for name, t in tasks.items():
            fields = {k: t[k] for k in ("doc", "args", "body", "scale", "shift")}
            (folder / f"{name}.py").write_text(HEADER.format(**fields))
            (folder / f"{name}.json").write_text("".join(json.dumps(c) + "\n" for c in t["cases"]))
    n = sum(len(t) for t in TASKS.values())
    cases = sum(len(x["cases"]) for t in TASKS.values() for x in t.values())
    print(f"{n} tasks, {cases} cases -> {ROOT}")


if __name__ == "__main__":
    main()
