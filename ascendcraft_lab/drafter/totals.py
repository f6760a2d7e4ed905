"""Loss templates: a graph whose outputs are sums (or means) over everything -> DSL text.

A loss is one number, and no core can see another core's partial sums: every core reduces its
part and adds its share, already scaled (a mean's 1/N), into the output with
`store(y, share, accumulate=True)` (AscendC's atomic add; the output starts at zero).

  total          every axis reduced at once (mse, hinge, smooth L1, KL divergence): the tensors
                 are viewed flat; for part in core_chunk: for c in tiles(part): accumulators
  rows_total     per-row reductions of long rows, then a sum over the rows (cosine similarity,
                 triplet margin): for r in core_rows: the rows template's sweeps into scalar
                 accumulators, then the row's value joins the core's running sum
  windows_total  the same for short rows (cross entropy over a few classes): a tile holds whole
                 rows; window_max / window_sum give one value per row, repeat() broadcasts a
                 row's value back over its row and pick() takes its target element, so no row
                 is ever addressed at an unaligned UB offset
"""
from __future__ import annotations

from dataclasses import dataclass

from .graph import Node, Unsupported
from .layout import SHORT_ROW, linear_scale
from .templates import ACC_INIT, WIN_FN, MapWriter, Root, RowsWriter, Stage, WindowsWriter


class _Shares:
    """The end of every loss kernel: each output's share of this core, added atomically."""

    def share_lines(self, sums: dict) -> list[str]:
        """`sums`: id(sum node) -> the DSL name of this core's running sum of it."""
        scalars, stores = [], []
        for o, t in zip(self.lay.outputs, self.out_tensors):
            r, scale = linear_scale(self.lay, o)
            acc = sums[id(r)]
            name = self.namer.fresh("share")
            k = self.scalar_text(scale)
            value = acc if k == "1.0" else f"{acc} * {k}" if not k.startswith("-") else f"{acc} * ({k})"
            if t.dtype == "float16":
                value = f"cast({value}, f16)"
            scalars.append(f"{name} = {value}")
            stores.append(f"store({t.name}{'[0]' if t.view != '()' else ''}, {name}, accumulate=True)")
        return scalars + self.stages([], [], stores)


class TotalWriter(_Shares, RowsWriter):
    """Every axis reduced at once: flat per-core chunks, one accumulator per sum."""

    template = "total"

    def kernel_body(self) -> list[str]:
        levels = self.levels()
        if len(levels) != 1:
            raise Unsupported("internal: a total over the whole tensor with dependent reductions")
        R = self.row_expr()
        env: dict = {}
        roots = [Root("acc", r, self.namer.fresh("s"), reduce=r.attrs["kind"]) for r in levels[0]]
        copyin, compute, copyout, _ = self.sweep(roots, "c", "c", env)
        body = [f"{r.name} = {ACC_INIT[r.reduce]}" for r in roots]
        body.append("for c in tiles(part, t.tile):")
        body += ["    " + l for l in self.stages(copyin, compute, copyout)]
        body += self.share_lines({id(r.node): r.name for r in roots})
        return [f"for part in core_chunk(t.chunk, {R}):"] + ["    " + l for l in body]

    # the same flat, 32-byte aligned per-core chunks as the map template
    host_body = MapWriter.host_body
    launch_fields = MapWriter.launch_fields

    def docstring(self) -> str:
        return (f"Drafted from {self.source}: a loss over every element (total template). The tensors are viewed "
                "flat and split into per-core chunks; each core sums its chunk and adds its share of the result "
                "into the scalar output (store with accumulate=True: an atomic add).")


class RowsTotalWriter(_Shares, RowsWriter):
    """Long rows: per core, each row's reductions as in the rows template, then the row's value
    joins the core's running sum."""

    template = "rows_total"

    def kernel_body(self) -> list[str]:
        lay = self.lay
        env: dict = {}
        body = self._row_inputs(env)
        body += self.level_sweeps(env, "r, c")
        st = Stage(self, env)
        sums = {}
        lines = []
        for t in lay.totals:
            name = self.namer.fresh("acc")
            sums[id(t)] = name
            lines.append(f"{name} = {name} + {st.value(t.args[0])}")
        body += self.stages([], st.lines + lines, [])
        head = [f"{sums[id(t)]} = 0.0" for t in lay.totals]
        rows = [f"for r in core_rows(t.rows, {self.prod(lay.lead)}):"] + ["    " + l for l in body]
        return head + rows + self.share_lines(sums)

    def _row_inputs(self, env: dict) -> list[str]:
        """Scalar loads of the row's own values: per-row inputs, and x[r, index[r]] for a pick."""
        lay = self.lay
        loads = []
        for n in lay.nodes:
            if n.is_input and lay.is_reduced(n) and id(n) not in env:
                t = self.loaded[id(n)]
                name = self.namer.fresh(t.name + "v")
                loads.append(f"{name} = load({t.name}[r])")
                env[id(n)] = name
        for n in lay.nodes:
            if n.is_pick:
                x, index = n.args
                if not x.is_data:
                    raise Unsupported("a class-index pick of a computed value in rows of "
                                      f"{SHORT_ROW} elements or more")
                t = self.loaded[id(x)]
                name = self.namer.fresh(t.name + "_at")
                # the index is clamped into the row, as the windows template's pick() clamps it
                at = f"min(max({env[id(index)]}, 0), {self.row_expr()} - 1)"
                loads.append(f"{name} = load({t.name}[r, {at}])")
                env[id(n)] = name
        return self.stages(loads, [], [])

    def docstring(self) -> str:
        n = len(self.levels())
        return (f"Drafted from {self.source}: a loss over rows (rows_total template). Cores split the rows; "
                f"{n} reduction sweep{'s' if n != 1 else ''} per row with scalar accumulators, then the row's "
                "value joins the core's running sum, and each core adds its share into the scalar output "
                "(store with accumulate=True: an atomic add).")


@dataclass
class RowStage(Stage):
    """A compute stage over a tile of whole rows: a per-row value (one per row) that meets the
    row's elements is broadcast back with repeat(v, R); a pick reads one element per row."""

    row: str = ""

    def __post_init__(self):
        self._full_parent: list[bool] = []
        self._i32: dict = {}

    def _text(self, n: Node, naming: bool = True):
        if id(n) in self.env:
            return self.env[id(n)], 9
        lay = self.w.lay
        if n.is_pick:
            if naming and self._named(n):
                return self._name(n), 9
            self._full_parent.append(False)
            x = self._operand(n.args[0], 0)
            self._full_parent.pop()
            return f"pick({x}, {self._index(n.args[1])}, {self.row})", 9
        self._full_parent.append(lay.is_full(n))
        try:
            return super()._text(n, naming)
        finally:
            self._full_parent.pop()

    def _operand(self, a: Node, prec: int) -> str:
        lay = self.w.lay
        if self._full_parent and self._full_parent[-1] and isinstance(a, Node) and lay.is_reduced(a):
            self._full_parent.append(False)
            text = self._text(a)[0]
            self._full_parent.pop()
            return f"repeat({text}, {self.row})"
        return super()._operand(a, prec)

    def _index(self, index: Node) -> str:
        """The i32 tile of a row's class indices (int64 targets are converted on the vector unit)."""
        text = self._text(index)[0]
        if index.dtype == "int32":
            return text
        if id(index) not in self._i32:
            name = self.w.namer.fresh(text[:-1] + "i" if text.endswith("u") else "idx")
            self.lines.append(f"{name} = cast({text}, i32)")
            self._i32[id(index)] = name
        return self._i32[id(index)]


class WindowsTotalWriter(_Shares, WindowsWriter):
    """Short rows: a tile holds whole rows; per-row values are tiles of one value per row."""

    template = "windows_total"

    @property
    def stage_cls(self):
        row = self.row_expr()
        Rw = row if " " not in row else f"({row})"

        def make(*a, **kw):
            return RowStage(*a, row=Rw, **kw)
        return make

    def kernel_body(self) -> list[str]:
        lay = self.lay
        R = self.row_expr()
        Rw = R if " " not in R else f"({R})"
        env: dict = {}
        roots = []
        for level in self.levels():
            for r in level:
                kind = r.attrs["kind"]
                if kind not in WIN_FN:
                    raise Unsupported(f"a per-row {kind} of short rows (window ops: sum, max, min)")
                acc = self.namer.fresh({"sum": "su", "max": "mu", "min": "nu"}[kind])
                roots.append(Root("acc", r, acc, reduce=kind))
        sums = {}
        for t in lay.totals:
            sums[id(t)] = self.namer.fresh("acc")
            roots.append(Root("total", t, sums[id(t)]))
        copyin, compute, copyout, _ = self.sweep(roots, f"windows(c, {Rw}, {Rw})", "c", env, window=Rw)
        body = [f"{sums[id(t)]} = 0.0" for t in lay.totals]
        body += ["for c in tiles(part, t.tile_rows):          # c: a block of whole rows"]
        body += ["    " + l for l in self.stages(copyin, compute, copyout)]
        body += self.share_lines(sums)
        return [f"for part in core_chunk(t.per_core, {self.prod(lay.lead)}):"] + ["    " + l for l in body]

    @staticmethod
    def tile_rows_comment(R: str) -> list[str]:
        return [f"a tile holds whole rows: per row {R} elements per buffer and a one-per-row slot",
                "(its max, sum, class index ...)"]

    def docstring(self) -> str:
        kinds = ", ".join(sorted({r.attrs["kind"] for r in self.lay.reductions})) or "no"
        return (f"Drafted from {self.source}: a loss over short rows (windows_total template, {kinds} per row). "
                "A tile holds whole rows, packed: window ops give one value per row, repeat() broadcasts a row's "
                "value back over its row and pick() gathers its target element (vector Gathers, so no row is "
                "addressed at an unaligned UB offset); each core adds its share of the sum into the scalar "
                "output (store with accumulate=True).")


TOTAL_WRITERS = {"total": TotalWriter, "rows_total": RowsTotalWriter, "windows_total": WindowsTotalWriter}
