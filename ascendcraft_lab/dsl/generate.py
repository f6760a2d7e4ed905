"""Random valid DSL programs for differential testing of the compiler (issue 38).

`generate(draw)` writes one kernel, typed by construction so that the verifier accepts it, and its
inputs. Every decision is one `draw` choice, so a program is a list of small ints: `Draws(seed)`
makes them up from a seed and records them, `Replay(choices)` plays a recorded list back (0 past
its end, a value clamped into range), and a shrinker (`backends/emulator/difftest.minimise`) cuts
and lowers choices to find the smallest program that still fails, as hypothesis does. Choice 0 is
always the simplest option, so shorter lists give smaller programs.

The operations come from the op table (`ops.OPS`): any elementwise binary, unary and comparison op
that the vector unit supports for the drawn dtype, so a new row of the table is generated without
a change here. What the generator adds is the domain of an op (the numpy meaning of `log(-1)` is
nan, `exp(100)` overflows f16, a rounding op of a computed value may land on either side of a
step): `GUARDS` wraps such an operand so that both implementations compute finite, well-defined
values, and a program compares like for like.

Forms (a program has one, plus the features it drew; `Case.forms` names them):
  flat      1-D tensors split over the cores (core_chunk, or core_split), tiles with a tail
  rows1d    a tensor of rows, one row at a time in 1-D tiles along it; optionally two sweeps (a
            reduction of the row into a scalar, then the row again using it) and a byte mask
  rows2d    tiles of rows (R x C) with a (C,) broadcast, a (B, 1) per-row value, row reductions
            (keepdim) and a per-row output
  carried   a loop-carried tile of rows, acc = acc + (S, 1) x (C,) products over a range loop,
            stored as S rows C apart (the mHC post-mapping)
  planes    tiles of planes (P, H, W) with a value per plane (P, 1, 1) and a (W,) row
  global    two phases: each core adds a partial sum into a Workspace, sync_all(), each core reads
            the total back and uses it
  views     every step-th row (a stepped slice), a flipped middle axis, a concatenation by stores
            at an offset
  cube      C = A @ B on the cube (f32, f16, bf16 or i8 inputs; B as (K, N), or as (N, K) moved
            transposed), stored from L0C, or through a Workspace, sync_all() and a vector epilogue
  window    pooling windows of a row: a windows() view (k, stride as scalars), or a whole row with
            padding and dilation; max, min, sum, avg
  sort      argsort of a whole row (ascending or descending, all or the top k), its values gathered
            with take() and its positions stored as i32 or i64
  casts     bf16 or i8 tensors: loaded, cast to f32 (i8 through f16), computed, cast back
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

import numpy as np

from .ir import DType
from .ops import OPS

FORMS = ("flat", "rows1d", "rows2d", "carried", "planes", "global", "views", "cube", "window", "sort", "casts")
DTYPES = (DType.f32, DType.f16, DType.i32)      # i32: the forms that need no reduction
LITERALS = ("0.5", "2.0", "1.5", "-1.0", "3.0", "0.25")
INT_LITERALS = ("2", "1", "-3", "0", "5")
# Operand domains: op -> how its operand is made safe ("" none). Ops not listed take any operand.
GUARDS = {"log": "positive", "sqrt": "positive", "rsqrt": "positive", "reciprocal": "nonzero",
          "exp": "bounded", "rint": "leaf", "floor": "leaf", "ceil": "leaf", "trunc": "leaf"}
BINARY_GUARDS = {"div": "nonzero", "pow": "power"}   # on the second operand


class Draws:
    """Choices from a seeded random generator, recorded (`choices`) for replay and shrinking."""

    def __init__(self, seed: int | str = 0):
        self.rnd = random.Random(seed)
        self.choices: list[int] = []

    def _next(self, n: int) -> int:
        return self.rnd.randrange(n)

    def below(self, n: int) -> int:
        """A choice in [0, n): 0 is the simplest."""
        k = self._next(n) if n > 1 else 0
        self.choices.append(k)
        return k

    def pick(self, options):
        return options[self.below(len(options))]

    def flag(self, p_true: float = 0.5) -> bool:
        """True with about `p_true`; False (choice 0) is the simpler side."""
        return self.below(100) >= round(100 * (1 - p_true))


class Replay(Draws):
    """Plays recorded choices back: one past the end is 0, one out of range is clamped."""

    def __init__(self, choices: list[int]):
        super().__init__(0)
        self.recorded = list(choices)

    def _next(self, n: int) -> int:
        i = len(self.choices)
        return min(self.recorded[i], n - 1) if i < len(self.recorded) else 0


@dataclass
class Case:
    text: str
    inputs: dict                       # GM name -> array
    scalars: dict                      # scalar param name -> value
    forms: set = field(default_factory=set)
    shapes: dict = field(default_factory=dict)

    @property
    def form(self) -> str:
        return next(f for f in FORMS if f in self.forms)


class _Expr:
    """Random expressions over named operands of kinds: "full" (the tile's shape), "row" (a (C,)
    broadcast), "col" (a (R, 1) per-row value) or "scalar"."""

    def __init__(self, d: Draws, dtype: DType, leaves: dict[str, str], used: set, forms: set):
        self.d, self.dtype, self.leaves, self.used, self.forms = d, dtype, leaves, used, forms
        self.binary = [n for n, s in OPS.items() if s.category == "binary" and dtype in s.dtypes]
        self.unary = [n for n, s in OPS.items() if s.category == "unary" and dtype in s.dtypes]
        self.compare = [n for n, s in OPS.items() if s.category == "compare" and dtype in s.dtypes]
        if dtype not in OPS["where"].dtypes:
            self.compare = []
        self.reduce = [n for n in ("reduce_max", "reduce_sum", "reduce_min") if dtype in OPS[n].dtypes]
        self.literals = INT_LITERALS if dtype.is_int else LITERALS

    def leaf(self, kind: str) -> str:
        names = [n for n, k in self.leaves.items() if k == kind]
        if kind == "scalar" or not names:
            return self.d.pick(self.literals + tuple(n for n, k in self.leaves.items() if k == "scalar"))
        name = self.d.pick(names)
        self.used.add(name)
        return name

    def full(self, depth: int, kind: str = "full") -> str:
        """An expression of `kind` ("full" or "col"): a leaf, a unary op, a binary op with an
        operand of a kind that broadcasts to it, a where(), a row reduction (col)."""
        choice = self.d.below(6) if depth > 0 else 0
        if choice == 0:
            return self.leaf(kind) if self.has(kind) or not self.reduce else self._col_from_full(0)
        if choice == 1:
            return self.unary_of(depth, kind)
        if choice in (2, 3):
            return self.binary_of(kind, depth)
        if choice == 4 and kind == "full" and self.compare:
            return self.select(depth)
        if kind == "col" and self.reduce:
            return self._col_from_full(depth - 1)
        if kind == "full" and self.has("row") and (self.has("col") or self.reduce):
            self.forms.add("two-stretched")       # (C,) with (R, 1): both operands stretched
            op = self.d.pick(self.binary[:3] + ["max"])
            a, b = self.leaf("row"), self.full(depth - 1, "col")
            return f"({a}) {OPS[op].symbol} ({b})" if OPS[op].symbol else f"{op}({a}, {b})"
        return self.binary_of(kind, depth)

    def has(self, kind: str) -> bool:
        return any(k == kind for k in self.leaves.values())

    def _col_from_full(self, depth: int) -> str:
        self.forms.add("row-reduction")
        op = self.d.pick(self.reduce)
        return f"{op}({self.full(depth, 'full')}, axis=-1, keepdim=True)"

    def other(self, kind: str, depth: int) -> str:
        """An operand that broadcasts against `kind`."""
        kinds = ["scalar", kind] + (["row", "col", "one"] if kind == "full" else [])
        k = self.d.pick([k for k in kinds if k in ("scalar", kind) or self.has(k) or (k == "col" and self.reduce)])
        if k == "scalar":
            return self.leaf("scalar")
        if k == "one":
            self.forms.add("one-element-once-per-core")
            return self.leaf("one")
        if k == "col" and kind == "full":
            self.forms.add("col-broadcast")
            return self.full(max(depth - 1, 0), "col")
        if k == "row":
            self.forms.add("row-broadcast")
            if self.reduce and self.d.flag(0.3):          # the rows folded into one: (C,) of a 2-D tile
                self.forms.add("fold-rows")
                return f"{self.d.pick(self.reduce)}({self.full(max(depth - 1, 0))}, axis=0)"
            return self.leaf("row")
        return self.full(depth - 1, kind)

    def unary_of(self, depth: int, kind: str = "full") -> str:
        op = self.d.pick(self.unary)
        guard = GUARDS.get(op, "")
        if guard == "leaf":             # a rounding op of a computed value may step either way: of a leaf only
            if not self.has(kind):
                return f"abs({self.full(depth - 1, kind)})"
            a = self.leaf(kind)
        else:
            a = self.full(depth - 1, kind)
        if OPS[op].symbol:
            return f"{OPS[op].symbol}({a})"
        return f"{op}({self.guard(a, guard)})"

    def guard(self, a: str, how: str) -> str:
        if how == "positive":
            return f"abs({a}) + 1.0"
        if how == "nonzero":
            return f"abs({a}) + 0.5"
        if how == "bounded":
            return f"clamp({a}, -4.0, 4.0)"
        return a

    def binary_of(self, kind: str, depth: int) -> str:
        op = self.d.pick(self.binary)
        a = self.full(depth - 1, kind)
        guard = BINARY_GUARDS.get(op, "")
        if guard == "power":
            # 5 and 8: products of any sign, as 2 and 3 (f32 only: an f16 power of 8 overflows near the boundary)
            return f"({a}) ** {self.d.pick(('2', '3', '1') + (('5', '8') if self.dtype is DType.f32 else ()))}"
        b = self.other(kind, depth)
        if guard:
            b = self.guard(b, guard)
        if self.d.flag(0.3) and not guard:
            a, b = b, a
        sym = OPS[op].symbol
        return f"({a}) {sym} ({b})" if sym else f"{op}({a}, {b})"

    def select(self, depth: int) -> str:
        self.forms.add("where")
        mask = [n for n, k in self.leaves.items() if k == "mask"]
        if mask and self.d.flag(0.5):
            self.forms.add("byte-mask")
            m = self.d.pick(mask)
            self.used.add(m)
        else:
            cmp = OPS[self.d.pick(self.compare)].symbol
            m = f"{self.leaf('full')} {cmp} {self.d.pick(('0.0', '0.5', '-0.5'))}"
            self.forms.add("compare")
        a = self.full(depth - 1) if self.d.flag(0.7) else self.d.pick(("0.0", "-inf", "1.0"))
        b = self.full(depth - 1)
        if self.d.flag(0.3):
            a, b = b, a
        return f"where({m}, {a}, {b})"


def _dims(d: Draws) -> tuple[int, int]:
    rows = d.pick((3, 1, 2, 5, 7, 13, 48, 49, 50, 97))
    cols = d.pick((37, 1, 8, 16, 17, 33, 64, 100, 257, 9))
    return rows, cols


def _chain(d: Draws, ex: _Expr, n_stmts: int, depth: int, base: str) -> tuple[list[str], str]:
    """Compute statements v0 = base (op) ..., v1 = v0 (op) ...: each reads the one before, the first
    reads `base` (the tile that gives the host its dims), so no statement is a plain copy."""
    lines, prev = [], base
    for i in range(n_stmts):
        e = ex.full(depth)
        sym = OPS[d.pick(ex.binary[:3])].symbol
        lines.append(f"v{i} = {prev} {sym} ({e})")
        prev = f"v{i}"
    ex.used.add(base)
    return lines, prev


def _flat(d: Draws, dtype: DType, forms: set) -> tuple[str, dict, dict]:
    n = d.pick((1001, 1, 7, 64, 100, 257, 4096, 5003, 33))
    k = d.below(3) + 1                               # tensors
    split = d.pick(("align", "core_split", "plain"))
    tile = d.pick((64, 8, 16, 24, 100, 256, 7))
    leaves = {f"x{i}u": "full" for i in range(k)}
    if d.flag(0.3):
        leaves["alpha"] = "scalar"
    if d.flag(0.25):
        leaves["m0u"] = "mask"
    if d.flag(0.25):
        leaves["w0u"] = "one"
    used: set = set()
    ex = _Expr(d, dtype, leaves, used, forms)
    body, last = _chain(d, ex, d.below(2) + 1, d.below(3), "x0u")
    used = _names_in(body, list(leaves))
    T = dtype.value
    params = [f"x{i}: GM[{T}, (N,)]" for i in range(k) if f"x{i}u" in used]
    params += ["m0: GM[bool, (N,)]"] if "m0u" in used else []
    params += [f"w0: GM[{T}, (1,)]"] if "w0u" in used else []
    scalar_t = "i32" if dtype.is_int else "f32"
    params += [f"y: Out[{T}, (N,)]"] + ([f"alpha: {scalar_t}"] if "alpha" in leaves else []) + ["t: Tiling"]
    host_params = [p.replace("GM[", "Tensor[") for p in params if p.startswith("x")]
    if split == "core_split":
        host = ["cores, chunk = core_split(N)"]
    elif split == "align":
        host = [f"chunk = align_up(cdiv(N, {d.pick((4, 3, 48, 1))}), 8)", "cores = cdiv(N, chunk)"]
    else:
        host = [f"chunk = cdiv(N, {d.pick((3, 2, 48, 5))})", "cores = cdiv(N, chunk)"]
    loads = [f"{name} = load({name[:-1]}[c])" for name in sorted(used) if leaves.get(name) in ("full", "mask")]
    once = ["with copyin:", "    w0u = load(w0[:])"] if "w0u" in used else []
    kernel = [*once, "for part in core_chunk(t.chunk, N):", "    for c in tiles(part, t.tile):",
              "        with copyin:", *[f"            {x}" for x in loads],
              "        with compute:", *[f"            {x}" for x in body],
              "        with copyout:", f"            store(y[c], {last})"]
    text = _program(host_params, host + [f"return Launch(cores, chunk=chunk, tile={tile})"], params, kernel)
    shapes = {f"x{i}": (n,) for i in range(k) if f"x{i}u" in used}
    if "m0u" in used:
        shapes["m0"] = (n,)
    if "w0u" in used:
        shapes["w0"] = (1,)
    forms.add(f"split-{split}")
    return text, shapes, ({"alpha": 3 if dtype.is_int else 0.75} if "alpha" in leaves else {})


def _rows1d(d: Draws, dtype: DType, forms: set) -> tuple[str, dict, dict]:
    b, c = _dims(d)
    tile = d.pick((64, 8, 16, 24, 256, 7))
    sweeps = d.flag(0.5)
    leaves = {"x0u": "full", "x1u": "full"}
    if d.flag(0.3):
        leaves["m0u"] = "mask"
    used: set = set()
    ex = _Expr(d, dtype, leaves, used, forms)
    T = dtype.value
    pre, first = [], []
    if sweeps:
        forms.add("two-sweeps")
        red = d.pick(("reduce_sum", "reduce_max", "reduce_min"))
        comb = {"reduce_sum": "s + ", "reduce_max": "max(s, ", "reduce_min": "min(s, "}[red]
        close = "" if red == "reduce_sum" else ")"
        start = {"reduce_sum": "0.0", "reduce_max": "-inf", "reduce_min": "inf"}[red]
        inner = ex.full(d.below(2))
        pre = ["s = " + start]
        first = [f"s = {comb}{red}({inner}){close}"]
        leaves["s"] = "scalar"
        used_first = _names_in(first, list(leaves))
    body, last = _chain(d, ex, d.below(2) + 1, d.below(3), "x0u")
    if d.flag(0.2):                  # a gather within the tile: reversed, or shifted by one and clamped
        forms.add("take")
        ix = d.pick(("(c.len - 1) - iota(c.len, dtype=i32)", "min(iota(c.len, dtype=i32) + 1, c.len - 1)"))
        body += [f"ix = {ix}", f"g = take({last}, ix) + {last}"]
        last = "g"
    scans = [n for n, spec in OPS.items() if spec.category == "scan" and dtype in spec.dtypes]
    carry = []
    if scans and d.flag(0.3):        # a running scan along the row, continued across tiles by a carry
        op = d.pick(scans)
        forms.add("scan")
        # an f16 scan adds up the row as loaded: a computed f16 row is a rounding order away from the other
        # implementation's (a 1-ulp different ReduceSum), and a running sum's cancellation turns that into
        # errors no f16 tolerance covers (seed slice-38, program 32)
        base = last if dtype is DType.f32 else "x0u"
        start, arg = ("1.0", f"0.01 * {base} + 1.0") if OPS[op].reduction == "prod" else ("0.0", base)
        carry = [f"carry = {start}"]
        end = f"{'first' if OPS[op].reverse else 'last'}(q)"
        body += [f"q = {op}({arg}, init=carry)", f"carry = {end if dtype is DType.f32 else f'cast({end}, f32)'}"]
        last = "q"
    used = _names_in(body + first, list(leaves))
    names = sorted(n for n in used if leaves.get(n) in ("full", "mask"))
    params = [f"x{i}: GM[{T}, (B, C)]" for i in range(2) if f"x{i}u" in used]
    params += ["m0: GM[bool, (B, C)]"] if "m0u" in used else []
    params += [f"y: Out[{T}, (B, C)]", "t: Tiling"]
    host_params = [p.replace("GM[", "Tensor[") for p in params if p.startswith("x")]
    kernel = ["for r in core_rows(t.per, B):"]
    if sweeps:
        kernel += [f"    {pre[0]}", "    for c in tiles(C, t.tile):", "        with copyin:",
                   *[f"            {n} = load({n[:-1]}[r, c])" for n in sorted(used_first & set(names))],
                   "        with compute:", f"            {first[0]}"]
    kernel += [f"    {x}" for x in carry]
    kernel += ["    for c in tiles(C, t.tile):", "        with copyin:",
               *[f"            {n} = load({n[:-1]}[r, c])" for n in names if not sweeps or n in _names_in(body, names)],
               "        with compute:", *[f"            {x}" for x in body],
               "        with copyout:", f"            store(y[r, c], {last})"]
    text = _program(host_params, ["cores, per = core_split(B)", f"return Launch(cores, per=per, tile={tile})"],
                    params, kernel)
    shapes = {n[:-1]: (b, c) for n in names}
    return text, shapes, {}


def _names_in(lines: list[str], names: list[str]) -> set:
    """The names of `names` that the lines read."""
    words = {w for line in lines for w in re.findall(r"[A-Za-z_]\w*", line)}
    return {n for n in names if n in words}


def _rows2d(d: Draws, dtype: DType, forms: set) -> tuple[str, dict, dict]:
    b, c = _dims(d)
    rows = d.pick((4, 1, 2, 3, 8))
    cols = d.pick((0, 16, 8, 24, 64, 7))              # 0: whole rows, else tiles of `cols` columns
    leaves = {"x0u": "full", "x1u": "full"}
    if d.flag(0.5):
        leaves["b0u"] = "row"
    if d.flag(0.5):
        leaves["s0u"] = "col"
    if d.flag(0.2):
        leaves["w0u"] = "one"
    used: set = set()
    ex = _Expr(d, dtype, leaves, used, forms)
    body, last = _chain(d, ex, d.below(2) + 1, d.below(3), "x0u")
    per_row = not cols and bool(ex.reduce) and d.flag(0.25)
    if per_row:
        forms.add("per-row-output")
        body.append(f"w = {ex._col_from_full(1)}")
    T = dtype.value
    names = _names_in(body, [n for n in leaves if leaves[n] != "scalar"])
    decl = {"x0u": f"x0: GM[{T}, (B, C)]", "x1u": f"x1: GM[{T}, (B, C)]", "b0u": f"b0: GM[{T}, (C,)]",
            "s0u": f"s0: GM[{T}, (B, 1)]", "w0u": f"w0: GM[{T}, (1,)]"}
    params = [decl[n] for n in sorted(names)] + [f"y: Out[{T}, (B, C)]"]
    params += [f"z: Out[{T}, (B, 1)]"] if per_row else []
    params += ["t: Tiling"]
    host_params = [p.replace("GM[", "Tensor[") for p in params if p.startswith("x")]
    k = "k" if cols else ":"
    view = {"x0u": f"x0[c, {k}]", "x1u": f"x1[c, {k}]", "b0u": f"b0[{k}]", "s0u": "s0[c, :]"}
    once = ["with copyin:", "    w0u = load(w0[:])"] if "w0u" in names else []
    loop = ["    for k in tiles(C, t.cols):", "    " if cols else ""]
    if cols:
        forms.add("column-tiles")
    kernel = [*once, "for part in core_chunk(t.per, B):", *loop[:1 if cols else 0],
              "    for c in tiles(part, t.rows):", "        with copyin:",
              *[f"            {n} = load({view[n]})" for n in sorted(names) if n in view],
              "        with compute:", *[f"            {x}" for x in body],
              "        with copyout:", f"            store(y[c, {k}], {last})"]
    if per_row:
        kernel.append("            store(z[c, :], w)")
    if cols:      # the c loop and its stages one level deeper, inside the k loop
        at = kernel.index("    for c in tiles(part, t.rows):")
        kernel = kernel[:at] + ["    " + x for x in kernel[at:]]
    fields = f"rows={rows}" + (f", cols={cols}" if cols else "")
    text = _program(host_params, ["cores, per = core_split(B)", f"return Launch(cores, per=per, {fields})"],
                    params, kernel)
    shapes = {"x0": (b, c), "x1": (b, c), "b0": (c,), "s0": (b, 1), "w0": (1,)}
    return text, {k: v for k, v in shapes.items() if f"{k}u" in names}, {}


def _carried(d: Draws, dtype: DType, forms: set) -> tuple[str, dict, dict]:
    b = d.pick((2, 1, 3, 5))
    s = d.pick((4, 1, 2, 3, 5))
    c = d.pick((100, 8, 17, 64, 257))
    tile = d.pick((64, 16, 24, 128))
    T = dtype.value
    comb = d.pick(("acc + hj * xj", "max(acc, hj * xj)", "acc * 0.5 + hj * xj", "acc - xj * hj"))
    out = d.pick(("acc + 0.0", "acc * 2.0", "relu(acc)"))
    kernel = ["for b in core_rows(t.per, B):", "    for c in tiles(C, t.tile):", "        with copyin:",
              "            h0 = load(h[b, 0, :, :])", "            x0 = load(x[b, 0, c])",
              "        with compute:", "            acc = h0 * x0",
              "        for j in range(1, S):", "            with copyin:",
              "                hj = load(h[b, j, :, :])", "                xj = load(x[b, j, c])",
              "            with compute:", f"                acc = {comb}",
              "        with compute:", f"            yu = {out}",
              "        with copyout:", "            store(y[b, :, c], yu)"]
    params = [f"h: GM[{T}, (B, S, S, 1)]", f"x: GM[{T}, (B, S, C)]", f"y: Out[{T}, (B, S, C)]", "t: Tiling"]
    text = _program([f"x: Tensor[{T}, (B, S, C)]"],
                    ["cores, per = core_split(B)", f"return Launch(cores, per=per, tile={tile})"], params, kernel)
    return text, {"h": (b, s, s, 1), "x": (b, s, c)}, {}


def _planes(d: Draws, dtype: DType, forms: set) -> tuple[str, dict, dict]:
    p = d.pick((3, 1, 2, 5, 49))
    h = d.pick((3, 1, 2, 5))
    w = d.pick((17, 1, 8, 33, 64))
    planes = d.pick((2, 1, 3, 4))
    leaves = {"x0u": "full", "x1u": "full"}
    if d.flag(0.5):
        leaves["s0u"] = "col"            # a value per plane, (P, 1, 1)
    if d.flag(0.4):
        leaves["b0u"] = "row"            # a (W,) row for every row of every plane
    used: set = set()
    ex = _Expr(d, dtype, leaves, used, forms)
    ex.reduce = []                        # a per-row value of planes is another broadcast: not drawn here
    body, last = _chain(d, ex, d.below(2) + 1, d.below(3), "x0u")
    T = dtype.value
    names = _names_in(body, [n for n in leaves if leaves[n] != "scalar"])
    decl = {"x0u": f"x0: GM[{T}, (P, H, W)]", "x1u": f"x1: GM[{T}, (P, H, W)]", "s0u": f"s0: GM[{T}, (P, 1, 1)]",
            "b0u": f"b0: GM[{T}, (W,)]"}
    view = {"x0u": "x0[c, :, :]", "x1u": "x1[c, :, :]", "s0u": "s0[c, :, :]", "b0u": "b0[:]"}
    params = [decl[n] for n in sorted(names)] + [f"y: Out[{T}, (P, H, W)]", "t: Tiling"]
    kernel = ["for part in core_chunk(t.per, P):", "    for c in tiles(part, t.planes):", "        with copyin:",
              *[f"            {n} = load({view[n]})" for n in sorted(names)],
              "        with compute:", *[f"            {x}" for x in body],
              "        with copyout:", f"            store(y[c, :, :], {last})"]
    text = _program([f"x0: Tensor[{T}, (P, H, W)]"],
                    ["cores, per = core_split(P)", f"return Launch(cores, per=per, planes={planes})"], params, kernel)
    shapes = {"x0": (p, h, w), "x1": (p, h, w), "s0": (p, 1, 1), "b0": (w,)}
    return text, {k: v for k, v in shapes.items() if f"{k}u" in names}, {}


def _global(d: Draws, dtype: DType, forms: set) -> tuple[str, dict, dict]:
    """Two phases: every core adds its part of a sum into a Workspace (atomic add), sync_all(), then
    every core reads the total and uses it on its part."""
    n = d.pick((1001, 7, 64, 257, 4096, 33))
    tile = d.pick((64, 8, 24, 256))
    split = d.pick((4, 3, 48, 2))
    dtype = DType.f32
    forms.discard("f16")
    forms.add("f32")
    forms.add("workspace-sync_all")
    leaves = {"x0u": "full", "x1u": "full"}
    used: set = set()
    ex = _Expr(d, dtype, leaves, used, forms)
    ex.reduce = []
    inner = ex.full(d.below(2))
    leaves["tot"] = "scalar"                 # the total, known in the second phase
    body, last = _chain(d, ex, d.below(2) + 1, d.below(2), "x0u")
    if "tot" not in _names_in(body, ["tot"]):
        body[-1] = body[-1].replace(" = ", " = tot * ", 1) if d.flag(0.5) else body[-1] + " + tot"
    first = _names_in([inner], ["x0u", "x1u"])
    second = _names_in(body, ["x0u", "x1u"])
    params = [f"x{i}: GM[f32, (N,)]" for i in range(2) if f"x{i}u" in first | second]
    loss = d.flag(0.4)              # the total also as a 0-d output, added into by every core
    params += ["y: Out[f32, (N,)]"] + (["loss: Out[f32, ()]"] if loss else [])
    params += ["ws: Workspace[f32, (8,)]", "t: Tiling"]
    kernel = ["for part in core_chunk(t.chunk, N):", "    s = 0.0", "    for c in tiles(part, t.tile):",
              "        with copyin:", *[f"            {x} = load({x[:-1]}[c])" for x in sorted(first)],
              "        with compute:", f"            s = s + reduce_sum({inner})",
              "    with copyout:", "        store(ws[0], s, accumulate=True)",
              *(["        store(loss, s, accumulate=True)"] if loss else []),
              "sync_all()", "with copyin:", "    tot = load(ws[0])",
              "for part in core_chunk(t.chunk, N):", "    for c in tiles(part, t.tile):",
              "        with copyin:", *[f"            {x} = load({x[:-1]}[c])" for x in sorted(second)],
              "        with compute:", *[f"            {x}" for x in body],
              "        with copyout:", f"            store(y[c], {last})"]
    host = [f"chunk = align_up(cdiv(N, {split}), 8)", "cores = cdiv(N, chunk)",
            f"return Launch(cores, chunk=chunk, tile={tile})"]
    text = _program(["x0: Tensor[f32, (N,)]"], host, params, kernel)
    return text, {f"x{i}": (n,) for i in range(2) if f"x{i}u" in first | second}, {}


def _views(d: Draws, dtype: DType, forms: set) -> tuple[str, dict, dict]:
    """GM views: every step-th row of a plane (one strided copy), a flip of the middle axis (a scalar
    index counted from the end), or a concatenation of two results along the last axis (stores at
    an offset)."""
    bb = d.pick((2, 1, 3, 5))
    h = d.pick((5, 1, 2, 4, 7))
    w = d.pick((17, 8, 33, 64, 1))
    tile = d.pick((16, 8, 24, 64))
    kind = d.pick(("stepped", "flip", "concat"))
    step = d.pick((2, 3))
    forms.add(f"view-{kind}")
    leaves = {"x0u": "full", "x1u": "full"}
    used: set = set()
    ex = _Expr(d, dtype, leaves, used, forms)
    ex.reduce = []
    body, last = _chain(d, ex, d.below(2) + 1, d.below(3), "x0u")
    T = dtype.value
    names = sorted(_names_in(body, ["x0u", "x1u"]))
    params = [f"x{i}: GM[{T}, (B, H, W)]" for i in range(2) if f"x{i}u" in names]
    if kind == "stepped":
        out = f"(B, (H + {step - 1}) // {step}, W)"
        loop = ["for b in core_rows(t.per, B):", "    for k in tiles(W, t.tile):"]
        views = {n: f"{n[:-1]}[b, 0:H:{step}, k]" for n in names}
        stores = [f"store(y[b, :, k], {last})"]
    elif kind == "flip":
        out = "(B, H, W)"
        loop = ["for b in core_rows(t.per, B):", "    for q in range(H):", "        for k in tiles(W, t.tile):"]
        views = {n: f"{n[:-1]}[b, H - 1 - q, k]" for n in names}
        stores = [f"store(y[b, q, k], {last})"]
    else:
        out = "(B, H, 2 * W)"
        loop = ["for b in core_rows(t.per, B):", "    for k in tiles(W, t.tile):"]
        views = {n: f"{n[:-1]}[b, :, k]" for n in names}
        body.append(f"u = x0u * {ex.literals[0]}")
        stores = [f"store(y[b, :, k], {last})", "store(y[b, :, k.start + W:k.start + W + k.len], u)"]
    params += [f"y: Out[{T}, {out}]", "t: Tiling"]
    pad = " " * (4 * len(loop))
    kernel = loop + [f"{pad}with copyin:", *[f"{pad}    {n} = load({views[n]})" for n in names],
                     f"{pad}with compute:", *[f"{pad}    {x}" for x in body],
                     f"{pad}with copyout:", *[f"{pad}    {x}" for x in stores]]
    text = _program([f"x0: Tensor[{T}, (B, H, W)]"],
                    ["cores, per = core_split(B)", f"return Launch(cores, per=per, tile={tile})"], params, kernel)
    return text, {n[:-1]: (bb, h, w) for n in names}, {}


def _cube(d: Draws, dtype: DType, forms: set) -> tuple[str, dict, dict, dict]:
    """C = A @ B on the cube: core_tiles over C's blocks, K in base_k slices GM -> L1 -> L0A / L0B ->
    mmad into L0C; stored from L0C, or (f32) through a Workspace, sync_all() and a vector epilogue.
    Base sizes are whole fractals (multiples of 16 rows, 32 columns), or cover their axis."""
    m = d.pick((16, 1, 17, 33, 64, 100, 130))
    k = d.pick((16, 8, 1, 31, 64, 100, 70))
    n = d.pick((16, 1, 15, 40, 64, 129))
    src = d.pick((DType.f32, DType.f16, DType.bf16, DType.i8))
    forms.discard(dtype.value)
    forms.add(f"cube-{src.value}")
    acc_t = DType.i32 if src is DType.i8 else DType.f32
    out = acc_t if src is DType.i8 else d.pick((DType.f32, src))
    # B given as (N, K): moved to L0B transposed (an i8 B must be: i8 fractals move as they are)
    bt = d.flag(0.4) or src is DType.i8
    epilogue = out is DType.f32 and d.flag(0.4)
    if bt:
        forms.add("cube-transposed-b")
    bm, bn, bk = d.pick((128, 16, 32, 64)), d.pick((128, 16, 32, 64)), d.pick((64, 32))
    S, O, A = src.value, out.value, acc_t.value
    b_decl = f"b: GM[{S}, (N, K)]" if bt else f"b: GM[{S}, (K, N)]"
    host_params = [f"a: Tensor[{S}, (M, K)]", b_decl.replace("GM[", "Tensor[")]
    host = [f"base_m = min({bm}, align_up(M, 16))", f"base_n = min({bn}, align_up(N, 16))",
            f"base_k = min({bk}, align_up(K, 32))", "cores = min(CUBE_CORES, cdiv(M, base_m) * cdiv(N, base_n))"]
    fields = "base_m=base_m, base_n=base_n, base_k=base_k"
    kernel = ["for mi, ni in core_tiles((M, N), (t.base_m, t.base_n)):",
              f"    acc = zeros(mi.len, ni.len, L0C{'' if acc_t is DType.f32 else ', dtype=' + A})",
              "    for ki in tiles(K, t.base_k):", "        with copyin:", "            a1 = load(a[mi, ki], L1)",
              f"            b1 = load(b[{'ni, ki' if bt else 'ki, ni'}], L1)", "        with split:",
              "            a0 = load(a1, L0A)", f"            b0 = load(b1, L0B{', transpose=True' if bt else ''})",
              "        with compute:", "            acc = mmad(a0, b0, acc)", "    with copyout:"]
    params = [f"a: GM[{S}, (M, K)]", b_decl, f"y: Out[{O}, (M, N)]"]
    if epilogue:
        forms.add("cube-epilogue")
        leaves = {"hu": "full"}
        if d.flag(0.5):
            leaves["bu"] = "row"
        ex = _Expr(d, DType.f32, leaves, set(), forms)
        ex.reduce = []
        body, last = _chain(d, ex, d.below(2) + 1, d.below(2), "hu")
        names = _names_in(body, list(leaves))
        params += ["bias: GM[f32, (N,)]"] if "bu" in names else []
        params += ["xw: Workspace[f32, (M, N)]"]
        host.append("rows = cdiv(M, cores)")
        fields += f", rows=rows, tile={d.pick((64, 16, 100))}"
        kernel += ["        store(xw[mi, ni], acc)", "sync_all()", "for r in core_rows(t.rows, M):",
                   "    for c in tiles(N, t.tile):", "        with copyin:", "            hu = load(xw[r, c])",
                   *(["            bu = load(bias[c])"] if "bu" in names else []),
                   "        with compute:", *[f"            {x}" for x in body],
                   "        with copyout:", f"            store(y[r, c], {last})"]
    else:
        kernel += ["        store(y[mi, ni], acc)"]
    params += ["t: Tiling"]
    text = _program(host_params, host + [f"return Launch(cores, {fields})"], params, kernel)
    shapes = {"a": (m, k), "b": (n, k) if bt else (k, n)}
    dtypes = {"a": src, "b": src}
    if epilogue and "bias: GM[f32, (N,)]" in params:
        shapes["bias"], dtypes["bias"] = (n,), DType.f32
    return text, shapes, {}, dtypes


def _window(d: Draws, dtype: DType, forms: set) -> tuple[str, dict, dict]:
    """Pooling windows along a row: a windows() view of the output tile's windows (k and stride as
    scalar parameters, as max_pool1d), or a whole row with padding and dilation."""
    dtype = dtype if dtype in (DType.f32, DType.f16) else DType.f32
    ops = [n for n, spec in OPS.items() if spec.category == "window" and dtype in spec.dtypes]
    op = d.pick(ops)
    forms.add(op)
    b = d.pick((3, 1, 2, 5, 48))
    k = d.pick((2, 3, 1, 4))
    stride = d.pick((2, 1, 3))
    T = dtype.value
    if d.flag(0.5):
        forms.add("window-view")
        length = d.pick((17, 8, 33, 100, 257)) + k
        host = ["cores, per = core_split(B)", f"return Launch(cores, per=per, tile={d.pick((8, 1, 16, 64))})"]
        count = "(L - k) // s + 1"
        kernel = ["for r in core_rows(t.per, B):", f"    for c in tiles({count}, t.tile):", "        with copyin:",
                  "            xu = load(x[r, windows(c, k, s)])", "        with compute:",
                  f"            yu = {op}(xu, k, s)", "        with copyout:", "            store(y[r, c], yu)"]
        params = [f"x: GM[{T}, (B, L)]", "k: i32", "s: i32", f"y: Out[{T}, (B, {count})]", "t: Tiling"]
        text = _program([f"x: Tensor[{T}, (B, L)]", "k: i32", "s: i32"], host, params, kernel)
        return text, {"x": (b, length)}, {"k": k, "s": stride}
    forms.add("window-row")
    pad = d.below(k // 2 + 1)
    dil = d.pick((1, 2)) if k > 1 else 1
    length = d.pick((17, 8, 33, 100, 5)) + dil * (k - 1)
    extra = 2 * pad - dil * (k - 1) - 1
    count = f"(L {'+' if extra >= 0 else '-'} {abs(extra)}) // {stride} + 1"
    kernel = ["for r in core_rows(t.per, B):", "    with copyin:", "        xu = load(x[r, :])",
              "    with compute:", f"        yu = {op}(xu, {k}, {stride}, pad={pad}, dilation={dil}, count={count})",
              "    with copyout:", "        store(y[r, :], yu)"]
    params = [f"x: GM[{T}, (B, L)]", f"y: Out[{T}, (B, {count})]", "t: Tiling"]
    text = _program([f"x: Tensor[{T}, (B, L)]"], ["cores, per = core_split(B)", "return Launch(cores, per=per)"],
                    params, kernel)
    return text, {"x": (b, length)}, {}


def _sort(d: Draws, dtype: DType, forms: set) -> tuple[str, dict, dict]:
    """argsort of a whole row: all positions or the top k, ascending or descending; the values by
    take(), the positions stored as i32 or i64."""
    dtype = dtype if dtype in OPS["argsort"].dtypes and dtype.is_float else DType.f32
    b = d.pick((3, 1, 2, 7, 48))
    n = d.pick((8, 1, 17, 32, 33, 100, 257))
    desc = d.flag(0.5)
    top = d.pick((0, 1, 3, n))
    top = min(top, n)
    width = str(top) if top else "N"
    idx_t = d.pick((DType.i32, DType.i64))
    forms.add("argsort" + ("-desc" if desc else "") + ("-topk" if top else ""))
    T = dtype.value
    args = "".join([", descending=True" if desc else "", f", k={top}" if top else ""])
    kernel = ["for r in core_rows(t.rows, B):", "    with copyin:", "        xu = load(x[r, :])", "    with compute:",
              f"        at = argsort(xu{args})", "        vu = take(xu, at)",
              *([f"        iu = cast(at, {idx_t.value})"] if idx_t is not DType.i32 else []),
              "    with copyout:", "        store(values[r, :], vu)",
              f"        store(indices[r, :], {'at' if idx_t is DType.i32 else 'iu'})"]
    params = [f"x: GM[{T}, (B, N)]", f"values: Out[{T}, (B, {width})]", f"indices: Out[{idx_t.value}, (B, {width})]",
              "t: Tiling"]
    host = ["cores = min(VECTOR_CORES, B)", "rows = cdiv(B, cores)", "cores = cdiv(B, rows)",
            "return Launch(cores, rows=rows)"]
    return _program([f"x: Tensor[{T}, (B, N)]"], host, params, kernel), {"x": (b, n)}, {}


def _casts(d: Draws, dtype: DType, forms: set) -> tuple[str, dict, dict, dict]:
    """bf16 or i8 tensors, which the vector unit only converts: loaded, cast to f32 (i8 through f16),
    an f32 expression, cast back (bf16 rounds to nearest even; i8 through f16, by a rounding mode)."""
    src = d.pick((DType.bf16, DType.i8))
    forms.discard(dtype.value)
    forms.add(f"casts-{src.value}")
    n = d.pick((1001, 1, 7, 64, 257, 33))
    tile = d.pick((64, 8, 32, 256))
    leaves = {"f0": "full", "f1": "full"}
    ex = _Expr(d, DType.f32, leaves, set(), forms)
    ex.reduce = []
    body, last = _chain(d, ex, d.below(2) + 1, d.below(2), "f0")
    names = sorted(_names_in(body, list(leaves)))
    S = src.value
    up = [f"f{n_[1]} = cast(x{n_[1]}u, f32)" if src is DType.bf16 else f"f{n_[1]} = cast(cast(x{n_[1]}u, f16), f32)"
          for n_ in names]
    out = d.pick((src, DType.f32))
    if out is DType.f32:
        down = []
    elif src is DType.bf16:
        down = [f"yo = cast({last}, bf16)"]
    else:
        # i8 from f16: a value out of range saturates on both sides; the rounding mode is drawn
        mode = d.pick(("round", "floor", "trunc", "ceil", "rint"))
        forms.add(f"cast-i8-{mode}")
        down = [f"yh = cast(clamp({last}, -128.0, 127.0), f16)", f"yo = cast(yh, i8, round=\"{mode}\")"]
    result = "yo" if down else last
    kernel = ["for part in core_chunk(t.chunk, N):", "    for c in tiles(part, t.tile):", "        with copyin:",
              *[f"            x{x[1]}u = load(x{x[1]}[c])" for x in names], "        with compute:",
              *[f"            {x}" for x in up + body + down], "        with copyout:",
              f"            store(y[c], {result})"]
    params = [f"x{x[1]}: GM[{S}, (N,)]" for x in names] + [f"y: Out[{out.value}, (N,)]", "t: Tiling"]
    host = ["chunk = align_up(cdiv(N, 3), 32)", "cores = cdiv(N, chunk)",
            f"return Launch(cores, chunk=chunk, tile={tile})"]
    text = _program([f"x0: Tensor[{S}, (N,)]"], host, params, kernel)
    shapes = {f"x{x[1]}": (n,) for x in names}
    return text, shapes, {}, {k: src for k in shapes}


def _program(host_params: list[str], host: list[str], params: list[str], kernel: list[str]) -> str:
    head = "@host\ndef tiling(" + ", ".join(host_params) + "):\n" + "".join(f"    {x}\n" for x in host)
    body = "".join(f"    {x}\n" for x in kernel)
    return f"{head}\n\n@kernel\ndef fuzz(" + ", ".join(params) + "):\n" + body


BUILDERS = {"flat": _flat, "rows1d": _rows1d, "rows2d": _rows2d, "carried": _carried, "planes": _planes,
            "global": _global, "views": _views, "cube": _cube, "window": _window, "sort": _sort, "casts": _casts}


def generate(d: Draws, forms: tuple[str, ...] = FORMS) -> Case:
    """One program and its inputs, from the choices of `d`."""
    form = d.pick(forms)
    dtype = d.pick(DTYPES)
    if dtype.is_int and form not in ("flat", "rows2d", "planes", "views"):
        dtype = DType.f32
    tags = {form, dtype.value}
    built = BUILDERS[form](d, dtype, tags)
    text, shapes, scalars = built[:3]
    dtypes = built[3] if len(built) > 3 else {}      # a form whose tensors are not all of `dtype`
    rng = np.random.default_rng(d.below(1 << 16))
    inputs = {}
    for name, shape in shapes.items():
        dt = dtypes.get(name, dtype)
        if name.startswith("m"):
            inputs[name] = rng.random(shape) > 0.5
        elif dt.is_int:
            inputs[name] = rng.integers(-5, 6, shape).astype(dt.np)
        elif dt is DType.bf16:        # bf16 values travel as float32 (numpy has no bfloat16)
            inputs[name] = rng.uniform(-2.0, 2.0, shape).astype(np.float32)
        else:
            inputs[name] = rng.uniform(-2.0, 2.0, shape).astype(dt.np)
    return Case(text, inputs, scalars, tags, shapes)
