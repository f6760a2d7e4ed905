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
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

import numpy as np

from .ir import DType
from .ops import OPS

FORMS = ("flat", "rows1d", "rows2d", "carried", "planes", "global", "views")
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
        start, arg = ("1.0", f"0.01 * {last} + 1.0") if OPS[op].reduction == "prod" else ("0.0", last)
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


def _program(host_params: list[str], host: list[str], params: list[str], kernel: list[str]) -> str:
    head = "@host\ndef tiling(" + ", ".join(host_params) + "):\n" + "".join(f"    {x}\n" for x in host)
    body = "".join(f"    {x}\n" for x in kernel)
    return f"{head}\n\n@kernel\ndef fuzz(" + ", ".join(params) + "):\n" + body


BUILDERS = {"flat": _flat, "rows1d": _rows1d, "rows2d": _rows2d, "carried": _carried, "planes": _planes,
            "global": _global, "views": _views}


def generate(d: Draws, forms: tuple[str, ...] = FORMS) -> Case:
    """One program and its inputs, from the choices of `d`."""
    form = d.pick(forms)
    dtype = d.pick(DTYPES)
    if dtype.is_int and form not in ("flat", "rows2d", "planes", "views"):
        dtype = DType.f32
    tags = {form, dtype.value}
    text, shapes, scalars = BUILDERS[form](d, dtype, tags)
    rng = np.random.default_rng(d.below(1 << 16))
    inputs = {}
    for name, shape in shapes.items():
        if name.startswith("m"):
            inputs[name] = rng.random(shape) > 0.5
        elif dtype.is_int:
            inputs[name] = rng.integers(-5, 6, shape).astype(dtype.np)
        else:
            inputs[name] = rng.uniform(-2.0, 2.0, shape).astype(dtype.np)
    return Case(text, inputs, scalars, tags, shapes)
