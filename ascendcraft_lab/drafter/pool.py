"""The pool template: one max/avg pooling of an input over its last 1-3 axes -> DSL text.

An *output row* is one lead index (batch x channel) and one coordinate of every spatial output
axis but the last; the cores split the output rows. An output row reads the input rows of its
window along the outer spatial axes (`kd x kh` rows of W elements for 3-D pooling, one row for
1-D), skips the rows that fall in the padding (their taps are computed as a range of window
offsets), combines them elementwise into one row (max, or sum for avg), and pools that row along
the last axis with one window op that knows the padding, dilation, output count and ceil mode:

    for r in core_rows(t.rows, B * C * OH):          # r = (bc, oh)
        ... h0 = oh * s - p; taps [j0, j1) of the window inside the input
        with copyin:  xw = load(x[bc, h0 + j0 * d:h0 + j1 * d:d, :])     # the window's rows: one copy
        with compute: acc = reduce_max(xw, axis=0)                      # folded into one row
                      yu = window_max(acc, k, s, pad=p, dilation=d, count=OW)
        with copyout: store(y[bc, oh, :], yu)

The window's rows along the last outer axis (H) are one 2-D tile: one strided DataCopyPad (rows d
apart in GM, a stepped slice), its buffer sized k rows by the bounds of j0 and j1, folded on chip
by reduce_max/reduce_sum(axis=0). 3-D pooling loops over the taps along D, one such tile each.
Rows so long that k of them would take over a quarter of UB come in one row at a time instead.

Max and avg pooling are separable, so combining the rows first and pooling along the last axis
once is the same as pooling every row. Avg pooling counts the padding (PyTorch's
count_include_pad): the window op divides by the last axis' window positions and the row
scalar by the outer axes' (a constant except where a ceil-mode window hangs past the padding).
"""
from __future__ import annotations

from .graph import Node
from ..soc import get_soc
from .templates import DTYPE, NBYTES, LoopWriter, signature

SPATIAL = {1: ("L",), 2: ("H", "W"), 3: ("D", "H", "W")}
UB_SHARE = get_soc(None).ub_bytes // 4     # what one double-buffered window tile may take
LEAD = ("B", "C")


class PoolWriter(LoopWriter):
    template = "pool"
    whole_rows = True            # a row of the last axis is one tile: its length is not a tile size

    def __init__(self, g, lay, op_name, live):
        pool: Node = lay.outputs[0]
        a = pool.attrs
        self.nsp = len(a["kernel"])
        self.k, self.s, self.p, self.d = a["kernel"], a["stride"], a["padding"], a["dilation"]
        self.ceil, self.kind = a["ceil_mode"], a["kind"]
        self.lead_axes = list(range(len(lay.base) - self.nsp))
        super().__init__(g, lay, op_name, live)

    @property
    def sp_names(self) -> list[str]:
        """The spatial (pooled) dims of the input."""
        return self.dims[len(self.lead_axes):]

    def dim_names(self, rank: int) -> tuple[str, ...]:
        lead = rank - self.nsp
        names = LEAD[-lead:] if lead <= len(LEAD) else tuple(f"N{i}" for i in range(lead))
        return tuple(names) + SPATIAL[self.nsp]

    # -- shapes -----------------------------------------------------------------------------------
    def out_dim(self, i: int) -> str:
        """Output size of spatial axis i as DSL text over the input dim (PyTorch's formula)."""
        X, k, s, p, d = self.sp_names[i], self.k[i], self.s[i], self.p[i], self.d[i]
        c = 2 * p - d * (k - 1) - 1
        if not self.ceil:
            return _div_plus_one(X, c, s)
        first = _div_plus_one(X, c + s - 1, s)
        # PyTorch drops a last window that would start in the right padding: at most
        # (X + p - 1) // s + 1 windows, which binds only when c + s - 1 > p - 1.
        if c + s - 1 > p - 1:
            return f"min({first}, {_div_plus_one(X, p - 1, s)})"
        return first

    def lead_group(self) -> str:
        names = [self.dims[a] for a in self.lead_axes]
        return names[0] if len(names) == 1 else "(" + ", ".join(names) + ")"

    def full_view(self, shape=None) -> str:
        if shape is None:
            return self.shape_text([self.lead_group()] + list(self.sp_names))
        return self.shape_text([self.lead_group()] + [self.out_dim(i) for i in range(self.nsp)])

    def rows_expr(self) -> str:
        parts = [self.dims[a] for a in self.lead_axes] + [_par(self.out_dim(i)) for i in range(self.nsp - 1)]
        return " * ".join(parts)

    # -- text -------------------------------------------------------------------------------------
    def host_body(self) -> list[str]:
        return [f"rows = {self.rows_expr()}      # output rows: {self.row_meaning()}",
                "cores, per_core = core_split(rows)"]

    def launch_fields(self) -> str:
        return ", rows=per_core"

    def row_meaning(self) -> str:
        coords = [self.dims[a].lower() for a in self.lead_axes] + [f"o{n.lower()}" for n in self.sp_names[:-1]]
        return "one per (" + ", ".join(coords) + ")"

    def docstring(self) -> str:
        what = f"{self.nsp}-D {self.kind} pooling"
        cfg = f"kernel {_t(self.k)}, stride {_t(self.s)}, padding {_t(self.p)}" + \
              (f", dilation {_t(self.d)}" if any(x != 1 for x in self.d) else "") + (", ceil mode" if self.ceil else "")
        rows = "An output row" if self.nsp == 1 else (
            f"An output row combines the input rows of its window along {', '.join(self.sp_names[:-1])} "
            f"(rows in the padding are skipped), then")
        return (f"Drafted from {self.source}: {what} ({cfg}), pool template. The cores split the output rows. "
                f"{rows} one window op pools along {self.sp_names[-1]} with PyTorch's padding, dilation and "
                f"output count (Gathers on the vector unit).")

    def kernel_body(self) -> list[str]:
        x, y = self.tensors[0], self.out_tensors[0]
        fp16 = x.dtype == "float16"
        outer = list(range(self.nsp - 1))      # spatial axes whose window rows are combined one by one
        body: list[str] = []
        lead, coords = self._row_coords(outer, body)
        starts, taps = self._taps(outer, coords, body)
        self._lead, self._starts, self._taps_of = lead, starts, taps
        xu = self.tile_name(x, "h" if fp16 else "u")
        if not outer:
            first_in, pre, stages, value = self._one_row(xu)
        elif self.window_tile_fits:
            first_in, pre, stages, value = self._window_tile(outer)
        else:
            first_in, pre, stages, value = self._row_by_row(outer, xu)
        win, scalars = self._window(value, starts)
        body += scalars
        out_tile = self.tile_name(y, "u")
        if fp16:
            wide = self.namer.fresh(y.name + "w")
            compute = pre + [f"{wide} = {win}", f"{out_tile} = cast({wide}, f16)"]
        else:
            compute = pre + [f"{out_tile} = {win}"]
        store = f"store({y.name}[{', '.join([lead] + [coords[i] for i in outer] + [':'])}], {out_tile})"
        stages += self.stages(first_in, compute, [store])
        return [f"for r in core_rows(t.rows, {self.rows_expr()}):"] + ["    " + l for l in body + stages]

    def _row_coords(self, outer: list[int], body: list[str]) -> tuple[str, dict[int, str]]:
        """The lead index and the outer output coordinates of output row r = (lead, o_0, ..., o_{n-2}),
        the last coordinate fastest (their lines appended to `body`)."""
        fresh = self.namer.fresh
        coords: dict[int, str] = {}
        lead = fresh("bc") if outer else "r"
        div: list[str] = []
        for i in reversed(outer):
            coords[i] = fresh("o" + self.sp_names[i].lower())
            quot = f"r // {_par(' * '.join(div))}" if len(div) > 1 else f"r // {div[0]}" if div else "r"
            body.append(f"{coords[i]} = {quot} % {_par(self.out_dim(i))}")
            div.insert(0, _par(self.out_dim(i)))
        if outer:
            body.append(f"{lead} = r // {_par(' * '.join(div)) if len(div) > 1 else div[0]}")
        return lead, coords

    def _taps(self, outer: list[int], coords: dict, body: list[str]) -> tuple[dict[int, str], dict[int, tuple]]:
        """Per outer axis: the window's first input row, and the range [j0, j1) of its taps inside
        the input (their lines appended to `body`)."""
        fresh = self.namer.fresh
        starts: dict[int, str] = {}
        taps: dict[int, tuple[str, str]] = {}
        for i in outer:
            k, s, p, d = self.k[i], self.s[i], self.p[i], self.d[i]
            X = self.sp_names[i]
            starts[i] = fresh(X.lower() + "0")
            note = "      # the window's first input row along " + X + " (may lie in the padding)" if p else ""
            body.append(f"{starts[i]} = {_lin(coords[i], s, -p)}{note}")
            if p == 0 and not self.ceil:
                taps[i] = ("0", str(k))        # every tap of every window lies inside the input
                continue
            j0, j1 = fresh("j" + X.lower() + "0"), fresh("j" + X.lower() + "1")
            neg = f"max(0, -{starts[i]})"
            first = neg if d == 1 else f'({neg} + {d - 1}) // {d}'
            body.append(f"{j0} = {first}      # the first tap inside the input")
            body.append(f"{j1} = min({k}, {f'{X} - {starts[i]}' if d == 1 else f'({X} - 1 - {starts[i]}) // {d} + 1'})"
                        "      # one past the last")
            taps[i] = (j0, j1)
        return starts, taps

    def _row(self, i: int, tap: str) -> str:
        """The input row of tap `tap` along outer axis i."""
        start = self._starts[i]
        return start if tap == "0" else f"{start} + {tap if self.d[i] == 1 else f'{_par(tap)} * {self.d[i]}'}"

    def _load(self, tile: str, idx: list[str]) -> str:
        return f"{tile} = load({self.tensors[0].name}[{', '.join([self._lead] + idx + [':'])}])"

    def _widen(self, tile: str) -> str:
        """f16 rows are pooled in f32."""
        return f"cast({tile}, f32)" if self.tensors[0].dtype == "float16" else tile

    def _one_row(self, xu: str) -> tuple[list, list, list, str]:
        """1-D pooling: (copyin, compute lines before the window op, stages before, the pooled row):
        the row's load joins the stages of the window op."""
        x = self.tensors[0]
        if x.dtype != "float16":
            return [self._load(xu, [])], [], [], xu
        value = self.namer.fresh(x.name + "u")
        return [self._load(xu, [])], [f"{value} = cast({xu}, f32)"], [], value

    def _window_tile(self, outer: list[int]) -> tuple[list, list, list, str]:
        """The window's rows along the last outer axis (d rows apart in GM) as one 2-D tile, one
        strided copy, folded into one row with reduce_max/reduce_sum(axis=0); 3-D pooling loops over
        the taps along D, one such tile each."""
        x, fresh = self.tensors[0], self.namer.fresh
        acc, h = fresh("acc"), outer[-1]
        j0, j1 = self._taps_of[h]
        d = self.d[h]
        rows = f"{self._row(h, j0)}:{self._starts[h]} + {j1 if d == 1 else f'{_par(j1)} * {d}:{d}'}"
        xw = self.tile_name(x, "w")

        def folded(tile: str) -> str:
            if self.kind == "max":             # max is exact in any float type: fold, then widen
                return self._widen(f"reduce_max({tile}, axis=0)")
            return f"reduce_sum({self._widen(tile)}, axis=0)"
        if len(outer) == 1:                   # the window op joins the same stages
            return [self._load(xw, [rows])], [f"{acc} = {folded(xw)}"], [], acc
        i0 = outer[0]
        q = fresh("j" + self.sp_names[i0].lower())
        stages = self.stages([self._load(xw, [self._row(i0, self._taps_of[i0][0]), rows])],
                             [f"{acc} = {folded(xw)}"], [])
        xv = fresh(x.name + "v")
        fold = f"max({acc}, {folded(xv)})" if self.kind == "max" else f"{acc} + {folded(xv)}"
        stages += [f"for {q} in range({_after(self._taps_of[i0][0])}, {self._taps_of[i0][1]}):"]
        stages += ["    " + l for l in self.stages([self._load(xv, [self._row(i0, q), rows])], [f"{acc} = {fold}"], [])]
        return [], [], stages, acc

    def _row_by_row(self, outer: list[int], xu: str) -> tuple[list, list, list, str]:
        """Rows too long for a window tile: the window's first row, then its other rows one at a time."""
        x, fresh, taps = self.tensors[0], self.namer.fresh, self._taps_of
        acc, xv = fresh("acc"), fresh(x.name + ("h2" if x.dtype == "float16" else "v"))
        stages = self.stages([self._load(xu, [self._row(i, taps[i][0]) for i in outer])],
                             [f"{acc} = {self._widen(xu)}"], [])
        fold = f"{acc} = max({acc}, {self._widen(xv)})" if self.kind == "max" else \
            f"{acc} = {acc} + {self._widen(xv)}"
        if len(outer) == 1:
            (i,) = outer
            q = fresh("j" + self.sp_names[i].lower())
            head = f"for {q} in range({_after(taps[i][0])}, {taps[i][1]}):"
            idx = [self._row(i, q)]
        else:                              # two outer axes: q walks their taps, the inner one fastest
            i0, i1 = outer
            n0, n1 = (_span(taps[i]) for i in outer)
            q = fresh("q")
            head = f"for {q} in range(1, {_par(n0)} * {_par(n1)}):      # the window's other rows"
            idx = [self._row(i0, _plus(taps[i0][0], f"{q} // {_par(n1)}")),
                   self._row(i1, _plus(taps[i1][0], f"{q} % {_par(n1)}"))]
        stages += [head] + ["    " + l for l in self.stages([self._load(xv, idx)], [fold], [])]
        return [], [], stages, acc

    @property
    def window_tile_fits(self) -> bool:
        """A window's rows along the last outer axis fit UB as one tile (double-buffered, a quarter of
        UB at most, at the traced row length); else they come in one row at a time."""
        i = self.nsp - 2
        block = 32 // NBYTES[self.tensors[0].dtype]
        pitch = -(-self.lay.base[-1] // block) * block
        return i >= 0 and 2 * self.k[i] * pitch * NBYTES[self.tensors[0].dtype] <= UB_SHARE

    def _window(self, value: str, starts: dict[int, str]) -> tuple[str, list[str]]:
        """The window op along the last axis (times the outer axes' 1/count for avg), and the
        row scalars it needs."""
        i = self.nsp - 1
        k, s, p, d = self.k[i], self.s[i], self.p[i], self.d[i]
        args = [value, str(k), str(s)] + ([f"pad={p}"] if p else []) + ([f"dilation={d}"] if d != 1 else [])
        args.append(f"count={self.out_dim(i)}")
        text = f"window_{self.kind}({', '.join(args)})"
        if self.kind != "avg" or not starts:
            return text, []
        if not self.ceil:
            # every window lies inside the padded input: the sum over the window divided by its size
            size = 1
            for j in range(self.nsp):
                size *= self.k[j]
            return f"window_sum({', '.join(args)}) * {1.0 / size!r}", []
        # a ceil-mode window may hang past the padding: it covers min(start + k, X + p) - start
        inv = self.namer.fresh("inv")
        parts = [f"(min({st} + {self.k[j]}, {self.sp_names[j]} + {self.p[j]}) - {st})" for j, st in starts.items()]
        return f"{text} * {inv}", [f"{inv} = 1.0 / ({' * '.join(parts)})      # the outer axes' window positions"]

    def kernel_signature(self) -> str:
        x, y = self.tensors[0], self.out_tensors[0]
        params = [f"{x.name}: GM[{DTYPE[x.dtype]}, {x.view}]", f"{y.name}: Out[{DTYPE[y.dtype]}, {y.view}]",
                  "t: Tiling"]
        return signature(self.op_name, params)


def _t(v: tuple) -> str:
    return str(v[0]) if len(set(v)) == 1 else "x".join(str(a) for a in v)


def _par(text: str) -> str:
    return text if text.replace("_", "").isalnum() or (text.startswith("min(") and text.endswith(")")) else f"({text})"


def _div_plus_one(X: str, c: int, s: int) -> str:
    """(X + c) // s + 1 with the constants folded."""
    num = X if c == 0 else f"{X} + {c}" if c > 0 else f"{X} - {-c}"
    if s == 1:
        c1 = c + 1
        return X if c1 == 0 else f"{X} + {c1}" if c1 > 0 else f"{X} - {-c1}"
    return f"({num}) // {s} + 1" if c else f"{X} // {s} + 1"


def _lin(v: str, mul: int, add: int) -> str:
    text = v if mul == 1 else f"{v} * {mul}"
    return text if add == 0 else f"{text} + {add}" if add > 0 else f"{text} - {-add}"


def _after(j0: str) -> str:
    """The tap after the first one."""
    return "1" if j0 == "0" else j0 + " + 1"


def _span(tap: tuple[str, str]) -> str:
    j0, j1 = tap
    return j1 if j0 == "0" else f"{j1} - {j0}"


def _plus(j0: str, t: str) -> str:
    return t if j0 == "0" else f"{j0} + {t}"


__all__ = ["PoolWriter"]
