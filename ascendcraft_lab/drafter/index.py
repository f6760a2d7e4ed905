"""The index template: one argmax/argmin, gather, index_select/embedding, index_add or scatter_add -> DSL.

Six kernel shapes ("forms"), after what the index op reads or writes:

  rows, cols the first index of the max / min along one axis, as int64.
             Along the last axis (rows): a row is swept tile by tile; every tile gives its
             reduce_max and argmax, and a tile replaces the row's best only when strictly
             greater, so the first index wins a tie, as in PyTorch.
             Along a middle axis (cols): each (lead, column tile) keeps a running best tile and
             a running index tile (f32, exact below 2^24) while the axis steps through
             contiguous slices: `at = where(xv > best, m, at)`, then `best = max(best, xv)`.
  take       gather along the last axis (torch.gather, take_along_dim, index_select on the
             last dim): the source row is loaded whole into UB once, the indices stream through
             in tiles, and `take(xu, cast(iu, i32))` is one vector Gather per tile.
  copy       whole slices picked by index (index_select on an earlier dim, nn.Embedding,
             x[idx]): each picked slice is copied by itself, its index read as a scalar from
             GM, so a row of any length costs DataCopies of whole tiles, no gather at all.
  add        index_add along dim 0: the output is only ever added into (atomic adds, AscendC
             SetAtomicAdd; it starts at zero): every core adds its rows of x, then its rows of
             alpha * source into the rows their indices name. Atomic adds commute, so repeated
             indices and the order of the cores do not matter, and no sync between the two
             loops is needed.
  scatter    scatter_add of a 2-D tensor: the same, one element at a time: each (index, src)
             pair is read as scalars from GM and src added at y[row, index] (along dim 1) or
             y[index, column] (along dim 0) by an accumulating scalar store.
  put        index_copy / x[index] = value along dim 0, where a repeated index keeps the last write
             (PyTorch's loop on one thread; the docs call the result of repeats undefined): the
             cores split the OUTPUT rows, and each output row r finds the last pick naming it, a
             vector search over the index tiles (Compare against r, Select the pick's position + 1,
             ReduceMax); it then copies that source row, or x's own row when no pick names it.
             Every output row is written once, by one core: no atomics, no sync. An index past
             the output is never found (its write is dropped), where PyTorch raises.
  set        scatter along the last axis of a 2-D tensor, a repeated index keeping the last
             write: a core owns whole rows, copies x's row, then writes the row's (index, src)
             pairs in index order by scalar stores, which leave the core in program order
             through one queue (MTE3), so the last pair of a repeat lands last.

An index outside the source is no crash: on the emulator a `take` past the row's valid
elements, a copy from a row past the table and an add into a row past the output are findings
at the DSL line. Writes by index whose result depends on their order (scatter, index_copy,
x[index] = value with repeated indices) keep the last write, as above.
"""
from __future__ import annotations

from .graph import Node
from .templates import DTYPE, Tensor, Writer, fmt_float, signature

ALIGN = 8          # f32 elements per 32-byte block: per-core column chunks start on a block


class IndexWriter(Writer):
    template = "index"
    whole_rows = True

    def __init__(self, g, lay, op_name, live):
        self.node: Node = lay.outputs[0]
        self.names: dict[tuple, str] = {}        # (tensor, axis) -> dim name
        super().__init__(g, lay, op_name, live)

    # -- parameters: the op's operands and its output, dims named per tensor -----------------------
    def _collect(self):
        n = self.node
        leaves = list(n.args)
        by_input = {a.attrs["index"]: a for a in leaves if a.is_input}
        self.read_inputs(by_input, f"the {self.what}")
        for a in leaves:
            if a.is_param:
                t = Tensor(self.namer.fresh(a.attrs["name"].replace(".", "_")), a, "Param", a.dtype, "",
                           a.attrs["name"], tuple(a.shape))
                self.tensors.append(t)
                self.loaded[id(a)] = t
        # a number among forward's inputs (index_select's `dim`) was read by its traced value: the
        # kernel takes no scalar, and cases passing another value get a draft of their own (the bench)
        self.out_tensors.append(Tensor(self.namer.fresh("y"), n, "Out", n.dtype, "", shape=tuple(n.shape)))
        self._name_dims()

    @property
    def what(self) -> str:
        return self.node.info.what.format(**self.node.attrs)

    @property
    def form(self) -> str:
        form = self.node.info.form
        if form == "arg":
            return "rows" if self.node.attrs["axis"] == len(self.src.shape) - 1 else "cols"
        return form

    @property
    def src(self) -> Tensor:
        return self.loaded[id(self.node.args[0])]

    @property
    def idx(self) -> Tensor:
        return self.loaded[id(self.node.args[1])]

    def _dim(self, t: Tensor, axis: int, base: str) -> str:
        key = (t.name, axis)
        if key not in self.names:
            self.names[key] = self.namer.fresh(base)
        return self.names[key]

    @property
    def added(self) -> Tensor:
        return self.loaded[id(self.node.args[2])]

    def _name_dims(self):
        """Names for every axis the views use: the source's (B, M, N / V, D ...), the index's own
        (K: picks per row, I0..: the index's axes), shared where the op makes them equal."""
        n, x = self.node, self.src
        rank, axis = len(x.shape), n.attrs["axis"]
        base = {1: ("N",), 2: ("B", "N"), 3: ("B", "M", "N")}.get(rank) or tuple(f"D{i}" for i in range(rank))
        info = n.info
        if info.slices:
            base = tuple("L" if i < axis else "V" if i == axis else "D" for i in range(rank))
        self.xdims = [self._dim(x, i, base[i]) for i in range(rank)]
        if info.elements:
            self.kdim = self.namer.fresh("K")          # the index's own axis: picks per row, or index rows
        if info.elements and info.writes:
            # the index and src: (B, K) against x (B, N) along dim 1, (K, N) against x (V, N) along 0
            self.own_dims_scatter = [self.xdims[0], self.kdim] if axis == 1 else [self.kdim, self.xdims[1]]
        if info.slices:
            self.idims = [self.namer.fresh("K" if len(self.idx.shape) == 1 else f"I{i}")
                          for i in range(len(self.idx.shape))]
        self.own_dims = {x.name: self.xdims}
        if info.elements and not info.writes:
            self.own_dims[self.idx.name] = [self.kdim] if n.attrs["shared"] else self.xdims[:-1] + [self.kdim]
        elif info.slices:
            self.own_dims[self.idx.name] = self.idims
        if info.slices and info.writes:
            self.own_dims[self.added.name] = self.idims + self.xdims[1:]
        if info.elements and info.writes:
            self.own_dims[self.idx.name] = self.own_dims[self.added.name] = self.own_dims_scatter

    def dim_names(self, rank):
        return tuple(f"S{i}" for i in range(rank))   # unused: the views name their own dims

    # -- text helpers ---------------------------------------------------------------------------
    @staticmethod
    def group(names) -> str:
        names = list(names)
        return names[0] if len(names) == 1 else "(" + ", ".join(names) + ")"

    @staticmethod
    def shape(groups) -> str:
        return "(" + ", ".join(groups) + ("," if len(groups) == 1 else "") + ")"

    @staticmethod
    def prod(names) -> str:
        return " * ".join(names) if names else "1"

    def views(self) -> dict[str, str]:
        """GM view text per tensor name."""
        n, x = self.node, self.src
        X = self.xdims
        axis = n.attrs["axis"]
        lead, trail = X[:axis], X[axis + 1:]
        y = self.out_tensors[0]
        if self.form == "rows":
            out = lead + (["1"] if n.attrs["keepdim"] else [])
            return {x.name: self.shape([self.group(lead), X[axis]]), y.name: self.shape([self.group(out)])}
        if self.form == "cols":
            out_lead = lead + (["1"] if n.attrs["keepdim"] else [])
            xs = ([self.group(lead)] if lead else []) + [X[axis], self.group(trail)]
            ys = ([self.group(out_lead)] if lead else []) + [self.group(trail if lead or not n.attrs["keepdim"]
                                                                        else ["1"] + trail)]
            return {x.name: self.shape(xs), y.name: self.shape(ys)}
        if self.form == "take":
            K = self.kdim
            xs = ([self.group(lead)] if lead else []) + [X[axis]]
            ys = ([self.group(lead)] if lead else []) + [K]
            ks = [K] if n.attrs["shared"] else ys
            return {x.name: self.shape(xs), self.idx.name: self.shape(ks), y.name: self.shape(ys)}
        if self.form in ("scatter", "set"):
            shp = self.shape(self.own_dims_scatter)
            return {x.name: self.shape(X), self.idx.name: shp, self.added.name: shp, y.name: self.shape(X)}
        I = self.idims                                   # copy, add
        D = self.group(trail)
        if self.form in ("add", "put"):
            return {x.name: self.shape([X[0], D]), self.idx.name: self.shape([self.group(I)]),
                    self.added.name: self.shape([self.group(I), D]), y.name: self.shape([X[0], D])}
        xs = ([self.group(lead)] if lead else []) + [X[axis], D]
        ys = ([self.group(lead + I)] if lead else [self.group(I)]) + [D]
        return {x.name: self.shape(xs), self.idx.name: self.shape([self.group(I)]), y.name: self.shape(ys)}

    def leaf_shape_text(self, t: Tensor) -> str:
        """The tensor's own dims, for the host's Tensor[...] declarations."""
        names = self.own_dims[t.name]
        return "(" + ", ".join(names) + ("," if len(names) == 1 else "") + ")"

    # -- the Writer's pieces --------------------------------------------------------------------------
    def kernel_signature(self) -> str:
        v = self.views()
        params = []
        for t in self.tensors:
            if t.kind == "GM":
                params.append(f"{t.name}: GM[{DTYPE[t.dtype]}, {v[t.name]}]")
            else:
                params.append(f'{t.name}: Param[{DTYPE[t.dtype]}, {v[t.name]}, "{t.param_name}"]')
        y = self.out_tensors[0]
        params += [f"{y.name}: Out[{DTYPE[y.dtype]}, {v[y.name]}]", "t: Tiling"]
        return signature(self.op_name, params)

    def host_tensor(self) -> str:
        return ", ".join(f"{t.name}: Tensor[{DTYPE[t.dtype]}, {self.leaf_shape_text(t)}]" for t in self.tensors)

    def host_params(self) -> list[str]:
        return []

    def _rows(self) -> tuple[list[str], str]:
        """(the dims of the rows the cores split, what a row is) for this form."""
        axis = self.node.attrs["axis"]
        lead = self.xdims[:axis]
        if self.form == "rows":
            return lead, "a row along the reduced axis"
        if self.form == "cols":
            return lead, "a slab of the lead axes"
        if self.form == "take":
            return lead, "a source row"
        if self.form in ("add", "scatter"):
            return [], "a row"
        if self.form in ("put", "set"):
            return [self.xdims[0]], "an output row"
        return lead + self.idims, "a picked slice"

    def host_body(self) -> list[str]:
        if self.form in ("add", "scatter"):
            V = self.xdims[0]
            K = self.prod(self.idims) if self.form == "add" else self.own_dims_scatter[0]
            return [f"cores = min(VECTOR_CORES, {V if V == K else f'max({V}, {K})'})",
                    f"rows = cdiv({V}, cores)          # rows of x each core adds",
                    f"picks = cdiv({K}, cores)         # rows of the source each core adds where its index says",
                    self.tile_line()]
        rows, _ = self._rows()
        if not rows:                        # no lead axes: the cores split the columns
            return [*self.chunk_split(self.column_dims(), ALIGN, "32-byte aligned per-core columns"), self.tile_line()]
        return [f"rows = {self.prod(rows)}", "cores, per_core = core_split(rows)", self.tile_line()]

    def columns(self) -> str:
        """The extent the tiles walk: the reduced row (rows), the trailing columns (cols), the
        picks (take) or the slice (copy)."""
        return self.prod(self.column_dims())

    def column_dims(self) -> list[str]:
        """The dims whose product `columns` is."""
        axis = self.node.attrs["axis"]
        if self.form == "rows":
            return [self.xdims[axis]]
        if self.form == "take":
            return [self.kdim]
        if self.form in ("scatter", "set"):
            return [self.xdims[1]]
        if self.form == "put":
            return list(self.xdims[1:])
        return list(self.xdims[axis + 1:])        # cols, copy: the slice after the axis

    def launch_fields(self) -> str:
        if self.form in ("add", "scatter"):
            return f", rows=rows, picks=picks, tile=min(tile, {self.columns()})"
        rows, _ = self._rows()
        if not rows:
            return ", chunk=chunk, tile=min(tile, chunk)"
        cols = self.columns()
        return f", rows=per_core, tile=min(tile, {cols})"

    def docstring(self) -> str:
        n = self.node
        forms = {
            "rows": "the cores split the rows; a row is swept tile by tile with reduce_{k} and arg{k} per tile, "
                    "a tile replacing the row's best only when strictly {better} (the first index wins ties)",
            "cols": "each (lead, column tile) keeps a running best tile and an index tile while the reduced axis "
                    "steps through contiguous slices; a later slice wins only when strictly {better}",
            "take": "each source row is loaded whole into UB, the indices stream through in tiles and one vector "
                    "Gather per tile picks the elements",
            "copy": "every picked slice is one copy GM -> UB -> GM, its index read as a scalar from GM",
            "add": "the output is only added into (atomic adds): each core adds its rows of x, then alpha times its "
                   "rows of the source into the rows their indices name; atomic adds commute, so repeated "
                   "indices add up in any order",
            "scatter": "the output is only added into (atomic adds): each core adds its rows of x, then every (index, "
                       "src) pair of its rows, read as scalars, by an accumulating scalar store; repeated indices "
                       "add up",
            "put": "the cores split the output rows: each finds the last pick naming it (a vector search over the "
                   "indices: Compare, Select, ReduceMax) and copies that source row, or its own row of x; a repeated "
                   "index keeps the last write, as PyTorch on one thread",
            "set": "a core owns whole rows: it copies x's row, then writes the row's (index, src) pairs in index order "
                   "by scalar stores, so a repeated index keeps the last write, as PyTorch on one thread",
        }
        kind = n.attrs.get("kind", "max")
        text = forms[self.form].format(k=kind, better="greater" if kind == "max" else "smaller")
        return (f"Drafted from {self.source}: {self.what} along axis {n.attrs['axis']}, index template. "
                f"{text[0].upper() + text[1:]}.")

    def kernel_body(self) -> list[str]:
        return {"rows": self._argrows, "cols": self._argcols, "take": self._take, "copy": self._copy,
                "add": self._add, "scatter": self._scatter, "put": self._put, "set": self._set}[self.form]()

    # -- loops ---------------------------------------------------------------------------------------
    def _outer(self) -> tuple[str, str]:
        """The per-core loop header and how the tiles loop walks the columns inside it."""
        rows, _ = self._rows()
        if rows:
            return f"for r in core_rows(t.rows, {self.prod(rows)}):", self.columns()
        return f"for part in core_chunk(t.chunk, {self.columns()}):", "part"

    def _widen(self, t: Tensor, tile: str, wide: str) -> list[str]:
        return [f"{wide} = cast({tile}, f32)"] if t.dtype == "float16" else []

    def _argrows(self) -> list[str]:
        x, y = self.src, self.out_tensors[0]
        kind = self.node.attrs["kind"]
        fresh = self.namer.fresh
        head, cols = self._outer()
        xu = fresh(x.name + ("h" if x.dtype == "float16" else "u"))
        val = fresh(x.name + "w") if x.dtype == "float16" else xu
        best, at, m, i, yi = fresh("best"), fresh("at"), fresh("m"), fresh("i"), fresh("yi")
        better = ">" if kind == "max" else "<"
        return [head,
                f"    {best} = {'-inf' if kind == 'max' else 'inf'}",
                f"    {at} = 0",
                f"    for c in tiles({cols}, t.tile):",
                "        with copyin:",
                f"            {xu} = load({x.name}[r, c])",
                "        with compute:",
                *[f"            {l}" for l in self._widen(x, xu, val)],
                f"            {m} = reduce_{kind}({val})",
                f"            {i} = arg{kind}({val})          # the first {kind} within the tile",
                f"        if {m} {better} {best}:"
                "              # strictly: an earlier tile keeps a tie (PyTorch's first index)",
                f"            {best} = {m}",
                f"            {at} = c.start + {i}",
                f"    {yi} = cast({at}, i64)",
                "    with copyout:",
                f"        store({y.name}[r], {yi})"]

    def _argcols(self) -> list[str]:
        x, y = self.src, self.out_tensors[0]
        kind = self.node.attrs["kind"]
        axis = self.node.attrs["axis"]
        R = self.xdims[axis]
        fresh = self.namer.fresh
        head, cols = self._outer()
        lead = "r, " if self._rows()[0] else ""
        fp16 = x.dtype == "float16"
        xu, xv = fresh(x.name + ("h" if fp16 else "u")), fresh(x.name + ("hv" if fp16 else "v"))
        best, at, yi = fresh("best"), fresh("at"), fresh("yi")
        wide = fresh(x.name + "w") if fp16 else ""
        first = [f"{best} = cast({xu}, f32)"] if fp16 else [f"{best} = {xu}"]
        step_val = wide if fp16 else xv
        better = ">" if kind == "max" else "<"
        return [head,
                f"    for c in tiles({cols}, t.tile):",
                "        with copyin:",
                f"            {xu} = load({x.name}[{lead}0, c])",
                "        with compute:",
                *[f"            {l}" for l in first],
                f"            {at} = clamp({best}, 0.0, 0.0)      # index 0 in every column (f32: exact below 2^24)",
                f"        for k in range(1, {R}):",
                "            with copyin:",
                f"                {xv} = load({x.name}[{lead}k, c])",
                "            with compute:",
                *[f"                {l}" for l in self._widen(x, xv, wide)],
                f"                {at} = where({step_val} {better} {best}, k, {at})"
                "      # strictly: the first index wins ties",
                f"                {best} = {kind}({best}, {step_val})",
                "        with compute:",
                f"            {yi} = cast(cast({at}, i32, round=\"rint\"), i64)",
                "        with copyout:",
                f"            store({y.name}[{lead}c], {yi})"]

    def _take(self) -> list[str]:
        x, ix, y = self.src, self.idx, self.out_tensors[0]
        fresh = self.namer.fresh
        head, cols = self._outer()
        rows = bool(self._rows()[0])
        xu, iu, yu = fresh(x.name + ("h" if x.dtype == "float16" else "u")), fresh(ix.name + "u"), fresh("yu")
        row = "r, :" if rows else ":"
        at = "r, c" if rows else "c"
        iat = "c" if self.node.attrs["shared"] else at
        return [head,
                "    with copyin:",
                f"        {xu} = load({x.name}[{row}])          # the whole source row, read by every tile of indices",
                f"    for c in tiles({cols}, t.tile):",
                "        with copyin:",
                f"            {iu} = load({ix.name}[{iat}])",
                "        with compute:",
                f"            {yu} = take({xu}, cast({iu}, i32))      # one vector Gather (Gather offsets are 32-bit)",
                "        with copyout:",
                f"            store({y.name}[{at}], {yu})"]

    def _copy(self) -> list[str]:
        x, ix, y = self.src, self.idx, self.out_tensors[0]
        axis = self.node.attrs["axis"]
        lead = self.xdims[:axis]
        fresh = self.namer.fresh
        head, cols = self._outer()
        k, wu, yu = fresh("k"), fresh(x.name + "u"), fresh("yu")
        body = [head]
        if lead:
            K = self.prod(self.idims)
            l, j = fresh("l"), fresh("j")
            body += [f"    {l} = r // {_par(K)}", f"    {j} = r % {_par(K)}"]
            src = f"{l}, {k}, c"
        else:
            j = "r"
            src = f"{k}, c"
        body += ["    with copyin:",
                 f"        {k} = load({ix.name}[{j}])          # the picked slice's index: a scalar read from GM",
                 f"    for c in tiles({cols}, t.tile):",
                 "        with copyin:",
                 f"            {wu} = load({x.name}[{src}])",
                 "        with compute:",
                 f"            {yu} = {wu}",
                 "        with copyout:",
                 f"            store({y.name}[r, c], {yu})"]
        return body

    def _add(self) -> list[str]:
        x, ix, src, y = self.src, self.idx, self.added, self.out_tensors[0]
        V, K, D = self.xdims[0], self.prod(self.idims), self.columns()
        fresh = self.namer.fresh
        xu, yu, su, au, k = fresh(x.name + "u"), fresh("yu"), fresh(src.name + "u"), fresh("au"), fresh("k")
        alpha = self.node.attrs["alpha"]
        scaled = su if alpha == 1.0 else f"{su} * {fmt_float(alpha)}"
        return [f"for r in core_rows(t.rows, {V}):          # x itself, added into the zeroed output",
                f"    for c in tiles({D}, t.tile):",
                "        with copyin:",
                f"            {xu} = load({x.name}[r, c])",
                "        with compute:",
                f"            {yu} = {xu}",
                "        with copyout:",
                f"            store({y.name}[r, c], {yu}, accumulate=True)",
                f"for q in core_rows(t.picks, {K}):",
                "    with copyin:",
                f"        {k} = load({ix.name}[q])          # the row this source row adds into: a scalar read from GM",
                f"    for c in tiles({D}, t.tile):",
                "        with copyin:",
                f"            {su} = load({src.name}[q, c])",
                "        with compute:",
                f"            {au} = {scaled}",
                "        with copyout:",
                f"            store({y.name}[{k}, c], {au}, accumulate=True)      # atomic: repeated indices add up"]

    def _scatter(self) -> list[str]:
        x, ix, src, y = self.src, self.idx, self.added, self.out_tensors[0]
        axis = self.node.attrs["axis"]
        V, N = self.xdims
        K = self.own_dims_scatter[0]
        fresh = self.namer.fresh
        xu, yu, k, u = fresh(x.name + "u"), fresh("yu"), fresh("k"), fresh("u")
        lines = [f"for r in core_rows(t.rows, {V}):          # x itself, added into the zeroed output",
                 f"    for c in tiles({N}, t.tile):",
                 "        with copyin:",
                 f"            {xu} = load({x.name}[r, c])",
                 "        with compute:",
                 f"            {yu} = {xu}",
                 "        with copyout:",
                 f"            store({y.name}[r, c], {yu}, accumulate=True)"]
        pair = self.own_dims_scatter[1]
        at = f"q, {k}" if axis == 1 else f"{k}, j"
        lines += [f"for q in core_rows(t.picks, {K}):",
                  f"    for j in range({pair}):",
                  "        with copyin:",
                  f"            {k} = load({ix.name}[q, j])          # where this src element goes, and the element",
                  f"            {u} = load({src.name}[q, j])",
                  "        with copyout:",
                  f"            store({y.name}[{at}], {u}, accumulate=True)      # atomic: repeated indices add up"]
        return lines

    def _put(self) -> list[str]:
        x, ix, src, y = self.src, self.idx, self.added, self.out_tensors[0]
        V, K, D = self.xdims[0], self.prod(self.idims), self.columns()
        fresh = self.namer.fresh
        last, iu, m, k = fresh("last"), fresh(ix.name + "u"), fresh("m"), fresh("k")
        su, xu, yu, yv = fresh(src.name + "u"), fresh(x.name + "u"), fresh("yu"), fresh("yv")
        return [f"for r in core_rows(t.rows, {V}):          # one output row, written once",
                f"    {last} = 0.0          # 1 + the last pick naming row r (0: none)",
                f"    for c in tiles({K}, t.tile):",
                "        with copyin:",
                f"            {iu} = load({ix.name}[c])",
                "        with compute:",
                f"            {m} = reduce_max(where(cast(cast({iu}, i32), f32) == r, "
                "iota(c.len, c.start) + 1.0, 0.0))",
                f"        {last} = max({last}, {m})",
                f"    {k} = cast({last}, i32) - 1",
                f"    if {k} >= 0:          # the last write of row r: source row k",
                f"        for c in tiles({D}, t.tile):",
                "            with copyin:",
                f"                {su} = load({src.name}[{k}, c])",
                "            with compute:",
                f"                {yu} = {su}",
                "            with copyout:",
                f"                store({y.name}[r, c], {yu})",
                "    else:          # no pick names row r: x's own row",
                f"        for c in tiles({D}, t.tile):",
                "            with copyin:",
                f"                {xu} = load({x.name}[r, c])",
                "            with compute:",
                f"                {yv} = {xu}",
                "            with copyout:",
                f"                store({y.name}[r, c], {yv})"]

    def _set(self) -> list[str]:
        x, ix, src, y = self.src, self.idx, self.added, self.out_tensors[0]
        V, N = self.xdims
        K = self.own_dims_scatter[1]
        fresh = self.namer.fresh
        xu, yu, k, u = fresh(x.name + "u"), fresh("yu"), fresh("k"), fresh("u")
        return [f"for r in core_rows(t.rows, {V}):          # a core owns whole rows",
                f"    for c in tiles({N}, t.tile):",
                "        with copyin:",
                f"            {xu} = load({x.name}[r, c])",
                "        with compute:",
                f"            {yu} = {xu}",
                "        with copyout:",
                f"            store({y.name}[r, c], {yu})",
                f"    for j in range({K}):          # in index order: a repeated index keeps the last write",
                "        with copyin:",
                f"            {k} = load({ix.name}[r, j])          # where this src element goes, and the element",
                f"            {u} = load({src.name}[r, j])",
                "        with copyout:",
                f"            store({y.name}[r, {k}], {u})"]

    # -- the drafter's budget check on shapes 64 times larger ------------------------------------------
    def scaled_shapes(self, shapes: dict) -> dict:
        """Every dim x64 but the source row a `take` holds whole in UB (its length is not a tile)."""
        keep = {(self.src.name, len(self.src.shape) - 1)} if self.form == "take" else set()
        return {name: tuple(d if (name, i) in keep else d * 64 for i, d in enumerate(shp))
                for name, shp in shapes.items()}


def _par(text: str) -> str:
    return text if text.isidentifier() else f"({text})"

