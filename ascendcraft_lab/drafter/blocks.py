"""The row-blocks template: row-wise work over rows short enough to sit in UB whole, many at a time.

The rows template walks one row per loop step and sweeps it once per reduction level (a layer
norm: the sum, the squared deviations, then the outputs), each sweep a copy of the row. For a row
of 64 floats that is three 256-byte copies per row. Here a tile is a block of whole rows instead,
a 2-D tile brought in by one strided copy (DataCopyPad, blockCount = the block's rows), and the
whole graph is one compute stage on it:

    for part in core_chunk(t.per_core, B):
        for c in tiles(part, t.tile_rows):          # c: a block of whole rows
            with copyin:   xu = load(x[c, :])
            with compute:  mean = reduce_sum(xu, axis=1, keepdim=True) / N      # one value per row
                           d = xu - mean                                        # (c.len, 1) against rows
                           yu = d * rsqrt(reduce_sum(d * d, axis=1, keepdim=True) / N + eps) * wu + bu
            with copyout:  store(y[c, :], yu)

Each reduction is a per-row one (WholeReduceSum/Max/Min, one row per repeat), its (rows, 1) result
broadcast back against the rows (Brcb); a parameter shaped like the row (the layer norm's weight)
is loaded once per core and read by every row with repeat stride 0. The layout picks the template
(`layout.row_blocks_fit`) for rows graphs whose results are all full-shaped and whose row's pitch
stays a vector repeat stride.
"""
from __future__ import annotations

import math

from .graph import Node
from .templates import Root, RowsWriter, Stage

MAX_ROWS = 4095       # rows of one strided DataCopyPad (blockCount)
SCALED_ROWS = 1 << 20


class BlockStage(Stage):
    """A compute stage over a block of rows: a reduction is one value per row, kept as (rows, 1)."""

    def _text(self, n: Node, naming: bool = True) -> tuple[str, int]:
        if n.is_reduce and id(n) not in self.env:
            if naming and self._named(n):
                return self._name(n), 9
            fn = {"sum": "reduce_sum", "max": "reduce_max", "min": "reduce_min"}[n.attrs["kind"]]
            return f"{fn}({self._operand(n.args[0], 0)}, axis=1, keepdim=True)", 9
        return super()._text(n, naming)


class RowBlocksWriter(RowsWriter):
    template = "row_blocks"
    whole_rows = True            # a tile holds whole rows: the row length is not a tile size
    stage_cls = BlockStage

    def leaf_load_index(self, t, index: str) -> str:
        return index

    def scaled_shapes(self, shapes: dict) -> dict:
        """The budget check's shapes: the rows grow to at least 2^20, so a core's share is more than
        one tile holds and `tile_rows` is bounded by UB (or one copy's 4095 rows), not by this shape.
        A row, and a parameter shaped like it, stay as long: the tile holds them whole."""
        base, lead = tuple(self.lay.base), self.lay.lead
        grow = max(64, -(-SCALED_ROWS // math.prod(base[i] for i in lead)))
        return {name: tuple(d * grow if i == lead[0] else d for i, d in enumerate(shp)) if tuple(shp) == base else shp
                for name, shp in shapes.items()}

    def kernel_body(self) -> list[str]:
        lay = self.lay
        env: dict = {}
        # parameters shaped like the row are the same for every row: loaded once per core
        once = self.load_once([t for t in self.tensors if t.node is not None and lay.is_row(t.node)], ":", env)
        roots = [Root("out", o, self.tile_name(t), t) for o, t in zip(lay.outputs, self.out_tensors)]
        copyin, compute, copyout, _ = self.sweep(roots, "c, :", "c, :", env)
        body = [f"for part in core_chunk(t.per_core, {self.prod(lay.lead)}):",
                "    for c in tiles(part, t.tile_rows):          # c: a block of whole rows"]
        return once + body + ["        " + l for l in self.stages(copyin, compute, copyout)]

    def host_body(self) -> list[str]:
        R = self.row_expr()
        return [f"cores, per_core = core_split({self.prod(self.lay.lead)})",
                "# a tile holds whole rows, each padded to its 32-byte pitch",
                f"tile_rows = max(ub_elems(f32, live={self.live}, buffers=1) // align_up({R}, 8), 1)"]

    def launch_fields(self) -> str:
        return f", per_core=per_core, tile_rows=min(min(tile_rows, per_core), {MAX_ROWS})"

    def docstring(self) -> str:
        kinds = ", ".join(sorted({r.attrs["kind"] for r in self.lay.reductions}))
        return (f"Drafted from {self.source}: row-wise over short rows (row-blocks template, per-row {kinds}). "
                "A tile is a block of whole rows, one strided copy in and one out; each reduction gives one "
                "value per row, broadcast back against the rows, all in one compute stage.")


__all__ = ["RowBlocksWriter"]
