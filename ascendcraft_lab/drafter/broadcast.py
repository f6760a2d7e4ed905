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

from .graph import Node
from .templates import LoopWriter, Root

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

    def scaled_shapes(self, shapes: dict) -> dict:
        """Every dim x64 but the 1s of a broadcast input (the draft must hold on larger shapes)."""
        return {name: tuple(d if d == 1 else d * 64 for d in shp) for name, shp in shapes.items()}

    # -- the kernel ---------------------------------------------------------------------------
    def _load_once(self, kind: str, index: str, env: dict) -> list[str]:
        """Stages loading every input of `kind` at `index`, its tile then known to the sweeps."""
        copyin, compute = [], []
        for t in self.tensors:
            if t.node is None or self.kind(t.node) != kind:
                continue
            tile = self.tile_name(t, "h" if t.dtype == "float16" else "u")
            copyin.append(f"{tile} = load({t.name}[{index}])")
            if t.dtype == "float16":
                compute.append(f"{self.tile_name(t, 'u')} = cast({tile}, f32)")
            env[id(t.node)] = self.tile_name(t, "u")
        return self.stages(copyin, compute, [])

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
            total = self.dims[0]
            return [f"chunk = align_up(cdiv({total}, VECTOR_CORES), {self.align_elems()})   # 32-byte aligned per-core offsets",
                    f"cores = cdiv({total}, chunk)",
                    f"tile = ub_elems(f32, live={self.live})"]
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


__all__ = ["BroadcastWriter"]
