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

Elementwise work on the input before the permute and on its result after it (a GELU, then a
transpose, then a scale) runs in the same compute stage, on the tile in UB: no GM round trip.

The cores split the outer axes (their flat index, the scalar indices computed from it) when there
are many of them, otherwise the longer of the tile's two axes (a 2-D transpose, an NCHW -> NHWC
with a small batch). The permutation is the draft's: a reference whose cases pass other `dims`
is drafted once per permutation (bench/worker.attribute_groups groups list arguments). Gather
moves 2- and 4-byte elements, so a transpose of 1-byte data (int8, bool) is refused by the verifier
in one line; the rows form copies any dtype.
"""
from __future__ import annotations

import math

from .graph import PERMUTE, Node, Unsupported
from .layout import subgraph
from .templates import DTYPE, Stage, Writer

BLOCK = 64            # rows and columns of a transpose block: six 64 x 64 f32 tiles are 96 KiB of UB
MAX_COLS = 2040       # f32 columns of a row whose pitch is a vector repeat stride (255 blocks)
GATHERED = ("float32", "float16", "bfloat16", "int32", "int16")   # the dtypes Gather moves
SPLIT_OUTER = 48      # outer index values from which the cores split them rather than the tile's axes


class PermuteWriter(Writer):
    template = "permute"

    def __init__(self, g, lay, op_name, live):
        self.node: Node = next(n for n in lay.nodes if n.kind == PERMUTE)
        super().__init__(g, lay, op_name, live)
        r = len(lay.base)
        self.order = list(self.node.attrs["order"]) if self.node.info.form == "order" else \
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
        emit("with copyin:")
        emit(f"    {xu} = load({x.name}[{', '.join(xi)}])")
        emit("with compute:")
        for line in self._compute(xu, yu, f"{ni}.len rows of {mi}.len"):
            emit(f"    {line}")
        emit("with copyout:")
        emit(f"    store({y.name}[{', '.join(yi)}], {yu})")
        return body

    def _compute(self, xu: str, yu: str, shape: str) -> list[str]:
        """The compute stage: elementwise work on the input (`pre`), the transpose (when the last axis
        moves), elementwise work on the result, the last line assigning `yu`."""
        out = self.lay.outputs[0]
        pre = self.node.args[0]
        x = next(m for m in subgraph(pre) if m.is_input)
        stage = Stage(self, {id(x): xu})
        lines: list[str] = []
        v = xu
        if not pre.is_input:
            v = stage.assign(self.namer.fresh("v"), pre)
            lines += stage.lines
            stage.lines = []
        if self.form == "transpose":
            t = self.namer.fresh("tu")
            lines.append(f"{t} = transpose({v})          # {shape}, in UB")
            v = t
        if out is not self.node:
            stage.env[id(self.node)] = v
            v = stage.assign(self.namer.fresh("w"), out)
            lines += stage.lines
        if v == xu:
            return [f"{yu} = {xu}                     # UB -> UB: the rows go out as they came in"]
        target, rest = lines[-1].split(" = ", 1)
        lines[-1] = f"{yu} = {rest}"
        return lines

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
            lines += [f"bn = min(align_up({cols}, 8), {MAX_COLS})"
                      "   # a row's pitch is a repeat stride: at most 255 blocks",
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


class SplitWriter(Writer):
    """The split template: forward returns the parts of one input along one axis (torch.split, chunk,
    tensor_split, unbind), each part an output of the kernel.

    The input is viewed as rows x columns: the axes before the split axis are the rows, the split
    axis and the axes after it the columns, so a part is a run of columns of every row, starting at
    start x (the inner axes' size): one loop nest per part, a strided copy from that column (the
    other parts' columns the srcStride) and a dense copy out, exactly a crop. A split along the first
    axis has one row: the input is viewed flat and the cores split each part's elements. A part's
    start and length are dim expressions of the axis's length (chunk(x, 3): parts of (A + 2) // 3),
    so a tail shape splits the way PyTorch splits it."""

    template = "split"

    def __init__(self, g, lay, op_name, live):
        super().__init__(g, lay, op_name, live)
        self.axis = lay.axes[0]
        self.parts = list(lay.outputs)
        self.flat = self.axis == 0
        for t in self.out_tensors:
            t.view = self._view(self._len(t.node), t.node.attrs["squeeze"])
        self.tensors[0].view = self._view(self.dims[self.axis], False)

    def full_view(self, shape=None) -> str:
        return "()"                          # set in __init__: the views need the axis

    # -- the parts' extents as dim expressions --------------------------------------------------------
    def _start(self, n: Node) -> str:
        how, i, A = n.attrs["how"], n.attrs["part"], self.dims[self.axis]
        if how[0] == "size":
            return str(i * how[1])
        if how[0] == "chunks":
            c = f"({A} + {how[1] - 1}) // {how[1]}"
            return "0" if not i else c if i == 1 else f"{i} * ({c})"
        if how[0] == "sections":
            k = how[1]
            q = f"{A} // {k}" if i == 1 else f"{i} * ({A} // {k})"
            return f"{q} + min({i}, {A} % {k})" if i else "0"
        return str(n.attrs["start"])         # sizes, unbind: the traced offsets

    def _len(self, n: Node) -> str:
        how, i, A = n.attrs["how"], n.attrs["part"], self.dims[self.axis]
        if how[0] == "size":
            return f"min({how[1]}, {A} - {i * how[1]})" if i else f"min({how[1]}, {A})"
        if how[0] == "chunks":
            c = f"(({A} + {how[1] - 1}) // {how[1]})"
            return f"min({c[1:-1]}, {A} - {c if i == 1 else f'{i} * {c}'})" if i else c[1:-1]
        if how[0] == "sections":
            extra = how[1] - 1 - i
            return f"({A} + {extra}) // {how[1]}" if extra else f"{A} // {how[1]}"
        return str(n.attrs["stop"] - n.attrs["start"])

    def _inner(self) -> list[str]:
        return list(self.dims[self.axis + 1:])

    def _view(self, length: str, squeeze: bool) -> str:
        cols = ([] if squeeze else [length]) + self._inner()
        if not cols:
            cols = ["1"]                      # unbind along the last axis: one value per row
        col = cols[0] if len(cols) == 1 else "(" + ", ".join(cols) + ")"
        if self.flat:
            return f"({col},)" if len(cols) > 1 or cols == ["1"] else f"({col},)"
        rows = self.group(range(self.axis))
        return f"({rows}, {col})"

    def _cols(self, n: Node) -> str:
        """Elements of a part in one row (its length times the inner axes)."""
        inner = self._inner()
        length = "1" if n.attrs["squeeze"] else self._len(n)
        if not inner:
            return length
        return " * ".join(([length if " " not in length else f"({length})"] if length != "1" else []) + inner)

    def _offset(self, n: Node) -> str:
        start, inner = self._start(n), self._inner()
        if start == "0":
            return ""
        if not inner:
            return start
        return " * ".join([start if " " not in start else f"({start})"] + inner)

    # -- text ---------------------------------------------------------------------------------------
    def kernel_body(self) -> list[str]:
        x = self.tensors[0]
        xu = self.namer.fresh(x.name + "u")
        body = []
        for n, t in zip(self.parts, self.out_tensors):
            yu = self.namer.fresh(t.name + "u")
            off = self._offset(n)
            if off and not off.isdigit():     # the part's first column, named once (a dim expression)
                name = self.namer.fresh(f"start{n.attrs['part']}")
                body.append(f"{name} = {off}")
                off = name
            cols = self._cols(n)
            part = self.namer.fresh("part")
            if self.flat:
                chunk = self.namer.fresh(f"chunk{n.attrs['part']}")
                self.host_fields.append(_Field(chunk, f"cdiv({cols}, cores)"))
                src = f"k.start + {off}:k.start + {off} + k.len" if off else "k"
                body += [f"for {part} in core_chunk(t.{chunk}, {cols}):"
                         f"      # part {n.attrs['part']}: this core's elements",
                         f"    for k in tiles({part}, t.tile):",
                         "        with copyin:", f"            {xu} = load({x.name}[{src}])",
                         "        with compute:", f"            {yu} = {xu}",
                         "        with copyout:", f"            store({t.name}[k], {yu})"]
            else:
                src = f"k.start + {off}:k.start + {off} + k.len" if off else "k"
                body += [f"for {part} in core_chunk(t.per_core, {self.prod(range(self.axis))}):"
                         f"      # part {n.attrs['part']}: this core's rows",
                         f"    for c in tiles({part}, t.rows):",
                         f"        for k in tiles({cols}, t.cols):",
                         "            with copyin:", f"                {xu} = load({x.name}[c, {src}])",
                         "            with compute:", f"                {yu} = {xu}",
                         "            with copyout:", f"                store({t.name}[c, k], {yu})"]
        return body

    def host_body(self) -> list[str]:
        total = self.prod(range(len(self.dims)))
        if self.flat:
            return [f"cores = max(min(VECTOR_CORES, cdiv({total}, 64)), 1)   # at least 64 elements a core",
                    self.tile_line()]
        row = self.prod(range(self.axis, len(self.dims)))
        return [f"cores, per_core = core_split({self.prod(range(self.axis))})",
                f"cols = min(align_up({row}, 8), {MAX_COLS})   # a row's pitch is a repeat stride: at most 255 blocks",
                f"rows = min(max(ub_elems(f32, live={self.live}) // cols, 1), per_core)"]

    def launch_fields(self) -> str:
        return ", tile=tile" if self.flat else ", per_core=per_core, rows=rows, cols=cols"

    def host_tensor(self) -> str:
        t = self.tensors[0]
        dims = ", ".join(self.dims)
        return f"{t.name}: Tensor[{DTYPE[t.dtype]}, ({dims}{',' if len(self.dims) == 1 else ''})]"

    def scaled_shapes(self, shapes: dict) -> dict:
        return {name: tuple(d * 64 for d in shp) for name, shp in shapes.items()}

    def docstring(self) -> str:
        how = self.parts[0].attrs["how"][0]
        what = {"size": "torch.split by a size", "sizes": "a split by given sizes", "chunks": "chunk",
                "sections": "tensor_split into sections", "unbind": "unbind"}[how]
        return (f"Drafted from {self.source}: {what} along axis {self.axis} into {len(self.parts)} outputs (split "
                "template); each part is a run of columns of the input's rows, copied by its own loop nest from its "
                "offset (a strided copy in, a dense copy out).")


class _Field:
    """A host field the split template adds itself (a per-part chunk size)."""

    def __init__(self, name: str, text: str):
        self.name, self.text, self.is_float = name, text, False
