"""The cube templates: a forward whose result is one matrix product, drafted for the cube unit.

The rules (rules.py) turn torch.matmul / mm / bmm / `@` / F.linear / nn.Linear / addmm and an einsum
that is a product into one node, matmul(a, b), whose operands are GM tensors read as they lie or
`transpose`d (x.t(), x.transpose(-1, -2), x.mT, an einsum's subscripts). What the forward does
around the product decides the template:

  matmul     the product alone: base tiles chosen in the host function, blocks of C over the cube
             cores (core_tiles), K walked in base_k slices GM -> L1 -> L0A / L0B -> mmad -> L0C,
             Fixpipe to GM. Leading axes: when only A has them and A is not transposed they are
             more rows of A (one weight for every row, as nn.Linear on a 3-D input); otherwise a
             batch axis of the block grid (bmm, 4-D attention-style products)
  epilogue   elementwise work on the product (a bias, an activation, a scale, torch.triu / tril
             of the result): the cube writes the product to a GM Workspace, sync_all() hands it
             to the vector cores, which stream it row by row through the elementwise expression;
             a triangular mask is two column ranges per row (the zeros, the kept part), so the
             masked half is never computed on the vector unit
  matvec     f32 A @ x with x one column: on the vector unit (one dot product per row). The cube
             would pad x to a 16-column fractal and do 16 times the work for a kernel that is
             bound by how fast A streams from GM anyway

  rowscale   diag(v) @ B: no product at all, each row of B times one element of v (a scalar per
             row, on the vector unit); B @ diag(v) is `colscale`, each row of B times v

Two products, a computed operand or a reduction after the product make phases of one kernel
(phases.py), each product's phase drafted here; a masked operand is refused in one line naming it.
"""
from __future__ import annotations

import math

from .graph import CUBE, FLOAT_DTYPES, PERMUTE, Graph, Node, Unsupported
from .templates import DTYPE, Namer, fmt_float


def uses_cube(g: Graph) -> bool:
    """The graph holds a matrix product (or a node only the cube templates read: diag, triu, tril;
    a transpose alone is a permute, views.py)."""
    return any(n.kind == CUBE for n in g.nodes())


def _is(n: Node, form: str) -> bool:
    """n is the cube's `form` (product, diagonal, mask) or a transpose (swap) or permute (order): graph.OPS."""
    return n.kind in (CUBE, PERMUTE) and n.info.form == form


class CubeDraft:
    """The DSL text of a cube draft and what the drafter's caller needs to verify it."""

    def __init__(self, text: str, template: str, op: str, shapes: dict, scaled: dict, notes: list[str], live: int):
        self.text, self.template, self.op, self.shapes, self.scaled, self.notes, self.live = \
            text, template, op, shapes, scaled, notes, live


def plan_cube(g: Graph, name: str, live: int, share: int = 1, phase: bool = False) -> CubeDraft:
    """The cube (or matrix-vector) draft of `g` with epilogue tiles of ub_elems(.., live=`live`); `share`:
    how many cube phases of one kernel hold their L0A / L0B tiles at once (phases.py), each taking a share;
    `phase`: the product is one phase of a composed kernel, its result a Workspace later phases read.
    A refusal names the reference line of the construct it refuses when the trace recorded it."""
    try:
        return _plan(g, name, live, share, phase)
    except Unsupported as e:
        text = str(e)
        if text.startswith("internal:") or "reference line" in text:
            raise
        line = next((g.lines[k] for k in _CONSTRUCTS if k in g.lines and k in text), None) or \
            next((v for k, v in g.lines.items() if k in _PRODUCTS), None)
        raise Unsupported(f"{text} (reference line {line})" if line else text) from None


# what a refusal mentions -> the calls whose line it names (else the product's own line)
_CONSTRUCTS = ("triu", "tril", "diag", "transpose", "permute", "einsum", "linear")
_PRODUCTS = ("matmul", "mm", "bmm", "einsum", "linear", "module:Linear", "addmm", "baddbmm", "__matmul__")


def _plan(g: Graph, name: str, live: int, share: int = 1, phase: bool = False) -> CubeDraft:
    nodes = g.nodes()
    mms = [n for n in nodes if _is(n, "product")]
    if not mms:
        for n in nodes:
            if _is(n, "swap"):
                raise Unsupported("a transpose or permute that is not an operand of a matrix product (the drafter's "
                                  "vector layouts copy contiguous rows only)")
            if _is(n, "diagonal"):
                raise Unsupported("torch.diag(v) that does not multiply a matrix (diag(v) @ B is drafted as a row "
                                  "scaling)")
            if _is(n, "mask"):
                raise Unsupported(f"torch.{n.op} that is not applied to a matrix product's result")
        raise Unsupported("internal: no matrix product in a cube graph")
    for n in nodes:
        if _is(n, "order"):
            raise Unsupported(f"permute{tuple(n.attrs['order'])} beside a matrix product (the cube reads operands "
                              "transposed in their last two axes only)")
    if len(mms) > 1:
        raise Unsupported(f"{len(mms)} matrix products in one forward (the cube templates draft one product, with an "
                          "elementwise epilogue)")
    if len(g.outputs) != 1:
        raise Unsupported("a matrix product with several outputs")
    cube = _Cube(g, mms[0], name, live)
    cube.share, cube.phase = share, phase
    return cube.render()


class _Cube:
    def __init__(self, g: Graph, mm: Node, name: str, live: int):
        self.g, self.mm, self.live = g, mm, live
        self.out = g.outputs[0]
        self.namer = Namer()
        self.notes: list[str] = []
        self.scale = None                  # rowscale | colscale: one operand is torch.diag(v)
        self.share = 1                     # cube phases of the kernel sharing L0A / L0B (plan_cube)
        self.phase = False                 # one phase of a composed kernel (plan_cube)
        # the operands as GM tensors: (leaf, transposed)
        self.a, self.at = self._operand(mm.args[0], "left")
        self.b, self.bt = self._operand(mm.args[1], "right")
        self.dtype = mm.dtype
        self.dt = DTYPE[self.dtype]
        *lead, self.m_size, self.n_size = mm.shape
        self.lead = tuple(lead)
        self.k_size = self.a.shape[-1] if self.scale else self.a.shape[-2] if self.at else self.a.shape[-1]
        # the epilogue: the mask (outermost) and the elementwise expression around the product
        top = self.out
        self.mask = None
        if _is(top, "mask"):
            self.mask = (top.op, top.attrs["diagonal"])
            top = top.args[0]
        self.vector_out = top.is_view and top.args[0] is mm and tuple(top.shape) == tuple(mm.shape[:-1])
        if self.vector_out:
            top = mm
        self.expr = top
        self.leaves: list[Node] = []
        if top is not mm:
            self._check_epilogue(top)
        op_name = name if name.isidentifier() else "kernel"
        self.names: dict[int, str] = {}
        # tensor names first (the forward's own), then dims, so a dim never takes a tensor's name
        for leaf in (self.a, self.b, *self.leaves):
            if id(leaf) not in self.names:
                self.names[id(leaf)] = self.namer.fresh(self._leaf_name(leaf))
        self.op = self.namer.fresh(op_name if op_name not in self.namer.used else op_name + "_kernel")
        self.y = self.namer.fresh("y")
        self.p = self.namer.fresh("prod")
        self.M, self.K, self.N = (self.namer.fresh(d) for d in ("M", "K", "N"))
        lead_names = ("B",) if len(self.lead) == 1 else ("B", "H") if len(self.lead) == 2 else \
            tuple(f"D{i}" for i in range(len(self.lead)))
        self.L = [self.namer.fresh(d) for d in lead_names]

    # -- analysis ---------------------------------------------------------------------------------
    def _operand(self, x: Node, side: str) -> tuple[Node, bool]:
        if _is(x, "diagonal") and x.args[0].is_data:
            self.scale = "rowscale" if side == "left" else "colscale"
            return x.args[0], False
        transposed = _is(x, "swap")
        if transposed:
            x = x.args[0]
        if x.is_view and x.args[0].is_data and len(x.args[0].shape) == 1:
            x = x.args[0]            # a vector viewed as one column: its memory is that column
        if _is(x, "mask"):
            raise Unsupported(f"a {x.op}-masked {side} operand (torch.{x.op}(A) @ B): the drafter masks a product's "
                              "result, not its operands; mask the result, or pass the operand masked")
        if not x.is_data:
            raise Unsupported(f"the {side} operand of the matrix product is computed in forward (`{x.op}`): the cube "
                              "templates read both operands from GM (compute it in a kernel of its own)")
        return x, transposed

    def _check_epilogue(self, top: Node):
        seen: set[int] = set()

        def walk(n):
            if not isinstance(n, Node) or id(n) in seen:
                return
            seen.add(id(n))
            if n is self.mm:
                return
            if _is(n, "mask"):
                raise Unsupported(f"torch.{n.op} inside the elementwise work on the product (the drafter applies a "
                                  "triangular mask as the last step only)")
            if n.is_data:
                self._leaf_kind(n)
                self.leaves.append(n)
                return
            if n.is_number_input:
                raise Unsupported(f"the number `{n.attrs.get('pyname', n.name)}` in the work on the product (the cube "
                                  "templates take constants there)")
            if n.is_const or n.is_dim:
                return
            if n.is_view and n.args[0].is_data:
                self._leaf_kind(n.args[0], n.shape)
                self.leaves.append(n.args[0])
                seen.add(id(n.args[0]))
                return
            if not n.is_elementwise:
                raise Unsupported(f"`{n.op}` on the result of a matrix product (the cube templates take an elementwise "
                                  "epilogue: a bias, an activation, a scale, a final triu/tril)")
            for a in n.args:
                walk(a)
        walk(top)
        if id(self.mm) not in seen:
            raise Unsupported("internal: the matrix product does not reach the output")
        if self.dtype == "bfloat16":
            raise Unsupported("elementwise work on a bf16 product (the vector unit computes bf16 only through casts)")

    def _leaf_kind(self, n: Node, shape=None) -> str:
        """How an epilogue tensor meets the product's (..., M, N): full, matrix (one (M, N) for every
        batch), col (one value per column: a bias) or row (one value per row, shaped (..., M, 1))."""
        shape, out = tuple(n.shape), tuple(self.mm.shape)
        if shape == out:
            return "full"
        if len(shape) == 2 and shape == out[-2:] and len(out) > 2:
            return "matrix"
        if shape[-1] == out[-1] and math.prod(shape) == out[-1]:
            return "col"
        if len(shape) >= 2 and shape[-1] == 1 and shape[-2] == out[-2] and math.prod(shape) == out[-2]:
            return "row"
        raise Unsupported(f"a tensor of shape {shape} beside the product's {out} (the epilogue takes tensors of the "
                          "product's shape, one value per column (a bias) or one per row)")

    def _leaf_name(self, n: Node) -> str:
        if n.is_input:
            i = n.attrs["index"]
            return self.g.input_names[i] if i < len(self.g.input_names) else f"x{i}"
        return n.attrs["name"].replace(".", "_")

    # -- text helpers ------------------------------------------------------------------------------
    def _lead_group(self) -> str | None:
        if not self.lead:
            return None
        return self.L[0] if len(self.L) == 1 else "(" + ", ".join(self.L) + ")"

    def _view(self, leaf: Node) -> str:
        """The DSL view of an operand: its own leading axes as one, then its last two (or one)."""
        if leaf is self.a:
            rows, cols = (self.K, self.M) if self.at else (self.M, self.K)
            lead = len(leaf.shape) - 2
        elif leaf is self.b:
            if len(leaf.shape) == 1:
                return f"({self.K},)"
            if self.matvec:            # one column: a literal 1, so the column is known contiguous
                return f"({self.K}, 1)"
            rows, cols = (self.N, self.K) if self.bt else (self.K, self.N)
            lead = len(leaf.shape) - 2
        else:
            return self._epilogue_view(leaf)
        if lead == 0:
            return f"({rows}, {cols})"
        if self.flat and leaf is self.a:
            return f"(({', '.join(self.L)}, {rows}), {cols})"
        return f"({self._lead_group()}, {rows}, {cols})"

    @property
    def flat(self) -> bool:
        """A's leading axes are more rows of A: only A has them and A lies as (..., M, K)."""
        return bool(self.lead) and len(self.b.shape) <= 2 and not self.at and len(self.a.shape) > 2

    @property
    def matvec(self) -> bool:
        """f32 A @ x, x one shared column: the vector unit's dot products (see the module doc)."""
        return self.n_size == 1 and not self.at and self.dtype == "float32" and self.expr is self.mm \
            and self.mask is None and len(self.b.shape) <= 2

    def _out_view(self) -> str:
        tail = f"{self.M}" if self.vector_out else f"{self.M}, {self.N}"
        if not self.lead:
            return f"({tail})"
        if self.flat or self.expr is not self.mm or self.mask:
            return f"(({', '.join(self.L)}, {self.M}), {self.N})" if not self.vector_out else \
                f"(({', '.join(self.L)}, {self.M}),)"
        return f"({self._lead_group()}, {tail})"

    def _epilogue_view(self, leaf: Node) -> str:
        kind = self._leaf_kind(leaf)
        if kind == "full":
            return self._out_view()
        if kind == "matrix":
            return f"({self.M}, {self.N})"
        if kind == "col":
            ones = ["1"] * (len(leaf.shape) - 1)
            return "(" + ", ".join(ones + [self.N]) + ("," if len(leaf.shape) == 1 else "") + ")"
        return "(" + ", ".join(["1"] * (len(leaf.shape) - 2) + [self.M] + (["1"] if len(leaf.shape) >= 2 else [])) + \
            ("," if len(leaf.shape) == 1 else "") + ")"

    def _rows_total(self) -> str:
        return " * ".join(self.L + [self.M]) if self.lead else self.M

    # -- rendering ---------------------------------------------------------------------------------
    def render(self) -> CubeDraft:
        if self.scale:
            return self._render_scale()
        if self.matvec:
            return self._render_matvec()
        return self._render_cube()

    def _host_params(self, tensors) -> str:
        return ", ".join(f"{self.names[id(t)]}: Tensor[{DTYPE[t.dtype]}, {self._view(t)}]" for t in tensors)

    def _kparams(self, tensors) -> list[str]:
        out = []
        for t in tensors:
            if t.is_param:
                out.append(f"{self.names[id(t)]}: Param[{DTYPE[t.dtype]}, {self._view(t)}, \"{t.attrs['name']}\"]")
            else:
                out.append(f"{self.names[id(t)]}: GM[{DTYPE[t.dtype]}, {self._view(t)}]")
        return out

    def _tensors(self) -> list[Node]:
        """The kernel's GM inputs: get_inputs() tensors in order, then Model parameters."""
        leaves = []
        for t in (self.a, self.b, *self.leaves):
            if all(t is not u for u in leaves):
                leaves.append(t)
        inputs = sorted((t for t in leaves if t.is_input), key=lambda t: t.attrs["index"])
        used = {t.attrs["index"] for t in inputs}
        for i, d in enumerate(self.g.inputs):
            if d.get("kind") == "tensor" and i not in used:
                raise Unsupported(f"input `{self.g.input_names[i] if i < len(self.g.input_names) else i}` that the "
                                  "product does not use")
        return inputs + [t for t in leaves if t.is_param]

    def _shapes(self, tensors, scale: int) -> dict:
        out = {}
        for t in tensors:
            shp = tuple(t.shape)
            out[self.names[id(t)]] = tuple(d * scale if d != 1 else 1 for d in shp) if scale > 1 else shp
        return out

    def _render_matvec(self) -> CubeDraft:
        tensors = self._tensors()
        a, x = self.names[id(self.a)], self.names[id(self.b)]
        rows = self._rows_total()
        x_ix = f"{x}[c]" if len(self.b.shape) == 1 else f"{x}[c, 0]"
        rows_axis = f"(({', '.join(self.L)}, {self.M}){',' if self.vector_out else ''}" if self.lead else f"({self.M}"
        y_view = rows_axis + (")" if self.vector_out else ", 1)")
        if not self.lead and self.vector_out:
            y_view = f"({self.M},)"
        y_ix = f"{self.y}[r]" if self.vector_out else f"{self.y}[r, 0]"
        a_ix = f"{a}[r, c]"
        self.notes.append("a matrix times a vector: drafted on the vector unit, one dot product per row (the cube "
                          "would pad the vector to a 16-column fractal and do 16 times the work)")
        text = f'''"""{self.op}: a matrix times a vector on the vector unit (drafted).

With one column the cube would pad the vector to a 16-column fractal for nothing: every element of
the matrix is used once, so the kernel is as fast as the matrix streams from GM. Each core takes
whole rows; a row is walked in UB-sized tiles, each multiplied by the same tile of the vector and
summed into a scalar carry.
"""


@host
def tiling({self._host_params(tensors)}):
    cores, rows = core_split({rows})
    return Launch(cores, rows=rows, tile=min(ub_elems(f32, live={self.live}), {self.K}))


@kernel
def {self.op}({", ".join(self._kparams(tensors) + [f"{self.y}: Out[f32, {y_view}]", "t: Tiling"])}):
    for r in core_rows(t.rows, {rows}):
        s = 0.0
        for c in tiles({self.K}, t.tile):
            with copyin:
                au = load({a_ix})
                xu = load({x_ix})
            with compute:
                s = s + reduce_sum(au * xu)
        with copyout:
            store({y_ix}, s)
'''
        return CubeDraft(text, "matvec", self.op, self._shapes(tensors, 1), self._shapes(tensors, 8), self.notes,
                         self.live)

    def _render_scale(self) -> CubeDraft:
        """diag(v) @ B (each row r of B times v[r]) or B @ diag(v) (each row of B times v)."""
        if self.expr is not self.mm or self.mask is not None:
            raise Unsupported("elementwise work after a product with torch.diag(v) (the drafter takes the scaling "
                              "alone)")
        row = self.scale == "rowscale"
        v, m = (self.a, self.b) if row else (self.b, self.a)
        vn, mn = self.names[id(v)], self.names[id(m)]
        tensors = self._tensors()
        views = {id(v): f"({self.M},)" if row else f"({self.N},)", id(m): f"({self.M}, {self.N})"}

        def params(kind_out: bool) -> list[str]:
            out = []
            for t in tensors:
                view = views[id(t)]
                if t.is_param:
                    out.append(f"{self.names[id(t)]}: Param[{DTYPE[t.dtype]}, {view}, \"{t.attrs['name']}\"]")
                elif kind_out:
                    out.append(f"{self.names[id(t)]}: GM[{DTYPE[t.dtype]}, {view}]")
                else:
                    out.append(f"{self.names[id(t)]}: Tensor[{DTYPE[t.dtype]}, {view}]")
            return out
        what = ("diag(v) @ B scales row r of B by v[r]: one scalar per row, no matrix product (the diagonal matrix "
                "is never built)") if row else "B @ diag(v) scales column j of B by v[j]: v is a tile beside each row's"
        self.notes.append(f"{what}; drafted on the vector unit")
        loads = f"                mu = load({mn}[r, c])\n"
        if row:
            pre = f"        with copyin:\n            s = load({vn}[r])\n"
            compute = "yu = mu * s"
        else:
            pre = ""
            loads += f"                vu = load({vn}[c])\n"
            compute = "yu = mu * vu"
        text = f'''"""{self.op}: {what} (drafted).

Each core takes whole rows of the matrix and streams them through UB in tiles.
"""


@host
def tiling({", ".join(params(False))}):
    cores, rows = core_split({self.M})
    return Launch(cores, rows=rows, tile=min(ub_elems({self.dt}, live={self.live}), {self.N}))


@kernel
def {self.op}({", ".join(params(True) + [f"{self.y}: Out[{self.dt}, ({self.M}, {self.N})]", "t: Tiling"])}):
    for r in core_rows(t.rows, {self.M}):
{pre}        for c in tiles({self.N}, t.tile):
            with copyin:
{loads}            with compute:
                {compute}
            with copyout:
                store({self.y}[r, c], yu)
'''
        return CubeDraft(text, self.scale, self.op, self._shapes(tensors, 1), self._shapes(tensors, 8), self.notes,
                         self.live)

    def _render_cube(self) -> CubeDraft:
        tensors = self._tensors()
        epilogue = self.expr is not self.mm or self.mask is not None
        flat = self.flat
        grid_rows = " * ".join(self.L + [self.M]) if flat else self.M
        batched = bool(self.lead) and not flat
        G = " * ".join(self.L)
        blocks = f"{G} * cdiv({grid_rows}, base_m) * cdiv({self.N}, base_n)" if batched else \
            f"cdiv({grid_rows}, base_m) * cdiv({self.N}, base_n)"
        head = '"""' + "\n".join(self._cube_doc(flat, batched, epilogue)) + '\n"""\n'
        split_k = self._split_k(batched) and not epilogue
        host = self._cube_host(tensors, grid_rows, blocks, epilogue, split_k)
        kparams = self._kparams(tensors)
        out_view = self._out_view()
        if not epilogue and batched:
            out_view = f"({self._lead_group()}, {self.M}, {self.N})"
        kparams.append(f"{self.y}: Out[{self.dt}, {out_view}]")
        if epilogue:
            p_view = f"({G}, {self.M}, {self.N})" if batched else f"({grid_rows}, {self.N})"
            kparams.append(f"{self.p}: Workspace[{self.dt}, {p_view}]")
        kparams.append("t: Tiling")
        body = self._cube_loop(grid_rows, batched, self.p if epilogue else self.y, split_k)
        if epilogue:
            body += "    sync_all()\n" + self._epilogue(batched)
        text = head + "\n\n" + host + "\n\n@kernel\ndef " + self.op + "(\n" + \
            "".join(f"    {p},\n" for p in kparams) + "):\n" + body
        scaled = self._shapes(tensors, 4)
        return CubeDraft(text, "epilogue" if epilogue else "matmul", self.op, self._shapes(tensors, 1), scaled,
                         self.notes, self.live)

    def _cube_doc(self, flat: bool, batched: bool, epilogue: bool) -> list[str]:
        """The cube draft's docstring lines: the data path, the operands' layouts, the epilogue and mask."""
        a, b = self.names[id(self.a)], self.names[id(self.b)]
        layout = []
        if self.at:
            layout.append(f"`{a}` is A^T as it lies ([K, M]): L1 holds it as it comes and the split transposes it")
        if self.bt:
            layout.append(f"`{b}` is B^T as it lies ([N, K], an nn.Linear weight's layout): no transpose on its way "
                          "to L0B, which keeps each fractal transposed")
        if flat:
            layout.append(f"the leading axes of `{a}` are more rows of A (one `{b}` for all of them)")
        elif batched:
            layout.append("the leading axes are a batch axis of the block grid: the cores share all blocks of all "
                          "batches")
        doc = [f"{self.op}: a matrix product on the cube unit (drafted).", "",
               "GM -> L1 (Nd2Nz) -> L0A / L0B -> mmad into the L0C accumulator over K slices -> Fixpipe to GM;",
               "the blocks of the result go round-robin over the cube cores and short last blocks are padded",
               "to whole fractals by the lowering."]
        doc += [f"- {x}." for x in layout]
        if epilogue:
            doc += ["- The elementwise work on the product runs on the vector cores: the cube writes the product to",
                    f"  the Workspace `{self.p}`, sync_all() hands it over, each vector core streams its rows."]
        if self.mask:
            doc += [f"- torch.{self.mask[0]}(..., diagonal={self.mask[1]}): each row is two column ranges, the zeros "
                    "and the",
                    "  kept part, so the masked half needs no compute."]
        return doc

    def _split_k(self, batched: bool) -> bool:
        """Split K over the cube cores (partial sums added atomically into the zeroed result) where the
        result is f32: an f16 / bf16 result would round every partial sum (and bf16 has no atomic add). Not
        into an epilogue's Workspace, nor a phase's: on the emulator the vector cores read it before the
        atomic adds land (a cross-core hand-over is not a SyncAll), so the product came out wrong."""
        return not batched and self.dt == "f32" and not self.phase

    def _cube_host(self, tensors, grid_rows: str, blocks: str, epilogue: bool, split_k: bool = False) -> str:
        """The host function: base tiles, the cube cores, and the vector cores' rows of an epilogue."""
        launch = ["base_m=base_m", "base_n=base_n", "base_k=base_k"]
        host_extra = ""
        if epilogue:
            rows_total = " * ".join(self.L + [self.M]) if self.lead else self.M
            host_extra = f"    rows = cdiv({rows_total}, cores)\n"
            launch += ["rows=rows", f"tile=min(ub_elems({self.dt}, live={self.live}), {self.N})"]
        # base tiles (issue 35): as many blocks as cube cores where the product allows, and K filling L0A / L0B
        nbytes = {"f32": 4, "f16": 2, "bf16": 2, "i8": 1}.get(self.dt, 4)
        share = f"its share of {self.share} cube phases' " if self.share > 1 else ""
        l0 = 32768 // self.share
        if split_k:
            launch.insert(0, "kc=kc")
            return f'''@host
def tiling({self._host_params(tensors)}):
    # f32 fractals are 16 x 8; K steps in 16s (an f32 B or A^T reaches L0 in 16 x 16 squares). Blocks of at most
    # 128 x 128 (the f32 accumulator: half of L0C). Where they are fewer than the cube cores, either K is split
    # into `parts` chunks of kc (split-K: each block adds its partial sum to the zeroed result with an atomic
    # Fixpipe) or the blocks are halved once along M and once along N, whichever moves fewer bytes per core
    # (a core's blocks x (A and B bytes in + result bytes out); smaller blocks read A and B again, more chunks
    # add the result more often)
    base_m = min(128, align_up({grid_rows}, 16))
    base_n = min(128, align_up({self.N}, 16))
    grid = {blocks}
    more = CUBE_CORES // grid
    half_m = align_up(base_m // min(2, max(more, 1)), 16)
    half_n = align_up(base_n // min(2, max(more // 2, 1)), 16)
    parts = max(1, min(more, cdiv({self.K}, 32)))
    kc = align_up(cdiv({self.K}, parts), 16)
    by_split = cdiv(grid * cdiv({self.K}, kc), CUBE_CORES) * ((base_m + base_n) * kc + base_m * base_n)
    halves = cdiv({grid_rows}, half_m) * cdiv({self.N}, half_n)
    by_half = cdiv(halves, CUBE_CORES) * ((half_m + half_n) * {self.K} + half_m * half_n)
    use = min(1, max(0, by_half - by_split))     # 1: split K, 0: halve the blocks (K in one chunk)
    base_m = use * base_m + (1 - use) * half_m
    base_n = use * base_n + (1 - use) * half_n
    kc = use * kc + (1 - use) * align_up({self.K}, 16)
    # base_k fills {share}L0A and L0B: two (double-buffered) base_m x base_k and base_k x base_n f32 tiles in
    # {64 // self.share} KiB each
    base_k = min(max(align_down({l0} // ({nbytes} * max(base_m, base_n)), 16), 16), kc)
    cores = min(CUBE_CORES, cdiv({grid_rows}, base_m) * cdiv({self.N}, base_n) * cdiv({self.K}, kc))
{host_extra}    return Launch(cores, {", ".join(launch)})
'''
        return f'''@host
def tiling({self._host_params(tensors)}):
    # f32 fractals are 16 x 8 and f16 / bf16 16 x 16; K steps in 16s (an f32 B or A^T reaches L0 in 16 x 16
    # squares). Blocks of at most 128 x 128 (the f32 accumulator: half of L0C), halved once along M and once
    # along N while the blocks are too few to give every cube core one (a small matrix: one block in fractals)
    base_m = min(128, align_up({grid_rows}, 16))
    base_n = min(128, align_up({self.N}, 16))
    more = CUBE_CORES // ({blocks})
    base_m = align_up(base_m // min(2, max(more, 1)), 16)
    base_n = align_up(base_n // min(2, max(more // 2, 1)), 16)
    # base_k fills {share}L0A and L0B: two (double-buffered) base_m x base_k and base_k x base_n tiles of
    # {nbytes}-byte {self.dt} in {64 // self.share} KiB each (f16 / bf16 get twice the K of f32)
    base_k = min(max(align_down({l0} // ({nbytes} * max(base_m, base_n)), 16), 16), align_up({self.K}, 16))
    cores = min(CUBE_CORES, {blocks})
{host_extra}    return Launch(cores, {", ".join(launch)})
'''

    def _cube_loop(self, grid_rows: str, batched: bool, store_to: str, split_k: bool = False) -> str:
        """The cube's block loop: K slices through L1 and L0 into the L0C accumulator, stored to `store_to`."""
        a, b = self.names[id(self.a)], self.names[id(self.b)]
        G = " * ".join(self.L)
        gi = "gi.start, " if batched else ""
        a_ix = (gi if len(self.a.shape) > 2 else "") + ("ki, mi" if self.at else "mi, ki")
        b_ix = (gi if len(self.b.shape) > 2 else "") + ("ni, ki" if self.bt else "ki, ni")
        loop_vars = "gi, mi, ni" if batched else "mi, ni"
        extents = f"({G}, {grid_rows}, {self.N})" if batched else f"({grid_rows}, {self.N})"
        steps = "(1, t.base_m, t.base_n)" if batched else "(t.base_m, t.base_n)"
        a_split = "load(a1, L0A, transpose=True)" if self.at else "load(a1, L0A)"
        b_split = "load(b1, L0B, transpose=True)" if self.bt else "load(b1, L0B)"
        k_iter, store_extra = self.K, ""
        if split_k:
            loop_vars, extents, steps = "kr, mi, ni", f"({self.K}, {grid_rows}, {self.N})", "(t.kc, t.base_m, t.base_n)"
            k_iter, store_extra = "kr", ", accumulate=True"
        return f'''    for {loop_vars} in core_tiles({extents}, {steps}):
        acc = zeros(mi.len, ni.len, L0C)
        for ki in tiles({k_iter}, t.base_k):
            with copyin:
                a1 = load({a}[{a_ix}], L1)
                b1 = load({b}[{b_ix}], L1)
            with split:
                a0 = {a_split}
                b0 = {b_split}
            with compute:
                acc = mmad(a0, b0, acc)
        with copyout:
            store({store_to}[{gi}mi, ni], acc{store_extra})
'''

    # -- the vector part -----------------------------------------------------------------------------
    def _epilogue(self, batched: bool) -> str:
        rows_total = " * ".join(self.L + [self.M]) if self.lead else self.M
        row = [f"r // {self.M}", f"r % {self.M}"] if batched else ["r"]
        i_expr = f"r % {self.M}" if self.lead else "r"

        def ix(tensor_kind: str, cols: str) -> str:
            """The index of row r, columns `cols`: the workspace of a batched grid is (G, M, N),
            the output and full-shaped tensors are viewed as rows ((..., M), N)."""
            if tensor_kind == "prod":
                return ", ".join(row + [cols])
            if tensor_kind in ("full", "out"):
                return f"r, {cols}"
            if tensor_kind == "matrix":
                return f"{i_expr}, {cols}"
            return cols

        loads: list[tuple[str, str]] = []           # (tile name, gm ref template with {c})
        names: dict[int, str] = {}
        for leaf in self.leaves:
            if id(leaf) in names:
                continue
            kind = self._leaf_kind(leaf)
            nm = self.namer.fresh(self.names[id(leaf)] + "u")
            names[id(leaf)] = nm
            if kind == "col":
                ref = self.names[id(leaf)] + "[" + ", ".join(["0"] * (len(leaf.shape) - 1) + ["{c}"]) + "]"
            elif kind == "row":
                ref = self.names[id(leaf)] + "[" + ", ".join(["0"] * (len(leaf.shape) - 2) + [i_expr] +
                                                             (["0"] if len(leaf.shape) >= 2 else [])) + "]"
                loads.append((nm, ref))
                continue
            else:
                ref = self.names[id(leaf)] + "[" + ix(kind, "{c}") + "]"
            loads.append((nm, ref))
        pu = self.namer.fresh("pu")
        expr = self._expr_text(self.expr, names, pu)
        if expr.startswith("(") and expr.endswith(")") and _balanced(expr[1:-1]):
            expr = expr[1:-1]
        yu = self.namer.fresh("yu")

        def sweep(cols_iter: str, cref: str, keep: bool) -> str:
            lines = [f"        for c in {cols_iter}:", "            with copyin:",
                     f"                {pu} = load({self.p}[{ix('prod', cref)}])"]
            if keep:
                lines += [f"                {nm} = load({ref.format(c=cref)})" for nm, ref in loads]
            lines += ["            with compute:",
                      f"                {yu} = {expr if keep else pu + ' * 0.0'}",
                      "            with copyout:",
                      f"                store({self.y}[{ix('out', cref)}], {yu})"]
            return "\n".join(lines) + "\n"
        out = f"    for r in core_rows(t.rows, {rows_total}):\n"
        if self.mask is None:
            return out + sweep(f"tiles({self.N}, t.tile)", "c", True)
        kind, d = self.mask
        shift = f" + {d}" if d > 0 else f" - {-d}" if d < 0 else ""
        if kind == "triu":      # keep columns j >= i + d
            out += f"        z = min(max({i_expr}{shift}, 0), {self.N})\n"
            zero, keep_ext = "z", f"{self.N} - z"
        else:                   # tril: keep columns j <= i + d
            shift1 = f" + {d + 1}" if d + 1 > 0 else f" - {-(d + 1)}" if d + 1 < 0 else ""
            out += f"        z = min(max({i_expr}{shift1}, 0), {self.N})\n"
            zero, keep_ext = f"{self.N} - z", "z"
        off = "z + c.start : z + c.start + c.len"
        if kind == "triu":
            out += sweep(f"tiles({zero}, t.tile)", "c", False)
            out += sweep(f"tiles({keep_ext}, t.tile)", off, True)
        else:
            out += sweep(f"tiles({keep_ext}, t.tile)", "c", True)
            out += sweep(f"tiles({zero}, t.tile)", off, False)
        return out

    def _expr_text(self, n: Node, names: dict, pu: str) -> str:
        if n is self.mm:
            return pu
        if n.is_data:
            return names[id(n)]
        if n.is_view:
            return self._expr_text(n.args[0], names, pu)
        if n.is_const:
            v = n.value
            if isinstance(v, bool):
                raise Unsupported("a boolean constant in the work on the product")
            return fmt_float(v) if (isinstance(v, float) or self.dtype in FLOAT_DTYPES) else str(v)
        if n.is_dim:
            return fmt_float(n.value)
        args = [self._expr_text(a, names, pu) for a in n.args]
        if n.info.infix:
            return f"({args[0]} {n.info.infix} {args[1]})"
        if n.info.prefix:
            return f"({n.info.prefix}{args[0]})"
        if n.is_cast:
            raise Unsupported("a dtype cast in the work on the product")
        return f"{n.op}({', '.join(args)})"


def _balanced(text: str) -> bool:
    """No parenthesis of `text` closes one it did not open (so outer ones around it can go)."""
    depth = 0
    for ch in text:
        depth += ch == "("
        depth -= ch == ")"
        if depth < 0:
            return False
    return depth == 0
