"""The cube lowering: the DSL's L1 / L0 tiles, split stages and mmad as AscendC basic-API code.

The kernel has the shape of the public matmul samples: queues at A1 / B1 (L1), A2 / B2 (L0A /
L0B) and CO1 (L0C); CopyIn moves GM rows into L1 as Nz fractals (DataCopy with Nd2NzParams),
Split moves L1 fractals into L0A (ZZ) and L0B (ZN) with LoadData, Compute runs Mmad into the
L0C accumulator, CopyOut sends L0C to GM through Fixpipe (NZ -> ND, f32 -> f16 / bf16 on the
way). EnQue / DeQue between the methods order the pipes (MTE2 -> MTE1 -> M -> FIX), and two
buffers per input queue let the copy of K slice i+1 overlap the Mmad of slice i.

Where each tile's fractals lie and which LoadData moves them is `dsl/cube.py`'s `Operand`; this
module only writes the code. The cube category's operations (mmad, zeros) are lowered by
`CUBE_RULES`, its counterpart of vector.py's `LOWER_RULES`. Counts of fractals and rows in fractals are holes
(`FractalCount`, `FractalSpan`): compute writes them for whole fractals (`mLen / BLOCK_CUBE`),
align rewrites them for tails (`CeilDiv`, `AlignUp`), as it rewrites the vector copies.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..dsl import cube, ir, tiles
from ..dsl.ops import OPS
from ..dsl.printer import expr_text
from .cexpr import KERNEL, paren, render
from .emit import Emitter
from .kernel import Hole, KernelFacts, KernelSource, dsl_text
from .plan import cpp_name
from .spec import LoweringError

# Constants the cube code names (their C++ spellings; BLOCK_CUBE and ONE_BLK_SIZE are AscendC's).
ROWS = "BLOCK_CUBE"            # 16: rows of a fractal, and columns of an L0C fractal


@dataclass(frozen=True)
class FractalCount(Hole):
    """Fractals along `extent` elements in units of `unit`: compute assumes whole fractals
    (`extent / unit`), align counts a partial last one (`CeilDiv`)."""
    extent: str
    unit: str


@dataclass(frozen=True)
class FractalSpan(Hole):
    """`extent` in whole fractals of `unit` rows or columns (an Nz column's rows, Fixpipe's
    srcStride): compute takes the extent as it is, align rounds it up (`AlignUp`)."""
    extent: str
    unit: str


def plain_count(h: FractalCount, source: KernelSource) -> str:
    return f"{paren(h.extent)} / {h.unit}"


def plain_span(h: FractalSpan, source: KernelSource) -> str:
    return h.extent


def tail_count(h: FractalCount, source: KernelSource) -> str:
    source.uses.add("CeilDiv")
    return f"CeilDiv({h.extent}, {h.unit})"


def tail_span(h: FractalSpan, source: KernelSource) -> str:
    source.uses.add("AlignUp")
    return f"AlignUp({h.extent}, {h.unit})"


def uses_cube(facts: KernelFacts) -> bool:
    return facts.ub.uses_cube


def input_dtype(facts: KernelFacts) -> ir.DType:
    """The one dtype the kernel's cube multiplies (mmad takes two matrices of one dtype)."""
    dtypes = {op.dtype for op in facts.ub.operands}
    if len(dtypes) != 1:
        raise LoweringError("the rule engine lowers one cube input dtype per kernel, "
                            f"not {sorted(d.value for d in dtypes)}")
    return dtypes.pop()


def constants(source: KernelSource, facts: KernelFacts) -> None:
    """The fractal sizes of the kernel's input dtype, named once (init writes them)."""
    dt = input_dtype(facts)
    em = source.part("constants", "buffers")
    em.line(f"constexpr int64_t C0 = {cube.c0(dt)};  // elements of a fractal row: 32 bytes of {dt.cpp}")
    em.line(f"constexpr int64_t FRACTAL = {cube.FRACTAL_ROWS * cube.c0(dt)};  // elements of a 512-byte fractal "
            f"(BLOCK_CUBE rows of C0)")


def buffer_bytes(facts: KernelFacts, b) -> str:
    """InitBuffer bytes of a cube buffer: the plan's padded capacity (whole fractals), as C++."""
    dt = input_dtype(facts)
    caps = [c for c in b.capacities if c is not None]
    if not caps:
        raise LoweringError(f"tile `{b.name}` has no size known before the loop; size cube tiles by tiling fields")
    units = {cube.FRACTAL_ROWS: ROWS, cube.c0(dt): "C0"}

    def hook(e: ir.Call):
        if e.op == "align_up" and isinstance(e.args[1], ir.Const) and int(e.args[1].value) in units:
            facts.uses.add("AlignUp")
            return f"AlignUp({facts.scalar_text(e.args[0])}, {units[int(e.args[1].value)]})"
        return facts._size_call(e)
    texts = list(dict.fromkeys(render(c, facts.names, KERNEL, hook=hook) for c in caps))
    cap = texts[0]
    for t in texts[1:]:
        facts.use_min_max("max")
        cap = f"MaxOf({cap}, {t})"
    return f"{cap} * sizeof({b.dtype.cpp})"


LAYOUT_NOTE = {
    "A1": "L1 holds {name} as Nz fractals (16 rows of 32 bytes, the fractals of a column one below the other)",
    "B1": "L1 holds {name} as Nz fractals (16 rows of 32 bytes, the fractals of a column one below the other)",
    "A2": "L0A holds {name} as ZZ fractals (row by row), what Mmad reads as its left matrix",
    "B2": "L0B holds {name} as ZN fractals (each transposed), what Mmad reads as its right matrix",
    "CO1": "L0C holds {name} as NZ fractals of 16 x 16 {dtype}",
}


class CubeStages:
    """Writes the cube's stage methods and its Process pieces for one ComputeWriter."""

    def __init__(self, writer):
        self.w = writer
        self.facts: KernelFacts = writer.facts
        self.source: KernelSource = writer.source
        self.p: ir.Program = writer.p
        self.plan = self.facts.ub
        self.dtype = input_dtype(self.facts)
        self.accs = {b.name: b for b in self.plan.buffers if b.level is ir.Level.L0C}
        # L0C tiles started by zeros() (accumulated over K) rather than by a fresh mmad
        self.accumulated = {s.target for s, _ in ir.walk_stmts(self.p.kernel.body) if starts_accumulator(s)}
        self._counts: dict[str, str] = {}

    # -- which stages are the cube's -----------------------------------------------------
    def is_cube_stage(self, stage: ir.Stage) -> bool:
        for s in stage.body:
            if isinstance(s, ir.Load) and cube.is_cube_level(s.level):
                return True
            if isinstance(s, ir.Store) and isinstance(s.value.type, ir.TileType) and s.value.type.level is ir.Level.L0C:
                return True
            if (isinstance(s, ir.Assign) and isinstance(s.value.type, ir.TileType)
                    and cube.is_cube_level(s.value.type.level)):
                return True
        return False

    # -- names ------------------------------------------------------------------------------
    def text(self, e: ir.Expr) -> str:
        return self.facts.scalar_text(e)

    def unit_text(self, unit: int) -> str:
        return ROWS if unit == cube.FRACTAL_ROWS else "C0" if unit == cube.c0(self.dtype) else str(unit)

    def count(self, extent: ir.Expr, unit: int, what: str, stem: str = "Blocks") -> str:
        """A fractal count, named once per method (`mBlocks`; `kBands` for 16-row bands): `what`
        is the dim (m, n, k)."""
        key = (self.text(extent), self.unit_text(unit))
        if key not in self._counts:
            name = f"{what}{stem}"
            while name in self._counts.values() or name in self.facts.reserved:
                name += "_"
            self._counts[key] = name
            what_text = "16-row bands of K" if stem == "Bands" else f"fractals along {what}"
            self.w.method_locals.append((name, self.source.hole(FractalCount(*key)), what_text))
        return self._counts[key]

    def span(self, extent: ir.Expr, unit: int = cube.FRACTAL_ROWS) -> str:
        return self.source.hole(FractalSpan(self.text(extent), self.unit_text(unit)))

    def start_method(self) -> None:
        self._counts = {}

    # -- GM views ---------------------------------------------------------------------------
    def view(self, ref: ir.GmRef) -> tuple[str, str, ir.TensorParam]:
        """(element offset of the view's first element, GM row stride, tensor) of a 2-D view:
        its columns are the view's last axis, its rows an earlier one."""
        t = self.p.param(ref.tensor)
        shape = t.shape
        terms, kept = [], []
        for axis, ix in enumerate(ref.index or ()):
            stride = " * ".join(paren(self.text(d)) for d in shape[axis + 1:]) or None
            if isinstance(ix, ir.IndexExpr) and isinstance(ix.expr.type, ir.RangeType):
                base = self.facts.names(ir.Attr(ix.expr, "start"))
                kept.append(axis)
            elif isinstance(ix, ir.IndexExpr):
                base = self.text(ix.expr)
            elif isinstance(ix, ir.IndexSlice):
                base = self.text(ix.lo) if ix.lo is not None else "0"
                kept.append(axis)
            else:
                raise LoweringError(f"`{ref.tensor}`: windows() views do not reach the cube", ref)
            if base != "0":
                terms.append(base if stride is None else f"{paren(base)} * {stride}")
        if len(kept) != 2 or kept[1] != len(shape) - 1:
            raise LoweringError(f"`{ref.tensor}`'s cube view keeps axes {kept} of {len(shape)}: the rule engine copies "
                                "matrices whose columns are the tensor's last axis (view other axes as one with a "
                                "nested tuple in the declaration)", ref)
        row_stride = " * ".join(paren(self.text(d)) for d in shape[kept[0] + 1:])
        return " + ".join(terms) or "0", row_stride, t

    # -- copyin: GM -> L1 ------------------------------------------------------------------
    def copy_in(self, em: Emitter, st: ir.Load) -> None:
        op = self.plan.operand(st.target)
        off, stride, t = self.view(st.src)
        ty = self.p.local_type(st.target)
        rows, cols = ty.shape
        name, q, cpp = cpp_name(st.target), f"{st.target}Queue", ty.dtype.cpp
        self.source.uses.add("CopyNd2Nz")
        em.line(f"LocalTensor<{cpp}> {name} = {q}.AllocTensor<{cpp}>();")
        if op.banded:
            em.line(f"// f32 reaches {op.level.value} transposed in 16 x 16 squares of two side-by-side 16 x 8 fractals"
                    f" (LoadDataWithTranspose):")
            em.line("// L1 keeps it in bands of 16 rows, the fractals of a band side by side (Nz of 16 rows each)")
            band = f"{st.target}Cols"
            em.line(f"const int64_t {band} = {self.span(cols)};  // a band's columns, whole squares")
            self.facts.use_min_max("min")
            r = self.text(rows)
            self.source.uses.add("CopyNd2NzBands")
            em.line(f"CopyNd2NzBands({name}, {t.name}Gm[{off}], {r}, {self.text(cols)}, {stride}, {band});")
        else:
            unit = op.l1_units[0]
            em.line(f"CopyNd2Nz({name}, {t.name}Gm[{off}], {self.text(rows)}, {self.text(cols)}, {stride}, "
                    f"{self.span(rows, unit)});")
        em.line(f"{q}.EnQue({name});")

    # -- split: L1 -> L0A / L0B --------------------------------------------------------------
    def split(self, em: Emitter, st: ir.Load) -> None:
        op = self.plan.operand(st.src.tensor)
        l1t = self.p.local_type(op.l1)
        cpp = l1t.dtype.cpp
        src, dst = cpp_name(op.l1), cpp_name(op.l0)
        if op.dtype is ir.DType.i8 and op.hw_transpose:
            side = "A as [K, M]" if op.level is ir.Level.L0A else "B as [K, N]"
            fix = "A as [M, K]" if op.level is ir.Level.L0A else "B as [N, K] (`load(b1, L0B, transpose=True)`)"
            raise LoweringError(f"the rule engine moves i8 fractals into {op.level.value} without a transpose only: "
                                f"{side} needs 32 x 32 squares; give the cube {fix}", st)
        em.line(f"LocalTensor<{cpp}> {src} = {op.l1}Queue.DeQue<{cpp}>();")
        em.line(f"LocalTensor<{cpp}> {dst} = {op.l0}Queue.AllocTensor<{cpp}>();")
        r1, c1 = l1t.shape
        if op.level is ir.Level.L0A:
            m_e, k_e = (c1, r1) if op.transpose else (r1, c1)
            m = self.count(m_e, cube.FRACTAL_ROWS, "m")
            if not op.hw_transpose:
                k = self.count(k_e, cube.c0(op.dtype), "k")
                em.line("// Nz (fractals column by column) to ZZ (row by row): one LoadData per row of fractals")
                with em.block(f"for (int64_t i = 0; i < {m}; ++i)"):
                    em.line(f"LoadData({dst}[i * {k} * FRACTAL], {src}[i * FRACTAL], "
                            f"LoadData2DParams(0, {k}, {m}, 0, 0, false, 0));")
            elif op.banded:
                k = self.count(k_e, cube.FRACTAL_ROWS, "k", "Bands")
                em.line("// A^T in bands of 16 rows: each 16 x 16 square transposes into two fractals of a ZZ row;")
                em.line("// a ZZ row holds K in 16s, 2 fractals per band (Mmad's kDirectionAlign)")
                with em.block(f"for (int64_t band = 0; band < {k}; ++band)"):
                    em.line(f"LoadDataWithTranspose({dst}[2 * band * FRACTAL], {src}[band * {ROWS} * {op.l1}Cols], "
                            f"LoadData2dTransposeParams(0, {m}, 1, 2 * {k} - 1, 0));")
                self._band_cols(em, op, c1)
            else:
                k = self.count(k_e, cube.FRACTAL_ROWS, "k")
                load = "LoadDataWithTranspose" if op.square else "LoadData"
                params = (f"LoadData2dTransposeParams(0, {k}, 1, 0, 0)" if op.square
                          else f"LoadData2DParams(0, {k}, 1, 0, 0, true, 0)")
                em.line("// A^T's fractal (k, m) is A's fractal (m, k) transposed: the same place in Nz and ZZ")
                with em.block(f"for (int64_t i = 0; i < {m}; ++i)"):
                    em.line(f"{load}({dst}[i * {k} * FRACTAL], {src}[i * {k} * FRACTAL], {params});")
        else:
            k_e, n_e = (c1, r1) if op.transpose else (r1, c1)
            n = self.count(n_e, cube.FRACTAL_ROWS, "n")
            if not op.hw_transpose:
                k = self.count(k_e, cube.c0(op.dtype), "k")
                em.line("// B^T in Nz is already B's ZN: its fractal (n, k) lies where ZN wants B's (k, n)")
                with em.block(f"for (int64_t i = 0; i < {k}; ++i)"):
                    em.line(f"LoadData({dst}[i * {n} * FRACTAL], {src}[i * {n} * FRACTAL], "
                            f"LoadData2DParams(0, {n}, 1, 0, 0, false, 0));")
            elif op.banded:
                k = self.count(k_e, cube.FRACTAL_ROWS, "k", "Bands")
                em.line("// B in bands of 16 rows: each 16 x 16 square transposes into two ZN fractals, one K row of")
                em.line("// fractals apart")
                with em.block(f"for (int64_t band = 0; band < {k}; ++band)"):
                    em.line(f"LoadDataWithTranspose({dst}[2 * band * {n} * FRACTAL], "
                            f"{src}[band * {ROWS} * {op.l1}Cols], "
                            f"LoadData2dTransposeParams(0, {n}, 1, 0, {n} - 1));")
                self._band_cols(em, op, c1)
            else:
                k = self.count(k_e, cube.FRACTAL_ROWS, "k")
                load = "LoadDataWithTranspose" if op.square else "LoadData"
                params = (f"LoadData2dTransposeParams(0, {n}, {k}, 0, 0)" if op.square
                          else f"LoadData2DParams(0, {n}, {k}, 0, 0, true, 0)")
                em.line("// ZN holds each fractal transposed: one K row of fractals per LoadData")
                with em.block(f"for (int64_t i = 0; i < {k}; ++i)"):
                    em.line(f"{load}({dst}[i * {n} * FRACTAL], {src}[i * FRACTAL], {params});")
        em.line(f"{op.l0}Queue.EnQue({dst});")
        em.line(f"{op.l1}Queue.FreeTensor({src});")

    def _band_cols(self, em: Emitter, op, cols: ir.Expr) -> None:
        """The band width of a banded L1 tile, named in the method that reads it."""
        self.w.method_locals.append((f"{op.l1}Cols", self.span(cols), "a band's columns, whole squares"))

    # -- compute: mmad ------------------------------------------------------------------------
    def mmad(self, em: Emitter, st: ir.Assign) -> None:
        call: ir.Call = st.value
        a, b, acc = call.args
        ta, tb = a.type, b.type
        opa = self.plan.operand(a.id)
        cpp = ta.dtype.cpp
        out = cpp_name(st.target)
        acc_cpp = self.p.local_type(st.target).dtype.cpp
        em.line(f"LocalTensor<{cpp}> {cpp_name(a.id)} = {a.id}Queue.DeQue<{cpp}>();")
        em.line(f"LocalTensor<{cpp}> {cpp_name(b.id)} = {b.id}Queue.DeQue<{cpp}>();")
        fresh = isinstance(acc, ir.Const)
        if fresh:
            em.line(f"{out} = {st.target}Queue.AllocTensor<{acc_cpp}>();")
        params = f"{st.target}Mmad"
        m, k = (self.text(d) for d in ta.shape)
        n = self.text(tb.shape[1])
        em.line(f"MmadParams {params}({m}, {n}, {k});  // m, n, k: the tile's own sizes (a short tile is padded)")
        if not fresh:
            em.line(f"{params}.cmatrixInitVal = {st.target}Empty;  "
                    "// the first K slice writes L0C, later ones add to it")
        if opa is not None and opa.k_direction_align:
            em.line(f"{params}.kDirectionAlign = true;  // L0A holds K in 16s (the squares of the transposed f32 A)")
        em.line(f"Mmad({out}, {cpp_name(a.id)}, {cpp_name(b.id)}, {params});")
        if fresh:
            em.line(f"{st.target}Queue.EnQue({out});")
        else:
            em.line(f"{st.target}Empty = false;")
        em.line(f"{a.id}Queue.FreeTensor({cpp_name(a.id)});")
        em.line(f"{b.id}Queue.FreeTensor({cpp_name(b.id)});")

    # -- copyout: L0C -> GM ------------------------------------------------------------------
    def copy_out(self, em: Emitter, st: ir.Store) -> None:
        off, stride, t = self.view(st.dst)
        vt = st.value.type
        rows, cols = vt.shape
        name, acc_cpp = cpp_name(st.value.id), vt.dtype.cpp
        fix = f"{st.value.id}Fix"
        em.line(f"{name} = {st.value.id}Queue.DeQue<{acc_cpp}>();")
        em.line(f"FixpipeParamsV220 {fix}({self.text(cols)}, {self.text(rows)}, {self.span(rows)}, {stride}, false);  "
                "// nSize, mSize, srcStride (L0C rows), dstStride (GM row)")
        if t.dtype is not vt.dtype:
            mode = {ir.DType.f16: "F322F16", ir.DType.bf16: "F322BF16"}[t.dtype]
            em.line(f"{fix}.quantPre = QuantMode_t::{mode};  // f32 -> {t.dtype.cpp} on the way out")
        if st.accumulate:
            em.line(f"SetAtomicAdd<{t.dtype.cpp}>();  // every core adds its part (the output starts at zero)")
        em.line(f"Fixpipe({t.name}Gm[{off}], {name}, {fix});  // NZ -> ND rows")
        if st.accumulate:
            em.line("SetAtomicNone();")
        em.line(f"{st.value.id}Queue.FreeTensor({name});")

    # -- Process -------------------------------------------------------------------------------
    def zeros(self, em: Emitter, s: ir.Assign) -> None:
        name = cpp_name(s.target)
        cpp = self.p.local_type(s.target).dtype.cpp
        em.line(f"// DSL {s.span.line}: {dsl_text(self.p, s)} - the block's sum starts empty: "
                "its first Mmad writes L0C")
        em.line(f"{name} = {s.target}Queue.AllocTensor<{cpp}>();")
        em.line(f"{s.target}Empty = true;")

    def before_stage(self, em: Emitter, stage: ir.Stage) -> None:
        """A copyout of an accumulated L0C tile: every K slice is in, hand L0C to Fixpipe."""
        if stage.kind is not ir.StageKind.copyout:
            return
        for s in stage.body:
            if isinstance(s, ir.Store) and s.value.id in self.accumulated:
                em.line(f"{s.value.id}Queue.EnQue({cpp_name(s.value.id)});  // every K slice is in: L0C to Fixpipe")

    def core_tiles(self, em: Emitter, s: ir.For, body) -> None:
        it: ir.CoreTiles = s.iter
        names = s.vars
        used = _attrs_used(self.p.kernel.body, names)
        counts = []
        for v, ext, step in zip(names, it.extents, it.steps):
            c = f"{cpp_name(v)}Count"
            counts.append(c)
            if self.text(step) == "1":
                em.line(f"const int64_t {c} = {self.text(ext)};  // blocks along {expr_text(ext)}: one each")
                continue
            self.facts.uses.add("CeilDiv")
            em.line(f"const int64_t {c} = CeilDiv({self.text(ext)}, {self.text(step)});  "
                    f"// blocks along {expr_text(ext)}")
        block = "block"
        while block in self.facts.reserved:
            block += "_"
        total = " * ".join(counts)
        # In a MIX kernel's vector part GetBlockIdx() counts vector cores (GetSubBlockNum() per AI core):
        # stepping by all of them gives each block to exactly one. A cube core's counts AI cores.
        step = "GetBlockNum() * GetSubBlockNum()" if getattr(self.w, "unit", None) == "vector" else "GetBlockNum()"
        with em.block(f"for (int64_t {block} = GetBlockIdx(); {block} < {total}; {block} += {step})"):
            for i, (v, ext, step) in enumerate(zip(names, it.extents, it.steps)):
                inner = " * ".join(counts[i + 1:])
                index = (block if not inner
                         else f"{block} / {paren(inner)}" if len(counts[i + 1:]) > 1 else f"{block} / {inner}")
                if i > 0:
                    index = f"{index} % {counts[i]}"
                cv, st_text, ext_text = cpp_name(v), self.text(step), self.text(ext)
                wants = used.get(v, set())
                if "index" in wants:
                    em.line(f"const int64_t {cv}Index = {index};")
                    index = f"{cv}Index"
                if "start" in wants or "len" in wants:
                    em.line(f"const int64_t {cv}Start = {paren(index)} * {st_text};" if st_text != "1"
                            else f"const int64_t {cv}Start = {index};")
                if "len" in wants:
                    self.facts.use_min_max("min")
                    em.line(f"const int64_t {cv}Len = MinOf({st_text}, {ext_text} - {cv}Start);")
            body()

    # -- Init and members ---------------------------------------------------------------------
    def members(self) -> None:
        state = self.source.part("members", "state")
        for name, b in self.accs.items():
            state.line(f"LocalTensor<{b.dtype.cpp}> {cpp_name(name)};  // the L0C accumulator of the current block")
            if name in self.accumulated:
                state.line(f"bool {name}Empty = true;  // no Mmad has written `{name}` since zeros()")


def starts_accumulator(s) -> bool:
    """`acc = zeros(...)`: an op of the cube with no instruction of its own (its row is `stageless`)
    starts an accumulator that the first mmad writes."""
    return isinstance(s, ir.Assign) and isinstance(s.value, ir.Call) and OPS[s.value.op].stageless


def is_cube_call(s) -> bool:
    """An assignment of a cube operation (mmad, zeros), lowered by CUBE_RULES."""
    return isinstance(s, ir.Assign) and isinstance(s.value, ir.Call) and OPS[s.value.op].category in CUBE_RULES


def lower_cube_call(low: "CubeStages", em: Emitter, st: ir.Assign) -> None:
    """`st` by the rule of its category and tile kind (CUBE_RULES)."""
    e = st.value
    CUBE_RULES[OPS[e.op].category][tiles.kind(tiles.principal(e))](low, em, st)


def _lower_cube(low: "CubeStages", em: Emitter, st: ir.Assign) -> None:
    """mmad multiplies into its `accumulator`; the op without one (zeros) starts an empty accumulator."""
    (low.mmad if OPS[st.value.op].accumulator else low.zeros)(em, st)


# The cube category's lowering, by tile kind (the kinds dsl.ops.LOWERED names for it).
CUBE_RULES = {"cube": {"cube": _lower_cube}}


def _attrs_used(body, names) -> dict[str, set[str]]:
    """Which fields (start, len, index) of each range variable the kernel reads."""
    out: dict[str, set[str]] = {}
    for n in ir.walk(ir.Stage(ir.StageKind.compute, tuple(body))):
        if isinstance(n, ir.Attr) and n.obj.id in names:
            out.setdefault(n.obj.id, set()).add(n.attr)
        elif isinstance(n, ir.IndexExpr) and isinstance(n.expr, ir.Name) and n.expr.id in names:
            out.setdefault(n.expr.id, set()).update({"start", "len"})
        elif isinstance(n, ir.Tiles) and isinstance(n.extent, ir.Name) and n.extent.id in names:
            out.setdefault(n.extent.id, set()).update({"start", "len"})   # tiles(ki_range, step): split K
    return out


COPY_ND2NZ = """\
// GM rows (ND) into L1 as Nz fractals: 32 bytes of a row per fractal row, a column of fractals
// `dstRows` rows tall (the tile's rows in whole fractals); Nd2Nz zero-fills each row's last block.
// Nd2NzParams takes the GM row stride as a uint16, so longer rows go one call per row.
template <typename T>
__aicore__ inline void CopyNd2Nz(const LocalTensor<T> &dst, const GlobalTensor<T> &src, int64_t rows, int64_t cols,
                                 int64_t srcStride, int64_t dstRows)
{
    if (srcStride <= ND2NZ_MAX_STRIDE) {
        const Nd2NzParams params(1, rows, cols, 0, srcStride, dstRows, 1, 0);
        DataCopy(dst, src, params);
        return;
    }
    const Nd2NzParams rowParams(1, 1, cols, 0, cols, dstRows, 1, 0);
    for (int64_t r = 0; r < rows; ++r) {
        DataCopy(dst[r * (ONE_BLK_SIZE / sizeof(T))], src[r * srcStride], rowParams);
    }
}"""


COPY_ND2NZ_BANDS = """\
// Rows into L1 in bands of 16 (the fractals of a band side by side, a band `bandCols` x 16 elements on
// from the last): the whole bands in one Nd2Nz of ndNum matrices (srcNdMatrixStride = 16 GM rows,
// dstNzMatrixStride = one band), the short last band alone; a stride past a uint16 goes band by band.
template <typename T>
__aicore__ inline void CopyNd2NzBands(const LocalTensor<T> &dst, const GlobalTensor<T> &src, int64_t rows, int64_t cols,
                                      int64_t srcStride, int64_t bandCols)
{
    const int64_t whole = rows / BLOCK_CUBE;
    if (whole > 0 && BLOCK_CUBE * srcStride <= ND2NZ_MAX_STRIDE && BLOCK_CUBE * bandCols <= ND2NZ_MAX_STRIDE) {
        const Nd2NzParams params(static_cast<uint16_t>(whole), BLOCK_CUBE, cols, BLOCK_CUBE * srcStride, srcStride,
                                 BLOCK_CUBE, 1, BLOCK_CUBE * bandCols);
        DataCopy(dst, src, params);
    } else {
        for (int64_t band = 0; band < whole * BLOCK_CUBE; band += BLOCK_CUBE) {
            CopyNd2Nz(dst[band * bandCols], src[band * srcStride], BLOCK_CUBE, cols, srcStride, BLOCK_CUBE);
        }
    }
    const int64_t done = whole * BLOCK_CUBE;
    if (done < rows) {
        CopyNd2Nz(dst[done * bandCols], src[done * srcStride], rows - done, cols, srcStride, BLOCK_CUBE);
    }
}"""


def helpers(source: KernelSource) -> None:
    """The class's cube helpers the code calls (compute and align add to `uses`)."""
    if "CopyNd2Nz" in source.uses:
        em = source.part("helpers", "scratch")
        em.line("", dsl=0)
        em.lines(COPY_ND2NZ, dsl=0)
        if "CopyNd2NzBands" in source.uses:
            em.line("", dsl=0)
            em.lines(COPY_ND2NZ_BANDS, dsl=0)
        source.part("constants", "compare").line(
            f"constexpr int64_t ND2NZ_MAX_STRIDE = {cube.MAX_ND2NZ_STRIDE};  // Nd2NzParams.srcDValue is a uint16")


__all__ = ["FractalCount", "FractalSpan", "plain_count", "plain_span", "tail_count", "tail_span", "uses_cube",
           "CubeStages", "constants", "buffer_bytes", "helpers", "input_dtype"]
