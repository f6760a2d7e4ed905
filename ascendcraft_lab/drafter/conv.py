"""The conv template: one convolution (1-d / 2-d / 3-d, grouped, transposed) -> DSL text.

A convolution is a matrix product over an image-to-column view. For each batch n and group g:

    y[n, g] (Kg x P)  =  W[g] (Kg x Cg*T)  @  col[n, g] (Cg*T x P)

with T the taps of the kernel window and P the output positions. The draft has up to three
phases of one kernel:

1. im2col on the vector unit, into a GM Workspace `col`. A 2-d / 3-d convolution (not transposed)
   works by blocks of output rows: a unit is a batch-channel, the taps of the outer axes and the
   output coordinates of the outer axes but H (a depth plane in the padding is skipped); its
   OH x OW positions are cut into blocks of whole output rows (`blk`, sized in the host to fit
   UB), a block loads the input rows it reads as one contiguous run and each tap kw is one Gather
   over the block, stored with ONE copy (a block's positions are consecutive in col): one store
   per tap and block where one per output row made the phase MTE3-bound. Otherwise (1-d,
   transposed) a unit of work is one input row: the
   batch-channel, the taps and output coordinates of the outer spatial axes (D, H) pick it, a
   row that falls in the padding is skipped (the Workspace starts at zero). Along the last axis
   each tap kw is one Gather (`take`) at source columns computed on the vector unit from
   `iota(OW)`, a `where` writing the padding's zeros (pad_reflect's pattern).
2. `sync_all()`, then the cube: A = the weights as they lie ([K, Cg*T] rows), B = col ([Cg*T, P],
   transposed in the split), accumulated over Cg*T slices in L0C, Fixpipe out to y (no bias) or
   to a Workspace `prod`.
3. With a bias: `sync_all()`, then the vector unit adds the bias, one value per output channel.

A transposed convolution is the adjoint: output o of an axis reads input i = (o + p - t*d) / s
when that is a whole number inside the input, so its im2col is the same gather with one more
mask, and its weights ([C, Kg, T]: a [Kg, T] matrix per input channel) are read one channel per
K slice. Outputs are NCHW / NCDHW as PyTorch gives them: the product's rows are output channels
and its columns the positions, so no layout changes anywhere.
"""
from __future__ import annotations

import math

from .graph import Graph, Node, Unsupported
from .templates import DTYPE

SPATIAL = {1: ("L",), 2: ("H", "W"), 3: ("D", "H", "W")}
TAP = {"L": "kl", "D": "kd", "H": "kh", "W": "kw"}
OUT = {"L": "OL", "D": "OD", "H": "OH", "W": "OW"}


def _times(expr: str, c) -> str:
    """`expr * c`, or `expr` when c is 1."""
    return expr if str(c) == "1" else f"{expr} * {c}"


def _paren(expr: str) -> str:
    """`expr` parenthesised unless it is one name."""
    return expr if expr.isidentifier() else f"({expr})"


def _plus(expr: str, c: int) -> str:
    """`expr + c` with the sign folded in (`H - 2`, `H`)."""
    return expr if c == 0 else f"{expr} + {c}" if c > 0 else f"{expr} - {-c}"


class ConvDraft:
    """The DSL text of a conv draft (the same fields as cube.CubeDraft)."""

    def __init__(self, text: str, op: str, notes: list[str]):
        self.text, self.op, self.notes, self.template = text, op, notes, "conv"


def plan_conv(g: Graph, name: str) -> ConvDraft:
    convs = [n for n in g.nodes() if n.op == "conv"]
    if len(convs) != 1 or len(g.outputs) != 1 or g.outputs[0] is not convs[0]:
        line = next((v for k, v in sorted((getattr(g, "lines", None) or {}).items()) if "conv" in k.lower()), None)
        where = f" (reference line {line})" if line else ""
        raise Unsupported(f"a convolution with other work in the same forward{where}: the conv template drafts one "
                          "convolution and its bias (chains of kernels are programs, issue 32)")
    return ConvDraft(_Conv(convs[0], name).text(), name, [])


class _Conv:
    """The geometry of one conv node and its three phases as DSL text."""

    def __init__(self, n: Node, name: str):
        self.n, self.op = n, name
        self.x, self.w = n.args[0], n.args[1]
        self.bias = n.args[2] if len(n.args) > 2 else None
        a = n.attrs
        self.nd, self.G, self.transposed = len(a["kernel"]), a["groups"], a["transposed"]
        self.k, self.s, self.d = a["kernel"], a["stride"], a["dilation"]
        self.pl, self.pt = a["pad_left"], a["pad_total"]
        self.op_pad = a["output_padding"]
        self.dt = DTYPE[self.x.dtype]
        self.sp = SPATIAL[self.nd]
        self.T = math.prod(self.k)

    # -- sizes as DSL text -------------------------------------------------------------------------
    def out_dim(self, i: int) -> str:
        X, k, s, d = self.sp[i], self.k[i], self.s[i], self.d[i]
        if self.transposed:
            return _plus(_times(X, s), d * (k - 1) - self.pt[i] + self.op_pad[i] + 1 - s)    # (X - 1) s + ...
        if s == 1:
            return _plus(X, self.pt[i] - d * (k - 1))
        return f"({_plus(X, self.pt[i] - d * (k - 1) - 1)}) // {s} + 1"

    @property
    def positions(self) -> str:
        return " * ".join(_paren(self.out_dim(i)) for i in range(self.nd))

    @property
    def kout(self) -> str:
        """Output channels: K (the weight's first axis), or Kg * G for a transposed conv."""
        return ("Kg" if self.G == 1 else f"Kg * {self.G}") if self.transposed else "K"

    @property
    def kg(self) -> str:
        return "Kg" if self.transposed else ("K" if self.G == 1 else f"K // {self.G}")

    def rows_total(self) -> str:
        return self._rows({X: _paren(self.out_dim(i)) for i, X in enumerate(self.sp)})

    # -- declarations ------------------------------------------------------------------------------
    def tensor(self, t: Node, view: str, host: bool) -> str:
        name = {id(self.x): "x", id(self.w): "w"}.get(id(t), "bias")
        if host:
            return f"{name}: Tensor[{DTYPE[t.dtype]}, {view.replace('(', '').replace(')', '').join('()')}]"
        if t.is_param:
            return f"{name}: Param[{DTYPE[t.dtype]}, {view}, \"{t.attrs['name']}\"]"
        return f"{name}: GM[{DTYPE[t.dtype]}, {view}]"

    def views(self) -> list[tuple[Node, str]]:
        taps = ", ".join(str(k) for k in self.k)
        sp = list(self.sp[:-2]) + [f"({self.sp[-2]}, {self.sp[-1]})"] if self.blocked else list(self.sp)
        x = (self.x, f"((N, C), {', '.join(sp)})")
        w = (self.w, f"(C, Kg, ({taps}))" if self.transposed else f"(K, (Cg, {taps}))")
        out = [x, w] + ([(self.bias, "(KB,)")] if self.bias is not None else [])
        inputs = sorted((p for p in out if p[0].is_input), key=lambda p: p[0].attrs["index"])
        return inputs + [p for p in out if not p[0].is_input]

    def host(self) -> str:
        params = ", ".join(self.tensor(t, v, True) for t, v in self.views())
        cg = "C" if self.G == 1 else f"C // {self.G}"
        align = 16 if self.dt in ("f16", "bf16") else 8       # the cube's K step: a fractal's columns
        lines = [f"{OUT[X]} = {self.out_dim(i)}" for i, X in enumerate(self.sp)]
        lines += [f"P = {' * '.join(OUT[X] for X in self.sp)}", f"rows = {self._rows(OUT)}",
                  "cores = min(CUBE_CORES, rows)           # the im2col rows and the cube's blocks share the cores",
                  f"base_m = min(128, align_up({self.kg}, 16))", "base_n = min(128, align_up(P, 16))"]
        fields = ["rows=cdiv(rows, cores)", "base_m=base_m", "base_n=base_n"]
        if self.blocked:
            X, i = self.sp[-2], self.nd - 2
            st, ow, last = self.s[i], OUT[self.sp[-1]], self.sp[-1]
            lines += [f"E = ub_elems({self.dt}, live=12)          # the input rows, the gathered block, temporaries",
                      f"blk_rows = max(1, min({OUT[X]}, ({X} - 1) // {st} + 1, E // {ow}, "
                      f"(E // {last} - 1) // {st} + 1))",
                      f"rin = {_plus(_times('(blk_rows - 1)', st), 1)}"]
            fields += [f"blk=blk_rows * {ow}", "rin=rin", f"span=rin * {last}"]
        if not self.transposed:          # a transposed conv steps K one input channel (T taps) at a time
            lines.append(f"base_k = min(64, align_up({cg} * {self.T}, {align}))")
            fields.append("base_k=base_k")
        if self.bias is not None:
            fields += [f"erows=cdiv(N * {self.kout}, cores)", f"tile=min(ub_elems({self.dt}, live=3), P)"]
        return (f"@host\ndef tiling({params}):\n" + "".join(f"    {x}\n" for x in lines)
                + f"    return Launch(cores, {', '.join(fields)})\n")

    @property
    def blocked(self) -> bool:
        """im2col by blocks of output rows (one store per tap and block), or one row at a time."""
        return not self.transposed and self.nd >= 2

    def _rows(self, names: dict) -> str:
        """The im2col rows: batch-channels x taps x output coordinates of the outer spatial axes (of the
        outer axes but the innermost one when blocked: its output rows are the blocks)."""
        keep = self.sp[:-2] if self.blocked else self.sp[:-1]
        outer = [str(k) for k in self.k[:-1]] + [names[X] for X in keep]
        return " * ".join(["N * C"] + outer)

    def kernel(self) -> str:
        params = [self.tensor(t, v, False) for t, v in self.views()]
        outv = ", ".join(self.out_dim(i) for i in range(self.nd))
        params.append(f"y: Out[{self.dt}, ((N, {self.kout}), {outv if self.nd == 1 else f'({outv})'})]")
        cg = "C" if self.G == 1 else f"C // {self.G}"
        params.append(f"col: Workspace[{self.dt}, ({_times('N', self.G)}, {cg} * {self.T}, {self.positions})]")
        if self.bias is not None:
            params.append(f"prod: Workspace[{self.dt}, ({_times('N', self.G)}, {self.kg}, {self.positions})]")
        params.append("t: Tiling")
        body = self.im2col() + ["    sync_all()"] + self.cube()
        if self.bias is not None:
            body += ["    sync_all()"] + self.epilogue()
        return (f"@kernel\ndef {self.op}(\n" + "".join(f"    {p},\n" for p in params) + "):\n"
                + "\n".join(body) + "\n")

    def text(self) -> str:
        return f'"""{self.summary()}"""\n\n\n' + self.host() + "\n\n" + self.kernel()

    def summary(self) -> str:
        kind = "transposed convolution" if self.transposed else "convolution"
        return (f"{self.nd}-d {kind}, kernel {self.k}, stride {self.s}, dilation {self.d}, groups {self.G}:\n"
                "im2col on the vector unit, the cube's product" + (", the bias on the vector unit."
                                                                     if self.bias is not None else " (no bias)."))

    # -- phase 1: im2col ---------------------------------------------------------------------------
    def im2col(self) -> list[str]:
        if self.blocked:
            return self.im2col_blocked()
        L = [f"    {OUT[X]} = {self.out_dim(i)}" for i, X in enumerate(self.sp)]
        L.append(f"    for r in core_rows(t.rows, {self.rows_total()}):")
        ind = "        "
        rest = "r"
        outer = self.sp[:-1]
        for X in reversed(outer):                     # output coordinates, innermost first
            L.append(f"{ind}{OUT[X].lower()} = {rest} % {OUT[X]}")
            rest = f"({rest} // {OUT[X]})"
        for i in reversed(range(len(outer))):         # taps of the outer axes
            L.append(f"{ind}{TAP[outer[i]]} = {rest} % {self.k[i]}")
            rest = f"({rest} // {self.k[i]})"
        L.append(f"{ind}nc = {rest}")
        idx = []
        for i, X in enumerate(outer):
            ind, cond = self._source(L, ind, i, X)
            idx.append(cond)
        last = self.sp[-1]
        L += [f"{ind}with copyin:", f"{ind}    xu = load(x[{', '.join(['nc'] + idx)}, :])"]
        L.append(f"{ind}for {TAP[last]} in range({self.k[-1]}):")
        L += [f"{ind}    with compute:"] + [f"{ind}        {s}" for s in self._gather(last)]
        tap = " + ".join([_times(TAP[X], math.prod(self.k[j + 1:])) for j, X in enumerate(self.sp[:-1])]
                         + [TAP[last]])
        pos = " + ".join(_times(OUT[X].lower(), self._after(j)) for j, X in enumerate(outer)) or "0"
        cg = "C" if self.G == 1 else f"C // {self.G}"
        ow = OUT[last]
        start = _times(_paren(pos), ow)
        cols = f"0:{ow}" if not outer else f"{start}:{start} + {ow}"
        L += [f"{ind}    with copyout:",
              f"{ind}        store(col[nc // {_paren(cg)}, (nc % {_paren(cg)}) * {self.T} + {tap}, {cols}], v)"]
        return L

    def im2col_blocked(self) -> list[str]:
        """im2col by blocks of output rows: a unit is a batch-channel, the taps of the outer axes and the
        output coordinates of the outer axes but the innermost (H). Its plane of output positions
        (OH x OW) is cut into blocks of whole output rows; a block loads the input rows it reads as one
        contiguous run, and each tap kw gathers the whole block (the row and column of every position
        computed on the vector unit from `iota`, padding's zeros by `where`) and stores it with ONE copy:
        col's positions of a block are consecutive."""
        L = [f"    {OUT[X]} = {self.out_dim(i)}" for i, X in enumerate(self.sp)]
        L.append(f"    for r in core_rows(t.rows, {self.rows_total()}):")
        ind = "        "
        rest = "r"
        keep = self.sp[:-2]
        for X in reversed(keep):                      # output coordinates, innermost first
            L.append(f"{ind}{OUT[X].lower()} = {rest} % {OUT[X]}")
            rest = f"({rest} // {OUT[X]})"
        outer = self.sp[:-1]
        for i in reversed(range(len(outer))):         # taps of the outer axes
            L.append(f"{ind}{TAP[outer[i]]} = {rest} % {self.k[i]}")
            rest = f"({rest} // {self.k[i]})"
        L.append(f"{ind}nc = {rest}")
        idx = []
        for i, X in enumerate(keep):
            ind, cond = self._source(L, ind, i, X)
            idx.append(cond)
        i, H, W = self.nd - 2, self.sp[-2], self.sp[-1]
        OH, OW = OUT[H], OUT[W]
        sh, dh, ph = self.s[i], self.d[i], self.pl[i]
        sw, dw, pw = self.s[-1], self.d[-1], self.pl[-1]
        kh, kw = TAP[H], TAP[W]
        L.append(f"{ind}for c in tiles({OH} * {OW}, t.blk):")
        ind2 = ind + "    "
        first = f"(c.start // {OW})"
        L += [f"{ind2}h0 = min(max({_plus(_times(first, sh), -ph)} + {_times(kh, dh)}, 0), {H} - t.rin)",
              f"{ind2}with copyin:",
              f"{ind2}    xu = load(x[{', '.join(['nc'] + idx)}, h0 * {W}:h0 * {W} + t.span])",
              f"{ind2}with compute:                       # per block: the row each position reads"]
        inside = "abs({0} - ({1} - 1) * 0.5) <= ({1} - 1) * 0.5"
        block = ["pos = iota(c.len, c.start)",
                 f"orow = floor((pos + 0.5) / {OW})",
                 f"ih = {_times('orow', float(sh) if sh > 1 else 1)} + ({_times(kh, dh)} - {ph})",
                 f"in_h = {inside.format('ih', H)}",
                 f"base = (ih - h0) * {W}",
                 f"ow0 = {_times(f'(pos - orow * {OW})', float(sw) if sw > 1 else 1)}"]
        comp = [f"iw = ow0 + ({_times(kw, dw)} - {pw})",
                f"in_w = {inside.format('iw', W)}",
                "at = clamp(base + iw, 0, t.span - 1)",
                "v = where(in_h, where(in_w, take(xu, cast(at, i32)), 0.0), 0.0)"]
        L += [f"{ind2}    {x}" for x in block]
        L += [f"{ind2}for {kw} in range({self.k[-1]}):", f"{ind2}    with compute:"]
        L += [f"{ind2}        {x}" for x in comp]
        tap = " + ".join([_times(TAP[X], math.prod(self.k[j + 1:])) for j, X in enumerate(outer)] + [kw])
        cg = "C" if self.G == 1 else f"C // {self.G}"
        plane = f"{OH} * {OW}"
        pos = " + ".join(_times(OUT[X].lower(), " * ".join([OUT[Y] for Y in keep[j + 1:]] + [plane]))
                         for j, X in enumerate(keep))
        cols = "c" if not keep else f"{pos} + c.start:{pos} + c.start + c.len"
        L += [f"{ind2}    with copyout:",
              f"{ind2}        store(col[nc // {_paren(cg)}, (nc % {_paren(cg)}) * {self.T} + {tap}, {cols}], v)"]
        return L

    def _after(self, j: int) -> str:
        """Output rows per step of outer output axis j (the product of the later outer output sizes)."""
        return " * ".join(OUT[X] for X in self.sp[j + 1:-1]) or "1"

    def _source(self, L: list, ind: str, i: int, X: str) -> tuple[str, str]:
        """The input row of outer axis i, with `if`s that skip a tap in the padding; returns the new indent."""
        o, t, s, d, p = OUT[X].lower(), TAP[X], self.s[i], self.d[i], self.pl[i]
        src = f"{X.lower()}{i}"
        if self.transposed:
            L.append(f"{ind}{src}n = {_plus(o, p)} - {_times(t, d)}")
            L.append(f"{ind}if {src}n >= 0:")
            ind += "    "
            if s > 1:
                L.append(f"{ind}if {src}n % {s} == 0:")
                ind += "    "
            L.append(f"{ind}{src} = {src}n // {s}")
        else:
            L.append(f"{ind}{src} = {_plus(_times(o, s), -p)} + {_times(t, d)}")
            L.append(f"{ind}if {src} >= 0:")
            ind += "    "
        L.append(f"{ind}if {src} < {X}:")
        return ind + "    ", src

    def _gather(self, X: str) -> list[str]:
        """Compute lines of one tap along the last axis: v[o] = the input column tap kw reads, or 0."""
        i, ow, t = self.nd - 1, OUT[X], TAP[X]
        s, d, p = self.s[i], self.d[i], self.pl[i]
        inside = f"abs(src - ({X} - 1) * 0.5) <= ({X} - 1) * 0.5"
        take = f"take(xu, cast(clamp(src, 0, {X} - 1), i32))"
        if not self.transposed:
            return [f"src = {_times(f'iota({ow})', float(s) if s > 1 else 1)} + ({_times(t, d)} - {p})",
                    f"inside = {inside}",
                    f"v = where(inside, {take}, 0.0)"]
        lines = [f"num = iota({ow}) + ({p} - {_times(t, d)})"]
        if s == 1:
            return lines + ["src = num", f"inside = {inside}", f"v = where(inside, {take}, 0.0)"]
        return lines + [f"src = floor(num / {float(s)})", f"whole = num - src * {float(s)} == 0.0",
                        f"inside = {inside}", f"v = where(whole, where(inside, {take}, 0.0), 0.0)"]

    # -- phase 2: the cube -------------------------------------------------------------------------
    def cube(self) -> list[str]:
        grid = f"({_times('N', self.G)}, {self.kg}, {self.positions})"
        L = [f"    for gi, mi, ni in core_tiles({grid}, (1, t.base_m, t.base_n)):",
             "        acc = zeros(mi.len, ni.len, L0C)"]
        cg = "C" if self.G == 1 else f"C // {self.G}"
        if self.transposed:
            first = "" if self.G == 1 else f"(gi.start % {self.G}) * {_paren(cg)} + "
            L += [f"        for ci in range({cg}):",
                  "            with copyin:",
                  f"                a1 = load(w[{first}ci, mi, 0:{self.T}], L1)",
                  f"                b1 = load(col[gi.start, ci * {self.T}:ci * {self.T} + {self.T}, ni], L1)"]
        else:
            first = "" if self.G == 1 else f"(gi.start % {self.G}) * ({self.kg}) + "
            L += [f"        wr = {first}mi.start",
                  f"        for ki in tiles({_paren(cg)} * {self.T}, t.base_k):",
                  "            with copyin:",
                  "                a1 = load(w[wr:wr + mi.len, ki], L1)",
                  "                b1 = load(col[gi.start, ki, ni], L1)"]
        L += ["            with split:", "                a0 = load(a1, L0A)", "                b0 = load(b1, L0B)",
              "            with compute:", "                acc = mmad(a0, b0, acc)", "        with copyout:"]
        if self.bias is not None:
            return L + ["            store(prod[gi.start, mi, ni], acc)"]
        return L[:2] + [f"        yr = gi.start * {_paren(self.kg)} + mi.start"] + L[2:] + \
            ["            store(y[yr:yr + mi.len, ni], acc)"]

    # -- phase 3: the bias -------------------------------------------------------------------------
    def epilogue(self) -> list[str]:
        kg = self.kg
        return [f"    for q in core_rows(t.erows, N * {self.kout}):",
                f"        for c in tiles({self.positions}, t.tile):",
                "            with copyin:",
                f"                hu = load(prod[q // {_paren(kg)}, q % {_paren(kg)}, c])",
                f"                bu = load(bias[q % {_paren(self.kout)}])",
                "            with compute:",
                "                yu = hu + bu",
                "            with copyout:",
                "                store(y[q, c], yu)"]


# -- the canonical node ----------------------------------------------------------------------------------
def _ints(value, dims: int, what: str) -> tuple[int, ...]:
    """An int or `dims` ints (PyTorch's _single/_pair/_triple) as a tuple."""
    v = value.value if isinstance(value, Node) and not value.is_tensor else value
    items = list(v) if isinstance(v, (list, tuple)) else [v] * dims
    items = [i.value if isinstance(i, Node) else i for i in items]
    items = items * dims if len(items) == 1 else items
    if len(items) != dims or not all(isinstance(i, int) and not isinstance(i, bool) for i in items):
        raise Unsupported(f"a convolution {what} of {value!r} (integers known when drafting)")
    return tuple(items)


def _pads(padding, kernel, dilation, stride, dims: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(left pads, total pads) per axis: numbers, 'valid' (none) or 'same' (PyTorch puts the odd one right)."""
    p = padding.value if isinstance(padding, Node) and not padding.is_tensor else padding
    if p == "valid":
        return (0,) * dims, (0,) * dims
    if p == "same":
        if any(s != 1 for s in stride):
            raise Unsupported("padding='same' with a stride other than 1 (PyTorch refuses it too)")
        total = tuple(d * (k - 1) for k, d in zip(kernel, dilation))
        return tuple(t // 2 for t in total), total
    left = _ints(p, dims, "padding")
    return left, tuple(2 * x for x in left)


def conv_node(x: Node, w: Node, bias, dims: int, stride, padding, dilation, groups, transposed=False,
              output_padding=0) -> Node:
    """One convolution of the last `dims` axes of an (N, C, *spatial) input, as PyTorch computes it."""
    what = f"conv{'_transpose' if transposed else ''}{dims}d"
    for t, role in ((x, "input"), (w, "weight")):
        if not isinstance(t, Node) or not t.is_tensor:
            raise Unsupported(f"{what} with a {role} that is not a tensor")
    if len(x.shape) != dims + 2:
        raise Unsupported(f"{what} of a rank-{len(x.shape)} input (the conv template takes batched (N, C, ...) "
                          f"inputs of rank {dims + 2})")
    if x.dtype not in ("float32", "float16") or w.dtype != x.dtype:
        raise Unsupported(f"{what} of {x.dtype} x {w.dtype} (the conv template drafts float32 and float16)")
    G = groups.value if isinstance(groups, Node) else groups
    k = tuple(w.shape[2:])
    s, d = _ints(stride, dims, "stride"), _ints(dilation, dims, "dilation")
    pl, pt = _pads(padding, k, d, s, dims)
    op = _ints(output_padding, dims, "output padding")
    C, sp = x.shape[1], x.shape[2:]
    K = w.shape[1] * G if transposed else w.shape[0]
    if (w.shape[0] if transposed else w.shape[1] * G) != C:
        raise Unsupported(f"{what} whose weight {tuple(w.shape)} does not match {C} input channels")
    if transposed:
        out = [(n - 1) * si - t + di * (ki - 1) + o + 1 for n, si, t, di, ki, o in zip(sp, s, pt, d, k, op)]
    else:
        out = [(n + t - di * (ki - 1) - 1) // si + 1 for n, si, t, di, ki in zip(sp, s, pt, d, k)]
    if min(out) < 1:
        raise Unsupported(f"{what} with an empty output {tuple(out)}")
    args = (x, w) if bias is None else (x, w, bias)
    attrs = {"kernel": k, "stride": s, "dilation": d, "pad_left": pl, "pad_total": pt, "groups": G,
             "transposed": transposed, "output_padding": op}
    return Node("conv", args, attrs, (x.shape[0], K, *out), x.dtype)
