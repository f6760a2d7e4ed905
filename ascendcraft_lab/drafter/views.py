"""The permute template: one permute / transpose / movedim / swapaxes / .t() of an input -> DSL.

y = x.permute(p): axis i of y is axis p[i] of x. Nothing is computed; what matters is which GM
runs stay contiguous, and that decides the kernel's shape ("form"):

  rows       the last axis stays last (p[-1] = r - 1): every row of y is a row of x. A tile of
             rows along y's axis r - 2 (x's axis p[r - 2], rows that axis's stride apart in GM) comes
             in with one strided DataCopyPad and goes out, dense, with another; the other axes are
             scalar indices. The compute stage is a UB -> UB copy.
  transpose  the last axis moves: y's rows run along x's axis a = p[-1], whose elements are a stride
             apart in GM, and GM copies move rows, not columns. A block of x (rows along a, columns
             along x's last axis) comes in with one strided copy, `transpose` turns it into rows
             along x's last axis in UB (one vector Gather at offsets computed on the vector unit:
             AscendC's Transpose takes 16 x 16 blocks of 2-byte data only, TransDataTo5HD 16 rows
             of 32 bytes), and one strided copy writes them into y, where x's last axis is axis
             j = p.index(r - 1) and the rows are that axis's stride apart.

The cores split the outer axes (their flat index, the scalar indices computed from it) when there
are many of them, otherwise the longer of the tile's two axes (a 2-D transpose, an NCHW -> NHWC
with a small batch). The permutation is the draft's: a reference whose cases pass other `dims`
is drafted once per permutation (bench/worker.attribute_groups groups list arguments). Gather
moves 2- and 4-byte elements, so a transpose of 1-byte data (int8, bool) is refused by the verifier
in one line; the rows form copies any dtype.
"""
from __future__ import annotations

import math

from .graph import Node, Unsupported
from .templates import DTYPE, Writer

BLOCK = 64            # rows and columns of a transpose block: six 64 x 64 f32 tiles are 96 KiB of UB
MAX_COLS = 2040       # f32 columns of a row whose pitch is a vector repeat stride (255 blocks)
GATHERED = ("float32", "float16", "bfloat16", "int32", "int16")   # the dtypes Gather moves
SPLIT_OUTER = 48      # outer index values from which the cores split them rather than the tile's axes


class PermuteWriter(Writer):
    template = "permute"

    def __init__(self, g, lay, op_name, live):
        self.node: Node = lay.outputs[0]
        super().__init__(g, lay, op_name, live)
        r = len(lay.base)
        self.order = list(self.node.attrs["order"]) if self.node.op == "permute" else \
            list(range(r - 2)) + [r - 1, r - 2]
        out = self.out_tensors[0]
        out.view = self.shape_text([self.dims[a] for a in self.order])
        if self.form == "transpose" and self.tensors[0].dtype not in GATHERED:
            raise Unsupported(f"`permute`{tuple(self.order)} of a {self.tensors[0].dtype} tensor that moves the last "
                              "axis (the transpose in UB is a vector Gather, which moves 2- and 4-byte elements)")

    def full_view(self, shape=None) -> str:
        return self.shape_text(list(self.dims))       # the input as it is: one index per axis

    # -- the permutation ----------------------------------------------------------------------------
    @property
    def form(self) -> str:
        return "rows" if self.order[-1] == len(self.order) - 1 else "transpose"

    def _tile_axes(self) -> tuple[int, int, int]:
        """(x axis along the tile's rows, x axis along its columns, y position of x's last axis)."""
        r = len(self.order)
        if self.form == "rows":
            return self.order[r - 2], r - 1, r - 1
        return self.order[-1], r - 1, self.order.index(r - 1)

    def _outer(self) -> list[int]:
        """y positions indexed by scalars, in y's order."""
        rows_x, cols_x, _ = self._tile_axes()
        return [i for i, a in enumerate(self.order) if a not in (rows_x, cols_x)]

    def _split(self) -> str:
        """What the cores split: outer | rows | cols (decided on the traced shape; any choice is correct)."""
        shape = self.lay.base
        outer = math.prod(shape[self.order[i]] for i in self._outer())
        rows_x, cols_x, _ = self._tile_axes()
        if self._outer() and outer >= SPLIT_OUTER:
            return "outer"
        return "cols" if self.form == "transpose" and shape[cols_x] > shape[rows_x] else "rows"

    # -- text ---------------------------------------------------------------------------------------
    def kernel_body(self) -> list[str]:
        r = len(self.order)
        rows_x, cols_x, j = self._tile_axes()
        outer, split = self._outer(), self._split()
        names = {i: self.namer.fresh(f"i{i}") for i in outer}     # scalar index per outer y position
        body, depth = [], 0

        def emit(line):
            body.append("    " * depth + line)
        if split == "outer":
            total = " * ".join(self.dims[self.order[i]] for i in outer)
            q = self.namer.fresh("q")
            emit(f"for {q} in core_rows(t.per_core, {total}):      # this core's outer indices")
            depth += 1
            for k, i in enumerate(outer):
                later = " * ".join(self.dims[self.order[m]] for m in outer[k + 1:])
                size = self.dims[self.order[i]]
                text = f"{q} // ({later})" if " * " in later else (f"{q} // {later}" if later else q)
                emit(f"{names[i]} = {text} % {size}" if k else f"{names[i]} = {text}")
        else:
            for i in outer:
                emit(f"for {names[i]} in range({self.dims[self.order[i]]}):")
                depth += 1
        mi, ni = self.namer.fresh("mi"), self.namer.fresh("ni")
        rows_extent, cols_extent = self.dims[rows_x], self.dims[cols_x]
        if split in ("rows", "cols"):
            part = self.namer.fresh("part")
            axis = rows_extent if split == "rows" else cols_extent
            emit(f"for {part} in core_chunk(t.per_core, {axis}):      # this core's share of the axis")
            depth += 1
            if split == "rows":
                rows_extent = part
            else:
                cols_extent = part
        emit(f"for {mi} in tiles({rows_extent}, t.bm):")
        depth += 1
        emit(f"for {ni} in tiles({cols_extent}, t.bn):")
        depth += 1
        x, y = self.tensors[0], self.out_tensors[0]
        xi = ["" for _ in range(r)]
        yi = ["" for _ in range(r)]
        for i in outer:
            xi[self.order[i]] = yi[i] = names[i]
        xi[rows_x], xi[cols_x] = mi, ni
        y_rows = self.order.index(rows_x)
        yi[y_rows], yi[self.order.index(cols_x)] = mi, ni
        xu, yu = self.namer.fresh(x.name + "u"), self.namer.fresh(y.name + "u")
        if self.form == "rows":
            compute = f"{yu} = {xu}                     # UB -> UB: the rows go out as they came in"
        else:
            compute = f"{yu} = transpose({xu})          # {ni}.len rows of {mi}.len, in UB"
        emit("with copyin:")
        emit(f"    {xu} = load({x.name}[{', '.join(xi)}])")
        emit("with compute:")
        emit(f"    {compute}")
        emit("with copyout:")
        emit(f"    store({y.name}[{', '.join(yi)}], {yu})")
        return body

    def host_body(self) -> list[str]:
        rows_x, cols_x, _ = self._tile_axes()
        split = self._split()
        rows, cols = self.dims[rows_x], self.dims[cols_x]
        lines = []
        if split == "outer":
            total = " * ".join(self.dims[self.order[i]] for i in self._outer())
            lines.append(f"cores, per_core = core_split({total})")
        else:
            lines.append(f"cores, per_core = core_split({rows if split == 'rows' else cols})")
            if split == "rows":
                rows = "per_core"
            else:
                cols = "per_core"
        if self.form == "transpose":
            lines += [f"bm = min({rows}, {BLOCK})   # rows of a block = columns of its transpose",
                      f"bn = min({cols}, {BLOCK})   # columns of a block = rows of its transpose"]
        else:
            lines += [f"bn = min(align_up({cols}, 8), {MAX_COLS})   # a row's pitch is a repeat stride: at most 255 blocks",
                      f"bm = min(max(ub_elems(f32, live={self.live}) // bn, 1), {rows})"]
        return lines

    def launch_fields(self) -> str:
        return ", per_core=per_core, bm=bm, bn=bn"

    def host_tensor(self) -> str:
        t = self.tensors[0]
        dims = ", ".join(self.dims)
        return f"{t.name}: Tensor[{DTYPE[t.dtype]}, ({dims}{',' if len(self.dims) == 1 else ''})]"

    def scaled_shapes(self, shapes: dict) -> dict:
        return {name: tuple(d * 64 for d in shp) for name, shp in shapes.items()}

    def docstring(self) -> str:
        order = tuple(self.order)
        if self.form == "rows":
            how = ("the last axis stays last, so every output row is an input row: tiles of rows come in with one "
                   "strided copy each (rows the permuted axis's stride apart) and go out dense")
        else:
            how = ("the last axis moves: blocks of rows come in with one strided copy, `transpose` (one vector Gather "
                   "at computed offsets) turns each into rows along the input's last axis in UB, and one strided "
                   "copy writes them out")
        return f"Drafted from {self.source}: permute{order} (permute template); {how}."
