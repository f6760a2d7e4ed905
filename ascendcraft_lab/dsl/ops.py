"""The one table of DSL operations: spelling, operands, dtypes, numpy meaning, doc, AscendC mapping.

The parser reads the spellings (function names and infix symbols), the verifier the operand
kinds, dtypes and typing category, the interpreter the numpy meaning, the compute pass the
AscendC mapping (`api`, `scalar_api`, `expand`, `cmp_mode`, ...), and `docs.render_reference`
and the LLM prompts all of it (`ascendc` and `ascendc_scalar` are written from the mapping).

Each category has three rules, small named functions in a table keyed by the category:
`typerules.TYPE_RULES` (types and shapes), `interp.EVAL_RULES` (numpy meaning) and
`passes/vector.LOWER_RULES` (AscendC; the cube's in `passes/cube.CUBE_RULES`). What makes one op of
a category differ from another (pow's small integer powers, ReduceMax's index argument, a scan
from the end, ...) is a field of its row, never a test of its name. `LOWERED` says at which tile
kinds each category is lowered, and the verifier accepts no other. Adding an operation means
adding one row here; a new category also needs its three rules and its `LOWERED` kinds.

Beside the table: `SCALAR_MATH`, the meaning of scalar operations on Python numbers (the one
integer evaluator), `REDUCTIONS`, and the host language's builtins.

Categories:
  binary    a (op) b over tiles and/or scalars; a tile result if either side is a tile
  intbinary scalar integer arithmetic (index math): `//`, `%`
  compare   like binary, the result is bool (a mask tile or a bool scalar)
  unary     f(x) elementwise, same dtype (`float_only` ones give f32 for an integer scalar)
  select    where(mask, a, b)
  clamp     clamp(x, lo, hi) with scalar bounds
  reduce    tile -> scalar (or index) of the whole tile; along an axis, tile -> tile
  scan      tile -> tile, running sum/product continuing from the scalar `init`
  window    tile -> shorter tile: one value per window of k elements every `stride` (pooling:
            with padding, dilation and an explicit window count)
  cast      convert dtype, with a rounding mode
  element   tile -> scalar: one element
  repeat    tile of row values -> tile of whole rows: each value repeated k times
  gather    tile of whole rows + an index per row -> one element per row
  take      tile + a tile of indices into it -> one element per index (a gather within a row)
  iota      no operand -> a tile of consecutive values start, start + 1, ... (index arithmetic on
            the vector unit: resampling's per-column source positions)
  sort      tile -> the i32 positions that sort it (stable), all or the first k: a whole row held
            in UB; its values are take(x, positions) (torch.sort, argsort, topk, kthvalue)
  cube      the cube unit's matrix multiply-accumulate (mmad) and its L0C accumulator (zeros);
            their operands live in L0A / L0B / L0C, not UB (layouts in `cube.py`, lowering in
            `passes/cube.py`)
"""
from __future__ import annotations

import math
import operator
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .ir import Call, Const, DType, FLOATS

F = frozenset({DType.f16, DType.f32})
FI = frozenset({DType.f16, DType.f32, DType.i16, DType.i32})
ALL = frozenset(DType)

# cast's rounding modes and their AscendC RoundMode names
ROUND_MODES = {"none": "CAST_NONE", "rint": "CAST_RINT", "floor": "CAST_FLOOR", "ceil": "CAST_CEIL",
               "round": "CAST_ROUND", "trunc": "CAST_TRUNC", "odd": "CAST_ODD"}


@dataclass(frozen=True)
class OpParam:
    name: str
    kind: str                      # value | int | scalar | dtype | round | level | axis (an int literal,
                                   # or "all") | bool
    default: object = None         # an ir.Const / str / DType default; None: required
    positional: bool = False       # printed by position when given (mmad's accumulator), not as name=value


@dataclass(frozen=True)
class Step:
    """One vector instruction of an expansion: `api(dst, src[, scalar], count)`; the first step
    reads the operand, the others work in place on the destination. `scalar` is a C++ literal,
    or `{s}` for the op's scalar operand."""
    api: str
    scalar: str = ""

    def __str__(self) -> str:
        return f"{self.api}({self.scalar.replace('{', '').replace('}', '')})" if self.scalar else self.api


@dataclass(frozen=True)
class OpSpec:
    name: str                      # DSL spelling of the function (also the IR Call.op)
    category: str
    params: tuple[OpParam, ...]
    numpy: Callable                # numpy meaning on already dtype-converted operands
    doc: str
    api: str = ""                  # the AscendC API of the tile form ("": `expand` or a lowering rule of its own)
    scalar_api: str = ""           # tile (op) scalar: the API taking the scalar ("Adds")
    scalar_arg: str = "{s}"        # how that API gets the scalar: `{s}`, `-{s}` (negated), `1/{s}` (reciprocal)
    rscalar: tuple[Step, ...] = ()  # scalar (op) tile, for an op that does not commute
    expand: tuple[Step, ...] = ()  # the instructions of an op AscendC has no API for
    why: str = ""                  # the comment the lowering writes above an expansion
    scalar_why: str = ""           # ... after the instruction of a rewritten scalar form
    rscalar_why: str = ""          # ... after the first instruction of the scalar-first form
    cmp_mode: str = ""             # CMPMODE of a comparison
    note: str = ""                 # what else the mapping does (work tensors, index arithmetic, ...)
    dtypes: frozenset = F          # tile dtypes the vector unit supports
    symbol: str = ""               # infix spelling, if any
    scratch: int = 0               # extra UB tiles the AscendC mapping needs (work buffers)
    inplace: bool = True           # the result may overwrite an operand's buffer
    float_only: bool = False       # integer operands give an f32 result, scalars too (exp, `/`, pow)
    scalar_unit: bool = True       # on scalars, the scalar unit computes it (False: through the vector unit)
    example: str = ""
    # -- the quirks of single ops, read by the rules of their category ----------------------------
    reduction: str = ""            # reduce / scan / window: how elements combine (a key of REDUCTIONS)
    index: bool = False            # reduce: the position (i32) of the first element that wins, not its value
    reverse: bool = False          # scan: from the last element back
    at: int = 0                    # element: which one (0 the first, -1 the last)
    api_args: str = ""             # what the tile API takes after the count (ReduceMax's calIndex: ", false")
    row_api: str = ""              # reduce along the last axis of a tile of rows ("": of the whole tile only)
    row_args: str = ""             # ... and what that API takes after the repeat strides (a ReduceOrder)
    powers: int = 0                # tile (op) a literal k in 1..powers: k - 1 multiplications (pow's x ** 2)
    in_lane: bool = False          # with a scalar, it may finish a reduction in the reduction's own lane
    call_spelling: bool = False    # printed as a call, `pow(a, b)`, though its symbol parses too
    accumulator: str = ""          # the operand its result accumulates into: `acc = mmad(a, b, acc)`
    stageless: bool = False        # no instruction of its own (zeros): it may stand outside a compute stage
    gathers: bool = False          # Gather reads its first operand in place: that tile never sizes the scratch
    int8: str = ""                 # in an int8 variant: "exact" (the result is an operand's value), "wrap" (a sum)

    @property
    def vector_for_scalar(self) -> bool:
        """Whether a scalar of this op goes through a vector block (the scalar unit has no exp)."""
        return not self.scalar_unit

    @property
    def ascendc(self) -> str:
        """The AscendC of the tile form, in words (docs and prompts)."""
        head = self.api or ("expand: " + ", ".join(map(str, self.expand)) if self.expand else "")
        if self.cmp_mode:
            head += f" (CMPMODE::{self.cmp_mode})"
        return "; ".join(x for x in (head, self.note) if x) or "a lowering rule of its own"

    @property
    def ascendc_scalar(self) -> str:
        """The AscendC of the form with a scalar operand, in words ("" when it is the tile form's)."""
        if not self.scalar_api:
            return ""
        arg = {"{s}": "", "-{s}": " (with the negated scalar)", "1/{s}": " by the reciprocal (there is no such API)"}
        text = self.scalar_api + arg.get(self.scalar_arg, "")
        if self.cmp_mode:
            text += f" (CMPMODE::{self.cmp_mode})"
        if self.rscalar:
            text += "; scalar first: " + ", ".join(map(str, self.rscalar))
        return text

    @property
    def arity(self) -> int:
        """Required operands."""
        return sum(1 for p in self.params if p.default is None)

    @property
    def spelling(self) -> str:
        if self.symbol and self.call_spelling:
            return f"{self.name}(a, b)  (or a {self.symbol} b)"
        if self.symbol:
            if self.category == "unary":
                return f"{self.symbol}x"
            return f"a {self.symbol} b"
        parts = [p.name if p.default is None else f"{p.name}={_default_text(p.default)}" for p in self.params]
        return f"{self.name}({', '.join(parts)})"


def _default_text(d) -> str:
    if isinstance(d, Const):
        return repr(d.value)
    if isinstance(d, DType):
        return d.value
    return repr(d)


V = OpParam("x", "value")


def _p(name, kind="value", default=None):
    return OpParam(name, kind, default)


# A reduction of the whole tile (axis "all") gives a scalar; along one axis, a tile.
REDUCE_PARAMS = (V, OpParam("axis", "axis", "all"), OpParam("keepdim", "bool", Const(False, "bool")))

WINDOW_PARAMS = (V, OpParam("k", "int"), OpParam("stride", "int"), OpParam("pad", "int", Const(0, "int")),
                 OpParam("dilation", "int", Const(1, "int")), OpParam("count", "int", Const(0, "int")))


def _binary(name, symbol, fn, doc, api, scalar_api, dtypes=FI, **kw):
    return OpSpec(name, "binary", (_p("a"), _p("b")), fn, doc, api=api, scalar_api=scalar_api, dtypes=dtypes,
                  symbol=symbol, **kw)


def _unary(name, fn, doc, api="", dtypes=F, symbol="", float_only=True, scalar_unit=False, **kw):
    return OpSpec(name, "unary", (V,), fn, doc, api=api, dtypes=dtypes, symbol=symbol, float_only=float_only,
                  scalar_unit=scalar_unit, **kw)


def _compare(name, symbol, fn, mode):
    return OpSpec(name, "compare", (_p("a"), _p("b")), fn, f"elementwise `a {symbol} b`, a bool mask",
                  api="Compare", scalar_api="CompareScalar", cmp_mode=mode,
                  dtypes=frozenset({DType.f16, DType.f32, DType.i32}), symbol=symbol, example=f"xu {symbol} 0.0",
                  int8="exact")


# -- numpy meanings (operands arrive converted to the result dtype by the interpreter) --

def _sigmoid(x):
    one = x.dtype.type(1)
    return one / (one + np.exp(-x))


def _pow(a, b):
    return np.power(a, b)


def _window(kind):
    """numpy meaning of window_<kind>(x, k, stride, pad, dilation, count).

    Window o reads x[o * stride - pad + j * dilation] for j < k. Positions outside the tile are
    padding: they never win a max/min and add nothing to a sum; an average divides by the
    window positions inside [-pad, len + pad) (PyTorch's count_include_pad). count 0 means
    every window that fits the padded tile: (len + 2 pad - dilation (k - 1) - 1) // stride + 1.
    """
    def fn(x, k, stride, pad=0, dilation=1, count=0):
        k, stride, pad, dilation, count = int(k), int(stride), int(pad), int(dilation), int(count)
        n0 = x.shape[0]
        span = dilation * (k - 1) + 1
        n = count if count > 0 else max((n0 + 2 * pad - span) // stride + 1, 0)
        if n <= 0:
            return x[:0].copy()
        if pad == 0 and dilation == 1 and count == 0:
            # every window lies inside the tile: a strided view, no index arithmetic
            win = x[: n * k].reshape(n, k) if k == stride else \
                np.lib.stride_tricks.sliding_window_view(x, k)[::stride][:n]
            return _WINDOW_REDUCE[kind](win)
        pos = (np.arange(n) * stride - pad)[:, None] + np.arange(k)[None, :] * dilation
        inside = (pos >= 0) & (pos < n0)
        if kind in ("max", "min") and not inside.any(axis=1).all():
            o = int(np.argmin(inside.any(axis=1)))
            raise ValueError(f"window {o} of window_{kind} lies entirely in the padding")
        fill = {"max": -np.inf, "min": np.inf}.get(kind, 0)
        padded = np.concatenate([x, np.full(1, fill, dtype=x.dtype)])       # slot n0 holds the padding value
        win = padded[np.where(inside, pos, n0)]
        if kind != "avg":
            return _WINDOW_REDUCE[kind](win)
        total = win.sum(axis=1, dtype=x.dtype)
        counted = (pos < n0 + pad).sum(axis=1)                              # positions inside the padded row
        return (total / counted.astype(x.dtype)).astype(x.dtype)
    return fn


_WINDOW_REDUCE = {"max": lambda w: w.max(axis=1), "min": lambda w: w.min(axis=1),
                  "sum": lambda w: w.sum(axis=1, dtype=w.dtype),
                  "avg": lambda w: (w.sum(axis=1, dtype=w.dtype) / w.dtype.type(w.shape[1])).astype(w.dtype)}


def _scan(ufunc):
    def fn(x, init):
        # The vector-unit algorithm (Hillis-Steele): log2(len) steps of y[d:] = y[d:] op y[:-d],
        # then one op with the carry. Its rounding is that of a tree, not of a long serial chain,
        # which keeps long f32 scans within 1e-4 of PyTorch (which accumulates in double).
        y = x.copy()
        d = 1
        while d < y.shape[0]:
            y[d:] = ufunc(y[d:], y[:-d])
            d *= 2
        return ufunc(y, x.dtype.type(init))
    return fn


def _scan_rev(ufunc):
    """The same scan from the last element to the first: y[i] = init op x[i] op ... op x[n-1]."""
    forward = _scan(ufunc)

    def fn(x, init):
        return forward(x[::-1].copy(), init)[::-1].copy()
    return fn


def _repeat(x, k):
    return np.repeat(x, int(k))


def _pick(x, index, k=0):
    """x[i, index[i]] of a 2-D tile, or x[i * k + index[i]] of rows of k; an index outside the row
    is clamped, as the kernel clamps it."""
    if x.ndim == 2:
        idx = np.clip(np.asarray(index).astype(np.int64), 0, x.shape[1] - 1)
        if index.shape[0] != x.shape[0]:
            raise ValueError(f"pick: {index.shape[0]} indices for {x.shape[0]} rows")
        return x[np.arange(x.shape[0]), idx]
    k = int(k)
    rows = np.arange(index.shape[0])
    idx = np.clip(np.asarray(index).astype(np.int64), 0, k - 1)
    pos = rows * k + idx
    if pos.size and pos.max() >= x.shape[0]:
        raise ValueError(f"pick: row {int(rows[-1])} of {k} elements is beyond the tile of {x.shape[0]}")
    return x[pos]


def _take(x, index):
    """x[index[i]]; an index outside [0, len(x)) is an error (the kernel would read outside the tile)."""
    idx = np.asarray(index).astype(np.int64)
    bad = np.flatnonzero((idx < 0) | (idx >= x.shape[0]))
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"take: index {int(idx[i])} at position {i} is outside the tile of {x.shape[0]} elements")
    return x[idx]


def _transpose(x):
    """The rows of a 2-D tile become its columns: y[j, i] = x[i, j]."""
    return np.ascontiguousarray(np.asarray(x).T)


def _iota(n, start=0, dtype=None):
    """start, start + 1, ..., start + n - 1 in `dtype` (f32: exact below 2^24)."""
    dt = dtype.np if dtype is not None else np.float32
    return (np.asarray(start, dtype=np.float64) + np.arange(int(n), dtype=np.float64)).astype(dt)


# The most elements one argsort() sorts: Sort32 takes at most 255 repeats of 32, and the row is
# padded to whole Extract repeats (64 floats, 128 halves), so 8128 f32 / 8064 f16 elements.
SORT32_MAX_REPEATS = 255


def sort_padded_len(n: int, dtype) -> int:
    """Elements a row of n is padded to for Sort32 + MrgSort + Extract: whole Extract repeats
    (256 bytes of scores: 64 floats, 128 halves), themselves whole Sort32 groups of 32."""
    unit = 256 // dtype.nbytes
    return -(-n // unit) * unit


def sort_limit(dtype) -> int:
    unit = 256 // dtype.nbytes
    return SORT32_MAX_REPEATS * 32 // unit * unit


def _argsort(x, descending=False, k=0):
    """Positions that sort x, stable (equal values keep their order, as torch.sort(stable=True)
    and as Sort32 orders equal scores); descending: largest first. k > 0: only the first k."""
    x = np.asarray(x)
    limit = sort_limit(DType.f16 if x.dtype == np.float16 else DType.f32)
    if x.size > limit:
        raise ValueError(f"argsort() of {x.size} elements: one Sort32 call sorts at most {limit} "
                         f"({SORT32_MAX_REPEATS} repeats of 32, padded to whole Extract repeats); split the row")
    k = int(k)
    if k < 0 or k > x.size:
        raise ValueError(f"argsort() keeps k = {k} of {x.size} elements; k must lie in [0, {x.size}]")
    order = np.argsort(-x if descending else x, kind="stable").astype(np.int32)
    return order[:k] if k else order


def _reduce(fn):
    """numpy meaning of a reduction: over the whole tile (axis "all") to a scalar, or along one
    axis to a tile (with that axis kept as 1 when keepdim)."""
    def go(x, axis="all", keepdim=False):
        if x.size == 0:
            raise ValueError("reduction of an empty tile")
        if axis == "all":
            return fn(x)
        out = fn(x, axis=int(axis))
        return np.expand_dims(out, int(axis)) if keepdim else out
    return go


def _mmad(a, b, acc=0.0):
    """C = acc + a @ b on the cube: products exact (f16 / bf16 values are exact in f32), sums in f32
    (int32 for i8). The interpreter sums in float64 and rounds once, which is within f32 rounding of
    the cube's own order."""
    if np.issubdtype(a.dtype, np.integer):
        prod = a.astype(np.int64) @ b.astype(np.int64)
        return (prod + np.asarray(acc, dtype=np.int64)).astype(np.int32)
    prod = a.astype(np.float64) @ b.astype(np.float64)
    return (prod + np.asarray(acc, dtype=np.float64)).astype(np.float32)


def _zeros(rows, cols, level=None, dtype=None):
    return np.zeros((int(rows), int(cols)), dtype=(dtype.np if dtype is not None else np.float32))


_ROUNDERS = {"rint": np.rint, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc,
             "round": lambda a: np.sign(a) * np.floor(np.abs(a) + 0.5), "none": None, "odd": None}


def cast_numpy(x, dtype: DType, round: str, src: DType):
    """numpy meaning of `cast`; bf16 values are float32 rounded to bf16's 8-bit mantissa."""
    a = np.asarray(x)
    if dtype.is_int or dtype is DType.bool:
        if src.is_float and dtype is not DType.bool:
            f = _ROUNDERS.get(round) or np.trunc   # "none" float->int truncates, like torch .to(int)
            a = f(a.astype(np.float64))
            info = np.iinfo(dtype.np)
            # NaN -> 0, the rest saturated (what nan_to_num then clip give, without their per-call cost:
            # the interpreter casts index positions once per tile)
            a = np.clip(np.where(a != a, 0.0, a), float(info.min), float(info.max))
        out = a.astype(dtype.np)
    else:
        if dtype is src and src.is_float and _ROUNDERS.get(round):
            a = _ROUNDERS[round](a.astype(np.float64))    # float -> the same float: rounds to an integer (Cast page)
        out = a.astype(dtype.np)
        if dtype is DType.bf16:
            out = to_bf16(out)
    return out if np.ndim(x) else out[()]


def to_bf16(a):
    """Round float32 values to bfloat16 precision (round to nearest even), kept in float32."""
    a = np.asarray(a, dtype=np.float32)
    u = a.view(np.uint32).astype(np.uint64)
    u = ((u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000).astype(np.uint32)
    out = u.view(np.float32)
    return np.where(np.isnan(a), a, out)


OPS_LIST: list[OpSpec] = [
    # -- elementwise binary: tile op tile, tile op scalar, scalar op scalar --
    _binary("add", "+", np.add, "elementwise sum", "Add", "Adds", example="xu + 1.0", in_lane=True, int8="wrap"),
    _binary("sub", "-", np.subtract, "elementwise difference", "Sub", "Adds", scalar_arg="-{s}",
            rscalar=(Step("Muls", "-1.0f"), Step("Adds", "{s}")), rscalar_why="s - x = -x + s", example="xu - m",
            in_lane=True, int8="wrap"),
    _binary("mul", "*", np.multiply, "elementwise product", "Mul", "Muls", example="0.5 * xu", in_lane=True),
    _binary("div", "/", np.divide, "elementwise quotient (true division; ints give f32)", "Div", "Muls", F,
            scalar_arg="1/{s}", rscalar=(Step("Reciprocal"), Step("Muls", "{s}")),
            scalar_why="no Divs: multiply by 1/s", rscalar_why="s / x = (1 / x) * s", example="ex / s",
            float_only=True, in_lane=True),
    _binary("max", "", np.maximum, "elementwise maximum (also scalar max)", "Max", "Maxs",
            example="max(m, reduce_max(xu))", int8="exact"),
    _binary("min", "", np.minimum, "elementwise minimum (also scalar min)", "Min", "Mins",
            example="min(xu, 6.0)", int8="exact"),
    _binary("pow", "**", _pow, "a raised to b; `a ** b` is the same", "", "", F,
            expand=(Step("Ln"), Step("Muls", "{s}"), Step("Exp")),
            why="a ** b = exp(b * ln(a)): nan for a < 0 (the interpreter computes it so too)",
            note="x ** k for k = 1..8 as k - 1 multiplications (any sign of x)", float_only=True, scalar_unit=False,
            example="pow(xu, 1.5)", powers=8, call_spelling=True,
            inplace=False),      # x ** 3 as x * x * x reads x after the first product: never over x
    OpSpec("floordiv", "intbinary", (_p("a"), _p("b")), np.floor_divide,
           "integer floor division of scalars (index arithmetic)", note="C++ `/` on non-negative ints",
           dtypes=frozenset(), symbol="//", example="r // M"),
    OpSpec("mod", "intbinary", (_p("a"), _p("b")), np.mod, "integer remainder of scalars (index arithmetic)",
           note="C++ `%` on non-negative ints", dtypes=frozenset(), symbol="%", example="r % M"),
    # -- comparisons --
    _compare("lt", "<", np.less, "LT"),
    _compare("le", "<=", np.less_equal, "LE"),
    _compare("gt", ">", np.greater, "GT"),
    _compare("ge", ">=", np.greater_equal, "GE"),
    _compare("eq", "==", np.equal, "EQ"),
    _compare("ne", "!=", np.not_equal, "NE"),
    # -- unary --
    _unary("neg", np.negative, "elementwise negation", dtypes=FI, symbol="-", float_only=False, scalar_unit=True,
           expand=(Step("Muls", "-1.0f"),), example="-xu", int8="wrap"),
    _unary("abs", np.abs, "elementwise absolute value", "Abs", float_only=False, scalar_unit=True, example="abs(d)"),
    _unary("relu", lambda x: np.maximum(x, x.dtype.type(0)), "max(x, 0)", "Relu",
           frozenset({DType.f16, DType.f32, DType.i32}), float_only=False, scalar_unit=True, example="relu(xu)",
           int8="exact"),
    _unary("exp", np.exp, "e ** x", "Exp", example="exp(xu - m)"),
    _unary("log", np.log, "natural logarithm", "Ln", example="log(xu)"),
    _unary("sqrt", np.sqrt, "square root", "Sqrt", example="sqrt(v)"),
    _unary("rsqrt", lambda x: x.dtype.type(1) / np.sqrt(x), "1 / sqrt(x)", "Rsqrt", example="rsqrt(var + eps)"),
    _unary("reciprocal", lambda x: x.dtype.type(1) / x, "1 / x", "Reciprocal", scalar_unit=True,
           example="reciprocal(s)"),
    _unary("sigmoid", _sigmoid, "1 / (1 + exp(-x))",
           expand=(Step("Muls", "-1.0f"), Step("Exp"), Step("Adds", "1.0f"), Step("Reciprocal")),
           why="sigmoid(x) = 1 / (1 + exp(-x)): no Sigmoid in the basic vector API", example="sigmoid(xu)"),
    _unary("tanh", np.tanh, "hyperbolic tangent",
           expand=(Step("Muls", "2.0f"), Step("Exp"), Step("Adds", "1.0f"), Step("Reciprocal"), Step("Muls", "-2.0f"),
                   Step("Adds", "1.0f")),
           why="tanh(x) = 1 - 2 / (exp(2x) + 1): no Tanh in the basic vector API", example="tanh(inner)"),
    # rounding to whole numbers: a Cast to the same float type (the Cast page: float -> float rounds by the mode)
    *[_unary(name, fn, doc, expand=(Step("Cast", f"RoundMode::{mode}"),),
             why=f"{name}: Cast to the same type with RoundMode::{mode}", example=f"{name}(xu)", int8="exact")
      for name, fn, doc, mode in (("rint", np.rint, "round to the nearest whole number, ties to even (torch.round)",
                                   "CAST_RINT"),
                                  ("floor", np.floor, "round toward -inf", "CAST_FLOOR"),
                                  ("ceil", np.ceil, "round toward +inf", "CAST_CEIL"),
                                  ("trunc", np.trunc, "round toward 0", "CAST_TRUNC"))],
    # -- selection --
    OpSpec("where", "select", (_p("mask"), _p("a"), _p("b")), np.where,
           "elementwise `a if mask else b`; mask is a bool tile, a and b tiles or scalars",
           api="Select", note="SELMODE::VSEL_TENSOR_TENSOR_MODE, or VSEL_TENSOR_SCALAR_MODE with a scalar; "
           "a byte-per-element mask is compared with 0 first", example="where(xu > 0.0, xu * yu, zu)", int8="exact"),
    OpSpec("clamp", "clamp", (V, _p("lo", "scalar"), _p("hi", "scalar")),
           lambda x, lo, hi: np.minimum(np.maximum(x, lo), hi),
           "min(max(x, lo), hi) with scalar bounds", expand=(Step("Maxs", "{lo}"), Step("Mins", "{hi}")), dtypes=FI,
           example="clamp(xu, -1.0, 1.0)", int8="exact"),
    # -- reductions: a whole tile to one scalar (the scalar unit gets it after a vector->scalar sync) --
    OpSpec("reduce_sum", "reduce", REDUCE_PARAMS, _reduce(lambda x, **kw: x.sum(dtype=x.dtype, **kw)),
           "sum of the tile's elements; with `axis`, along that axis (the last: one sum per row)",
           api="ReduceSum", note="work tensor in scratch; along the last axis of rows: WholeReduceSum per row "
           "(each row's repeats first folded into one with Add and repeat strides); along axis 0 of a 2-D tile: the "
           "rows folded into one with Add, one instruction per row", scratch=1, inplace=False,
           example="reduce_sum(xu, axis=1)", reduction="sum", row_api="WholeReduceSum"),
    OpSpec("reduce_max", "reduce", REDUCE_PARAMS, _reduce(np.max),
           "largest element of the tile; with `axis`, along that axis (the last: one per row; axis 0 of a 2-D "
           "tile: one per column)",
           api="ReduceMax", note="work tensor in scratch; along the last axis of rows: WholeReduceMax per row "
           "(rows folded with Max and repeat strides); along axis 0 of a 2-D tile: the rows folded into one with Max, "
           "one instruction per row", scratch=1, inplace=False,
           example="reduce_max(xu, axis=1, keepdim=True)", reduction="max", api_args=", false",
           row_api="WholeReduceMax", row_args=", ReduceOrder::ORDER_ONLY_VALUE", int8="exact"),
    OpSpec("reduce_min", "reduce", REDUCE_PARAMS, _reduce(np.min),
           "smallest element of the tile; with `axis`, along that axis",
           api="ReduceMin", note="work tensor in scratch; along the last axis of rows: WholeReduceMin per row; along "
           "axis 0 of a 2-D tile: the rows folded into one with Min",
           scratch=1, inplace=False, example="reduce_min(xu)", reduction="min", api_args=", false",
           row_api="WholeReduceMin", row_args=", ReduceOrder::ORDER_ONLY_VALUE", int8="exact"),
    OpSpec("reduce_prod", "reduce", REDUCE_PARAMS, _reduce(lambda x, **kw: x.prod(dtype=x.dtype, **kw)),
           "product of the tile's elements; with axis=0 of a 2-D tile, one per column",
           note="a running product on the scalar unit (exact); along axis 0 of a 2-D tile: the rows folded into "
           "one with Mul, one instruction per row", example="reduce_prod(xu)", reduction="prod"),
    OpSpec("argmax", "reduce", REDUCE_PARAMS, _reduce(np.argmax), "index (i32) of the first largest element",
           note="the first largest on the scalar unit (exact, first index on ties)", example="argmax(xu)",
           reduction="max", index=True, int8="exact"),
    OpSpec("argmin", "reduce", REDUCE_PARAMS, _reduce(np.argmin), "index (i32) of the first smallest element",
           note="the first smallest on the scalar unit (exact, first index on ties)", example="argmin(xu)",
           reduction="min", index=True, int8="exact"),
    # -- scans: continue across tiles through a scalar carry --
    OpSpec("cumsum", "scan", (V, _p("init", "scalar", Const(0.0))), _scan(np.add),
           "running sum starting from `init` (pass the previous tile's last value to continue a row)",
           note="a compensated (Kahan) running sum on the scalar unit", example="cumsum(xu, init=carry)",
           reduction="sum"),
    OpSpec("cumprod", "scan", (V, _p("init", "scalar", Const(1.0))), _scan(np.multiply),
           "running product starting from `init`", note="a running product on the scalar unit",
           example="cumprod(xu, init=carry)", reduction="prod"),
    OpSpec("cumsum_rev", "scan", (V, _p("init", "scalar", Const(0.0))), _scan_rev(np.add),
           "running sum from the last element back: y[i] = init + x[i] + ... + x[n-1] (a suffix sum; "
           "continue a row from its end with the previous tile's first value)",
           note="the scan of cumsum, from the end", example="cumsum_rev(xu, init=carry)", reduction="sum",
           reverse=True),
    OpSpec("cumprod_rev", "scan", (V, _p("init", "scalar", Const(1.0))), _scan_rev(np.multiply),
           "running product from the last element back", note="the scan of cumprod, from the end",
           example="cumprod_rev(xu, init=carry)", reduction="prod", reverse=True),
    # -- windows (pooling): one value per window of k elements every `stride` --
    OpSpec("window_max", "window", WINDOW_PARAMS, _window("max"),
           "max of each window: window o reads x[o * stride - pad + j * dilation], j < k; positions outside the "
           "tile are padding and never win. count windows (0: (len + 2 pad - dilation (k - 1) - 1) // stride + 1)",
           note="k = stride, no padding: a scalar loop per window; pooling windows: the row copied behind "
           "aligned padding, then one Gather per window offset j and Max", inplace=False,
           example="window_max(acc, 3, 2, pad=1, dilation=2, count=OW)", reduction="max", int8="exact"),
    OpSpec("window_min", "window", WINDOW_PARAMS, _window("min"),
           "min of each window (windows as window_max)", note="as window_max, with Min", inplace=False,
           example="window_min(xu, K, S)", reduction="min", int8="exact"),
    OpSpec("window_sum", "window", WINDOW_PARAMS, _window("sum"),
           "sum of each window; padding adds 0 (k = stride = row length: one sum per row)",
           note="as window_max, with Add", inplace=False, example="window_sum(xu, N, N)", reduction="sum"),
    OpSpec("window_avg", "window", WINDOW_PARAMS, _window("avg"),
           "mean of each window: its sum over the window positions inside [-pad, len + pad) (PyTorch's "
           "count_include_pad; k unless a last window hangs past the padding)",
           note="window_sum then Muls(1/k), and a scalar fix-up of windows past the padding", inplace=False,
           example="window_avg(xu, K, S, pad=P)", reduction="avg"),
    # -- tiles of whole rows (many short rows per tile): per-row broadcast and per-row gather --
    OpSpec("repeat", "repeat", (V, _p("k", "int")), _repeat,
           "each element repeated k times: per-row values (window_max of rows of k) broadcast back over "
           "their rows, e.g. `xu - repeat(window_max(xu, C, C), C)`",
           api="Gather", note="at byte offsets floor((i + 0.5) / k) * 4 (CreateVecIndex, Adds, Muls, Mins, Cast, Muls)",
           dtypes=frozenset({DType.f32}), scratch=1, inplace=False, example="repeat(mu, C)", int8="exact"),
    OpSpec("pick", "gather", (V, _p("index"), OpParam("k", "int", Const(0, "int"))), _pick,
           "one element per row: of a 2-D tile, x[i, index[i]]; of a 1-D tile of rows of k elements, "
           "x[i * k + index[i]] (index: an i32 tile, clamped to the row), e.g. the target logit of every row",
           api="Gather",
           note="at byte offsets (i * pitch + index[i]) * 4 (CreateVecIndex, Muls, Maxs, Mins, Add, Muls)",
           dtypes=frozenset({DType.f32}), scratch=1, inplace=False, example="pick(xu, cast(tu, i32), C)", int8="exact"),
    # -- a gather within one tile: any element, by an index tile --
    OpSpec("take", "take", (V, _p("index")), _take,
           "x[index[i]] for every index (index: an i32 tile of positions in x, not clamped), e.g. torch.gather "
           "along a row held whole in UB",
           api="Gather", note="at byte offsets index[i] * sizeof(x) (Muls); an index outside the tile is "
           "reported by the emulator at this line (on the NPU it reads whatever lies there)",
           dtypes=frozenset({DType.f16, DType.bf16, DType.f32, DType.i16, DType.i32}), scratch=1, inplace=False,
           example="take(xu, cast(iu, i32))", gathers=True, int8="exact"),
    # -- an on-chip transpose of a tile of rows (a permute whose last axis moves) --
    OpSpec("transpose", "transpose", (V,), _transpose,
           "the 2-D tile x (R rows of C) transposed: C rows of R, y[j, i] = x[i, j] (a permute that moves the "
           "last axis: load rows along the axis that becomes last, transpose, store rows along the old last axis)",
           api="Gather", note="one Gather over the result's rows x pitch lanes at byte offsets of x computed on the "
           "vector unit: lane p of row j = floor((p + 0.5) / pitch_y) reads x[p - j * pitch_y, j], i.e. offset "
           "p * pitch_x - j * (pitch_y * pitch_x - 1), clamped into x for the padding lanes (CreateVecIndex, "
           "Adds, Muls, Cast(CAST_FLOOR), Muls, Sub, Mins, Muls); Gather takes 2- and 4-byte elements",
           dtypes=frozenset({DType.f16, DType.bf16, DType.f32, DType.i16, DType.i32}), scratch=2, inplace=False,
           example="yu = transpose(xu)", int8="exact"),
    # -- index arithmetic on the vector unit --
    OpSpec("iota", "iota", (OpParam("n", "int"), _p("start", "scalar", Const(0, "int")),
                            OpParam("dtype", "dtype", DType.f32)), _iota,
           "n consecutive values start, start + 1, ... (f32 or i32), e.g. the output columns of a tile, "
           "`iota(c.len, c.start)`, whose source positions resampling computes by vector arithmetic",
           api="CreateVecIndex", note="CreateVecIndex(dst, firstValue, n): the first value converted to the dtype "
           "(f32 exact below 2^24)", dtypes=frozenset({DType.f32, DType.i32}), inplace=False,
           example="iota(c.len, c.start)"),
    # -- sorting (Sort32 + MrgSort + Extract) --
    OpSpec("argsort", "sort",
           (V, OpParam("descending", "bool", Const(False, "bool")), OpParam("k", "int", Const(0, "int"))),
           _argsort,
           "the i32 positions that sort the tile, stable (equal values keep their order); descending: largest "
           "first; k > 0: only the first k (top-k). The values are `take(x, argsort(x))`, e.g. torch.sort, "
           "torch.topk, torch.kthvalue of a row held whole in UB",
           api="Sort32", note="scores (negated for ascending) and positions (CreateVecIndex) padded with -inf to whole "
           "Extract repeats; Sort32 sorts groups of 32 largest first into (score, index) pairs, MrgSort merges 4 "
           "queues a round (32, 128, 512, ...), Extract splits off the indices; at most 8128 f32 / 8064 f16 elements",
           scratch=6, inplace=False, example="argsort(xu, descending=True, k=K)"),
    # -- conversion and element access --
    OpSpec("cast", "cast", (V, _p("dtype", "dtype"), _p("round", "round", "none")), cast_numpy,
           "convert to dtype; round: none (nearest for floats, truncate float->int) rint floor ceil round trunc odd",
           api="Cast", note="RoundMode::CAST_NONE/RINT/FLOOR/CEIL/ROUND/TRUNC/ODD", dtypes=ALL, inplace=False,
           example="cast(xh, f32)", int8="exact"),
    OpSpec("last", "element", (V,), lambda x: x[-1], "the tile's last element, as a scalar (a scan's carry)",
           note="GetValue(len - 1) after a vector->scalar sync", dtypes=ALL, example="carry = last(yu)", at=-1,
           int8="exact"),
    OpSpec("first", "element", (V,), lambda x: x[0], "the tile's first element, as a scalar",
           note="GetValue(0) after a vector->scalar sync", dtypes=ALL, example="first(xu)", int8="exact"),
    # -- the cube: operands in L0A / L0B, the accumulator in L0C (see cube.py) --
    OpSpec("mmad", "cube", (_p("a"), _p("b"), OpParam("acc", "value", Const(0.0), positional=True)), _mmad,
           "acc + a @ b: a (m x k) in L0A, b (k x n) in L0B, acc (m x n) in L0C; f16 / bf16 / f32 inputs "
           "accumulate in f32, i8 in i32. Without acc (0.0) the product starts a new accumulation",
           api="Mmad", note="MmadParams(m, n, k); cmatrixInitVal on the first K slice into a zeros() accumulator",
           dtypes=frozenset({DType.f16, DType.bf16, DType.f32, DType.i8}), inplace=False, scalar_unit=False,
           example="acc = mmad(a0, b0, acc)", accumulator="acc"),
    OpSpec("zeros", "cube", (OpParam("rows", "int"), OpParam("cols", "int"), OpParam("level", "level"),
                             OpParam("dtype", "dtype", DType.f32)), _zeros,
           "a rows x cols accumulator at `level` (L0C), all zero: the block's sum over K starts here",
           note="no instruction: the first Mmad into it writes L0C (MmadParams.cmatrixInitVal)",
           dtypes=frozenset({DType.f32, DType.i32}), inplace=False, example="acc = zeros(mi.len, ni.len, L0C)",
           stageless=True),
]

OPS: dict[str, OpSpec] = {op.name: op for op in OPS_LIST}


@dataclass(frozen=True)
class Reduction:
    """How a reduce, scan or window op combines the elements it reads (its row's `reduction`)."""
    combine: str            # the binary op (a row above) that combines two values: its API folds two tiles
    identity: float         # the value that changes nothing when combined: what a window's padding holds
    wins: str = ""          # max / min: how a value beats the one kept, in C++ (argmax keeps the first winner)
    mean: bool = False      # the combined sum divided by the positions counted (a window average)


REDUCTIONS: dict[str, Reduction] = {
    "sum": Reduction("add", 0.0),
    "prod": Reduction("mul", 1.0),
    "max": Reduction("max", -math.inf, ">"),
    "min": Reduction("min", math.inf, "<"),
    "avg": Reduction("add", 0.0, mean=True),
}


# -- where each category is lowered ----------------------------------------------------------------
# The tile kinds (`tiles.kind`) each category's lowering rule takes: "scalar" (every operand a
# scalar), "tile" (a dense tile: one axis, or a last axis of 1), "rows" (a tile of rows) and "cube"
# (a tile in L1 / L0A / L0B / L0C). The verifier accepts an operation only at these kinds, and at a
# tile dtype of its row's `dtypes`; passes/vector.py and passes/cube.py register one lowering function
# per (category, kind), and a test checks that the two agree. A category missing here is refused by
# the verifier: it has no lowering.
LOWERED: dict[str, frozenset[str]] = {cat: frozenset(kinds) for cat, kinds in (
    ("binary", ("scalar", "tile", "rows")),
    ("intbinary", ("scalar",)),
    ("compare", ("scalar", "tile", "rows")),
    ("unary", ("scalar", "tile", "rows")),
    ("select", ("tile", "rows")),
    ("clamp", ("scalar", "tile", "rows")),
    ("reduce", ("tile", "rows")),
    ("scan", ("tile",)),
    ("window", ("tile",)),
    ("element", ("tile",)),
    ("repeat", ("tile",)),
    ("gather", ("tile", "rows")),
    ("take", ("tile", "rows")),
    ("transpose", ("tile", "rows")),
    ("iota", ("tile",)),
    ("sort", ("tile",)),
    ("cast", ("scalar", "tile", "rows")),
    ("cube", ("cube",)),
)}


# -- how a window op is computed (read by the UB plan and by the lowering) --------------------------
_ZERO, _ONE = Const(0, "int"), Const(1, "int")


def window_form(call) -> str:
    """`blocks`: k = stride, no padding, dilation or count (the windows partition the tile: a
    segmented reduction); `gather`: windows inside the tile, gathered element j of every window
    at a time; `padded`: as gather, from a copy of the tile behind aligned padding."""
    k, stride, pad, dilation, count = call.args[1:6]
    if pad == _ZERO and count == _ZERO:
        return "blocks" if dilation == _ONE and k == stride else "gather"
    return "padded"


def window_scratch(call, in_place: bool = False) -> int:
    """Scratch tiles of a window op: the gather offsets and one gathered tile, plus the padded
    copy unless the source tile already lives padded in its own buffer (`in_place`, see
    buffers.padded_rows)."""
    form = window_form(call)
    return {"blocks": 0, "gather": 2, "padded": 2 if in_place else 3}[form]


def window_lead(call, block: int):
    """Padding slots in front of the row in the padded copy: `pad` rounded up to a whole 32-byte
    block of `block` elements, so the row itself starts on a block boundary."""
    pad = call.args[3]
    return fold("mul", fold("floordiv", fold("add", pad, Const(block - 1, "int")), Const(block, "int")),
                 Const(block, "int"))


def window_base(call, block: int):
    """Where element 0 of window 0 sits in the padded copy: lead - pad."""
    return fold("sub", window_lead(call, block), call.args[3])


def window_padded_len(call, length, count, block: int):
    """Elements of the padded copy: the lead padding (`window_lead`), the row, then padding up to
    the last element a window reads."""
    k, stride, pad, dilation = call.args[1:5]
    lead = window_lead(call, block)
    # the last window's last element is at (count - 1) * stride + (k - 1) * dilation - pad of the
    # row, i.e. at count * stride + (lead + (k - 1) * dilation - pad - stride) of the copy
    tail = fold("sub", fold("sub", fold("add", lead, fold("mul", fold("sub", k, _ONE), dilation)), pad), stride)
    reach = fold("add", fold("mul", count, stride), fold("add", tail, _ONE))
    return fold("max", fold("add", lead, length), reach)


# -- the meaning of scalar operations on Python numbers ---------------------------------------------
# One table, computed with by the host function's evaluator (host.py), the interpreter's integer
# scalars, constant folding (`fold`, the verifier's bounds) and the C++ checkers' evaluator
# (passes/cpp.py). min / max take two or more arguments; `/` and pow give floats.
SCALAR_MATH: dict[str, Callable] = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "div": operator.truediv,
    "floordiv": operator.floordiv, "mod": operator.mod, "neg": operator.neg, "min": min, "max": max,
    "pow": lambda a, b: float(a) ** float(b), "abs": abs, "relu": lambda x: max(x, 0),
    "clamp": lambda x, lo, hi: min(max(x, lo), hi),
    "lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge, "eq": operator.eq, "ne": operator.ne,
    "cdiv": lambda a, b: -(-a // b), "align_up": lambda a, m: -(-a // m) * m, "align_down": lambda a, m: a // m * m,
}


def fold(op: str, a, b):
    """`a op b` as an expression, folded when both sides are integer literals."""
    if isinstance(a, Const) and isinstance(b, Const) and a.kind == b.kind == "int":
        if op != "floordiv" or b.value:
            return Const(SCALAR_MATH[op](a.value, b.value), "int")
    if op == "mul" and _ONE in (a, b):
        return b if a == _ONE else a
    if op in ("add", "sub") and b == _ZERO:
        return a
    if op in ("add", "sub") and isinstance(b, Const) and b.kind == "int" and isinstance(a, Call) \
            and a.op in ("add", "sub") and isinstance(a.args[1], Const) and a.args[1].kind == "int":
        # (x + c) - d = x + (c - d): the constants of index arithmetic meet
        c = a.args[1].value if a.op == "add" else -a.args[1].value
        c += b.value if op == "add" else -b.value
        return a.args[0] if c == 0 else Call("add" if c > 0 else "sub", (a.args[0], Const(abs(c), "int")))
    return Call(op, (a, b))

# -- the host language's builtins (the @host tiling function) --------------------------------------

@dataclass(frozen=True)
class HostBuiltin:
    name: str
    params: tuple[OpParam, ...]
    doc: str
    variadic: bool = False   # min/max take two or more arguments

    @property
    def spelling(self) -> str:
        if self.variadic:
            return f"{self.name}(a, b, ...)"
        parts = [p.name if p.default is None else f"{p.name}={p.default.value}" for p in self.params]
        return f"{self.name}({', '.join(parts)})"


def _i(name, default=None):
    return OpParam(name, "int", None if default is None else Const(default, "int"))


HOST_BUILTINS: dict[str, HostBuiltin] = {b.name: b for b in (
    HostBuiltin("cdiv", (_i("a"), _i("b")), "ceil(a / b) for positive ints: blocks needed to cover a"),
    HostBuiltin("align_up", (_i("a"), _i("m")), "a rounded up to a multiple of m"),
    HostBuiltin("align_down", (_i("a"), _i("m")), "a rounded down to a multiple of m"),
    HostBuiltin("min", (_i("a"), _i("b")), "smallest argument", variadic=True),
    HostBuiltin("max", (_i("a"), _i("b")), "largest argument", variadic=True),
    HostBuiltin("pow", (OpParam("a", "scalar"), OpParam("b", "scalar")),
                "a ** b as a float (bias corrections and the like)"),
    HostBuiltin("ub_elems", (OpParam("dtype", "dtype"), _i("live", 1), _i("buffers", 2)),
                "largest tile (elements) such that `live` tiles, each `buffers` times (2 = double buffering), "
                "fit the UB for tiles (in a kernel that calls sync_all(), less SyncAll's UB work area); rounded "
                "down to whole 256-byte vector repeats (so also whole 32-byte blocks)"),
    HostBuiltin("core_split", (_i("rows"),),
                "`cores, per_core = core_split(rows)`: `rows` split over at most VECTOR_CORES cores, per_core = "
                "cdiv(rows, min(VECTOR_CORES, rows)) each, and no idle core (cores = cdiv(rows, per_core))"),
    HostBuiltin("fit_tile", (OpParam("dtype", "dtype"),),
                "largest tile (elements of dtype) whose UB plan fits: the compiler counts every buffer copy and "
                "scratch slot that grows with the tile (each buffer of another size as one more tile), i.e. "
                "ub_elems(dtype, live=<that count>, buffers=1)"),
    HostBuiltin("fit_rows", (OpParam("dtype", "dtype"), _i("cols")),
                "largest number of rows of `cols` columns (each row padded to a 32-byte pitch) whose UB plan "
                "fits, at least 1: the compiler counts the row-sized copies the plan holds per row of the tile "
                "(each buffer that does not grow with the rows as one more row)"),
)}

# Host builtins that give two values, spelled only as `a, b = name(...)`.
HOST_PAIRS = {"core_split": ("cores", "per_core")}
# Host builtins the verifier solves from the kernel's UB plan (the dtype is their first argument).
HOST_FITS = ("fit_tile", "fit_rows")

# Infix and prefix spellings, read by the parser and the printer.
BINARY_SYMBOLS = {op.symbol: op.name for op in OPS_LIST if op.symbol and op.category != "unary"}
UNARY_SYMBOLS = {op.symbol: op.name for op in OPS_LIST if op.symbol and op.category == "unary"}
PRECEDENCE = {"**": 7, "*": 5, "/": 5, "//": 5, "%": 5, "+": 4, "-": 4,
              "<": 2, "<=": 2, ">": 2, ">=": 2, "==": 2, "!=": 2}
UNARY_PRECEDENCE = 6

# Functions with the same name as a table op but spelled with the Python builtin (`abs(x)`,
# `max(a, b)`) need no alias; `**` and `pow` are the same op. Every category's rules (TYPE_RULES,
# EVAL_RULES, LOWER_RULES) are checked by tests/dsl/test_op_rules.py.
assert all(op.reduction in REDUCTIONS for op in OPS_LIST if op.reduction)
assert FLOATS >= {DType.f16, DType.f32}
