"""The planes template: statistics over groups of contiguous planes (batch and group norm).

The reduced axes X of the base shape S end with a run Q of trailing axes: a *plane* of
contiguous elements. The axes before Q split into at most three runs, in order: L (kept),
R (reduced), K (kept). A statistics group is one (l, k) index; its elements are the planes
(l, r, k) for every r, each plane a contiguous run of |Q| elements:

  batch norm  x (N, C, H, W), X = (0, 2, 3):   L = (),     R = (N),  K = (C),  Q = (H, W)
  group norm  x viewed (N, G, C/G, H, W):      L = (N, G), R = (C/G), K = (), Q = (H, W)

Every full tensor is viewed as (planes, Q): plane (l, r, k) is row (l * |R| + r) * |K| + k. The
cores split the groups (`core_rows` over |L| * |K|); for each group one sweep per reduction
level walks `for p in range(|R|)` and `for c in tiles(|Q|, t.tile)` with scalar accumulators,
then a last sweep writes the outputs. A parameter that is one number per group (batch norm's
per-channel weight) is loaded once per group as a scalar; one that is one number per plane
(group norm's per-channel weight) once per plane, before the plane's tiles.
"""
from __future__ import annotations

from .graph import Node, Unsupported
from .layout import actual_input_shape, split_axes
from .templates import DIM_NAMES, HostField, LoopWriter, Root, _subgraph_nodes


def _atom(text: str) -> bool:
    return text.replace("_", "").replace(".", "").isalnum()


def _par(text: str) -> str:
    return text if _atom(text) else f"({text})"


def _mul(*parts: str) -> str:
    parts = [p for p in parts if p != "1"]
    if not parts:
        return "1"
    return " * ".join(_par(p) if len(parts) > 1 else p for p in parts)


class PlanesWriter(LoopWriter):
    template = "planes"

    def __init__(self, *a, **kw):
        self.sizes: list[str] = []
        super().__init__(*a, **kw)

    # -- names: the input's own dims, the base's sizes as expressions of them ---------------------
    def _collect(self):
        lay = self.lay
        self.L, self.R, self.K, self.Q = split_axes(lay)
        actual = actual_input_shape(lay)
        if len(actual) != len(lay.base) or lay.sym:
            self.namer.used -= set(self.dims)
            names = DIM_NAMES.get(len(actual)) or tuple(f"D{i}" for i in range(len(actual)))
            self.dims = [self.namer.fresh(d) for d in names]
        self.actual_rank = len(actual)
        self.gv, self.pv = self.namer.fresh("g"), self.namer.fresh("p")
        super()._collect()
        if lay.sym:
            self.sizes = [self._size_text(n) for n in lay.sym]
        else:
            self.sizes = list(self.dims)

    def _size_text(self, n) -> str:
        if n.is_const:
            return str(int(n.value))          # a size: an int literal (F.group_norm(x, 3, ...)), never 3.0
        if n.is_number_input or n.is_dim:
            return self.scalar_text(n)
        # a derived size (channels per group, C // num_groups): one int host field
        name = self.namer.fresh("per_group")
        self.host_fields.append(HostField(name, self.host_expr(n), False))
        self._host_memo[id(n)] = name
        return f"t.{name}"

    def host_expr(self, n: Node) -> str:
        if n.is_dim:
            of = n.attrs["of"]
            if of.is_input and len(of.attrs.get("actual", of.shape)) == self.actual_rank \
                    and "sym" not in of.attrs:
                return self.dims[n.attrs["axis"]]
            if of.is_input and "sym" in of.attrs:
                return self.host_expr(of.attrs["sym"][n.attrs["axis"]])
        return super().host_expr(n)

    def size(self, axes) -> str:
        return _mul(*[self.sizes[a] for a in axes])

    def full_view(self, shape=None) -> str:
        q = self.actual_rank - len(self.Q)
        return self.shape_text([self.group(range(q)), self.group(range(q, self.actual_rank))])

    def group(self, axes, with_ones=()) -> str | None:
        names = [self.dims[a] for a in axes]
        if not names:
            return None
        return names[0] if len(names) == 1 else "(" + ", ".join(names) + ")"

    def reduced_view(self, shape) -> str:
        """One value per statistics group, flat: the kept axes L + K in order (keepdim's 1s among them)."""
        if self.lay.sym:
            raise Unsupported("a reduced output of a reduction over groups of split channels")
        X = set(self.lay.axes)
        keep = len(shape) == len(self.lay.base)
        names = [self.dims[a] if a not in X else "1" for a in range(len(self.lay.base)) if a not in X or keep]
        return self.shape_text([names[0] if len(names) == 1 else "(" + ", ".join(names) + ")"])

    def leaf_view(self, n: Node) -> str:
        dims = n.attrs.get("dims")
        if not dims:
            raise Unsupported(f"`{n.name}` broadcast without its symbolic dims")
        names = [self.host_expr(d) for d in dims]
        return f"({names[0]},)" if len(names) == 1 else "((" + ", ".join(names) + "),)"

    # -- indices --------------------------------------------------------------------------------
    def _lk(self) -> tuple[str, str]:
        """This group's (l, k) indices as DSL text."""
        g = self.gv
        if self.L and self.K:
            ks = _par(self.size(self.K))
            return f"{g} // {ks}", f"{g} % {ks}"
        return (g, "0") if self.L else ("0", g)

    def plane(self) -> str:
        l, k = self._lk()
        rs, ks = self.size(self.R), self.size(self.K)
        row = l if not self.R else (self.pv if not self.L else f"{_par(l)} * {_par(rs)} + {self.pv}")
        if not self.K:
            return row
        if not self.L and not self.R:
            return k
        return f"{_par(row)} * {_par(ks)} + {_par(k)}" if row != "0" else k

    def coord(self, axis: int) -> str:
        """The index along base axis `axis` (before Q) of this group's current plane."""
        l, k = self._lk()
        for run, idx in ((self.L, l), (self.R, self.pv), (self.K, k)):
            if axis in run:
                after = self.size([a for a in run if a > axis])
                text = idx if after == "1" else f"{_par(idx)} // {_par(after)}"
                if axis != run[0]:
                    text = f"{_par(text)} % {_par(self.sizes[axis])}"
                return text
        raise Unsupported("internal: a plane coordinate along the plane")

    def leaf_index(self, n: Node) -> str:
        varies = [a for a, d in enumerate(n.shape) if d != 1]
        terms = []
        for i, a in enumerate(varies):
            stride = self.size(varies[i + 1:])
            terms.append(_mul(self.coord(a), stride) if stride != "1" else self.coord(a))
        return " + ".join(terms) or "0"

    # -- the kernel -------------------------------------------------------------------------------
    def kernel_body(self) -> list[str]:
        lay = self.lay
        env: dict = {}
        body: list[str] = []
        idx = f"{self.plane()}, c"
        group_leaves = [n for n in lay.nodes if n.is_data and lay.is_reduced(n)]
        if group_leaves:
            body += self._scalar_loads(group_leaves, env)
        for level in self.levels():
            body += self._scalars(self.boundary_reduced([r.args[0] for r in level], env), env)
            roots = [Root("acc", r, self.namer.fresh({"sum": "s", "max": "mx", "min": "mn", "prod": "pr"}
                                                     [r.attrs["kind"]]), reduce=r.attrs["kind"]) for r in level]
            body += [f"{r.name} = 0.0" if r.reduce == "sum" else f"{r.name} = {_init(r.reduce)}" for r in roots]
            body += self._sweep(roots, idx, env)
            for r in roots:
                env[id(r.node)] = r.name
        outs = [(o, t) for o, t in zip(lay.outputs, self.out_tensors) if lay.is_full(o)]
        # a reduced output (x.sum(dim=(0, 2, 3)), a norm's backward sums): one value per group, stored at the
        # group's index once its sweeps are done
        reduced = [(o, t) for o, t in zip(lay.outputs, self.out_tensors) if not lay.is_full(o)]
        if reduced:
            body += self.store_values(reduced, env, lambda t: self.namer.fresh(t.name + "v"), f"[{self.gv}]")
        if outs:
            body += self._scalars(self.boundary_reduced([o for o, _ in outs], env), env)
            body += self._sweep([Root("out", o, self.tile_name(t), t) for o, t in outs], idx, env)
        return [f"for {self.gv} in core_rows(t.rows, {self.size(self.L + self.K)}):"] + ["    " + l for l in body]

    def _sweep(self, roots: list[Root], idx: str, env: dict) -> list[str]:
        plane_leaves = []
        for r in roots:
            for n in _subgraph_nodes(r.node, env):
                if n.is_data and self.lay.is_plane(n) and n not in plane_leaves:
                    plane_leaves.append(n)
        inner_env = dict(env)
        head = self._scalar_loads(plane_leaves, inner_env) if plane_leaves else []
        # numbers made of per-plane parameters (an eval-mode batch norm's scale and shift): once per plane
        head += self._scalars(self.boundary_reduced([r.node.args[0] if r.kind == "acc" else r.node for r in roots],
                                                    inner_env, "plane"), inner_env)
        copyin, compute, copyout, _ = self.sweep(roots, idx, idx, inner_env)
        for r in roots:                     # the accumulators are read after the sweep
            if r.kind == "acc":
                env[id(r.node)] = r.name
        tiles = [f"for c in tiles({self.size(self.Q)}, t.tile):"]
        tiles += ["    " + l for l in self.stages(copyin, compute, copyout)]
        if not self.R:
            return head + tiles
        return [f"for {self.pv} in range({self.size(self.R)}):"] + ["    " + l for l in head + tiles]

    def _scalar_loads(self, leaves: list[Node], env: dict) -> list[str]:
        lines = []
        for n in leaves:
            t = self.loaded[id(n)]
            name = self.tile_name(t, "_v")
            lines.append(f"{name} = load({t.name}[{self.leaf_index(n)}])")
            env[id(n)] = name
        return self.stages(lines, [], [])

    def host_body(self) -> list[str]:
        groups = self.size(self.L + self.K)
        if not self.lay.reductions:
            what = f"# planes of {self.size(self.Q)} contiguous elements, each with its own parameters"
        else:
            what = f"# statistics groups; each is {self.size(self.R)} plane(s) of {self.size(self.Q)} elements"
        g = self.namer.fresh("groups")      # not a scalar parameter's name (a forward `groups`)
        return [f"{g} = {groups}      {what}",
                f"cores, rows = core_split({g})",
                self.tile_line()]

    def launch_fields(self) -> str:
        return f", rows=rows, tile=min(tile, {self.size(self.Q)})"

    def docstring(self) -> str:
        if not self.lay.reductions:
            return (f"Drafted from {self.source}: per-plane parameters without a reduction (planes template). The "
                    f"cores split the {self.size(self.L)} planes; per plane, its parameters are loaded and combined "
                    f"once as scalars, then one sweep over its {self.size(self.Q)} contiguous elements writes the "
                    "outputs.")
        n = len(self.levels())
        return (f"Drafted from {self.source}: statistics over groups of planes (planes template). The cores split "
                f"the {self.size(self.L + self.K)} groups; per group, {n} reduction sweep{'s' if n != 1 else ''} "
                f"over its {self.size(self.R)} plane(s) of {self.size(self.Q)} contiguous elements with scalar "
                "accumulators, then " + ("a sweep that writes the outputs." if any(self.lay.is_full(o) for o in
                                                                                    self.lay.outputs)
                                         else "one value per group stored at the group's index."))


def _init(kind: str) -> str:
    return {"sum": "0.0", "max": "-inf", "min": "inf", "prod": "1.0"}[kind]


__all__ = ["PlanesWriter"]
