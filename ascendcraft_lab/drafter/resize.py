"""The resize template: F.interpolate / nn.Upsample (nearest, nearest-exact, linear, bilinear,
bicubic, trilinear; align_corners both ways; area, which is adaptive average pooling, also
F.adaptive_avg_pool2d / nn.AdaptiveAvgPool2d) of an (N, C, *spatial) input -> DSL.

Resampling is index arithmetic, a gather and a weighted sum, and it is separable: an output
element reads taps along every spatial axis, and its value is the product-weighted sum over
them. The kernel splits the output rows (every (plane, outer output position)) over the cores:

  outer axes   (D, H of trilinear; H of bilinear / bicubic / nearest 2-D) per output row: the
               source positions and weights are scalars of the row index (scalar-unit
               arithmetic), so each tap's source row is copied into UB whole (a DataCopyPad
               from a GM address computed on the scalar unit), and the rows are blended into
               one once per output row (Muls / Axpy-like vector arithmetic over the row).
  last axis    (W) per tile of output columns: the source positions are vector arithmetic on
               CreateVecIndex (`iota`), floored by Cast (CAST_FLOOR), and each column tap is one
               vector Gather (`take`) from the blended row, weighted and summed.

Source positions follow PyTorch (aten/native/UpSample.h, in f32): the scale is
(in - 1) / (out - 1) with align_corners, else 1 / scale_factor when the reference gives a scale
factor (and does not recompute it), else in / out; nearest reads floor(o * scale), nearest-exact
floor((o + 0.5) * scale), linear (o + 0.5) * scale - 0.5 clamped at 0 (align_corners: o * scale)
and its two neighbours, cubic the same position unclamped, its four neighbours clamped into the
row and Keys' cubic convolution weights with A = -0.75.

antialias=True (bilinear, bicubic) widens the filter with the downscale, as PyTorch's
_upsample_*_aa does: with scale s and base support b (1 for the triangle filter, 2 for the cubic
one with A = -0.5), the support is b * max(s, 1); output o centres at (o + 0.5) * s and reads the
taps [max(int(centre - support + 0.5), 0), min(int(centre + support + 0.5), in)), each weighted by
the filter at (tap - centre + 0.5) / max(s, 1), normalised by the taps' sum. Along H the taps are a
scalar loop of row loads (the count varies with the row); along W a fixed number of Gathers (the
most taps any column has, a tiling field), a tap beyond the row weighted 0 and read clamped.

mode='area' (2-D) averages the window [floor(o * in / out), ceil((o + 1) * in / out)) of each axis,
PyTorch's adaptive_avg_pool2d: an output row's window of source rows is one strided copy, folded by
reduce_sum(axis=0) and scaled by 1 / its length; along W a fixed number of Gathers (the longest
window, cdiv(in, out) + 1) with the taps past a column's window weighted 0, divided by its length.
An output of 1 x 1 (global average pooling) is drafted as the mean over H and W instead.
"""
from __future__ import annotations

import math
from fractions import Fraction

from .graph import Node, Unsupported
from .templates import DTYPE, Tensor, Writer, fmt_float, par, scale_but_last, signature

MODES = {"nearest": "nearest", "nearest-exact": "nearest-exact", "linear": "linear", "bilinear": "linear",
         "bicubic": "cubic", "trilinear": "linear", "area": "area"}
RANK_OF_MODE = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}
CUBIC_A = -0.75          # PyTorch's bicubic (Keys) parameter
AA_CUBIC_A = -0.5        # the anti-aliasing cubic filter's parameter (PyTorch's aa bicubic)
AA_SUPPORT = {"linear": 1, "cubic": 2}     # the filters' half-width at scale 1


def _pair(v, k: int, what: str) -> tuple | None:
    if v is None:
        return None
    if isinstance(v, (list, tuple)):
        if len(v) != k:
            raise Unsupported(f"F.interpolate with {len(v)} {what} for {k} spatial dims")
        return tuple(v)
    return (v,) * k


def resize_node(x: Node, size, scale_factor, mode: str, align_corners, recompute_scale_factor, antialias) -> Node:
    """The `resize` node of F.interpolate(x, ...): attrs mode (nearest | nearest-exact | linear |
    cubic), align_corners, and per spatial axis the output size and the scale factor the
    reference gives (None: PyTorch computes the scale from the sizes)."""
    if not x.is_tensor:
        raise Unsupported("F.interpolate of a scalar")
    if not isinstance(mode, str) or mode not in MODES:
        raise Unsupported(f"F.interpolate mode={mode!r}: the resize template drafts nearest, nearest-exact, "
                          "linear, bilinear, bicubic, trilinear and area")
    rank = len(x.shape)
    if mode == "area" and rank != 4:
        raise Unsupported(f"mode='area' (adaptive average pooling) of a rank-{rank} tensor: the resize template "
                          "averages 2-D windows of (N, C, H, W)")
    if rank < 3 or rank > 5:
        raise Unsupported(f"F.interpolate of a rank-{rank} tensor (N, C and 1 to 3 spatial dims)")
    if mode in RANK_OF_MODE and RANK_OF_MODE[mode] != rank:
        raise Unsupported(f"F.interpolate mode={mode!r} of a rank-{rank} tensor (PyTorch takes rank "
                          f"{RANK_OF_MODE[mode]})")
    k = rank - 2
    kind = MODES[mode]
    if antialias and (kind not in ("linear", "cubic") or rank != 4):
        raise Unsupported(f"F.interpolate antialias=True with mode={mode!r} (PyTorch anti-aliases bilinear and "
                          "bicubic only)")
    if align_corners and kind in ("nearest", "nearest-exact"):
        raise Unsupported("F.interpolate align_corners with a nearest mode (PyTorch rejects it)")
    sizes, scales = _pair(size, k, "sizes"), _pair(scale_factor, k, "scale factors")
    spatial = tuple(int(d) for d in x.shape[2:])
    if sizes is None and scales is None:
        raise Unsupported("F.interpolate without size or scale_factor")
    if sizes is not None:
        out = tuple(int(s) for s in sizes)
        scales = (None,) * k
    else:
        scales = tuple(float(s) for s in scales)
        scale_factor_list = scales
        if any(s <= 0 for s in scales):
            raise Unsupported(f"F.interpolate with scale factors {scales}")
        out = tuple(int(math.floor(d * s)) for d, s in zip(spatial, scales))
        if recompute_scale_factor:
            scales = (None,) * k
    if any(o < 1 for o in out):
        raise Unsupported(f"F.interpolate to an empty output {out}")
    attrs = {"mode": kind, "align_corners": bool(align_corners) and kind in ("linear", "cubic"),
             "sizes": out, "scales": scales, "given_size": sizes is not None,
             "factors": tuple(float(f) for f in scale_factor_list) if sizes is None else None,
             "antialias": bool(antialias)}
    return Node("resize", (x,), attrs, tuple(x.shape[:2]) + out, x.dtype)


def _scale_factor_dims(d: str, s: float) -> str | None:
    """floor(d * s) as an integer expression of the dim `d` (d * k, d // k or d * p // q) when it
    equals PyTorch's floor(double(d) * s) for every size below 2^16; None when no such formula
    exists (a factor like 0.7, whose double is a hair below 7/10: 90 * 0.7 floors to 62)."""
    f = Fraction(s).limit_denominator(1024)
    p, q = f.numerator, f.denominator
    if any(math.floor(v * s) != v * p // q for v in range(1, 1 << 16)):
        return None
    if q == 1:
        return f"{d} * {p}" if p != 1 else d
    if p == 1:
        return f"{d} // {q}"
    return f"{d} * {p} // {q}"


class ResizeWriter(Writer):
    template = "resize"
    whole_rows = True

    def __init__(self, g, lay, op_name, live):
        self.node: Node = lay.outputs[0]
        super().__init__(g, lay, op_name, live)

    def _collect(self):
        n, g = self.node, self.g
        x = n.args[0]
        for i, desc in enumerate(g.inputs):
            pyname = self.input_name(i)
            if desc.get("kind") != "tensor":     # a size or scale among the inputs: drafted as its traced value
                continue
            if i != x.attrs["index"]:
                raise Unsupported(f"input `{pyname}` that F.interpolate does not read")
            t = Tensor(self.namer.fresh(pyname), x, "GM", desc["dtype"], "", shape=tuple(desc["shape"]))
            self.tensors.append(t)
            self.loaded[id(x)] = t
        self.out_tensors.append(Tensor(self.namer.fresh("y"), n, "Out", n.dtype, "", shape=tuple(n.shape)))
        k = len(n.shape) - 2
        self.sdims = [self.namer.fresh(d) for d in ("D", "H", "W")[3 - k:]]     # source spatial dims
        self.lead = [self.namer.fresh("N"), self.namer.fresh("C")]
        a = n.attrs
        self.odims = []                                                       # output dims, as expressions
        for d, src, out, s in zip(self.sdims, n.args[0].shape[2:], a["sizes"], a["scales"]):
            formula = _scale_factor_dims(d, a["factors"][len(self.odims)]) if not a["given_size"] else None
            if formula is None and not a["given_size"]:
                self.notes.append(f"output size {out} along {d} written as a number: no integer formula gives "
                                  f"PyTorch's floor({d} * {a['factors'][len(self.odims)]}) for every size")
            self.odims.append(formula or str(out))

    def dim_names(self, rank):
        return tuple(f"S{i}" for i in range(rank))      # unused: the writer names its own dims

    # -- text helpers ---------------------------------------------------------------------------------
    par = staticmethod(par)

    def prod(self, names) -> str:
        names = [self.par(x) for x in names]
        return " * ".join(names) if names else "1"

    def _scale_text(self, i: int) -> str:
        """The host expression of axis i's scale (PyTorch's area_pixel_compute_scale)."""
        a = self.node.attrs
        d, o = self.sdims[i], self.odims[i]
        if a["align_corners"]:
            return f"({d} - 1) / max({o} - 1, 1)"        # one output position reads source 0 either way
        s = a["scales"][i]
        if s is not None:
            return f"1.0 / {fmt_float(s)}"
        return f"{d} / {self.par(o)}"

    @property
    def scale_names(self) -> list[str]:
        return [f"s{d.lower()}" for d in self.sdims]

    # -- the Writer's pieces --------------------------------------------------------------------------
    def _views(self) -> tuple[str, str]:
        lead = "(" + ", ".join(self.lead) + ")"
        return (f"({lead}, {', '.join(self.sdims)})", f"({lead}, {', '.join(self.odims)})")

    def host_tensor(self) -> str:
        x = self.tensors[0]
        return f"{x.name}: Tensor[{DTYPE[x.dtype]}, {self._views()[0]}]"

    def host_params(self) -> list[str]:
        return []

    def kernel_signature(self) -> str:
        x, y = self.tensors[0], self.out_tensors[0]
        xv, yv = self._views()
        return signature(self.op_name, [f"{x.name}: GM[{DTYPE[x.dtype]}, {xv}]",
                                         f"{y.name}: Out[{DTYPE[y.dtype]}, {yv}]", "t: Tiling"])

    def _rows_total(self) -> str:
        return self.prod(self.lead + self.odims[:-1])

    def host_body(self) -> list[str]:
        lines = [f"rows = {self._rows_total()}          # one output row per (plane, outer output position)",
                 "cores, per_core = core_split(rows)",
                 self.tile_line()]
        if self.node.attrs["mode"] == "area":       # a window's rows per copy: as many as UB holds
            lines.append(f"win_rows = max(tile // align_up({self.sdims[-1]}, 8), 1)")
        return lines

    def launch_fields(self) -> str:
        if self.node.attrs["mode"] == "area":      # a window's rows / columns at most: cdiv(in, out) + 1
            (H, W), (OH, OW) = self.sdims, [self.par(o) for o in self.odims]
            return (f", rows=per_core, tile=min(tile, {self.odims[-1]}), win_rows=min(win_rows, cdiv({H}, {OH}) + 1), "
                    f"taps{W.lower()}=cdiv({W}, {OW}) + 1")
        scales = "".join(f", {s}={self._scale_text(i)}" for i, s in enumerate(self.scale_names))
        if self.node.attrs["antialias"]:
            scales += "".join(self._aa_fields(i) for i in range(len(self.sdims)))
        return f", rows=per_core, tile=min(tile, {self.odims[-1]}){scales}"

    def _aa_fields(self, i: int) -> str:
        """Axis i's anti-aliasing fields: the support, the filter's argument scale and (the last
        axis) the most taps a column reads, 2 * ceil(support) + 1, on integers."""
        a = self.node.attrs
        b = AA_SUPPORT[a["mode"]]
        d, o, low = self.sdims[i], self.odims[i], self.sdims[i].lower()
        s = self._scale_text(i)
        widened = f"max({s}, 1.0)"
        fields = f", sup{low}={widened if b == 1 else f'{fmt_float(b)} * {widened}'}, inv{low}=1.0 / {widened}"
        if i < len(self.sdims) - 1:
            return fields
        if a["align_corners"]:
            ceil = f"max(cdiv({b} * ({d} - 1), max({o} - 1, 1)), {b})"
        elif a["scales"][i] is not None:
            ceil = str(math.ceil(b * max(1.0 / a["scales"][i], 1.0)))
        else:
            ceil = f"max(cdiv({b} * {d}, {self.par(o)}), {b})"
        return fields + f", taps{low}=2 * {ceil} + 1"

    def docstring(self) -> str:
        a = self.node.attrs
        mode = {"linear": ["", "linear", "bilinear", "trilinear"][len(self.node.shape) - 2],
                "cubic": "bicubic"}.get(a["mode"], a["mode"])
        corners = ", align_corners" if a["align_corners"] else ""
        if a["mode"] == "area":
            return (f"Drafted from {self.source}: adaptive average pooling (F.interpolate area, resize template). The "
                    "cores split the output rows; each row's window of source rows [oh * H // OH, cdiv((oh + 1) * H, "
                    "OH)) comes in as one tile and is averaged by reduce_sum(axis=0), then every tile of output "
                    "columns gathers the most taps any column's window holds (iota, Cast floor, Gather), a tap past "
                    "its window weighted 0, and divides by the window's length.")
        if a["antialias"]:
            return (f"Drafted from {self.source}: F.interpolate {mode}{corners}, antialias, resize template. The cores "
                    "split the output rows; each row's source rows (as many as its filter covers, a scalar loop) are "
                    "weighted into one, then every tile of output columns gathers the most taps any column reads "
                    "(iota, Cast floor, Gather), weighted by the filter at each column's centre and normalised.")
        return (f"Drafted from {self.source}: F.interpolate {mode}{corners}, resize template. The cores split the "
                "output rows; each row's source rows (scalar positions) are copied whole and blended once, then every "
                "tile of output columns gathers its taps from the blended row (iota, Cast floor, Gather) and sums "
                "them by weight.")

    # -- taps ----------------------------------------------------------------------------------------
    def _scalar_taps(self, i: int, o: str) -> tuple[list[str], list[tuple[str, str | None]]]:
        """(lines, [(source index, weight or None)]) of outer axis i at output position `o` (scalars)."""
        fresh = self.namer.fresh
        a = self.node.attrs
        mode, S, s = a["mode"], self.sdims[i], f"t.{self.scale_names[i]}"
        base = S.lower()
        if mode in ("nearest", "nearest-exact"):
            at = f"{o} * {s}" if mode == "nearest" else f"({o} + 0.5) * {s}"
            j = fresh(base)
            return [f"{j} = min(cast({at}, i32, round=\"floor\"), {S} - 1)"], [(j, None)]
        src, lam = fresh(f"p{base}"), fresh(f"l{base}")
        i0 = fresh(f"{base}0" if mode == "linear" else f"f{base}")
        if mode == "linear":
            pos = f"{o} * {s}" if a["align_corners"] else f"max(({o} + 0.5) * {s} - 0.5, 0.0)"
            i1 = fresh(f"{base}1")
            return ([f"{src} = {pos}", f"{i0} = cast({src}, i32, round=\"floor\")", f"{i1} = min({i0} + 1, {S} - 1)",
                     f"{lam} = {src} - {i0}"], [(i0, f"1.0 - {lam}"), (i1, lam)])
        pos = f"{o} * {s}" if a["align_corners"] else f"({o} + 0.5) * {s} - 0.5"
        lines = [f"{src} = {pos}", f"{i0} = cast({src}, i32, round=\"floor\")", f"{lam} = {src} - {i0}"]
        taps = []
        for j, w in enumerate(_cubic_weights(lam)):
            ij, wj = fresh(f"{base}{j}"), fresh(f"w{base}{j}")
            lines += [f"{ij} = clamp({_offset(i0, j - 1)}, 0, {S} - 1)", f"{wj} = {w}"]
            taps.append((ij, wj))
        return lines, taps

    def _vector_taps(self, col: str) -> tuple[list[str], list[tuple[str, str | None]]]:
        """(lines, [(index tile, weight tile or None)]) along the last axis for the columns `col`."""
        fresh = self.namer.fresh
        a = self.node.attrs
        mode, W, s = a["mode"], self.sdims[-1], f"t.{self.scale_names[-1]}"
        if mode in ("nearest", "nearest-exact"):
            at = f"{col} * {s}" if mode == "nearest" else f"({col} + 0.5) * {s}"
            j = fresh("iw")
            return [f"{j} = min(cast({at}, i32, round=\"floor\"), {W} - 1)"], [(j, None)]
        src, lam = fresh("pw"), fresh("lw")
        i0 = fresh("w0" if mode == "linear" else "fw")
        if mode == "linear":
            pos = f"{col} * {s}" if a["align_corners"] else f"max(({col} + 0.5) * {s} - 0.5, 0.0)"
            i1 = fresh("w1")
            return ([f"{src} = {pos}", f"{i0} = cast({src}, i32, round=\"floor\")", f"{i1} = min({i0} + 1, {W} - 1)",
                     f"{lam} = {src} - cast({i0}, f32)"], [(i0, None), (i1, lam)])
        pos = f"{col} * {s}" if a["align_corners"] else f"({col} + 0.5) * {s} - 0.5"
        lines = [f"{src} = {pos}", f"{i0} = cast({src}, i32, round=\"floor\")", f"{lam} = {src} - cast({i0}, f32)"]
        taps = []
        for j, w in enumerate(_cubic_weights(lam)):
            ij, wj = fresh(f"iw{j}"), fresh(f"cw{j}")
            lines += [f"{ij} = clamp({_offset(i0, j - 1)}, 0, {W} - 1)", f"{wj} = {w}"]
            taps.append((ij, wj))
        return lines, taps

    def kernel_body(self) -> list[str]:
        if self.node.attrs["mode"] == "area":
            return self._area_body()
        if self.node.attrs["antialias"]:
            return self._aa_body()
        fresh = self.namer.fresh
        x, y = self.tensors[0], self.out_tensors[0]
        outer = self.odims[:-1]
        body = [f"for r in core_rows(t.rows, {self._rows_total()}):"]
        opos = []
        if outer:
            p = fresh("p")
            body.append(f"    {p} = r // {self.par(self.prod(outer))}")
            for i, o in enumerate(outer):
                name = fresh(f"o{self.sdims[i].lower()}")
                inner = self.prod(outer[i + 1:])
                whole = f"r // {self.par(inner)}" if inner != "1" else "r"
                body.append(f"    {name} = {whole} % {self.par(o)}")
                opos.append(name)
        else:
            p = "r"
        # the source rows: every combination of the outer axes' taps, weighted by the product
        rows: list[tuple[list[str], list[str]]] = [([], [])]
        for i, o in enumerate(opos):
            lines, taps = self._scalar_taps(i, o)
            body += ["    " + l for l in lines]
            rows = [(idx + [j], ws + ([w] if w is not None else [])) for idx, ws in rows for j, w in taps]
        names = [fresh(f"src{k}") for k in range(len(rows))] if len(rows) > 1 else [fresh(f"{x.name}u")]
        body.append("    with copyin:")
        for name, (idx, _) in zip(names, rows):
            at = ", ".join([p] + idx + [":"])
            body.append(f"        {name} = load({x.name}[{at}])")
        if len(rows) == 1:
            row = names[0]
        else:
            row = fresh("row")
            linear2 = self.node.attrs["mode"] == "linear" and len(rows) == 2
            if linear2:                        # a lerp: one Sub, one Muls, one Add over the row
                lam = rows[1][1][0]
                blend = f"{names[0]} + ({names[1]} - {names[0]}) * {lam}"
            else:
                parts = []
                for name, (_, ws) in zip(names, rows):
                    w = " * ".join(self.par(v) if not v.isidentifier() else v for v in ws)
                    parts.append(f"{name} * {w if len(ws) == 1 else '(' + w + ')'}")
                blend = " + ".join(parts)
            body += ["    with compute:",
                     "        # the source rows blended once per output row: vector work over the row, not per tile",
                     f"        {row} = {blend}"]
        oat = ", ".join([p] + opos + ["c"])
        body.append(f"    for c in tiles({self.odims[-1]}, t.tile):")
        body.append("        with compute:")
        col = fresh("col")
        body.append(f"            {col} = iota(c.len, c.start)          # the tile's output columns (CreateVecIndex)")
        lines, taps = self._vector_taps(col)
        body += ["            " + l for l in lines]
        yu = fresh("yu")
        if len(taps) == 1:
            body.append(f"            {yu} = take({row}, {taps[0][0]})          # one vector Gather")
        elif self.node.attrs["mode"] == "linear":
            left = fresh("left")
            body.append(f"            {left} = take({row}, {taps[0][0]})          # vector Gathers from the row")
            body.append(f"            {yu} = {left} + (take({row}, {taps[1][0]}) - {left}) * {taps[1][1]}")
        else:
            terms = " + ".join(f"take({row}, {j}) * {w}" for j, w in taps)
            body.append(f"            {yu} = {terms}")
        body += ["        with copyout:", f"            store({y.name}[{oat}], {yu})"]
        return body

    # -- antialias=True: a filter as wide as the downscale -----------------------------------------------
    def _aa_filter(self, d: str, tile: bool) -> tuple[list[str], str]:
        """(lines, weight) of the anti-aliasing filter at `d` (a scalar or a tile expression)."""
        fresh = self.namer.fresh
        ad = fresh("ad")
        if self.node.attrs["mode"] == "linear":            # the triangle max(1 - |d|, 0)
            w = fresh("wt")
            return [f"{ad} = abs({d})", f"{w} = {'relu' if tile else 'max'}(1.0 - {ad}{'' if tile else ', 0.0'})"], w
        A = fmt_float(AA_CUBIC_A)
        near = f"({ad} * {fmt_float(AA_CUBIC_A + 2)}{_minus(fmt_float(AA_CUBIC_A + 3))}) * {ad} * {ad} + 1.0"
        far = f"(({ad} - 5.0) * {ad} + 8.0) * {ad} * {A}{_minus(fmt_float(4 * AA_CUBIC_A))}"
        w = fresh("wt")
        if tile:
            return [f"{ad} = abs({d})", f"{w} = where({ad} < 1.0, {near}, where({ad} < 2.0, {far}, 0.0))"], w
        return [f"{ad} = abs({d})", f"{w} = 0.0", f"if {ad} < 1.0:", f"    {w} = {near}", f"elif {ad} < 2.0:",
                f"    {w} = {far}"], w

    def _aa_body(self) -> list[str]:
        """One output row: its source rows [h0, h1) weighted into one row (a scalar loop of row
        loads), then per tile of output columns `taps` Gathers from that row, weighted by the
        filter at every column's own centre and normalised."""
        fresh = self.namer.fresh
        x, y = self.tensors[0], self.out_tensors[0]
        H, W = self.sdims
        h, w = H.lower(), W.lower()
        OH = self.odims[0]
        p, oh, ch, h0, h1 = fresh("p"), fresh("oh"), fresh("ch"), fresh("h0"), fresh("h1")
        body = [f"for r in core_rows(t.rows, {self._rows_total()}):",
                f"    {p} = r // {self.par(OH)}",
                f"    {oh} = r % {self.par(OH)}",
                f"    {ch} = ({oh} + 0.5) * t.s{h}          # the row's centre in the source; its taps [{h0}, {h1})",
                f"    {h0} = max(cast({ch} - t.sup{h} + 0.5, i32, round=\"floor\"), 0)",
                f"    {h1} = min(cast({ch} + t.sup{h} + 0.5, i32, round=\"floor\"), {H})"]
        lines, w0 = self._aa_filter(f"({h0} - {ch} + 0.5) * t.inv{h}", tile=False)
        xu, acc, total = fresh(f"{x.name}u"), fresh("acc"), fresh("total")
        body += ["    " + l for l in lines]
        body += ["    with copyin:", f"        {xu} = load({x.name}[{p}, {h0}, :])",
                 "    with compute:", f"        {acc} = {xu} * {w0}", f"    {total} = {w0}"]
        q = fresh("q")
        lines, wq = self._aa_filter(f"({h0} + {q} - {ch} + 0.5) * t.inv{h}", tile=False)
        xv = fresh(f"{x.name}v")
        body += [f"    for {q} in range(1, {h1} - {h0}):          # the row's other taps: one row load each"]
        body += ["        " + l for l in lines]
        body += [f"        {total} = {total} + {wq}", "        with copyin:",
                 f"            {xv} = load({x.name}[{p}, {h0} + {q}, :])",
                 "        with compute:", f"            {acc} = {acc} + {xv} * {wq}"]
        row = fresh("row")
        body += ["    with compute:", f"        {row} = {acc} * (1.0 / {total})          # the taps' weights sum to 1"]
        col, cw, j0 = fresh("col"), fresh("cw"), fresh("j0")
        body += [f"    for c in tiles({self.odims[-1]}, t.tile):", "        with compute:",
                 f"            {col} = iota(c.len, c.start)          # the tile's output columns (CreateVecIndex)",
                 f"            {cw} = ({col} + 0.5) * t.s{w}          # every column's centre in the source row",
                 "            # the first tap; clamped into the row, as the lanes past the tile's columns (a compare's",
                 "            # padding to whole repeats) are gathered too",
                 f"            {j0} = clamp(cast({cw} - t.sup{w} + 0.5, i32, round=\"floor\"), 0, {W} - 1)"]
        lines, wt = self._aa_filter(f"(cast({j0}, f32) - {cw} + 0.5) * t.inv{w}", tile=True)
        yacc, ytot = fresh("yacc"), fresh("ytot")
        body += ["            " + l for l in lines]
        body += [f"            {yacc} = take({row}, {j0}) * {wt}          # one vector Gather per tap",
                 f"            {ytot} = {wt}"]
        j, jj = fresh("j"), fresh("jj")
        lines, wj = self._aa_filter(f"(cast({jj}, f32) - {cw} + 0.5) * t.inv{w}", tile=True)
        body += [f"        for {j} in range(1, t.taps{w}):          # the most taps any column reads",
                 "            with compute:",
                 f"                {jj} = {j0} + {j}"]
        body += ["                " + l for l in lines]
        inside = fresh("win")
        body += [f"                {inside} = where(cast({jj}, f32) < {W}, {wj}, 0.0)"
                 "          # a tap past the row weighs 0",
                 f"                {yacc} = {yacc} + take({row}, min({jj}, {W} - 1)) * {inside}",
                 f"                {ytot} = {ytot} + {inside}"]
        yu = fresh("yu")
        body += ["        with compute:", f"            {yu} = {yacc} / {ytot}",
                 "        with copyout:", f"            store({y.name}[{p}, {oh}, c], {yu})"]
        return body

    # -- mode='area': adaptive average pooling ------------------------------------------------------------
    def _area_body(self) -> list[str]:
        """One output row: its window of source rows [h0, h1) as one tile, averaged; then per tile of
        output columns the windows [floor(o * W / OW), ceil((o + 1) * W / OW)) of the averaged row, a
        fixed number of Gathers (the longest window, a tiling field), a tap past its window weighted 0."""
        fresh = self.namer.fresh
        x, y = self.tensors[0], self.out_tensors[0]
        H, W = self.sdims
        w = W.lower()
        OH, OW = (self.par(o) for o in self.odims)
        p, oh, h0, n, k0 = fresh("p"), fresh("oh"), fresh("h0"), fresh("n"), fresh("k0")
        xw, xv, acc, row = fresh(f"{x.name}w"), fresh(f"{x.name}v"), fresh("acc"), fresh("row")
        body = [f"for r in core_rows(t.rows, {self._rows_total()}):",
                f"    {p} = r // {OH}",
                f"    {oh} = r % {OH}",
                f"    {h0} = {oh} * {H} // {OH}          # the row's window [{h0}, {h0} + {n}) of source rows",
                f"    {n} = (({oh} + 1) * {H} + {_less(OH, 1)}) // {OH} - {h0}",
                f"    {k0} = min({n}, t.win_rows)",
                "    with copyin:",
                f"        {xw} = load({x.name}[{p}, {h0}:{h0} + {k0}, :])          # its first rows: one strided copy",
                "    with compute:",
                f"        {acc} = reduce_sum({xw}, axis=0)          # the rows folded into one",
                f"    for k in tiles({n} - {k0}, t.win_rows):          # a window longer than a tile: the rest",
                "        with copyin:",
                f"            {xv} = load({x.name}[{p}, {h0} + {k0} + k.start:{h0} + {k0} + k.start + k.len, :])",
                "        with compute:",
                f"            {acc} = {acc} + reduce_sum({xv}, axis=0)",
                "    with compute:",
                f"        {row} = {acc} * (1.0 / {n})          # the window's rows averaged"]
        col, j0, j1, cnt, yacc = fresh("col"), fresh("j0"), fresh("j1"), fresh("cnt"), fresh("yacc")
        body += [f"    for c in tiles({self.odims[-1]}, t.tile):", "        with compute:",
                 f"            {col} = iota(c.len, c.start)          # the tile's output columns (CreateVecIndex)",
                 "            # each column's window [j0, j1) of source columns; + 0.5 keeps floor() off the "
                 "integers a",
                 "            # product by the reciprocal of OW may miss by a rounding",
                 f"            {j0} = cast(({col} * {W} + 0.5) / {OW}, i32, round=\"floor\")",
                 f"            {j1} = cast((({col} + 1.0) * {W} + {_less(OW, 0.5)}) / {OW}, i32, round=\"floor\")",
                 f"            {cnt} = cast({j1} - {j0}, f32)",
                 f"            {yacc} = take({row}, min({j0}, {W} - 1))          # one vector Gather per tap"]
        j, jj, inside = fresh("j"), fresh("jj"), fresh("win")
        body += [f"        for {j} in range(1, t.taps{w}):          # the longest window's other taps",
                 "            with compute:",
                 f"                {jj} = {j0} + {j}",
                 f"                {inside} = where({jj} < {j1}, 1.0, 0.0)"
                 "          # a tap past the column's window weighs 0",
                 f"                {yacc} = {yacc} + take({row}, min({jj}, {W} - 1)) * {inside}"]
        yu = fresh("yu")
        body += ["        with compute:", f"            {yu} = {yacc} / {cnt}",
                 "        with copyout:", f"            store({y.name}[{p}, {oh}, c], {yu})"]
        return body

    # -- the drafter's budget check on shapes 64 times larger ------------------------------------------
    def scaled_shapes(self, shapes: dict) -> dict:
        return scale_but_last(shapes)         # a source row is held whole in UB


def _cubic_weights(t: str) -> list[str]:
    """Keys' cubic convolution weights (A = -0.75) of the taps at -1, 0, 1, 2 for fraction `t`:
    PyTorch's get_cubic_upsample_coefficients, as DSL expressions (scalars or tiles alike)."""
    A = fmt_float(CUBIC_A)
    a2, a3 = fmt_float(CUBIC_A + 2), fmt_float(CUBIC_A + 3)
    a5, a8, a4 = fmt_float(5 * CUBIC_A), fmt_float(8 * CUBIC_A), fmt_float(4 * CUBIC_A)

    def far(x):        # 1 < |x| < 2: ((A x - 5A) x + 8A) x - 4A
        return f"(({x} * {A}{_minus(a5)}) * {x}{_plus(a8)}) * {x}{_minus(a4)}"

    def near(x):       # |x| <= 1: ((A + 2) x - (A + 3)) x x + 1
        return f"({x} * {a2}{_minus(a3)}) * {x} * {x} + 1.0"
    return [far(f"({t} + 1.0)"), near(t), near(f"(1.0 - {t})"), far(f"(2.0 - {t})")]


def _plus(c: str) -> str:
    """` + c` of a float literal, written ` - |c|` when c is negative."""
    return f" - {c[1:]}" if c.startswith("-") else f" + {c}"


def _minus(c: str) -> str:
    return f" + {c[1:]}" if c.startswith("-") else f" - {c}"


def _less(size: str, k) -> str:
    """`size - k` as DSL text, computed when the size is a number."""
    if size.isdigit():
        v = int(size) - k
        return str(v) if isinstance(v, int) else fmt_float(v)
    return f"({size} - {k})"


def _offset(name: str, k: int) -> str:
    return name if k == 0 else f"{name} {'+' if k > 0 else '-'} {abs(k)}"


# -- grid_sample by an affine grid --------------------------------------------------------------------
def affine_grid_node(theta: Node, size, align_corners) -> Node:
    """F.affine_grid(theta, size): the (N, H, W, 2) sampling positions theta @ (x, y, 1) of the
    output pixels' normalised centres (align_corners: of the corner pixels)."""
    if not theta.is_tensor or len(theta.shape) != 3 or tuple(theta.shape[1:]) != (2, 3):
        raise Unsupported("F.affine_grid of other than (N, 2, 3) matrices (the drafter samples 2-D images)")
    size = tuple(int(s) for s in size)
    if len(size) != 4:
        raise Unsupported(f"F.affine_grid to a size of {len(size)} dims (the drafter samples 2-D images)")
    return Node("affine_grid", (theta,), {"size": size, "align_corners": bool(align_corners)},
                (size[0], size[2], size[3], 2), theta.dtype)


def grid_sample_node(x: Node, grid: Node, mode, padding_mode, align_corners) -> Node:
    if mode != "bilinear" or padding_mode != "zeros":
        raise Unsupported(f"F.grid_sample mode={mode!r}, padding_mode={padding_mode!r} (the drafter samples "
                          "bilinear with zeros padding)")
    if not (x.is_tensor and grid.is_tensor) or len(x.shape) != 4 or len(grid.shape) != 4:
        raise Unsupported("F.grid_sample of other than a 4-D input by a 4-D grid (2-D images)")
    n, h, w, _ = grid.shape
    return Node("grid_sample", (x, grid), {"align_corners": bool(align_corners)}, (x.shape[0], x.shape[1], h, w),
                x.dtype)


class GridSampleWriter(Writer):
    """grid_sample(x, affine_grid(theta, size)) -> DSL: bilinear, zeros padding.

    A sampling position can be anywhere in the image, so a core holds one whole source plane
    (n, c) in UB (H x W elements) and answers every output pixel of that plane from there by
    vector Gathers; the plane is read from GM once. The six theta entries of the plane's image
    are scalar reads from GM. Per output row the y part of the affine map is scalar arithmetic;
    per tile of output columns the positions are vector arithmetic on CreateVecIndex, floored by
    Cast, and each of the four corners is one Gather at a clamped position, weighted by its
    bilinear weight times 0 or 1 (inside the image or not: zeros padding) from two compares.
    """
    template = "gridsample"
    whole_rows = True

    def __init__(self, g, lay, op_name, live):
        self.node: Node = lay.outputs[0]
        super().__init__(g, lay, op_name, live)

    def _collect(self):
        n, g = self.node, self.g
        x, theta = n.args[0], n.args[1].args[0]
        by_index = {a.attrs["index"]: a for a in (x, theta)}
        for i, desc in enumerate(g.inputs):
            pyname = self.input_name(i)
            if desc.get("kind") != "tensor" or i not in by_index:
                raise Unsupported(f"input `{pyname}` that grid_sample does not read")
            t = Tensor(self.namer.fresh(pyname), by_index[i], "GM", desc["dtype"], "", shape=tuple(desc["shape"]))
            self.tensors.append(t)
            self.loaded[id(by_index[i])] = t
        self.out_tensors.append(Tensor(self.namer.fresh("y"), n, "Out", n.dtype, "", shape=tuple(n.shape)))
        self.N, self.C, self.H, self.W = (self.namer.fresh(d) for d in ("N", "C", "H", "W"))
        oh, ow = n.shape[2:]
        same = (oh, ow) == tuple(x.shape[2:])
        self.OH, self.OW = (self.H, self.W) if same else (str(oh), str(ow))

    def dim_names(self, rank):
        return tuple(f"S{i}" for i in range(rank))

    @property
    def x(self) -> Tensor:
        return self.loaded[id(self.node.args[0])]

    @property
    def theta(self) -> Tensor:
        return self.loaded[id(self.node.args[1].args[0])]

    def _views(self) -> dict:
        N, C, H, W = self.N, self.C, self.H, self.W
        return {self.x.name: f"(({N}, {C}), ({H}, {W}))", self.theta.name: f"({N}, 2, 3)",
                self.out_tensors[0].name: f"(({N}, {C}), {self.OH}, {self.OW})"}

    def host_tensor(self) -> str:
        v = self._views()
        return ", ".join(f"{t.name}: Tensor[{DTYPE[t.dtype]}, {v[t.name]}]" for t in self.tensors)

    def host_params(self) -> list[str]:
        return []

    def kernel_signature(self) -> str:
        v = self._views()
        y = self.out_tensors[0]
        params = [f"{t.name}: GM[{DTYPE[t.dtype]}, {v[t.name]}]" for t in self.tensors]
        params += [f"{y.name}: Out[{DTYPE[y.dtype]}, {v[y.name]}]", "t: Tiling"]
        return signature(self.op_name, params)

    def host_body(self) -> list[str]:
        planes = f"{self.N} * {self.C}"
        return [f"cores, per_core = core_split({planes})          # a core samples whole planes",
                self.tile_line()]

    def launch_fields(self) -> str:
        corners = self.node.args[1].attrs["align_corners"]
        # the step between normalised output pixel positions: 2 / size (centres) or 2 / (size - 1) (corners)
        if corners:
            steps = f"sx=2.0 / max({self.OW} - 1, 1), sy=2.0 / max({self.OH} - 1, 1)"
        else:
            steps = f"sx=2.0 / {self.OW}, sy=2.0 / {self.OH}"
        return f", rows=per_core, tile=min(tile, {self.OW}), {steps}"

    def docstring(self) -> str:
        return (f"Drafted from {self.source}: F.grid_sample (bilinear, zeros padding) by F.affine_grid, gridsample "
                "template. A core holds a whole source plane in UB; every output pixel's four corners are vector "
                "Gathers from it, weighted by their bilinear weights and by 0 outside the image.")

    def kernel_body(self) -> list[str]:
        x, th, y = self.x, self.theta, self.out_tensors[0]
        H, W = self.H, self.W
        grid_corners = self.node.args[1].attrs["align_corners"]
        corners = self.node.attrs["align_corners"]
        fresh = self.namer.fresh
        a = {k: fresh(f"a{k}") for k in ("00", "01", "02", "10", "11", "12")}
        n, oh = fresh("n"), fresh("oh")
        body = [f"for p in core_rows(t.rows, {self.N} * {self.C}):",
                f"    {n} = p // {self.C}",
                "    with copyin:",
                f"        {fresh('xu')} = load({x.name}[p, :])          # the whole source plane, read once"]
        xu = body[-1].split(" = ")[0].strip()
        for k, name in a.items():
            body.append(f"        {name} = load({th.name}[{n}, {k[0]}, {k[1]}])")
        # normalised output positions: -1 + (o + 0.5) * 2 / size (centres) or -1 + o * 2 / (size - 1)
        half = "" if grid_corners else " + 0.5"
        by, cy, dy = fresh("by"), fresh("cy"), fresh("dy")
        body += [f"    for {oh} in range({self.OH}):",
                 f"        {by} = ({oh}{half}) * t.sy - 1.0",
                 f"        {cy} = {a['01']} * {by} + {a['02']}          # theta's y terms, once per output row",
                 f"        {dy} = {a['11']} * {by} + {a['12']}",
                 f"        for c in tiles({self.OW}, t.tile):",
                 "            with compute:"]
        bx = fresh("bx")
        ix, iy, fx, fy, ex, ey = (fresh(v) for v in ("ix", "iy", "fx", "fy", "ex", "ey"))
        # unnormalise: ((g + 1) * size - 1) / 2 (centres) or (g + 1) / 2 * (size - 1) (corners)
        if corners:
            unx = f"({bx} * {a['00']} + {cy} + 1.0) * (0.5 * ({W} - 1))"
            uny = f"({bx} * {a['10']} + {dy} + 1.0) * (0.5 * ({H} - 1))"
        else:
            unx = f"(({bx} * {a['00']} + {cy} + 1.0) * {W} - 1.0) * 0.5"
            uny = f"(({bx} * {a['10']} + {dy} + 1.0) * {H} - 1.0) * 0.5"
        wx0, wx1, wy0, wy1 = (fresh(v) for v in ("wx0", "wx1", "wy0", "wy1"))
        jx0, jx1, jy0, jy1 = (fresh(v) for v in ("jx0", "jx1", "jy0", "jy1"))
        top, bottom, yu = fresh("top"), fresh("bottom"), fresh("yu")
        lines = [f"{bx} = (iota(c.len, c.start){half}) * t.sx - 1.0"
                 "          # the tile's normalised x (CreateVecIndex)",
                 f"{ix} = {unx}",
                 f"{iy} = {uny}",
                 f"{fx} = cast(cast({ix}, i32, round=\"floor\"), f32)",
                 f"{fy} = cast(cast({iy}, i32, round=\"floor\"), f32)",
                 f"{ex} = {ix} - {fx}",
                 f"{ey} = {iy} - {fy}",
                 "# each corner's weight, 0 outside the image (zeros padding)",
                 f"{wx0} = where({fx} >= 0.0, where({fx} <= {W} - 1, 1.0 - {ex}, 0.0), 0.0)",
                 f"{wx1} = where({fx} >= -1.0, where({fx} <= {W} - 2, {ex}, 0.0), 0.0)",
                 f"{wy0} = where({fy} >= 0.0, where({fy} <= {H} - 1, 1.0 - {ey}, 0.0), 0.0)",
                 f"{wy1} = where({fy} >= -1.0, where({fy} <= {H} - 2, {ey}, 0.0), 0.0)",
                 "# the corners' positions in the plane, clamped so every Gather reads inside it",
                 f"{jx0} = cast(clamp({fx}, 0.0, {W} - 1), i32)",
                 f"{jx1} = cast(clamp({fx} + 1.0, 0.0, {W} - 1), i32)",
                 f"{jy0} = cast(clamp({fy}, 0.0, {H} - 1), i32) * {W}",
                 f"{jy1} = cast(clamp({fy} + 1.0, 0.0, {H} - 1), i32) * {W}",
                 f"{top} = take({xu}, {jy0} + {jx0}) * {wx0} + take({xu}, {jy0} + {jx1}) * {wx1}",
                 f"{bottom} = take({xu}, {jy1} + {jx0}) * {wx0} + take({xu}, {jy1} + {jx1}) * {wx1}",
                 f"{yu} = {top} * {wy0} + {bottom} * {wy1}"]
        body += ["                " + l for l in lines]
        body += ["            with copyout:", f"                store({y.name}[p, {oh}, c], {yu})"]
        return body

    def scaled_shapes(self, shapes: dict) -> dict:
        """The planes x64; a plane itself is held whole in UB (its size is not a tile)."""
        x, th = self.x.name, self.theta.name
        return {name: ((shp[0] * 64,) + tuple(shp[1:])) if name in (x, th) else shp for name, shp in shapes.items()}


class GridInputWriter(GridSampleWriter):
    """grid_sample(x, grid) with the grid an input (N, OH, OW, 2) -> DSL: bilinear, zeros padding.

    A sampling position can be anywhere in the image and a plane need not fit UB, so the plane is
    read in blocks of `t.block` elements of its flat (H * W) view, and only the blocks the tile's
    corners fall in: per tile of output columns the tile's (x, y) pairs are one copy (the grid's
    last two axes are contiguous) split by two vector Gathers, the corners and their weights are
    vector arithmetic as with affine_grid, their flat positions' min and max (ReduceMin /
    ReduceMax) say which blocks to read, and each such block adds every corner inside it (a
    Gather at the position less the block's start, weighted by 0 outside the block). A smooth warp
    reads one or two blocks per tile; an arbitrary grid reads each block at most once per tile.
    """
    template = "gridinput"

    def _collect(self):
        n, g = self.node, self.g
        x, grid = n.args[0], n.args[1]
        by_index = {a.attrs["index"]: a for a in (x, grid)}
        for i, desc in enumerate(g.inputs):
            pyname = self.input_name(i)
            if desc.get("kind") != "tensor" or i not in by_index:
                raise Unsupported(f"input `{pyname}` that grid_sample does not read")
            t = Tensor(self.namer.fresh(pyname), by_index[i], "GM", desc["dtype"], "", shape=tuple(desc["shape"]))
            self.tensors.append(t)
            self.loaded[id(by_index[i])] = t
        self.out_tensors.append(Tensor(self.namer.fresh("y"), n, "Out", n.dtype, "", shape=tuple(n.shape)))
        self.N, self.C, self.H, self.W = (self.namer.fresh(d) for d in ("N", "C", "H", "W"))
        self.OH, self.OW = self.namer.fresh("OH"), self.namer.fresh("OW")

    @property
    def grid(self) -> Tensor:
        return self.loaded[id(self.node.args[1])]

    def _views(self) -> dict:
        N, C, H, W = self.N, self.C, self.H, self.W
        return {self.x.name: f"(({N}, {C}), ({H}, {W}))", self.grid.name: f"({N}, {self.OH}, ({self.OW}, 2))",
                self.out_tensors[0].name: f"(({N}, {C}), {self.OH}, {self.OW})"}

    def host_body(self) -> list[str]:
        planes = f"{self.N} * {self.C}"
        return [f"cores, per_core = core_split({planes})          # a core samples whole planes",
                self.tile_line(),
                f"block = min(4 * tile, {self.H} * {self.W})          # the plane's blocks: 4 tiles each"]

    def launch_fields(self) -> str:
        return f", rows=per_core, tile=min(tile, {self.OW}), block=block"

    def docstring(self) -> str:
        return (f"Drafted from {self.source}: F.grid_sample (bilinear, zeros padding) by an input grid, gridinput "
                "template. Per tile of output pixels the grid's (x, y) pairs give four corners and their weights "
                "(vector arithmetic); the plane is read in blocks, only those the corners fall in, and every corner "
                "is a vector Gather from its block, weighted by its bilinear weight and by 0 outside the image.")

    def kernel_body(self) -> list[str]:
        x, gr, y = self.x, self.grid, self.out_tensors[0]
        H, W = self.H, self.W
        corners = self.node.attrs["align_corners"]
        fresh = self.namer.fresh
        n, oh = fresh("n"), fresh("oh")
        g, lane, gx, gy = fresh("g"), fresh("lane"), fresh("gx"), fresh("gy")
        ix, iy, fx, fy, ex, ey = (fresh(v) for v in ("ix", "iy", "fx", "fy", "ex", "ey"))
        if corners:
            unx, uny = f"({gx} + 1.0) * (0.5 * ({W} - 1))", f"({gy} + 1.0) * (0.5 * ({H} - 1))"
        else:
            unx, uny = f"(({gx} + 1.0) * {W} - 1.0) * 0.5", f"(({gy} + 1.0) * {H} - 1.0) * 0.5"
        wx0, wx1, wy0, wy1 = (fresh(v) for v in ("wx0", "wx1", "wy0", "wy1"))
        jx0, jx1, jy0, jy1 = (fresh(v) for v in ("jx0", "jx1", "jy0", "jy1"))
        lo, hi, acc, yu = fresh("lo"), fresh("hi"), fresh("acc"), fresh("yu")
        taps = [(fresh("f00"), jy0, jx0, wy0, wx0), (fresh("f01"), jy0, jx1, wy0, wx1),
                (fresh("f10"), jy1, jx0, wy1, wx0), (fresh("f11"), jy1, jx1, wy1, wx1)]
        body = [f"for p in core_rows(t.rows, {self.N} * {self.C}):",
                f"    {n} = p // {self.C}",
                f"    for {oh} in range({self.OH}):",
                "        with copyin:",
                f"            {g} = load({gr.name}[{n}, {oh}, :])          # the output row's (x, y) pairs: one copy",
                f"        for c in tiles({self.OW}, t.tile):",
                "            with compute:"]
        lines = ["# each column's x in the pairs; clamped, as the lanes past the tile (a compare's padding) gather too",
                 f"{lane} = min(iota(c.len, c.start, dtype=i32) * 2, 2 * {self.OW} - 2)",
                 f"{gx} = take({g}, {lane})          # the tile's pairs split by two vector Gathers",
                 f"{gy} = take({g}, {lane} + 1)",
                 f"{ix} = {unx}",
                 f"{iy} = {uny}",
                 f"{fx} = cast(cast({ix}, i32, round=\"floor\"), f32)",
                 f"{fy} = cast(cast({iy}, i32, round=\"floor\"), f32)",
                 f"{ex} = {ix} - {fx}",
                 f"{ey} = {iy} - {fy}",
                 "# each corner's weight, 0 outside the image (zeros padding)",
                 f"{wx0} = where({fx} >= 0.0, where({fx} <= {W} - 1, 1.0 - {ex}, 0.0), 0.0)",
                 f"{wx1} = where({fx} >= -1.0, where({fx} <= {W} - 2, {ex}, 0.0), 0.0)",
                 f"{wy0} = where({fy} >= 0.0, where({fy} <= {H} - 1, 1.0 - {ey}, 0.0), 0.0)",
                 f"{wy1} = where({fy} >= -1.0, where({fy} <= {H} - 2, {ey}, 0.0), 0.0)",
                 "# the corners' flat positions in the plane, clamped inside it",
                 f"{jx0} = cast(clamp({fx}, 0.0, {W} - 1), i32)",
                 f"{jx1} = cast(clamp({fx} + 1.0, 0.0, {W} - 1), i32)",
                 f"{jy0} = cast(clamp({fy}, 0.0, {H} - 1), i32) * {W}",
                 f"{jy1} = cast(clamp({fy} + 1.0, 0.0, {H} - 1), i32) * {W}"]
        lines += [f"{f} = {jy} + {jx}" for f, jy, jx, _, _ in taps]
        lines += [f"{lo} = reduce_min(cast({taps[0][0]}, f32))          # the blocks to read: those holding [lo, hi]",
                  f"{hi} = reduce_max(cast({taps[3][0]}, f32))          # (f32 positions: exact below 2^24)",
                  f"{acc} = {wx0} * 0.0"]
        body += ["                " + l for l in lines]
        xb = fresh("xb")
        body += [f"            for b in tiles({H} * {W}, t.block):",
                 f"                if b.start <= {hi}:",
                 f"                    if b.start + b.len > {lo}:",
                 "                        with copyin:",
                 f"                            {xb} = load({x.name}[p, b])",
                 "                        with compute:"]
        # the Gather alone in its statement: the temporaries of the others are tile-sized, not block-sized
        inner = []
        for f, _, _, wy, wx in taps:
            d, at, v = fresh(f"d{f[1:]}"), fresh(f"at{f[1:]}"), fresh(f"v{f[1:]}")
            inner += [f"{d} = {f} - b.start",
                      f"{at} = clamp({d}, 0, b.len - 1)",
                      f"{v} = take({xb}, {at})",
                      f"{acc} = {acc} + {v} * where(cast({d}, f32) >= 0.0, where(cast({d}, f32) < b.len, {wy} * {wx}, "
                      "0.0), 0.0)"]
        body += ["                            " + l for l in inner]
        body += ["            with compute:", f"                {yu} = {acc}",
                 "            with copyout:", f"                store({y.name}[p, {oh}, c], {yu})"]
        return body

    def scaled_shapes(self, shapes: dict) -> dict:
        """The planes and the grid's batch x64 (a block of the plane is a tile, not the plane; an output
        row's pairs are held whole)."""
        x, gr = self.x.name, self.grid.name
        return {name: ((shp[0] * 64,) + tuple(shp[1:])) if name in (x, gr) else shp for name, shp in shapes.items()}
