"""The remap template: every output element is one input element, or a constant -> DSL.

F.pad (constant, reflect, replicate, circular; any number of trailing dims, negative pads crop),
torch.flip along any axes (the last one too) and torch.roll along given dims move elements without
computing them. Each is an *index map per axis*: output index v along an axis reads input index
u(v) along the same axis, so a chain of them (a pad of a flip) composes axis by axis, from the
output back to the input. With n the step's input length, b its padding before (or the shift):

  constant   u = v - b, and the element is the pad value where u falls outside [0, n)
  reflect    u = (n - 1) - |(n - 1) - |v - b||          (PyTorch: b, after < n)
  replicate  u = clamp(v - b, 0, n - 1)
  circular   u = v - b, plus n when below 0, minus n from n on (b, after <= n)
  flip       u = (n - 1) - v
  roll       u = v - s (s = shift mod n), plus n when below 0

The kernel walks output rows (all axes but the last), split over the cores. Along the outer axes
the map is scalar arithmetic on the row's indices, so each output row reads one source row, copied
into UB whole by one DataCopyPad from the GM address the scalar unit computes (a row outside the
input, in a constant pad, reads a clamped row and is masked). Along the last axis the map is vector
arithmetic on the tile's output columns (CreateVecIndex, `iota`, in f32: exact below 2^24), and one
vector Gather (`take`) answers the tile from the row in UB: Gather reads any element of a tile by
byte offset, which is how a row is read backwards or folded at its ends on chip (a DataCopy moves
runs forwards only). A constant pad selects the value (Select) where any map fell outside.
Elementwise work before the maps (on the input) is done on the gathered tile, as it commutes with
moving elements; work after them (on the result) after the select. When the last axis maps to
itself (a pad of outer axes only) no Gather is needed: the row's tiles are copied as they are.
"""
from __future__ import annotations

from dataclasses import dataclass

from .graph import Node, Unsupported
from .layout import chain_of, touches
from .templates import DTYPE, Stage, Tensor, Writer, fmt_float, par, scale_but_last, signature

PAD_MODES = ("constant", "reflect", "replicate", "circular")


def pad_node(x: Node, pads, mode: str, value) -> Node:
    """F.pad(x, pads, mode, value): pads lists (before, after) pairs from the last axis backwards."""
    if not x.is_tensor or not x.shape:
        raise Unsupported("F.pad of a scalar or 0-d tensor")
    if mode not in PAD_MODES:
        raise Unsupported(f"F.pad mode={mode!r} (the remap template pads constant, reflect, replicate, circular)")
    pads = [int(p) for p in pads]
    if len(pads) % 2 or len(pads) // 2 > len(x.shape):
        raise Unsupported(f"F.pad with {len(pads)} pad sizes for a rank-{len(x.shape)} tensor")
    rank = len(x.shape)
    per_axis = {rank - 1 - i: (pads[2 * i], pads[2 * i + 1]) for i in range(len(pads) // 2)}
    shape = list(x.shape)
    for a, (b, e) in per_axis.items():
        n = x.shape[a]
        if mode != "constant" and (b < 0 or e < 0):
            raise Unsupported(f"F.pad mode={mode!r} with a negative pad (PyTorch crops with mode='constant' only)")
        if mode == "reflect" and (b >= n or e >= n):
            raise Unsupported(f"F.pad mode='reflect' of {b}, {e} along an axis of {n} (PyTorch needs pads < size)")
        if mode == "circular" and (b > n or e > n):
            raise Unsupported(f"F.pad mode='circular' of {b}, {e} along an axis of {n} (PyTorch needs pads <= size)")
        shape[a] = n + b + e
        if shape[a] < 0:
            raise Unsupported(f"F.pad that crops an axis of {n} below nothing")
    per_axis = {a: p for a, p in per_axis.items() if p != (0, 0)}
    v = 0.0 if value is None else float(value)
    return Node("pad", (x,), {"mode": mode, "pads": per_axis, "value": v}, tuple(shape), x.dtype)


def roll_node(x: Node, shifts, dims) -> Node:
    if dims is None or dims == [] or dims == ():
        raise Unsupported("torch.roll without dims (a roll of the flattened tensor)")
    shifts = [shifts] if isinstance(shifts, int) else list(shifts)
    dims = [dims] if isinstance(dims, int) else list(dims)
    if len(shifts) != len(dims):
        raise Unsupported(f"torch.roll with {len(shifts)} shifts for {len(dims)} dims")
    rank = len(x.shape)
    per_axis: dict[int, int] = {}
    for s, d in zip(shifts, dims):
        a = d % rank if rank else 0
        per_axis[a] = per_axis.get(a, 0) + int(s)
    return Node("roll", (x,), {"shifts": per_axis}, x.shape, x.dtype)


def tile_node(x: Node, reps: dict) -> Node:
    """x.repeat(...) / torch.tile along the axes of `reps` (axis -> copies): y[v] = x[v mod n]."""
    shape = tuple(d * reps.get(a, 1) for a, d in enumerate(x.shape))
    return Node("tile", (x,), {"reps": dict(reps)}, shape, x.dtype)


@dataclass
class Step:
    """One axis of one remap node: what output index v of that node reads along the axis."""
    kind: str          # constant | reflect | replicate | circular | flip | roll | tile
    before: int = 0    # the padding before the input (a pad), the shift (a roll) or the copies (a tile)
    after: int = 0
    n: str = ""        # the input's length along the axis, as DSL text


class RemapWriter(Writer):
    template = "remap"
    whole_rows = True

    def __init__(self, g, lay, op_name, live):
        self.node: Node = lay.outputs[0]
        self.post, self.maps, self.pre, self.x = chain_of(self.node)
        super().__init__(g, lay, op_name, live)
        self.rank = len(self.node.shape)
        self.lead = self.rank - len(self.x.shape)     # axes a repeat adds in front: the input is 1 along them
        for a in range(self.lead):
            self.dims[a] = "1"
        self._plan_steps()

    def _collect(self):
        g = self.g
        for i, desc in enumerate(g.inputs):
            pyname = self.input_name(i)
            if desc.get("kind") != "tensor":
                continue
            if i != self.x.attrs["index"]:
                raise Unsupported(f"input `{pyname}` that the pad, flip or roll does not read")
            t = Tensor(self.namer.fresh(pyname), self.x, "GM", desc["dtype"], "", shape=tuple(desc["shape"]))
            self.tensors.append(t)
            self.loaded[id(self.x)] = t
        self.collect_scalars()
        self.out_tensors.append(Tensor(self.namer.fresh("y"), self.node, "Out", self.node.dtype, "",
                                       shape=tuple(self.node.shape)))

    # -- the maps, axis by axis ---------------------------------------------------------------------
    @property
    def value_needed(self) -> bool:
        return any(m.attrs.get("mode") == "constant" for m in self.maps)      # a constant pad

    @property
    def last_mapped(self) -> bool:
        return bool(self.steps[self.rank - 1])

    def dim_names(self, rank):
        return {1: ("W",), 2: ("H", "W"), 3: ("C", "H", "W"), 4: ("N", "C", "H", "W"),
                5: ("N", "C", "D", "H", "W")}.get(rank) or tuple(f"D{i}" for i in range(rank))

    def _plan_steps(self):
        """steps[a]: the maps along axis a from the output back to the input, each with its input length;
        odims[a]: the output's length along axis a, as DSL text."""
        rank = self.rank
        values = {m.attrs["value"] for m in self.maps if m.attrs.get("mode") == "constant"}
        if len(values) > 1:
            raise Unsupported("two constant pads of different values (the remap template selects one constant)")
        self.value = values.pop() if values else 0.0
        self.steps: dict[int, list[Step]] = {a: [] for a in range(rank)}
        self.odims = list(self.dims)
        for m in self.maps:                          # from the input outwards: each step's input length
            for a in range(rank):
                if not touches(m, a):
                    continue
                step, self.odims[a] = _STEPS[m.op](m.attrs, a, self.odims[a])
                self.steps[a].insert(0, step)

    # -- views -----------------------------------------------------------------------------------------
    def _groups(self) -> list[list[int]]:
        """The axes of the kernel's views: the leading axes no map touches as one (the row's plane), then
        every axis from the first mapped outer one on by itself, the last axis last."""
        rank = self.rank
        outer = [a for a in range(rank - 1) if self.steps[a]]
        first = outer[0] if outer else rank - 1
        groups = [list(range(first))] if first else []
        groups += [[a] for a in range(first, rank)]
        return groups

    def _view(self, dims, own: bool = False) -> str:
        """A view over the groups; `own`: the input's, without the axes a repeat adds in front."""
        parts = []
        for gr in self._groups():
            names = [dims[a] for a in gr if not (own and a < self.lead)]
            if names:
                parts.append(names[0] if len(names) == 1 else "(" + ", ".join(names) + ")")
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"

    def _own(self, idx: list[str]) -> list[str]:
        """The input's index of the output groups' indices: none for a group of added axes only."""
        return [i for gr, i in zip(self._groups(), idx) if any(a >= self.lead for a in gr)]

    def host_tensor(self) -> str:
        x = self.tensors[0]
        own = self.dims[self.lead:]
        dims = ", ".join(own)
        return f"{x.name}: Tensor[{DTYPE[x.dtype]}, ({dims}{',' if len(own) == 1 else ''})]"

    def kernel_signature(self) -> str:
        x, y = self.tensors[0], self.out_tensors[0]
        params = [f"{x.name}: GM[{DTYPE[x.dtype]}, {self._view(self.dims, own=True)}]"]
        params += [f"{n}: {dt}" for n, dt in self.kernel_scalars]
        params += [f"{y.name}: Out[{DTYPE[y.dtype]}, {self._view(self.odims)}]", "t: Tiling"]
        return signature(self.op_name, params)

    def _rows_total(self) -> str:
        outer = self.odims[:-1]
        return " * ".join(par(d) for d in outer) if outer else "1"

    def host_body(self) -> list[str]:
        return [f"cores, per_core = core_split({self._rows_total()})      # one output row per core step",
                f"tile = fit_tile({DTYPE[self.x.dtype]})"]

    def launch_fields(self) -> str:
        return f", rows=per_core, tile=min(tile, {self.odims[-1]})"

    def docstring(self) -> str:
        what = ", then ".join(_describe(m) for m in self.maps)
        how = ("each output row reads one source row (scalar index maps), copied into UB whole; every tile of "
               "output columns is one vector Gather from it at positions computed on the vector unit"
               if self.last_mapped else
               "each output row reads one source row (scalar index maps), copied tile by tile")
        return f"Drafted from {self.source}: {what} (remap template); {how}."

    # -- the kernel ------------------------------------------------------------------------------------
    def _scalar_map(self, a: int, v: str, body: list[str]) -> tuple[str, str | None]:
        """Lines mapping output index `v` along outer axis a to the input (scalar unit); returns the
        input index and, for a constant pad, a scalar that is positive when the row is outside."""
        fresh = self.namer.fresh
        bad = None
        base = self.dims[a].lower() if self.dims[a].isidentifier() else f"i{a}"
        for s in self.steps[a]:
            if s.kind == "tile" and s.n == "1":       # an axis the repeat adds: the input's only index
                v = "0"
                continue
            u = fresh(base)
            n = s.n
            if s.kind == "flip":
                body.append(f"{u} = {n} - 1 - {v}")
            elif s.kind == "tile":
                body.append(f"{u} = {v} % {par(n)}")
            elif s.kind == "roll":
                body.append(f"{u} = ({v} - {par(_shift(s.before, n))} + {n}) % {n}")
            elif s.kind == "circular":
                body.append(f"{u} = ({_minus(v, s.before)} + {n}) % {n}")
            elif s.kind == "replicate":
                body.append(f"{u} = min(max({_minus(v, s.before)}, 0), {n} - 1)")
            elif s.kind == "reflect":
                d, w = fresh("d"), _minus(v, s.before)
                body.append(f"{d} = max({w}, {_neg(w)})")
                body.append(f"{u} = {n} - 1 - max({n} - 1 - {d}, {d} - ({n} - 1))")
            else:                                     # constant: outside when v - b < 0 or v - b >= n
                out = fresh("out")
                w = _minus(v, s.before)
                body.append(f"{out} = max(max({_neg(w)}, {w} - ({n} - 1)), 0)")
                body.append(f"{u} = min(max({w}, 0), {n} - 1)")
                if bad is None:
                    bad = out
                else:
                    body.append(f"{bad} = {bad} + {out}")
            v = u
        return v, bad

    def _vector_map(self, col: str, lines: list[str]) -> tuple[str, list[str]]:
        """Lines mapping the f32 output columns `col` to source columns; returns the index tile (f32)
        and the tiles whose sum is positive where a constant pad applies."""
        fresh = self.namer.fresh
        bad = []
        v = col
        for s in self.steps[self.rank - 1]:
            u = fresh("src")
            n = s.n
            w = _minus(v, s.before, "f")
            if s.kind == "flip":
                lines.append(f"{u} = ({n} - 1) - {v}")
            elif s.kind == "tile":          # v mod n: floor((v + 0.5) / n) is exact in f32 for rows below 2^23
                lines.append(f"{u} = {v} - {par(n)} * floor(({v} + 0.5) / {par(n)})")
            elif s.kind in ("roll", "circular"):
                if s.kind == "roll":
                    w = f"{v} - {par(_shift(s.before, n))}"
                lines.append(f"{u} = {w}")
                lines.append(f"{u} = where({u} < 0.0, {u} + {n}, where({u} >= {n}, {u} - {n}, {u}))"
                             if s.kind == "circular" else f"{u} = where({u} < 0.0, {u} + {n}, {u})")
            elif s.kind == "replicate":
                lines.append(f"{u} = clamp({w}, 0, {n} - 1)")
            elif s.kind == "reflect":
                lines.append(f"{u} = ({n} - 1) - abs(({n} - 1) - abs({w}))")
            else:
                lines.append(f"{u} = clamp({w}, 0, {n} - 1)")
                off = fresh("off")
                lines.append(f"{off} = abs({w} - {u})          # > 0 where the column is padding")
                bad.append(off)
            v = u
        steps = self.steps[self.rank - 1]
        if steps[-1].kind not in ("replicate", "constant"):
            # the vector work runs over whole repeats: the lanes past c.len must index the row too
            lines.append(f"{v} = clamp({v}, 0, {steps[-1].n} - 1)          # lanes past the tile stay in the row")
        return v, bad

    def kernel_body(self) -> list[str]:
        fresh = self.namer.fresh
        x, y = self.tensors[0], self.out_tensors[0]
        body = [f"for r in core_rows(t.rows, {self._rows_total()}):"]
        inner, oidx, iidx, rowbad = self._row_index(self._groups())
        body += ["    " + l for l in inner]
        xu, yu = fresh(x.name + "u"), fresh(y.name + "u")
        last = self.steps[self.rank - 1]
        at = lambda idx, c: ", ".join(idx + [c])      # noqa: E731 - a view index
        if last:
            body += ["    with copyin:",
                     f"        {xu} = load({x.name}[{at(self._own(iidx), ':')}])      # the source row, whole"]
        body.append(f"    for c in tiles({self.odims[-1]}, t.tile):")
        if not last:
            body += ["        with copyin:", f"            {xu} = load({x.name}[{at(self._own(iidx), 'c')}])"]
        comp = self._compute(xu, yu, rowbad)
        body += ["        with compute:"] + ["            " + l for l in comp]
        body += ["        with copyout:", f"            store({y.name}[{at(oidx, 'c')}], {yu})"]
        return body

    def _row_index(self, groups: list[list[int]]) -> tuple[list[str], list[str], list[str], str | None]:
        """(lines, the output's index per outer group, the input's, the flag of a row outside the input
        (None: never)) for output row r: each outer group's coordinate, mapped back to the input's."""
        fresh = self.namer.fresh
        inner: list[str] = []
        oidx: list[str] = []                 # the output's index per group (the last: the column tile)
        iidx: list[str] = []
        outer_groups = groups[:-1]
        sizes = [" * ".join(par(self.odims[a]) for a in gr) for gr in outer_groups]
        for k, gr in enumerate(outer_groups):
            later = " * ".join(par(s) for s in sizes[k + 1:])
            whole = f"r // {par(later)}" if later else "r"
            one = self.dims[gr[0]]
            name = fresh("p" if len(gr) > 1 or not self.steps[gr[0]] else
                         "o" + (one.lower() if one.isidentifier() else str(gr[0])))
            inner.append(f"{name} = {whole} % {par(sizes[k])}" if k else f"{name} = {whole}")
            oidx.append(name)
        bads = []
        for k, gr in enumerate(outer_groups):
            if len(gr) == 1 and self.steps[gr[0]]:
                src, bad = self._scalar_map(gr[0], oidx[k], inner)
                iidx.append(src)
                if bad:
                    bads.append(bad)
            else:
                iidx.append(oidx[k])
        rowbad = None
        if len(bads) > 1:
            rowbad = fresh("outside")
            inner.append(f"{rowbad} = {' + '.join(bads)}")
        elif bads:
            rowbad = bads[0]
        return inner, oidx, iidx, rowbad

    def _compute(self, xu: str, yu: str, rowbad: str | None) -> list[str]:
        """The compute stage's lines ("name = expression", the last one assigning `yu`): the Gather of the
        tile's columns from the source row, elementwise work before and after, the pad value."""
        fresh = self.namer.fresh
        stage = Stage(self, {})
        comp: list[str] = []
        col = fresh("col")
        offs: list[str] = []
        val = xu
        if self.steps[self.rank - 1]:
            comp.append(f"{col} = iota(c.len, c.start)          # the tile's output columns (CreateVecIndex)")
            src, offs = self._vector_map(col, comp)
            val = fresh("g")
            comp.append(f"{val} = take({xu}, cast({src}, i32))          # one vector Gather from the row")
        half = self.x.dtype == "float16" and (self.post or self.pre is not self.x)
        if half:
            comp.append(f"{val}32 = cast({val}, f32)")
            val = f"{val}32"
        if self.pre is not self.x:                   # elementwise work on the input, done on the moved elements
            stage.env[id(self.x)] = val
            val = stage.assign(fresh("v"), self.pre)
            comp += stage.lines
            stage.lines = []
        if self.value_needed:
            terms = offs + ([rowbad] if rowbad else [])
            if not offs:
                comp.append(f"{col} = iota(c.len, c.start)          # a tile of zeros beside the row flag")
                terms = [f"{col} * 0.0"] + terms
            sel = fresh("pv")
            comp.append(f"{sel} = where({' + '.join(terms)} > 0.0, {fmt_float(self.value)}, {val})"
                        "          # the pad value outside the input (Select)")
            val = sel
        if self.post:
            stage.env[id(self.maps[-1])] = val
            val = stage.assign(fresh("w"), self.node)
            comp += stage.lines
        if half:
            comp.append(f"{yu} = cast({val}, f16)")
        elif val == xu:
            comp.append(f"{yu} = {xu}          # UB -> UB: the tile goes out as it came in")
        else:
            target, rest = comp[-1].split(" = ", 1)
            assert target == val, comp[-1]
            comp[-1] = f"{yu} = {rest}"
        return comp

    def scaled_shapes(self, shapes: dict) -> dict:
        return scale_but_last(shapes)         # a source row is held whole in UB


def _neg(w: str) -> str:
    return f"-{w}" if w.isidentifier() else f"-({w})"


def _plus(n: str, k: int) -> str:
    return n if k == 0 else f"{n} + {k}" if k > 0 else f"{n} - {-k}"


def _minus(v: str, k: int, kind: str = "i") -> str:
    if k == 0:
        return v
    lit = f"{abs(k)}.0" if kind == "f" else str(abs(k))
    return f"{v} - {lit}" if k > 0 else f"{v} + {lit}"


def _shift(s: int, n: str) -> str:
    """The roll's shift taken modulo n, non-negative (n a dim: a tail shape rolls by the same amount)."""
    return f"{s} % {par(n)}" if s >= 0 else f"{par(n)} - {-s} % {par(n)}"


def _pad_step(attrs: dict, a: int, n: str) -> tuple[Step, str]:
    b, e = attrs["pads"][a]
    return Step(attrs["mode"], b, e, n), _plus(n, b + e)


def _tile_step(attrs: dict, a: int, n: str) -> tuple[Step, str]:
    reps = attrs["reps"][a]
    return Step("tile", reps, 0, n), str(reps) if n == "1" else f"{par(n)} * {reps}"


# per remap op: (its step along axis a, the output's length there) from its input's length n (DSL text)
_STEPS = {"pad": _pad_step, "tile": _tile_step,
          "roll": lambda attrs, a, n: (Step("roll", attrs["shifts"][a], 0, n), n),
          "flip": lambda attrs, a, n: (Step("flip", 0, 0, n), n)}


def _describe_pad(attrs: dict) -> str:
    pads = ", ".join(f"dim {a}: {b}, {e}" for a, (b, e) in sorted(attrs["pads"].items()))
    value = f" value {fmt_float(attrs['value'])}" if attrs["mode"] == "constant" else ""
    return f"F.pad {attrs['mode']}{value} ({pads})"


def _describe_roll(attrs: dict) -> str:
    return "torch.roll (" + ", ".join(f"dim {a} by {s}" for a, s in sorted(attrs["shifts"].items())) + ")"


def _describe_tile(attrs: dict) -> str:
    return "a repeat (" + ", ".join(f"dim {a} {r} times" for a, r in sorted(attrs["reps"].items())) + ")"


# per remap op: the words of the draft's docstring
_DESCRIBE = {"pad": _describe_pad, "roll": _describe_roll, "tile": _describe_tile,
             "flip": lambda attrs: f"torch.flip{tuple(attrs['axes'])}"}


def _describe(m: Node) -> str:
    return _DESCRIBE[m.op](m.attrs)


class InterleaveWriter(Writer):
    """The interleave template: torch.stack of K tensors along a new last axis (a cat of one-element
    parts along the last axis). Output row r, viewed as N * K elements, holds element j // K of part
    j % K: the parts' rows are loaded (and computed, when a part is elementwise work on inputs) whole,
    then every tile of output columns is K Gathers at the source position floor((j + 0.5) / K) and a
    Select per part by the lane's part number j - K * floor(...) (the vector unit's index arithmetic on
    iota, f32). Half and int16 values are selected in f32 (exact both ways); an int32 pair is blended as
    g0 + (g1 - g0) * s in i32, exact by two's complement wrap-around, as Select takes float types."""

    template = "interleave_last"
    whole_rows = True

    def __init__(self, g, lay, op_name, live):
        self.node: Node = lay.outputs[0]
        self.parts = [p.args[0] if p.is_view else p for p in self.node.args]
        super().__init__(g, lay, op_name, live)

    def dim_names(self, rank):
        return {2: ("N", "K"), 3: ("B", "N", "K"), 4: ("B", "M", "N", "K")}.get(rank) or \
            tuple(f"D{i}" for i in range(rank - 1)) + ("K",)

    def _collect(self):
        leaves = {n.attrs["index"]: n for n in self.lay.nodes if n.is_input and n.is_tensor}
        self.read_inputs(leaves, "the stack")
        self.collect_scalars()
        self.out_tensors.append(Tensor(self.namer.fresh("y"), self.node, "Out", self.node.dtype, "",
                                       shape=tuple(self.node.shape)))

    @property
    def k(self) -> int:
        return len(self.parts)

    def _part_view(self) -> str:
        outer = self.dims[:-2]
        return "(" + (("(" + ", ".join(outer) + "), ") if len(outer) > 1 else
                      (outer[0] + ", ") if outer else "") + self.dims[-2] + ("," if not outer else "") + ")"

    def _out_view(self) -> str:
        outer = self.dims[:-2]
        row = f"({self.dims[-2]}, {self.k})"
        if not outer:
            return f"({row},)"
        return "(" + ("(" + ", ".join(outer) + ")" if len(outer) > 1 else outer[0]) + f", {row})"

    def host_tensor(self) -> str:
        x = self.tensors[0]
        dims = ", ".join(self.dims[:-1])
        return f"{x.name}: Tensor[{DTYPE[x.dtype]}, ({dims}{',' if len(self.dims) == 2 else ''})]"

    def kernel_signature(self) -> str:
        params = [f"{t.name}: GM[{DTYPE[t.dtype]}, {self._part_view()}]" for t in self.tensors]
        params += [f"{n}: {dt}" for n, dt in self.kernel_scalars]
        y = self.out_tensors[0]
        params += [f"{y.name}: Out[{DTYPE[y.dtype]}, {self._out_view()}]", "t: Tiling"]
        return signature(self.op_name, params)

    def _rows(self) -> str:
        outer = self.dims[:-2]
        return " * ".join(outer) if outer else "1"

    def host_body(self) -> list[str]:
        return [f"cores, per_core = core_split({self._rows()})      # one output row per core step",
                f"tile = fit_tile({DTYPE[self.node.dtype]})"]

    def launch_fields(self) -> str:
        return f", rows=per_core, tile=min(tile, {self.dims[-2]} * {self.k})"

    def docstring(self) -> str:
        return (f"Drafted from {self.source}: torch.stack of {self.k} tensors along a new last axis (interleave "
                "template); each part's row is loaded whole, and every tile of output columns gathers the element "
                "each lane reads from its part (iota, Cast floor, Gather) and selects the lane's part.")

    def kernel_body(self) -> list[str]:
        fresh = self.namer.fresh
        dt = self.node.dtype
        wide = dt in ("bfloat16", "int16")                   # selected in f32, exact both ways
        rows = self._rows()
        loop = "r" if self.dims[:-2] else "0"
        body = [f"for r in core_rows(t.rows, {rows}):"] if self.dims[:-2] else ["for r in core_rows(t.rows, 1):"]
        body.append("    with copyin:")
        stage = Stage(self, {})
        for t in self.tensors:
            name = fresh(t.name + "u")
            at = f"{loop}, :" if self.dims[:-2] else ":"
            body.append(f"        {name} = load({t.name}[{at}])      # the part's row, whole")
            stage.env[id(t.node)] = name
        for n in self.lay.nodes:                 # an input viewed with the new axis of 1 is its row too
            if n.is_view and n.args[0].is_input and id(n.args[0]) in stage.env:
                stage.env[id(n)] = stage.env[id(n.args[0])]
        comp = []
        rowsrc = []
        for p in self.parts:
            if id(p) in stage.env and not wide:
                rowsrc.append(stage.env[id(p)])
                continue
            if wide:
                src = stage.value(p) if id(p) not in stage.env else stage.env[id(p)]
                comp += stage.lines
                stage.lines = []
                name = fresh("p")
                comp.append(f"{name} = cast({src}, f32)")
            else:
                name = stage.assign(fresh("p"), p)
                comp += stage.lines
                stage.lines = []
            rowsrc.append(name)
        if comp:
            body += ["    with compute:"] + ["        " + l for l in comp]
        k, n = self.k, self.dims[-2]
        col, fl, sel, src, yu = fresh("col"), fresh("at"), fresh("which"), fresh("src"), fresh("yu")
        inv = fmt_float(1.0 / k)
        lines = [f"{col} = iota(c.len, c.start)          # the tile's output columns",
                 f"{fl} = min(floor(({col} + 0.5) * {inv}), {n} - 1)          # the element's position in its part",
                 f"{sel} = {col} - {k} * {fl}          # the lane's part, 0 .. {k - 1}",
                 f"{src} = cast({fl}, i32)"]
        if dt == "int32":
            if k != 2:
                raise Unsupported(f"a stack of {k} int32 tensors along the last axis (Select takes float types; "
                                  "an int32 pair is blended exactly)")
            g0 = fresh("g0")
            lines += [f"{g0} = take({rowsrc[0]}, {src})",
                      f"{yu} = {g0} + (take({rowsrc[1]}, {src}) - {g0}) * cast({sel}, i32)"
                      "          # exact: i32 arithmetic wraps"]
        else:
            acc = fresh("g")
            lines.append(f"{acc} = take({rowsrc[0]}, {src})          # vector Gathers from the parts' rows")
            for j in range(1, k):
                nxt = yu if j == k - 1 and not wide else fresh("g")
                lines.append(f"{nxt} = where({sel} == {fmt_float(float(j))}, take({rowsrc[j]}, {src}), {acc})")
                acc = nxt
            if wide:
                rnd = ', round="rint"' if dt == "bfloat16" else ""
                lines.append(f"{yu} = cast({acc}, {DTYPE[dt]}{rnd})")
        body.append(f"    for c in tiles({n} * {k}, t.tile):")
        body += ["        with compute:"] + ["            " + l for l in lines]
        at = "r, c" if self.dims[:-2] else "c"
        body += ["        with copyout:", f"            store({self.out_tensors[0].name}[{at}], {yu})"]
        return body

    def scaled_shapes(self, shapes: dict) -> dict:
        return scale_but_last(shapes)         # the parts' rows are held whole in UB
