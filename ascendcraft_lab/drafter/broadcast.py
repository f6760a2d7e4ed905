"""The broadcast template: elementwise work whose inputs broadcast against the output's shape S.

S is viewed as rows x columns (every axis but the last folded into the rows), and each input is
loaded as often as it changes (layout.broadcast_kind says how it broadcasts):

  full   (S)         a 2-D tile x[c, k] per block of rows c and column tile k: one strided copy
  col    (N,)        a column tile b[k], loaded once per core and column tile and reused by every
                     block of rows (the lowering reads it with repeat stride 0)
  row    (..., 1)    one value per row s[c, :], beside the rows' tile (the lowering spreads it
                     with Brcb and reads it with block stride 0)
  one    (1,)        loaded once per core (Brcb spreads it over a block)

The tile's columns are capped so a row's pitch stays within a vector repeat stride (255 blocks
of 32 bytes), and its rows within one DataCopyPad (4095 blocks).
"""
from __future__ import annotations

import re

from .graph import Node, Unsupported
from .layout import MOVED_DTYPES, fold_axes, moves_only, own_axes
from .templates import DTYPE, LoopWriter, Root

MAX_COLS = 2040       # f32 columns of a row whose pitch is a vector repeat stride (255 blocks)
MAX_ROWS = 4095       # rows of one strided DataCopyPad (blockCount)


class BroadcastWriter(LoopWriter):
    template = "bcast"

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        for t in self.tensors:           # the GM views: each input in its own shape
            if t.node is not None:
                t.view = self._view(t)

    @property
    def flat(self) -> bool:
        return len(self.lay.base) == 1

    def kind(self, n: Node) -> str:
        return self.lay.kinds.get(id(n), "full")

    # -- views --------------------------------------------------------------------------------
    def full_view(self, shape=None) -> str:
        if len(self.dims) == 1:
            return f"({self.dims[0]},)"
        return self.shape_text([self.group(range(len(self.dims) - 1)), self.dims[-1]])

    def leaf_view(self, n: Node) -> str:
        return self.full_view()           # replaced by _view once the tensor exists

    def _view(self, t) -> str:
        kind = self.kind(t.node)
        rank, own = len(self.dims), len(t.shape)
        if kind == "full":
            return self.full_view()
        if kind == "row":                 # (..., 1): the rows, then an axis of 1
            return self.shape_text([self.group(range(rank - 1)), "1"])
        ones = ["1"] * (own - 1)
        last = self.dims[-1] if kind == "col" else "1"
        if not ones:
            return f"({last},)"
        return f"(({', '.join(ones + [last])}),)"   # (1, N) or (1, 1): one flat axis

    def host_tensor(self) -> str:
        """The host function sizes the launch from an input of the full shape (the first may be the
        smaller operand: x 0-d or (N,) against y (M, N))."""
        t = next(t for t in self.tensors if t.node is not None and self.kind(t.node) == "full")
        return f"{t.name}: Tensor[{DTYPE[t.dtype]}, ({', '.join(self.dims)}{',' if len(self.dims) == 1 else ''})]"

    def scaled_shapes(self, shapes: dict) -> dict:
        """Every dim x64 but the 1s of a broadcast input (the draft must hold on larger shapes)."""
        return {name: tuple(d if d == 1 else d * 64 for d in shp) for name, shp in shapes.items()}

    # -- the kernel ---------------------------------------------------------------------------
    def _load_once(self, kind: str, index: str, env: dict) -> list[str]:
        """Stages loading every input of `kind` at `index`, its tile then known to the sweeps."""
        return self.load_once([t for t in self.tensors if t.node is not None and self.kind(t.node) == kind], index, env)

    def leaf_load_index(self, t, index: str) -> str:
        if self.kind(t.node) == "row":
            return index.split(",")[0] + ", :"
        return index

    def kernel_body(self) -> list[str]:
        env: dict = {}
        once = self._load_once("one", ":", env)
        roots = [Root("out", o, self.namer.fresh(t.name + "u"), t) for o, t in zip(self.lay.outputs, self.out_tensors)]
        if self.flat:
            copyin, compute, copyout, _ = self.sweep(roots, "c", "c", env)
            body = [f"for part in core_chunk(t.chunk, {self.dims[0]}):", "    for c in tiles(part, t.tile):"]
            return once + body + ["        " + l for l in self.stages(copyin, compute, copyout)]
        rows = self.prod(range(len(self.dims) - 1))
        cols = self._load_once("col", "k", env)
        copyin, compute, copyout, _ = self.sweep(roots, "c, k", "c, k", env)
        body = [f"for part in core_chunk(t.per_core, {rows}):", f"    for k in tiles({self.dims[-1]}, t.cols):"]
        body += ["        " + l for l in cols]
        body.append("        for c in tiles(part, t.tile_rows):")
        body += ["            " + l for l in self.stages(copyin, compute, copyout)]
        return once + body

    def host_body(self) -> list[str]:
        if self.flat:
            return [*self.chunk_split([self.dims[0]], self.align_elems(), "32-byte aligned per-core offsets"),
                    self.tile_line()]
        rows = self.prod(range(len(self.dims) - 1))
        n = self.dims[-1]
        return [f"cores, per_core = core_split({rows})",
                f"# a row's pitch is a vector repeat stride: at most 255 blocks of 32 bytes ({MAX_COLS} f32)",
                f"cols = min(align_up({n}, 8), {MAX_COLS})",
                f"tile_rows = max(ub_elems(f32, live={self.live}, buffers=1) // cols, 1)"]

    def launch_fields(self) -> str:
        if self.flat:
            return ", chunk=chunk, tile=min(tile, chunk)"
        return f", per_core=per_core, cols=cols, tile_rows=min(min(tile_rows, per_core), {MAX_ROWS})"

    def docstring(self) -> str:
        kinds = sorted({k for k in self.lay.kinds.values() if k != "full"})
        what = {"col": "a per-column vector loaded once per column tile and reused by every block of rows",
                "row": "one value per row loaded beside the rows", "one": "a one-element tensor loaded once"}
        return (f"Drafted from {self.source}: elementwise with broadcasting (broadcast template): "
                + "; ".join(what[k] for k in kinds) + ". The full tensors move as 2-D tiles of rows, one strided "
                "copy each; the lowering reads the smaller operands in place with repeat strides.")



# -- any broadcast: the shape folded per operand ------------------------------------------------------


class FoldedBroadcastWriter(LoopWriter):
    """Elementwise work of operands broadcast in any NumPy pattern (a per-channel value of a 4-D
    tensor, (A, 1, N) against (1, A, N), (R, 1, N) against (1, S, 1)): the output shape folded into
    the fewest axes along which every operand is either full or 1 (`fold_axes`); the last group is a
    row, the one before it the rows of a tile (with a where() mask: the last one along which the mask
    is constant), every other group an outer index that a core walks with scalar GM offsets. Each operand is loaded
    in its own shape at those indices: full
    along rows and columns a 2-D tile (one strided copy), along the columns only one row reused by
    every row of a tile (repeat stride 0), along the rows only one value per row (Brcb, block stride
    0), along neither a scalar read from GM once per column tile. A bool where() mask is then one
    value per tile: the kernel branches on it (`if`) and loads only the side it chooses. Views: a
    slice is a load at an offset, a flip of an outer axis the index counted from the end, each part of
    a torch.cat (a stack's parts, a repeat's copies) a loop nest stored at its offset."""
    template = "bcast_fold"

    def __init__(self, g, lay, *a, **kw):
        S = tuple(lay.base)
        leaves = [n for n in lay.nodes if n.is_data]
        self._aligned = {id(n): (1,) * (len(S) - len(n.shape)) + tuple(n.shape) for n in leaves}
        # torch.cat as the output: one loop nest per part, stored at its offset along the axis
        out = lay.outputs[0] if len(lay.outputs) == 1 else None
        self.cat_axis = out.attrs["axis"] if out is not None and out.info.form == "concat" else None
        self.parts = [(out, S, 0)]
        if self.cat_axis is not None:
            offsets = [0]
            for p in out.args:
                offsets.append(offsets[-1] + p.shape[self.cat_axis])
            self.parts = [(p, tuple(p.shape), off) for p, off in zip(out.args, offsets)]
        self._S = S
        # slices: (axis of S, start) per leaf read at an offset
        self._windows = {id(n): (len(S) - len(n.shape) + n.attrs["window"][0], n.attrs["window"][1])
                         for n in leaves if "window" in n.attrs}
        cuts = {a for a, _ in self._windows.values()} | ({self.cat_axis} if self.cat_axis is not None else set())
        self._cuts = cuts
        # flips: the axis of S each flipped leaf is read backwards along (an outer index counted from the end)
        self._flips = {id(n): len(S) - len(n.shape) + n.attrs["flipped"] for n in leaves if "flipped" in n.attrs}
        self.groups = fold_axes(S, list(self._aligned.values()), cuts | set(self._flips.values()))
        stacked = self.cat_axis is not None and all(shape[self.cat_axis] == 1 for _, shape, _ in self.parts)
        if stacked and all(self.cat_axis in g for g in self.groups[:-1]):
            # torch.stack: a tile's rows come from the parts' own axes, never the new one
            last = [a for a in self.groups[-1] if S[a] != 1]
            if len(last) < 2:
                raise Unsupported("a stack of 1-D tensors (each part is one row of the output: stack 2-D tensors, "
                                  "or cat their views)")
            head = [a for a in self.groups[-1] if a < last[-1]]
            self.groups[-1:] = [head, [a for a in self.groups[-1] if a >= last[-1]]]
        super().__init__(g, lay, *a, **kw)
        own: dict = {}       # one name per input for the axis it is sliced along (its parts share the GM view)
        self._own_dims = {id(n): own.setdefault(_leaf_key(n), self.namer.fresh(self.dims_of_window(n)))
                          for n in leaves if id(n) in self._windows}
        self._sized(leaves)
        m = len(self.groups)
        # a where() mask stays one value per tile: the rows of a tile are the last group before the
        # columns along which no mask varies, every other group an outer index
        masks = [n for n in leaves if n.dtype == "bool"]
        candidates = [j for j in range(m - 1) if not any(self._aligned[id(x)][a] != 1 for x in masks
                                                         for a in self.groups[j])]
        if self.cat_axis is not None and all(shape[self.cat_axis] == 1 for _, shape, _ in self.parts):
            # torch.stack: every part one long along the new axis, an outer index (not a tile's rows)
            candidates = [j for j in candidates if self.cat_axis not in self.groups[j]] or candidates
        flipped = set(self._flips.values())
        candidates = [j for j in candidates if not flipped & set(self.groups[j])]
        if flipped & set(self.groups[-1]) or (flipped and not candidates):
            raise Unsupported("a `flip` along the last axis or the only axis before it (a flip is read backwards "
                              "with scalar GM offsets along an outer axis; within a row it needs a Gather)")
        self.rows_j = candidates[-1] if candidates else m - 2
        self.masks = masks
        self.outer_js = [j for j in range(m - 1) if j != self.rows_j]
        self.outer = [self.groups[j] for j in self.outer_js]
        self.rows_group = self.groups[self.rows_j] if m > 1 else []
        self.cols_group = self.groups[-1]
        # the outer loop's index (q) and, with several outer groups, each group's index: names of
        # their own per part of a concatenation (sibling loops of one name do not lower yet)
        self._part_vars = []
        if self.cat_axis is not None and len(self.outer) == 1 and self.cat_axis in self.outer[0] and \
                all(shape[self.cat_axis] == 1 for _, shape, _ in self.parts):
            # torch.stack: the new axis is each part's offset alone; the cores split the rows
            self.outer = []
            self._part_vars = [("0", ["0"]) for _ in self.parts]
        for _ in self.parts[len(self._part_vars):]:
            q = self.namer.fresh("q")
            self._part_vars.append((q, [q] if len(self.outer) == 1 else
                                    [self.namer.fresh(f"i{j}") for j in range(len(self.outer))]))
        self.flat_var, self.outer_vars = self._part_vars[0]
        self._flat: dict[str, list[str]] = {}
        self._index: dict[str, str] = {}
        for t in self.tensors + self.out_tensors:
            if t.node is not None:
                t.view = self._operand_view(t)

    def _sized(self, leaves) -> None:
        """Dims of the sliced and concatenated axes, as expressions of the inputs' dims (the draft
        holds on other shapes): a slice's length is that of an input read whole along the axis, else
        the sliced input's length less the cut at both ends; a concatenation's length is the sum of
        its parts', each the dim of an input of that part (a dim of its own)."""
        if self.cat_axis is not None and any(self._windows.get(id(n), (None,))[0] == self.cat_axis for n in leaves):
            raise Unsupported("a slice along the axis of a concatenation")
        for a in sorted(self._cuts - {self.cat_axis}):
            if any(id(n) not in self._windows and self._aligned[id(n)][a] != 1 for n in leaves):
                continue                       # named by an input read whole along it
            n = next(n for n in leaves if id(n) in self._windows and self._windows[id(n)][0] == a)
            axis, start, stop = n.attrs["window"]
            cut = start + (n.attrs["actual"][axis] - stop)
            own = self._own_dims[id(n)]
            part = _part_length(n.attrs.get("part_of"), own)
            self.dims[a] = part or (f"({own} - {cut})" if cut else own)
        for a, d in enumerate(self._S):
            if d != 1 and a != self.cat_axis and all(self._aligned[id(n)][a] == 1 for n in leaves):
                raise Unsupported(f"an axis of length {d} that only an expand makes (no input has it: the output's "
                                  "tiles would repeat one row, which the bcast template does not store); expand "
                                  "beside an input of that shape, or return the smaller tensor")
        self._cat_dims: dict = {}
        self._part_len: list[str] = []
        if self.cat_axis is None:
            return
        a = self.cat_axis
        stem = self.dims[a]
        for p, _, _ in self.parts:
            names = []
            for n in _nodes_of(p):
                if n.is_data and self._aligned[id(n)][a] != 1:
                    self._cat_dims.setdefault(id(n), self.namer.fresh(stem))
                    names.append(self._cat_dims[id(n)])
            self._part_len.append(names[0] if names else "1")
        self.dims[a] = self._cat_len()

    def _cat_len(self) -> str:
        """The concatenation's length: the sum of its parts' (a number when they are all 1: a stack)."""
        total = _sum(self._part_len)
        return total if total.isdigit() or "+" not in total else f"({total})"

    def dims_of_window(self, n: Node) -> str:
        """A name for the full length of the axis a leaf is sliced along."""
        a = self._windows[id(n)][0]
        return (self.dim_names(len(self.lay.base))[a] if len(self.lay.base) in (1, 2, 3, 4, 5) else f"D{a}") + "0"

    # -- shapes ------------------------------------------------------------------------------------
    def _extent(self, group) -> str:
        names = [self.dims[a] for a in group if self._S[a] != 1]
        return " * ".join(names) if names else "1"

    def _full_along(self, t, group) -> bool:
        shape = self._aligned.get(id(t.node), tuple(self.lay.base))
        return any(shape[a] != 1 for a in group) if group else False

    def _operand_view(self, t) -> str:
        """The GM view of tensor t: its own dims grouped as the folded axes it varies along, its
        size-1 axes inside the neighbouring group, and a trailing literal 1 when it is one value per
        row (binding reads the missing axis as a view that adds a 1: host.leading_ones)."""
        rank = len(self.lay.base)
        n = t.node
        if t.kind == "Out":
            axes = list(range(rank))
        else:
            axes = own_axes(n, rank)
        window = self._windows.get(id(n)) if t.kind != "Out" else None

        def own_name(i, a):
            if a is None or self.lay.base[a] == 1:
                return "1"
            if window and a == window[0]:
                return self._own_dims[id(n)]
            if a == self.cat_axis and t.kind != "Out":
                return self._cat_dims[id(n)]          # a part of a concatenation: its own length
            return self.dims[a]
        own = [own_name(i, a) for i, a in enumerate(axes)]
        group_of = {a: j for j, g in enumerate(self.groups) for a in g}
        slots: list[list[str]] = []
        keys: list[int] = []
        pending: list[str] = []
        for a, name in zip(axes, own):
            j = group_of.get(a) if a is not None and self.lay.base[a] != 1 else None
            if j is None or (t.kind != "Out" and not self._full_along(t, self.groups[j])):
                (slots[-1] if slots else pending).append(name)
                continue
            if keys and keys[-1] == j:
                slots[-1].append(name)
            else:
                slots.append(pending + [name])
                pending = []
                keys.append(j)
        if not slots:                                   # one element
            self._flat[t.name] = own or ["1"]
            self._index[t.name] = "0"
            return self.shape_text([self._group_text(own or ["1"])])
        index = [self._var(j) for j in keys]
        if t.kind != "Out" and id(n) in self._flips:  # read backwards: the index counted from the end
            a = self._flips[id(n)]
            at = keys.index(group_of[a])
            index[at] = f"{self.dims[a]} - 1 - {index[at]}"
        if window:                                      # read at an offset along the sliced axis
            at = keys.index(group_of[window[0]])
            v, start = index[at], _part_start(n.attrs.get("part_of"), self._own_dims[id(n)]) or window[1]
            index[at] = f"{v} + {start}" if v not in ("c", "k") else \
                f"{v}.start + {start}:{v}.start + {start} + {v}.len"
        texts = [self._group_text(s) for s in slots]
        flat = [x for s in slots for x in s]
        rows_j = self.rows_j
        if t.kind != "Out" and rows_j >= 0 and rows_j in keys and len(self.groups) - 1 not in keys:
            # one value per row: a trailing axis of 1, its own last one if it has one
            if len(slots[-1]) > 1 and slots[-1][-1] == "1" and axes[-1] is None:
                slots[-1].pop()
                texts[-1] = self._group_text(slots[-1])
            else:
                flat.append("1")
            texts.append("1")
            index.append(":")
        self._flat[t.name] = flat
        self._index[t.name] = ", ".join(index)
        return self.shape_text(texts)

    @staticmethod
    def _group_text(names: list[str]) -> str:
        return names[0] if len(names) == 1 else "(" + ", ".join(names) + ")"

    def _var(self, j: int) -> str:
        m = len(self.groups)
        if j == m - 1:
            return "k"
        if j == self.rows_j:
            return "c"
        return self.outer_vars[self.outer_js.index(j)]

    def full_view(self, shape=None) -> str:
        return "(B,)"            # replaced by _operand_view once the tensors exist

    def leaf_view(self, n: Node) -> str:
        return self.full_view()

    def leaf_load_index(self, t, index: str) -> str:
        return self._index[t.name]

    def kind_of(self, t) -> str:
        """tile | vector (along the columns only) | scalar (along outer axes only, or one element)."""
        rows = self._full_along(t, self.rows_group)
        cols = self._full_along(t, self.cols_group)
        if len(self.groups) == 1:
            rows = cols
        return "tile" if rows else ("vector" if cols else "scalar")

    def scaled_shapes(self, shapes: dict) -> dict:
        """Every dim x64 but the 1s, and the outermost dims x64 once more: a slice's length is a literal
        that does not grow, so the tile's rows must be bounded by UB, not by a core's share."""
        S = self.lay.base
        cuts = self._cuts       # a sliced or concatenated axis keeps its literal length
        outer = next((a for a, d in enumerate(S) if d != 1 and a not in cuts), None)
        nodes = {t.name: t.node for t in self.tensors}
        out = {}
        for name, shp in shapes.items():
            n = nodes.get(name)
            axes = own_axes(n, len(S)) if n is not None else [None] * len(shp)
            out[name] = tuple(d if d == 1 or a in cuts else d * (4096 if a == outer else 64) for a, d in zip(axes, shp))
        return out

    def host_tensor(self) -> str:
        """Inputs enough to name every dim of the output (the others are literal 1s)."""
        need = {x for a in range(len(self.lay.base)) if self.lay.base[a] != 1
                for x in re.findall(r"[A-Za-z_]\w*", self.dims[a])}
        chosen = []
        for t in self.tensors:
            if t.reads:
                continue
            names = {x for x in self._flat.get(t.name, []) if x != "1"}
            if t.node is not None and names - set().union(*[set(self._flat[c.name]) for c in chosen] or [set()]):
                chosen.append(t)
            if need <= set().union(*[set(self._flat[c.name]) for c in chosen] or [set()]):
                break
        return ", ".join(f"{t.name}: Tensor[{DTYPE[t.dtype]}, {self._tuple(self._flat[t.name])}]" for t in chosen)

    @staticmethod
    def _tuple(names) -> str:
        return "(" + ", ".join(names) + ("," if len(names) == 1 else "") + ")"

    # -- the kernel ----------------------------------------------------------------------------------
    def _load_kinds(self, kinds, env: dict, used) -> list[str]:
        copyin, compute = [], []
        for t in self.tensors:
            if t.node is None or self.kind_of(t) not in kinds or id(t.node) not in used:
                continue
            scalar = self.kind_of(t) == "scalar"
            moved = not scalar and self.kind_of(t) == "full" and t.dtype in MOVED_DTYPES and moves_only(self.lay)
            if t.dtype not in ("float32", "float16") and not (scalar and t.dtype == "bool") and not moved:
                raise Unsupported(f"a broadcast {t.dtype} input `{t.name}` (the broadcast template stretches float "
                                  "tensors)")
            if scalar and t.dtype not in ("float32", "bool"):
                raise Unsupported(f"a {t.dtype} input `{t.name}` that is one value per tile (read as a float32 scalar)")
            tile = self.tile_name(t, "s" if scalar else ("h" if t.dtype == "float16" else "u"))
            copyin.append(f"{tile} = load({t.reads or t.name}[{self._index[t.name]}])")
            if t.dtype == "float16":
                compute.append(f"{self.tile_name(t, 'u')} = cast({tile}, f32)")
            env[id(t.node)] = self.tile_name(t, "u") if t.dtype == "float16" else tile
        return self.stages(copyin, compute, [])

    def _per_part(self, i: int):
        """Sizes and loop variables as part i of a concatenation sees them (its length along the axis)."""
        _, shape, _ = self.parts[i]
        self._S = shape
        if self.cat_axis is not None:
            self.dims[self.cat_axis] = self._part_len[i]
        self._use_vars(i)

    def _whole(self):
        self._S = tuple(self.lay.base)
        if self.cat_axis is not None:
            self.dims[self.cat_axis] = self._cat_len()
        self._use_vars(0)

    def _use_vars(self, i: int) -> None:
        """Index every tensor with part i's loop variables (the views stay the same)."""
        if (self.flat_var, self.outer_vars) == self._part_vars[i]:
            return
        self.flat_var, self.outer_vars = self._part_vars[i]
        for t in self.tensors + self.out_tensors:
            if t.node is not None:
                self._operand_view(t)

    def _store_index(self, off: str) -> str:
        """The output's index, moved by `off` (a dim expression) along the concatenation axis."""
        index = self._index[self.out_tensors[0].name].split(", ")
        if self.cat_axis is None:
            return ", ".join(index)
        group_of = {a: j for j, g in enumerate(self.groups) for a in g}
        j = group_of[self.cat_axis]
        v = self._var(j)
        if v in ("c", "k") and self.dims[self.cat_axis] == "1":
            v = "0"                   # a part one long along the axis: its tile has no such axis, a scalar index
        elif off == "0":
            return ", ".join(index)
        index[j] = off if v == "0" else f"{v} + {off}" if v not in ("c", "k") else \
            f"{v}.start + {off}:{v}.start + {off} + {v}.len"
        return ", ".join(index)

    def _field(self, name: str, i: int) -> str:
        return name if len(self.parts) == 1 else f"{name}{i}"

    def kernel_body(self) -> list[str]:
        for t in self.out_tensors:
            self._operand_view(t)
        body: list[str] = []
        for i, (part, _, _) in enumerate(self.parts):
            off = _sum(self._part_len[:i]) or "0"
            self._per_part(i)
            if len(self.parts) > 1:
                body.append(f"# part {i + 1} of the concatenation: from index {off} of the output along its axis")
            body += self._nest(part, self._store_index(off), self._field("per_core", i), self._field("part", i))
        self._whole()
        return body

    def _nest(self, node: Node, store: str, per_core: str, part_var: str) -> list[str]:
        env: dict = {}
        t0 = self.out_tensors[0]
        roots = [Root("out", node, self.tile_name(t0, "u"), t0)] if self.cat_axis is not None else \
            [Root("out", o, self.tile_name(t, "u"), t) for o, t in zip(self.lay.outputs, self.out_tensors)]
        used = {id(x) for r in roots for x in _nodes_of(r.node)}
        body: list[str] = []
        depth = ""
        R, N = self._extent(self.rows_group), self._extent(self.cols_group)
        if self.outer:
            P = " * ".join(self._extent(g) for g in self.outer)
            q = self.flat_var
            body.append(f"for {q} in core_rows(t.{per_core}, {P}):          # an outer index: scalar GM offsets")
            depth = "    "
            if len(self.outer) > 1:
                extents = [self._extent(g) for g in self.outer]
                for j in range(len(self.outer)):
                    inner = " * ".join(extents[j + 1:])
                    e = f"{q} // ({inner})" if inner else q
                    v = self.outer_vars[j]
                    body.append(depth + f"{v} = {e} % ({extents[j]})" if j else depth + f"{v} = {e}")
            rows = R
        else:
            body.append(f"for {part_var} in core_chunk(t.{per_core}, {R}):")
            depth = "    "
            rows = part_var
        body.append(depth + f"for k in tiles({N}, t.cols):")
        depth += "    "
        body += [depth + l for l in self._load_kinds(("vector", "scalar"), env, used)]
        body.append(depth + f"for c in tiles({rows}, t.tile_rows):")
        depth += "    "
        if not self.masks:
            copyin, compute, copyout, _ = self.sweep(roots, "", store, env)
            body += [depth + l for l in self.stages(copyin, compute, copyout)]
            return body
        # the mask is one bool per tile: branch on it and load only what the chosen side reads
        for head, side in ((f"if {env[id(self.masks[0])]}:", 1), ("else:", 2)):
            chosen = [Root("out", self._choose(r.node, side), r.name, r.tensor) for r in roots]
            copyin, compute, copyout, _ = self.sweep(chosen, "", store, env)
            body.append(depth + head)
            body += [depth + "    " + l for l in self.stages(copyin, compute, copyout)]
        return body

    def _choose(self, n: Node, side: int) -> Node:
        """n with every where() on the mask replaced by its side (1: the mask holds, 2: it does not)."""
        memo: dict = {}
        mask = self.masks[0]

        def go(x):
            if not isinstance(x, Node):
                return x
            if id(x) in memo:
                return memo[id(x)]
            if x.info.mask_first and x.args[0] is mask:
                out = go(x.args[side])
            else:
                args = tuple(go(a) for a in x.args)
                out = x if all(a is b for a, b in zip(args, x.args)) else Node(x.op, args, dict(x.attrs), x.shape,
                                                                                x.dtype, x.value, x.name)
            if out.is_tensor and not out.is_data:
                self.lay.space.setdefault(id(out), "full")
            memo[id(x)] = out
            return out
        out = go(n)
        if not out.is_tensor:
            raise Unsupported("a where() side that is a number beside a broadcast mask (the kernel loads the side "
                              "the mask chooses)")
        if out.is_data:         # the side as it is: a copy through UB
            out = Node("mul", (out, Node("const", (), {}, None, "float", 1.0)), {}, out.shape, out.dtype)
            self.lay.space[id(out)] = "full"
            self.lay.space[id(out.args[1])] = "scalar"
        return out

    def host_body(self) -> list[str]:
        lines, widths = [], []
        for i in range(len(self.parts)):
            self._per_part(i)
            R, N = self._extent(self.rows_group), self._extent(self.cols_group)
            split = " * ".join(self._extent(g) for g in self.outer) if self.outer else R
            cores, per_core = self._field("cores", i), self._field("per_core", i)
            lines += [f"{cores} = min(VECTOR_CORES, {split})",
                      f"{per_core} = cdiv({split}, {cores})",
                      f"{cores} = cdiv({split}, {per_core})"]
            widths.append(N)
        self._whole()
        if len(self.parts) > 1:
            lines.append(f"cores = max({', '.join(self._field('cores', i) for i in range(len(self.parts)))})")
        N = widths[0] if len(set(widths)) == 1 else f"max({', '.join(dict.fromkeys(widths))})"
        return lines + [f"# a row's pitch is a vector repeat stride: at most 255 blocks of 32 bytes ({MAX_COLS} f32)",
                        f"cols = min(align_up({N}, 8), {MAX_COLS})",
                        f"tile_rows = max(ub_elems(f32, live={self.live}, buffers=1) // cols, 1)"]

    def launch_fields(self) -> str:
        fields = "".join(f", {self._field('per_core', i)}={self._field('per_core', i)}" for i in range(len(self.parts)))
        if len(self.parts) > 1:
            return f"{fields}, cols=cols, tile_rows=min(tile_rows, {MAX_ROWS})"
        R = self._extent(self.rows_group)
        cap = "per_core" if not self.outer else R
        return f"{fields}, cols=cols, tile_rows=min(min(tile_rows, {cap}), {MAX_ROWS})"

    def docstring(self) -> str:
        shape = " x ".join(self._extent(g) for g in self.groups)
        return (f"Drafted from {self.source}: elementwise with broadcasting (folded broadcast template): the output "
                f"folded to [{shape}], the last axis a row, [{self._extent(self.rows_group)}] the rows of a tile"
                + (", the other axes outer indices a core walks with scalar GM offsets" if self.outer else "")
                + ". Each input is loaded in its own shape: a 2-D tile where it varies along rows and columns, one "
                "row reused by every row (repeat stride 0), one value per row (Brcb), or a scalar."
                + (" The where() mask is one bool per tile: the kernel branches on it and loads only the side it "
                   "chooses." if self.masks else ""))


def _sum(names: list[str]) -> str:
    """A sum of part lengths, their literal 1s counted (a stack's offsets: `2`); names stay a sum (the
    verifier cancels `k.start + N1 + N1` terms, not products)."""
    ones = sum(1 for n in names if n == "1")
    return " + ".join([n for n in names if n != "1"] + ([str(ones)] if ones else []))


def _nodes_of(n: Node):
    seen, stack = set(), [n]
    while stack:
        x = stack.pop()
        if not isinstance(x, Node) or id(x) in seen:
            continue
        seen.add(id(x))
        yield x
        stack.extend(x.args)


__all__ = ["BroadcastWriter", "FoldedBroadcastWriter"]


def _leaf_key(n: Node) -> tuple:
    return (n.op, n.attrs.get("index"), n.attrs.get("name"))


def _part_length(part_of, dim: str) -> str:
    """The length of a part of a split (rules._split_parts' `how`) as an expression of the split
    axis's dim: chunk(x, k)'s parts are cdiv(A, k) long, a split by a size that size; "" for a slice."""
    if not part_of:
        return ""
    how = part_of[0]
    if how[0] == "chunks":
        return f"(({dim} + {how[1] - 1}) // {how[1]})" if how[1] > 1 else dim
    if how[0] == "size":
        return str(how[1])
    if how[0] == "sizes":
        return str(how[1][part_of[1]])
    return ""


def _part_start(part_of, dim: str):
    """Where part i of a split starts along its axis, as an expression of the axis's dim (None: the slice's number)."""
    if not part_of or not part_of[1]:
        return None
    how, i = part_of
    if how[0] == "chunks":
        return _part_length(part_of, dim) if i == 1 else f"{i} * {_part_length(part_of, dim)}"
    if how[0] == "size":
        return str(i * how[1])
    if how[0] == "sizes":
        return str(sum(how[1][:i]))
    return None
