"""The data-dependent templates: torch.histc, repeat_interleave and nonzero -> DSL.

Operators whose output size or addressing depends on the data or on a number the reference
passes, each drafted from ops that already exist:

  histc       counts in `bins` equal bins over [min, max] (min == max: the data's own min and
              max, which every core sweeps the whole tensor for, as a global max is swept). The
              cores split the flat input; per tile, each element's bin is computed on the vector
              unit as PyTorch does, pos = (x - min) * bins / (max - min) (a true Div by a tile of
              the range: a multiplication by its reciprocal rounds differently and moves
              elements at a bin edge), the last bin closed, values outside set to -1; then one
              compare + select + ReduceSum per bin, added atomically into the bin's count
              (`store(y[j], n, accumulate=True)`), so the cores' shares add up in any order.
  interleave  repeat_interleave by an int: along the last dim (or dim=None, the flattened
              tensor) output element i is input element i // repeats, so a flat chunk of the
              input becomes a `repeats` times longer chunk of the output by one `repeat(xu, r)`
              (a vector Gather at floor((i + 0.5) / r)); along an earlier dim every slice is
              copied `repeats` times, to rows q * repeats + j.
  nonzero     the index rows of the set elements, an output whose size only the data decides.
              The kernel's output is declared at its upper bound (one row per element) beside a
              row count, `n: Out[i64, (1,), "y"]`, which the kernel writes and the harness trims
              `y` to (CANN's OutputShapeDependOnCompute does the same: the kernel writes the
              actual shape, the framework sizes the result). Each core counts its chunk's set
              elements (compare + ReduceSum) into a Workspace slot, sync_all(), adds the counts
              of the cores before it (its first row), then walks its chunk element by element on
              the scalar unit, storing (i // stride) % size per axis of every set element.
"""
from __future__ import annotations

from .graph import Node
from .templates import DIM_NAMES, DTYPE, Tensor, Writer, fmt_float, signature

ALIGN = 64          # elements per core chunk start: 32-byte aligned for every dtype up to 8 bytes x 8


class DatadepWriter(Writer):
    whole_rows = True

    def __init__(self, g, lay, op_name, live):
        self.node: Node = lay.outputs[0]
        self.template = lay.template
        super().__init__(g, lay, op_name, live)

    # -- parameters -------------------------------------------------------------------------------
    def _collect(self):
        n, g = self.node, self.g
        by_index = {a.attrs["index"]: a for a in n.args if a.is_input}
        self.read_inputs(by_index, f"the {self.template} template")
        self.x = self.loaded[id(n.args[0])]
        self.mask = self.loaded[id(n.args[1])] if n.attrs.get("select") else None
        # the numbers: kernel scalars for those the reference passes (bound by name, else in order)
        self.numbers: dict[int, str] = {}
        floats = n.args[2:] if self.template == "histc" else ()        # histc's min and max: f32 whatever a case passes
        for a in n.args[1:]:
            if a.is_number_input:
                src, i = a.attrs["source"], a.attrs["index"]
                desc = (g.inputs if src == "input" else g.init_inputs)[i]
                name = self.namer.fresh(a.attrs.get("pyname") or f"{src}{i}")
                dt = "i32" if desc["type"] == "int" and not any(a is f for f in floats) else "f32"
                self.kernel_scalars.append((name, dt))
                self._scalar_params.append((src, i, name, desc))
                self.numbers[id(a)] = name
        rank = len(self.x.shape)
        self.xdims = [self.namer.fresh(d) for d in (DIM_NAMES.get(rank) or tuple(f"D{i}" for i in range(rank)))]
        self.y = Tensor(self.namer.fresh("y"), n, "Out", n.dtype, "", shape=tuple(n.shape))
        self.out_tensors.append(self.y)
        if self.template == "nonzero":
            self.count, self.counts = self.namer.fresh("count"), self.namer.fresh("counts")

    def num(self, a: Node, as_float=False) -> str:
        """A number argument as DSL text: its kernel scalar, or the literal."""
        if id(a) in self.numbers:
            return self.numbers[id(a)]
        return fmt_float(a.value) if as_float or isinstance(a.value, float) else str(int(a.value))

    def dim_names(self, rank):
        return tuple(f"S{i}" for i in range(rank))     # unused: the views name their own dims

    @property
    def total(self) -> str:
        return " * ".join(self.xdims) if self.xdims else "1"

    def flat(self) -> str:
        return "(" + (self.xdims[0] if len(self.xdims) == 1 else "(" + ", ".join(self.xdims) + ")") + ",)"

    # -- the Writer's pieces ----------------------------------------------------------------------
    def kernel_signature(self) -> str:
        params = [f"{t.name}: GM[{DTYPE[t.dtype]}, {self.x_view()}]" for t in self.tensors]
        params += [f"{n}: {dt}" for n, dt in self.kernel_scalars]
        params += self.out_params()
        params.append("t: Tiling")
        return signature(self.op_name, params)

    def x_view(self) -> str:
        if self.template == "interleave" and self.node.attrs["axis"] is not None \
                and self.node.attrs["axis"] != len(self.xdims) - 1:
            return self._rows_views()[0]
        return self.flat()

    def out_params(self) -> list[str]:
        y = self.y
        if self.template == "histc":
            return [f"{y.name}: Out[f32, ({self.num(self.node.args[1])},)]"]
        if self.template == "interleave":
            r = self.num(self.node.args[1])
            if self.node.attrs["axis"] is None:        # the flattened tensor
                return [f"{y.name}: Out[{DTYPE[y.dtype]}, ({self.total} * {r},)]"]
            if self.node.attrs["axis"] == len(self.xdims) - 1:
                dims = self.xdims[:-1] + [f"{self.xdims[-1]} * {r}"]
                inner = dims[0] if len(dims) == 1 else "(" + ", ".join(dims) + ")"
                return [f"{y.name}: Out[{DTYPE[y.dtype]}, ({inner},)]"]
            return [f"{y.name}: Out[{DTYPE[y.dtype]}, {self._rows_views()[1]}]"]
        rank = len(self.xdims)
        shape = f"({self.total},)" if self.mask else f"({self.total}, {rank})"
        return [f"{self.counts}: Workspace[i32, (64,)]",          # a slot per core (VECTOR_CORES <= 64)
                f"{y.name}: Out[{DTYPE[y.dtype]}, {shape}]", f'{self.count}: Out[i64, (1,), "{y.name}"]']

    def host_tensor(self) -> str:
        dims = ", ".join(self.xdims) + ("," if len(self.xdims) == 1 else "")
        return ", ".join(f"{t.name}: Tensor[{DTYPE[t.dtype]}, ({dims})]" for t in self.tensors)

    def host_params(self) -> list[str]:
        return [f"{n}: {dt}" for n, dt in self.kernel_scalars]

    def host_body(self) -> list[str]:
        if self._is_rows():
            lead = self.xdims[:self.node.attrs["axis"] + 1]
            return [f"rows = {' * '.join(lead)}", "cores, per_core = core_split(rows)", self.tile_line()]
        live = f"{self.live} * ({self.num(self.node.args[1])} + 1)" if self.template == "interleave" else str(self.live)
        return [*self.chunk_split(self.xdims, ALIGN, "32-byte aligned per-core chunks"),
                f"tile = ub_elems(f32, live={live})"]

    def launch_fields(self) -> str:
        if self._is_rows():
            return f", rows=per_core, tile=min(tile, {self._trail()})"
        return ", chunk=chunk, tile=min(tile, chunk)"

    def docstring(self) -> str:
        text = {"histc": "each core bins its chunk on the vector unit (pos = (x - min) * bins / (max - min), a true "
                         "division) and adds one count per bin atomically into the output",
                "interleave": "every element repeated in place by one vector Gather per tile" if not self._is_rows()
                else "every slice along the axis copied `repeats` times",
                "nonzero": "the output is declared at its upper bound beside a row count the kernel writes; the "
                           "cores count their set elements, share the counts through a Workspace and write the "
                           "index rows from their offsets"}[self.template]
        return f"Drafted from {self.source}: {self.template} template; {text}."

    def kernel_body(self) -> list[str]:
        return {"histc": self._histc, "interleave": self._interleave, "nonzero": self._nonzero}[self.template]()

    # -- histc ------------------------------------------------------------------------------------
    def _histc(self) -> list[str]:
        n, x, y = self.node, self.x, self.y
        fresh = self.namer.fresh
        bins, lo, hi = self.num(n.args[1]), self.num(n.args[2], True), self.num(n.args[3], True)
        a, b, xu, w = fresh("lo"), fresh("hi"), fresh("xu"), fresh("width")
        k, j, cnt = fresh("pos"), fresh("j"), fresh("n")
        T = self.total
        lines = [f"{a} = {lo}", f"{b} = {hi}"]
        lines += [f"if {a} == {b}:          # min == max: the bins span the data's own min and max",
                  f"    {a} = inf",
                  f"    {b} = -inf",
                  f"    for c in tiles({T}, t.tile):      # every core sweeps the whole tensor",
                  "        with copyin:",
                  f"            {xu} = load({x.name}[c])",
                  "        with compute:",
                  f"            {a} = min({a}, reduce_min({xu}))",
                  f"            {b} = max({b}, reduce_max({xu}))",
                  f"    if {a} == {b}:      # one value: PyTorch widens the range by 1 on each side",
                  f"        {a} = {a} - 1.0",
                  f"        {b} = {b} + 1.0",
                  f"for part in core_chunk(t.chunk, {T}):",
                  "    for c in tiles(part, t.tile):",
                  "        with copyin:",
                  f"            {xu} = load({x.name}[c])",
                  "        with compute:",
                  f"            {w} = clamp({xu}, {b} - {a}, {b} - {a})"
                  "      # the range as a tile: a true Div, as PyTorch divides",
                  f"            {k} = min(floor(({xu} - {a}) * {bins} / {w}), {bins} - 1)"
                  "      # max itself is in the last bin",
                  f"            {k} = where({xu} > {b}, -1.0, {k})      # outside [min, max]: no bin",
                  f"            {k} = where({xu} < {a}, -1.0, {k})",
                  f"        for {j} in range({bins}):",
                  "            with compute:",
                  f"                {cnt} = reduce_sum(where({k} == {j}, 1.0, 0.0))",
                  "            with copyout:",
                  f"                store({y.name}[{j}], {cnt}, accumulate=True)"
                  "      # atomic: the cores' counts add up"]
        return lines

    # -- repeat_interleave -----------------------------------------------------------------------------
    def _is_rows(self) -> bool:
        ax = self.node.attrs.get("axis")
        return self.template == "interleave" and ax is not None and ax != len(self.xdims) - 1

    def _trail(self) -> str:
        ax = self.node.attrs["axis"]
        rest = self.xdims[ax + 1:]
        return " * ".join(rest)

    def _rows_views(self) -> tuple[str, str]:
        """(x, y) views of an interleave along an earlier axis: (lead, D, trail) and (lead, D * r, trail)."""
        ax = self.node.attrs["axis"]
        r = self.num(self.node.args[1])
        lead, d, rest = self.xdims[:ax], self.xdims[ax], self.xdims[ax + 1:]
        trail = rest[0] if len(rest) == 1 else "(" + ", ".join(rest) + ")"
        lead_g = ([lead[0] if len(lead) == 1 else "(" + ", ".join(lead) + ")"] if lead else [])
        xs = "(" + ", ".join(lead_g + [d, trail]) + ")"
        ys = "(" + ", ".join(lead_g + [f"{d} * {r}", trail]) + ")"
        return xs, ys

    def _interleave(self) -> list[str]:
        x, y = self.x, self.y
        fresh = self.namer.fresh
        r = self.num(self.node.args[1])
        xu, yu = fresh("xu"), fresh("yu")
        if not self._is_rows():
            return [f"for part in core_chunk(t.chunk, {self.total}):",
                    "    for c in tiles(part, t.tile):",
                    "        with copyin:",
                    f"            {xu} = load({x.name}[c])",
                    "        with compute:",
                    f"            {yu} = repeat({xu}, {r})"
                    f"      # element i of the output is element i // {r} of the input",
                    "        with copyout:",
                    f"            store({y.name}[c.start * {r}:c.start * {r} + c.len * {r}], {yu})"]
        ax = self.node.attrs["axis"]
        lead, d = self.xdims[:ax], self.xdims[ax]
        rows = " * ".join(lead + [d])
        j = fresh("j")
        if lead:
            l, q = fresh("l"), fresh("q")
            head = [f"for r in core_rows(t.rows, {rows}):", f"    {l} = r // {d}", f"    {q} = r % {d}"]
            src, dst = f"{l}, {q}, c", f"{l}, {q} * {r} + {j}, c"
        else:
            head = [f"for r in core_rows(t.rows, {rows}):"]
            src, dst = "r, c", f"r * {r} + {j}, c"
        return head + [f"    for {j} in range({r}):          # the slice, once per copy",
                       f"        for c in tiles({self._trail()}, t.tile):",
                       "            with copyin:",
                       f"                {xu} = load({x.name}[{src}])",
                       "            with compute:",
                       f"                {yu} = {xu}",
                       "            with copyout:",
                       f"                store({y.name}[{dst}], {yu})"]

    # -- nonzero ----------------------------------------------------------------------------------
    def _nonzero(self) -> list[str]:
        x, y = self.mask or self.x, self.y        # masked_select: set elements of the mask pick values of x
        fresh = self.namer.fresh
        T, D = self.total, self.xdims
        boolean = x.dtype == "bool"
        xu, k, ki, part, me, pos, total, q, v, n, i, m = (fresh(a) for a in (
            "xu", "k", "ki", "part", "me", "pos", "total", "q", "v", "n", "i", "m"))
        coords = []
        for a in range(len(D)):
            stride = " * ".join(D[a + 1:])
            at = f"{i} // {stride if len(D) - a == 2 else '(' + stride + ')'}" if stride else i
            coords.append(at if a == 0 else f"({at}) % {D[a]}" if stride else f"{i} % {D[a]}")
        names = [fresh(f"i{a}") for a in range(len(D))]
        set_ = f"{xu}" if boolean else f"{xu} != 0"
        return [f"for {part} in core_chunk(t.chunk, {T}):          # 1. count this core's set elements",
                f"    {k} = 0.0",
                f"    for c in tiles({part}, t.tile):",
                "        with copyin:",
                f"            {xu} = load({x.name}[c])",
                "        with compute:",
                f"            {k} = {k} + reduce_sum(where({set_}, 1.0, 0.0))      # exact below 2^24 per core",
                f"    {ki} = cast({k}, i32)",
                "    with copyout:",
                f"        store({self.counts}[{part}.start // t.chunk], {ki})          # one slot per core",
                "sync_all()                                     # every core's count is in GM",
                f"for {part} in core_chunk(t.chunk, {T}):          # 2. write the index rows from this core's offset",
                f"    {me} = {part}.start // t.chunk",
                f"    {pos} = 0",
                f"    {total} = 0",
                f"    for {q} in range(t.cores):",
                "        with copyin:",
                f"            {v} = load({self.counts}[{q}])",
                f"        if {q} < {me}:",
                f"            {pos} = {pos} + {v}          # the rows of the cores before this one",
                f"        {total} = {total} + {v}",
                f"    if {me} == 0:          # the row count the harness trims `{y.name}` to",
                f"        {n} = cast({total}, i64)",
                "        with copyout:",
                f"            store({self.count}[0], {n})",
                f"    for {i} in range({part}.start, {part}.start + {part}.len):"
                "      # the scalar unit, element by element",
                "        with copyin:",
                f"            {m} = load({x.name}[{i}])",
                f"        if {m if boolean else m + ' != 0'}:",
                *(self._picked(i, pos) if self.mask else
                  [*[f"            {nm} = cast({c}, i64)" for nm, c in zip(names, coords)],
                   "            with copyout:",
                   *[f"                store({y.name}[{pos}, {a}], {nm})" for a, nm in enumerate(names)]]),
                f"            {pos} = {pos} + 1"]

    def _picked(self, i: str, pos: str) -> list[str]:
        """masked_select: the value under a set mask element, read and stored as a scalar."""
        v = self.namer.fresh("val")
        return ["            with copyin:",
                f"                {v} = load({self.x.name}[{i}])",
                "            with copyout:",
                f"                store({self.y.name}[{pos}], {v})"]
