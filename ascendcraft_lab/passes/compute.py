"""Pass 3, compute: Process and the CopyIn / Compute / CopyOut methods, with plain DataCopy.

Process walks the DSL's loops and calls one method per stage; a stage method moves tiles
between the pipes with AllocTensor / EnQue / DeQue / FreeTensor and lowers each statement
(`vector.py`). What the statements need beside the DSL's tiles (the scratch TBuf, a scalar
staging block, one queue per stored scalar, members for values kept across methods) is added
to Init and the members here. GM copies, element counts and mask conversions are holes that
align rewrites. The checker holds any engine's output to balanced queues.
"""
from __future__ import annotations

import collections
import re
from collections import Counter

from ..dsl import ir, tiles
from ..dsl.tiles import is_pitched
from ..dsl.buffers import SCALAR_OUT_BYTES
from ..dsl.ops import OPS, window_form
from . import cpp
from . import cube as cube_lowering
from .bundle import Bundle
from .cexpr import paren
from .emit import Emitter
from .findings import Finding, finding, kernel_text
from .kernel import (STAGE_METHOD, CompareCount, ExactWrite, GmCopy, InputDequeue, KernelFacts, KernelSource, MaskWiden,
                     Method, VectorCount, dsl_text)
from .plan import Plan, camel, cpp_name
from .project import Project
from .spec import LoweringError, PassSpec
from .vector import ComputeContext, ComputeLowering, Tile

SPEC = PassSpec(
    3, "compute", "the Process loop and CopyIn / Compute / CopyOut, DSL ops mapped to AscendC vector APIs",
    "Process walks the tiles. CopyIn moves a tile from GM to UB (the MTE2 pipe), Compute runs vector "
    "instructions on it (the V pipe), CopyOut moves results back (MTE3). AllocTensor/EnQue/DeQue/FreeTensor "
    "hand tiles between the pipes so they overlap safely; functions AscendC lacks are expanded here.",
    rules=("per queue, every AllocTensor is freed", "every EnQue is matched by a DeQue"))

SCALAR_LANES = 8            # one 32-byte block of f32: the scalar buffer's lanes


def write(project: Project) -> None:
    ComputeWriter(project).write()


class ComputeWriter:
    def __init__(self, project: Project):
        self.project = project
        self.source: KernelSource = project.kernel
        self.facts: KernelFacts = project.facts
        self.p = project.plan.program
        plan = project.facts.ub                         # the UB plan: what Init allocates (dsl/buffers.py)
        self.slots = plan.scratch_slots
        self.scalar_buf = plan.staging
        self.scalar_out = plan.scalar_outs              # scalars stored to GM: one UB queue each
        self._declared: set[str] = set()                # scalar locals declared in the current method
        self._loaded = {cpp_name(b.name) for b in plan.buffers if b.role == "VECIN"}   # padded by their copy-in
        self._counts: dict[str, tuple[str, str, str]] | None = None      # element counts the current method names once
        self.method_locals: list[tuple[str, str, str]] = []   # (name, C++ value, comment) the method declares first
        self.cube = cube_lowering.CubeStages(self) if cube_lowering.uses_cube(project.facts) else None
        self.unit: str | None = None                   # in a MIX kernel: the core kind ("cube" / "vector") of the code

    def write(self) -> None:
        source, facts = self.source, self.facts
        source.rules.setdefault(VectorCount, lambda h, s: h.count)
        source.rules.setdefault(GmCopy, plain_copy)
        source.rules.setdefault(InputDequeue, plain_dequeue)
        source.rules.setdefault(CompareCount, lambda h, s: h.count)
        source.rules.setdefault(ExactWrite, lambda h, s: "")
        source.rules.setdefault(MaskWiden, lambda h, s: f"Cast({h.wide}, {h.mask}, RoundMode::CAST_NONE, {h.count});")
        source.rules.setdefault(cube_lowering.FractalCount, cube_lowering.plain_count)
        source.rules.setdefault(cube_lowering.FractalSpan, cube_lowering.plain_span)
        stages = [st for g in facts.groups for st in g.stages]
        methods = [self._method(st) for st in stages]
        source.methods, self.method_of = name_methods(stages, methods, source, facts.reserved)
        # Scalar math in Process itself (outside any stage) may need the scalar buffer too.
        process = Emitter()
        ctx = self._context(process)
        if self.facts.mixed:
            self._mixed_process(process, ComputeLowering(ctx))
        else:
            self._process_body(process, self.p.kernel.body, ComputeLowering(ctx))
        self._within_plan(ctx, self.p.kernel)
        source.process = process
        if self.scalar_buf:
            source.part("constants", "scalar").line(
                f"constexpr int32_t SCALAR_LANES = {SCALAR_LANES};  // one 32-byte block of f32")
        self._init()
        self._members()
        cube_lowering.helpers(source)
        if self.slots:
            em = source.part("helpers", "scratch")
            em.line("", dsl=0)
            em.line("// Slot `i` of the scratch buffer, viewed as T: the temporaries of one compute statement.")
            with em.block("template <typename T> __aicore__ inline LocalTensor<T> Scratch(int32_t i)"):
                em.line("return scratchBuf.Get<uint8_t>()[i * scratchSlotBytes].ReinterpretCast<T>();")

    # -- Init and members --------------------------------------------------------------------
    def _init(self) -> None:
        em, facts = self.source.part("init", "compute"), self.facts
        for name in self.scalar_out:
            em.line(f"pipe.InitBuffer({name}OutQueue, 1, {SCALAR_OUT_BYTES});  // one block for the scalar `{name}`")
        if self.slots:
            ub = facts.ub
            slot_bytes = facts.buffer_bytes(self.source, facts.max_text(ub.slot_capacities), ub.slot_dtype)
            em.line(f"scratchSlotBytes = {slot_bytes};  "
                    f"// one slot holds a temporary of any dtype the statements compute")
            slots = "scratchSlotBytes" if self.slots == 1 else f"{self.slots} * scratchSlotBytes"
            em.line(f"pipe.InitBuffer(scratchBuf, {slots});  "
                    f"// {self.slots} temporar{'y' if self.slots == 1 else 'ies'}")
        if self.scalar_buf:
            em.line("pipe.InitBuffer(scalarBuf, SCALAR_LANES * sizeof(float));")
            em.line("scalarTmp = scalarBuf.Get<float>();")

    def _members(self) -> None:
        em = self.source.part("members", "compute")
        for name in self.scalar_out:
            em.line(f"TQue<TPosition::VECOUT, 1> {name}OutQueue;")
        if self.slots:
            em.line("TBuf<TPosition::VECCALC> scratchBuf;")
        if self.scalar_buf:
            em.line("TBuf<TPosition::VECCALC> scalarBuf;")
            em.line("LocalTensor<float> scalarTmp;")
        if self.cube is not None:
            self.cube.members()
        state = self.source.part("members", "state")
        for name in sorted(self.facts.persistent):
            state.line(f"LocalTensor<{self.p.local_type(name).dtype.cpp}> {cpp_name(name)};  // loaded once per core")
        if self.slots:
            state.line("int64_t scratchSlotBytes = 0;")
        for name in sorted(self.facts.members_scalar):
            state.line(f"{self.facts.scalars[name].dtype.cpp} {cpp_name(name)} = 0;")

    # -- stage methods -------------------------------------------------------------------------
    def _method(self, stage: ir.Stage) -> Method:
        facts = self.facts
        em = Emitter()
        facts.used_vars = set()
        self._declared = set()
        self._counts = {}
        self.method_locals = []
        ctx = self._context(em)
        lower = ComputeLowering(ctx)
        if self.cube is not None and self.cube.is_cube_stage(stage):
            self._cube_method(em, stage, lower)
        elif stage.kind is ir.StageKind.copyin:
            for st in stage.body:
                with em.dsl(st.span.line):
                    em.line(f"// DSL {st.span.line}: {dsl_text(self.p, st)}")
                    self._copy_in(em, st)
        elif stage.kind is ir.StageKind.copyout:
            for st, first, last in _store_places(stage.body):
                with em.dsl(st.span.line):
                    em.line(f"// DSL {st.span.line}: {dsl_text(self.p, st)}")
                    self._copy_out(em, st, first, last)
        else:
            self._compute(em, stage, lower)
        self._within_plan(ctx, stage)
        if self._counts or self.method_locals:   # counts computed once, at the top of the method
            body = Emitter()
            with body.dsl(stage.span.line):
                for text, (name, comment, ctype) in self._counts.items():
                    body.line(f"const {ctype} {name} = {text};  // {comment}")
                for name, text, what in self.method_locals:
                    body.line(f"const int64_t {name} = {text};  // {what}")
            for line, dsl in zip(em.text().splitlines(), em.source_map()):
                body.line(line, dsl=dsl)
            em = body
        self._counts = None
        order = list(facts.loops)
        params = []
        for v in sorted(facts.used_vars,
                        key=lambda v: (order.index(v.partition(".")[0]) if v.partition(".")[0] in order else 99,
                                       _var_order(v))):
            var, _, attr = v.partition(".")
            params.append(("int64_t", f"{cpp_name(var)}{attr.capitalize()}" if attr else cpp_name(var)))
        facts.used_vars = None
        return Method(STAGE_METHOD[stage.kind], params, em, stage.span.line)   # named by name_methods

    def _cube_method(self, em: Emitter, stage: ir.Stage, lower: ComputeLowering) -> None:
        """A stage of the cube: its loads, moves, mmads and stores (passes/cube.py)."""
        cube = self.cube
        cube.start_method()
        for st in stage.body:
            with em.dsl(st.span.line):
                em.line(f"// DSL {st.span.line}: {dsl_text(self.p, st)}")
                if isinstance(st, ir.Load) and st.level is ir.Level.L1:
                    cube.copy_in(em, st)
                elif isinstance(st, ir.Load) and st.level in (ir.Level.L0A, ir.Level.L0B):
                    cube.split(em, st)
                elif isinstance(st, ir.Load):
                    self._copy_in(em, st)
                elif isinstance(st, ir.Store) and isinstance(st.value.type, ir.TileType):
                    cube.copy_out(em, st)
                elif isinstance(st, ir.Store):
                    self._copy_out(em, st)
                elif cube_lowering.is_cube_call(st):
                    cube_lowering.lower_cube_call(cube, em, st)
                else:
                    self._compute_stmt(em, st, lower)

    def _within_plan(self, ctx: ComputeContext, where) -> None:
        """The lowering allocates what the UB plan counted, never more (the verifier's budget is Init's)."""
        if ctx.max_slots > self.slots or (ctx.uses_scalar_buf and not self.scalar_buf):
            need = (f"{ctx.max_slots} scratch slot(s), the plan has {self.slots}" if ctx.max_slots > self.slots
                    else "the scalar staging block, which the plan does not have")
            raise LoweringError(f"internal: this lowering needs {need} (dsl/buffers.py must count what "
                                "passes/vector.py allocates); please report the draft", where)

    def _context(self, em: Emitter) -> ComputeContext:
        """What the compute lowering of one method (or of Process) needs from this kernel."""
        facts = self.facts
        return ComputeContext(names=facts.names, text=facts.scalar_text, count=self.count, tile_of=self._tile_of,
                              hole=self.source.hole, em=em, reserved=facts.reserved, byte_masks=facts.byte_masks,
                              sizes=facts.size_members, use_min_max=facts.use_min_max, padded=facts.ub_padded,
                              layout=self.layout, uses=facts.uses, is_loaded=self._loaded.__contains__)

    def layout(self, t: ir.TileType) -> tuple[str, str, str, str]:
        """(rows, columns, pitch, pitch in blocks) of a tile of rows, as C++ (named once per method)."""
        rows = self.facts.scalar_text(tiles.rows(t))
        if self._counts is not None and paren(rows) != rows:
            rows = self._named(rows, "rows", "rows of the tile")
        return rows, self.facts.scalar_text(tiles.cols(t)), self.pitch(t), self.row_blocks(t)

    def count(self, t: ir.TileType, exact: bool = False) -> str:
        """Elements a vector instruction covers for tile `t`: its elements, or rows x pitch for a
        tile of rows (the padding lanes included); named once per method."""
        if is_pitched(t):
            text = f"{paren(self.facts.scalar_text(tiles.rows(t)))} * {self.pitch(t)}"
        else:
            text = self.facts.element_count(t)
        if self._counts is not None and paren(text) != text:      # not one name: name it once per method
            loops = re.findall(r"\b(\w+)(?:Len|Start)\b", text)
            text = self._named(text, f"{loops[0]}Elems" if len(set(loops)) == 1 else "tileElems",
                               "elements of the tile")
        return text if exact else self.source.hole(VectorCount(text))

    def pitch(self, t: ir.TileType) -> str:
        """The row pitch of a tile of rows (elements from one row's start to the next), named once
        per method: the columns rounded up to whole 32-byte blocks (tiles.py)."""
        cols = tiles.cols(t)
        text = self.facts.scalar_text(cols)
        block = t.dtype.elems_per_block
        if isinstance(cols, ir.Const):
            return str(-(-int(cols.value) // block) * block)
        if self._aligned(cols, block):
            return text
        self.facts.uses.add("AlignUp")
        text = f"AlignUp({text}, {block})"
        if self._counts is None:
            return text
        stem = re.findall(r"[A-Za-z_]\w*", self.facts.scalar_text(cols))[-1]
        stem = stem[:1].lower() + stem[1:]
        stem = stem[:-3] if stem.endswith("Len") else stem
        suffix = "" if t.dtype.nbytes == 4 else t.dtype.value.upper()
        return self._named(text, f"{stem}Pitch{suffix}",
                           f"row pitch of {t.dtype.value} tiles: each row starts on a 32-byte block")

    def _aligned(self, e: ir.Expr, block: int) -> bool:
        """A tiling field proven a multiple of `block` elements (ub_elems, align_up, ...)."""
        tp = self.p.tiling_param
        return (isinstance(e, ir.Attr) and tp is not None and e.obj.id == tp.name
                and self.facts.plan.aligned_fields().get(e.attr, 0) % block == 0
                and e.attr in self.facts.plan.aligned_fields())

    def row_blocks(self, t: ir.TileType) -> str:
        """A tile of rows' pitch in 32-byte blocks: the repeat stride of one row per repeat (a uint8)."""
        pitch = self.pitch(t)
        block = t.dtype.elems_per_block
        if pitch.isdigit():
            return str(int(pitch) // block)
        text = f"static_cast<uint8_t>({pitch} / {block})"
        if self._counts is None:
            return text
        return self._named(text, f"{pitch}Blocks", "the row pitch in 32-byte blocks: a repeat stride of one row",
                           "uint8_t")

    def _named(self, text: str, stem: str, comment: str, ctype: str = "int64_t") -> str:
        """`text` as a `const` local at the top of the current method (one name per text)."""
        if text not in self._counts:
            name = stem
            while name in self.facts.reserved or name in (n for n, *_ in self._counts.values()):
                name = f"{stem}{len(self._counts) + 1}"
            self._counts[text] = (name, comment, ctype)
        return self._counts[text][0]

    def _tile_of(self, name: str) -> Tile:
        t = self.p.local_type(name)
        return Tile(cpp_name(name), t.dtype)

    # -- copies ---------------------------------------------------------------------------------
    def gm_offset(self, ref: ir.GmRef) -> tuple[str, ir.TensorParam]:
        """Element offset of a GM view, relative to this core's slice when the tensor is sliced."""
        off, t, _ = self.gm_view(ref)
        return off, t

    def gm_view(self, ref: ir.GmRef) -> tuple[str, ir.TensorParam, list[str]]:
        """(element offset of the view, its tensor, the GM stride in elements of each kept axis)."""
        facts = self.facts
        t = self.p.param(ref.tensor)
        shape = t.shape
        gm = facts.plan.gm[ref.tensor]
        terms, strides = [], []
        for axis, ix in enumerate(ref.index or ()):
            stride = None
            for d in shape[axis + 1:]:
                part = paren(facts.scalar_text(d))
                stride = part if stride is None else f"{stride} * {part}"
            keeps = not (isinstance(ix, ir.IndexExpr) and not isinstance(ix.expr.type, ir.RangeType))
            if keeps:
                step = ix.step if isinstance(ix, ir.IndexSlice) else None
                if step is not None and step != ir.Const(1, "int"):   # every step-th row: rows step x stride apart
                    strides.append(f"{paren(facts.scalar_text(step))} * {stride or '1'}")
                else:
                    strides.append(stride or "1")
            if isinstance(ix, ir.IndexExpr):
                e = ix.expr
                if isinstance(e.type, ir.RangeType):
                    base = f"{facts.names(ir.Attr(e, 'start'))}"
                else:
                    base = facts.scalar_text(e)
                    if axis == 0 and gm.core_var and isinstance(e, ir.Name) and e.id == gm.core_var:
                        base = f"({base} - {cpp_name(gm.core_var)}Begin)"
            elif isinstance(ix, ir.IndexSlice):
                if ix.lo is None:
                    continue
                base = facts.scalar_text(ix.lo)
            else:
                start = facts.names(ir.Attr(ix.var, "start"))
                base = f"{start} * {facts.scalar_text(ix.stride)}"
            if base in ("0",):
                continue
            terms.append(base if stride is None else f"{paren(base)} * {stride}")
        return (" + ".join(terms) or "0"), t, strides

    def copy_hole(self, direction: str, ref: ir.GmRef, local: str, ty: ir.TileType) -> GmCopy:
        """The GM copy of tile `ty` to or from view `ref`: one contiguous run, or a tile of rows
        moved by strided copies (one per plane of a tile of rank 3 or more)."""
        off, t, strides = self.gm_view(ref)
        gm = f"{t.name}Gm[{off}]"
        if not is_pitched(ty):
            return GmCopy(direction, gm, local, ty.dtype, self.count(ty, exact=True))
        rows = self.facts.scalar_text(ty.shape[-2])
        cols = self.facts.scalar_text(ty.shape[-1])
        pitch = self.pitch(ty)
        outer, ub_step = [], f"{paren(rows)} * {pitch}"
        for d, stride in reversed(list(zip(ty.shape[:-2], strides[:-2]))):
            extent = self.facts.scalar_text(d)
            outer.insert(0, (extent, stride, ub_step))
            ub_step = f"{paren(extent)} * {ub_step}"
        return GmCopy(direction, gm, local, ty.dtype, cols, rows=rows, cols=cols, gm_stride=strides[-2], pitch=pitch,
                      outer=tuple(outer), gm_tensor=f"{t.name}Gm", gm_offset=off)

    def _copy_in(self, em: Emitter, st) -> None:
        if not isinstance(st, ir.Load):
            raise LoweringError("a copyin stage holds loads only", st)
        off, t = self.gm_offset(st.src)
        ty = self.p.local_type(st.target)
        name = cpp_name(st.target)
        if isinstance(ty, ir.ScalarType):
            if t.role is ir.TensorRole.workspace:
                em.line("// other cores wrote this GM value: drop any stale copy in this core's scalar data cache")
                em.line(f"DataCacheCleanAndInvalid<{t.dtype.cpp}, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>"
                        f"({t.name}Gm{f'[{off}]' if off != '0' else ''});")
            decl = "" if st.target in self.facts.members_scalar or st.target in self._declared else f"{ty.dtype.cpp} "
            self._declared.add(st.target)
            em.line(f"{decl}{name} = {t.name}Gm.GetValue({off});")
            return
        q = f"{name}Queue"
        keep = st.target in self.facts.persistent
        em.line(f"{'' if keep else f'LocalTensor<{ty.dtype.cpp}> '}{name} = {q}.AllocTensor<{ty.dtype.cpp}>();")
        em.line(self.source.hole(self.copy_hole("in", st.src, name, ty)))
        em.line(f"{q}.EnQue({name});")
        if keep:
            em.line(self.source.hole(InputDequeue(name, q, ty.dtype, self.count(ty, exact=True), kept=True)))

    def _copy_out(self, em: Emitter, st, first: bool = True, last: bool = True) -> None:
        """One store; a value a stage stores several times (`first`, `last`: this store's place among
        them) is taken from its queue (or written to UB) once, before the first, and freed after the last."""
        if not isinstance(st, ir.Store):
            raise LoweringError("a copyout stage holds stores only", st)
        off, t = self.gm_offset(st.dst)
        vt = st.value.type
        name = cpp_name(st.value.id)
        if st.accumulate:
            em.line(f"SetAtomicAdd<{t.dtype.cpp}>();  // every core adds its part (the output starts at zero)")
        if isinstance(vt, ir.ScalarType):
            q = f"{name}OutQueue"
            if first:
                em.line(f"LocalTensor<{vt.dtype.cpp}> {name}Out = {q}.AllocTensor<{vt.dtype.cpp}>();")
                em.line(f"{name}Out.SetValue(0, {name});")
                em.line("// the scalar unit wrote the UB value the copy engine reads next")
                ready = f"{name}OutReady"   # one event per stored scalar: a stage may store several
                em.line(f"TEventID {ready} = GetTPipePtr()->FetchEventID(HardEvent::S_MTE3);")
                em.line(f"SetFlag<HardEvent::S_MTE3>({ready});")
                em.line(f"WaitFlag<HardEvent::S_MTE3>({ready});")
            em.line(self.source.hole(GmCopy("out", f"{t.name}Gm[{off}]", f"{name}Out", vt.dtype, "1")))
            if last:
                em.line(f"{q}.FreeTensor({name}Out);")
        else:
            q = f"{name}Queue"
            if first:
                em.line(f"LocalTensor<{vt.dtype.cpp}> {name} = {q}.DeQue<{vt.dtype.cpp}>();")
            em.line(self.source.hole(self.copy_hole("out", st.dst, name, vt)))
            if last:
                em.line(f"{q}.FreeTensor({name});")
        if st.accumulate:
            em.line("SetAtomicNone();")

    # -- compute --------------------------------------------------------------------------------
    def _compute(self, em: Emitter, stage: ir.Stage, lower: ComputeLowering) -> None:
        facts = self.facts
        reads = {n.id for s in stage.body for n in ir.walk(s) if isinstance(n, ir.Name)}
        defined = [s.target for s in stage.body if isinstance(s, ir.Assign)]
        ins = [b for b in facts.ub.buffers if b.role == "VECIN" and b.name in reads and b.name not in facts.persistent]
        outs = [b for b in facts.ub.buffers if b.role == "VECOUT" and b.name in defined]
        calcs = [b for b in facts.ub.buffers if b.role == "VECCALC" and (b.name in defined or b.name in reads)]
        with em.dsl(stage.span.line):
            for b in ins:
                em.line(self.source.hole(InputDequeue(cpp_name(b.name), f"{b.name}Queue", b.dtype,
                                                      self.count(self.p.local_type(b.name), exact=True))))
            for b in outs:
                em.line(f"LocalTensor<{b.dtype.cpp}> {cpp_name(b.name)} = {b.name}Queue.AllocTensor<{b.dtype.cpp}>();")
            for b in calcs:
                if b.name in facts.ub_padded:
                    whole, tile = _padded_uses(stage, b.name)
                    for line in lower.padded_handles(b.name, b.dtype, whole, tile):
                        em.line(line)
                else:
                    em.line(f"LocalTensor<{b.dtype.cpp}> {cpp_name(b.name)} = {b.name}Buf.Get<{b.dtype.cpp}>();")
        for st in stage.body:
            with em.dsl(st.span.line):
                em.line(f"// DSL {st.span.line}: {dsl_text(self.p, st)}")
                self._compute_stmt(em, st, lower)
        with em.dsl(stage.span.line):
            for b in outs:
                em.line(f"{b.name}Queue.EnQue({cpp_name(b.name)});")
            for b in ins:
                em.line(f"{b.name}Queue.FreeTensor({cpp_name(b.name)});")

    def _compute_stmt(self, em: Emitter, st, lower: ComputeLowering) -> None:
        if isinstance(st, ir.Assign):
            ty = self.p.local_type(st.target)
            if isinstance(ty, ir.TileType):
                lower.assign_tile(Tile(cpp_name(st.target), ty.dtype), st.value, dsl=st.target)
            else:
                value = lower.scalar(st.value)
                decl = ("" if st.target in self.facts.members_scalar or st.target in self._declared
                        else f"{ty.dtype.cpp} ")
                self._declared.add(st.target)
                em.line(f"{decl}{cpp_name(st.target)} = {value};")
        elif isinstance(st, ir.If):
            cond = lower.scalar(st.cond)
            with em.block(f"if ({cond})"):
                for s in st.body:
                    self._compute_stmt(em, s, lower)
            if st.orelse:
                with em.block("else"):
                    for s in st.orelse:
                        self._compute_stmt(em, s, lower)
        elif isinstance(st, ir.Barrier):
            em.line("PipeBarrier<PIPE_V>();")
        else:
            raise LoweringError(f"{type(st).__name__} inside a compute stage", st)

    # -- Process ----------------------------------------------------------------------------------
    def _mixed_process(self, em: Emitter, lower: ComputeLowering) -> None:
        """A kernel of cube and vector parts: the cube cores (AIC) run the cube's, the vector cores
        (AIV) the vector's, and each sync_all() hands over between them with cross-core flags."""
        phases = self.facts.phases
        syncs = [s for s in self.p.kernel.body if isinstance(s, ir.SyncAll)]
        used: set[str] = set()
        for unit, guard in (("cube", "ASCEND_IS_AIC"), ("vector", "ASCEND_IS_AIV")):
            with em.block(f"if {guard}"):
                for i, (stmts, u) in enumerate(phases):
                    if i > 0:
                        self._handover(em, syncs[i - 1], phases[i - 1][1], u, unit, used)
                    if u == unit:
                        self.unit = unit          # which kind of core runs the code written now
                        self._process_body(em, stmts, lower)
                        self.unit = None
        sync = self.source.part("constants", "sync")
        notes = {"FLAG_CUBE_DONE": "mode 0: every cube core has reached the sync_all()",
                 "FLAG_TO_VECTOR": "mode 2: a cube core hands over to its two vector cores",
                 "FLAG_VECTOR_DONE": "mode 0: every vector core has reached the sync_all()",
                 "FLAG_TO_CUBE": "mode 2: both vector cores of an AI core hand over to its cube core"}
        if used:
            sync.line("// sync_all() between the cube cores (AIC) and the vector cores (AIV): "
                      "cross-core flag ids 0..10")
        for i, name in enumerate(notes):
            if name in used:
                sync.line(f"constexpr uint16_t {name} = {i};  // {notes[name]}")

    def _handover(self, em: Emitter, sync: ir.SyncAll, before: str, after: str, me: str, used: set[str]) -> None:
        line = sync.span.line
        mine = "FLAG_CUBE_DONE" if me == "cube" else "FLAG_VECTOR_DONE"
        pipe = "PIPE_FIX" if me == "cube" else "PIPE_MTE3"          # where this core's last GM writes went
        to_other = "FLAG_TO_VECTOR" if me == "cube" else "FLAG_TO_CUBE"
        from_other = "FLAG_TO_CUBE" if me == "cube" else "FLAG_TO_VECTOR"
        other = "vector" if me == "cube" else "cube"
        with em.dsl(line):
            if before == me:
                em.line(f"// DSL {line}: sync_all() - every {me} core's GM writes are in before " +
                        ("any core goes on" if after == me else f"the {other} cores read them"))
                used.add(mine)
                em.line(f"CrossCoreSetFlag<0x0, {pipe}>({mine});")
                em.line(f"CrossCoreWaitFlag({mine});")
                if after != me:
                    used.add(to_other)
                    whom = "its two vector cores" if me == "cube" else "its cube core (once both vector cores are here)"
                    em.line(f"CrossCoreSetFlag<0x2, {pipe}>({to_other});  // this AI core's hand-over to {whom}")
            elif after == me:
                used.add(from_other)
                whom = "cube core signals" if me == "vector" else "two vector cores signal"
                em.line(f"// DSL {line}: sync_all() - wait for the {other} cores: this AI core's {whom} once every "
                        f"{other} core is done")
                em.line(f"CrossCoreWaitFlag({from_other});")

    def _process_body(self, em: Emitter, stmts, lower: ComputeLowering) -> None:
        kept = [x.target for s in stmts if isinstance(s, ir.Stage) and s.kind is ir.StageKind.copyin
                for x in s.body if isinstance(x, ir.Load) and x.target in self.facts.persistent]
        self._process_stmts(em, stmts, lower)
        for name in kept:
            em.line(f"{name}Queue.FreeTensor({cpp_name(name)});")

    def _process_stmts(self, em: Emitter, stmts, lower: ComputeLowering) -> None:
        for s in stmts:
            line = s.span.line
            with em.dsl(line):
                if isinstance(s, ir.Stage):
                    if self.cube is not None:
                        self.cube.before_stage(em, s)
                    m = self.method_of[id(s)]
                    args = ", ".join(name for _, name in m.params)
                    em.line(f"{m.name}({args});")
                elif isinstance(s, ir.For):
                    self._loop(em, s, lower)
                elif cube_lowering.starts_accumulator(s):
                    cube_lowering.lower_cube_call(self.cube, em, s)
                elif isinstance(s, ir.Assign):
                    em.line(f"{cpp_name(s.target)} = {lower.scalar(s.value)};  // DSL {line}")
                elif isinstance(s, ir.If):
                    with em.block(f"if ({lower.scalar(s.cond)})"):
                        self._process_body(em, s.body, lower)
                    if s.orelse:
                        with em.block("else"):
                            self._process_body(em, s.orelse, lower)
                elif isinstance(s, ir.Barrier):
                    em.line("PipeBarrier<PIPE_ALL>();")
                elif isinstance(s, ir.SyncAll):
                    em.line(f"// DSL {line}: sync_all() - wait until every core has got here (its GM writes, atomic")
                    em.line("// adds included, are then visible to all cores)")
                    em.line("SyncAll(syncFlagsGm, syncWork);")
                else:
                    raise LoweringError(f"{type(s).__name__} outside a stage", s)

    def _loop(self, em: Emitter, s: ir.For, lower: ComputeLowering) -> None:
        facts = self.facts
        v = cpp_name(s.var)
        it = s.iter
        em.line(f"// DSL {s.span.line}: {dsl_text(self.p, s)}")
        if isinstance(it, ir.CoreRows):
            with em.block(f"for (int64_t {v} = {v}Begin; {v} < {v}End; ++{v})"):
                self._process_body(em, s.body, lower)
        elif isinstance(it, ir.CoreChunk):
            with em.block(f"if ({v}Len > 0)"):
                self._process_body(em, s.body, lower)
        elif isinstance(it, ir.CoreTiles):
            self.cube.core_tiles(em, s, lambda: self._process_body(em, s.body, lower))
        elif isinstance(it, ir.Tiles):
            step = facts.scalar_text(it.step)
            if isinstance(it.extent.type, ir.RangeType):
                r = cpp_name(it.extent.id)
                base, end = f"{r}Start", f"{r}Start + {r}Len"
            else:
                base, end = "0", facts.scalar_text(it.extent)
            with em.block(f"for (int64_t {v}Start = {base}; {v}Start < {end}; {v}Start += {step})"):
                facts.use_min_max("min")
                em.line(f"const int64_t {v}Len = MinOf({step}, {paren(end)} - {v}Start);")
                uses_index = any(isinstance(n, ir.Attr) and n.obj.id == s.var and n.attr == "index"
                                 for n in ir.walk(ir.Stage(ir.StageKind.compute, s.body)))
                if uses_index:
                    em.line(f"const int64_t {v}Index = ({v}Start - {base}) / {paren(step)};")
                self._process_body(em, s.body, lower)
        else:
            start, stop, step = (facts.scalar_text(x) for x in (it.start, it.stop, it.step))
            inc = f"++{v}" if step == "1" else f"--{v}" if step == "-1" else f"{v} += {step}"
            if isinstance(it.step, ir.Const):
                cond = f"{v} > {stop}" if float(it.step.value) < 0 else f"{v} < {stop}"
            else:   # the sign of the step is known only at run time, as in Python's range
                cond = f"({step} > 0 ? {v} < {stop} : {v} > {stop})"
            with em.block(f"for (int64_t {v} = {start}; {cond}; {inc})"):
                self._process_body(em, s.body, lower)


_DSL_COMMENT = re.compile(r"// DSL (\d+(?:, \d+)*):")


def name_methods(stages: list[ir.Stage], methods: list[Method], source: KernelSource,
                 reserved: frozenset) -> tuple[list[Method], dict]:
    """The stage methods a careful author writes: stages that do the same (a row loaded the
    same way in every sweep) share one method, whose comments name every DSL line it serves;
    a kind with one method keeps its canonical name (CopyIn, Compute, CopyOut), otherwise each
    is named for what it defines (`ComputeM` computes m, `CopyOutY` stores y)."""
    def same(m: Method):
        return tuple(m.params), _DSL_COMMENT.sub("// DSL n:", source.spelled(m.body.text()))
    unique: dict[tuple, list[tuple[ir.Stage, Method]]] = {}
    for st, m in zip(stages, methods):
        unique.setdefault(same(m), []).append((st, m))
    merged: list[tuple[ir.Stage, Method]] = []
    method_of: dict[int, Method] = {}
    for group in unique.values():
        st, m = group[0]
        if len(group) > 1:
            m = Method(m.name, m.params, _merge_comments([g[1].body for g in group]), m.dsl_line)
        merged.append((st, m))
        for other, _ in group:
            method_of[id(other)] = m
    kinds = collections.Counter(st.kind for st, _ in merged)
    taken = set(reserved)
    for st, m in merged:
        name = STAGE_METHOD[st.kind]
        if kinds[st.kind] > 1:
            name += camel(_defines(st))
        base, i = name, 2
        while name in taken:
            name, i = f"{base}{i}", i + 1
        taken.add(name)
        m.name = name
    return [m for _, m in merged], method_of


def _defines(stage: ir.Stage) -> str:
    """The DSL name a stage is about: what it loads, computes or stores first."""
    for s in stage.body:
        if isinstance(s, (ir.Load, ir.Assign)):
            return s.target
        if isinstance(s, ir.Store):
            return s.dst.tensor
    return stage.kind.value


def _merge_comments(bodies: list[Emitter]) -> Emitter:
    """The first body, its `// DSL n:` comments naming the DSL lines of every body."""
    texts = [b.text().splitlines() for b in bodies]
    em = Emitter()
    for i, (text, dsl) in enumerate(zip(texts[0], bodies[0].source_map())):
        m = _DSL_COMMENT.search(text)
        if m:
            lines = sorted({int(n) for t in texts for n in _DSL_COMMENT.search(t[i]).group(1).split(", ")})
            text = text[:m.start()] + f"// DSL {', '.join(map(str, lines))}:" + text[m.end():]
        em.line(text, dsl=dsl)
    return em


def _var_order(v: str) -> int:
    return {"": 0, "start": 1, "len": 2, "index": 3}.get(v.partition(".")[2], 4)


def _store_places(body) -> list[tuple[object, bool, bool]]:
    """(statement, first, last) per statement of a copyout stage: whether it is the first and the
    last store of its value in the stage (a value stored to two outputs is dequeued once)."""
    names = [st.value.id if isinstance(st, ir.Store) else None for st in body]
    return [(st, n is None or n not in names[:i], n is None or n not in names[i + 1:])
            for i, (st, n) in enumerate(zip(body, names))]


def plain_copy(h: GmCopy, source: KernelSource) -> str:
    if h.rows:
        # DataCopy's block form: lengths and strides in whole 32-byte blocks (align proves or pads them)
        size = f"sizeof({h.dtype.cpp})"
        gap = row_gap(h)
        params = (f"DataCopyParams{{static_cast<uint16_t>({h.rows}), "
                  f"static_cast<uint16_t>({paren(h.cols)} * {size} / BLOCK_BYTES), "
                  + (f"static_cast<uint16_t>({gap} * {size} / BLOCK_BYTES), 0}}" if h.direction == "in"
                     else f"0, static_cast<uint16_t>({gap} * {size} / BLOCK_BYTES)}}"))
        return rows_copy(h, lambda gm, local: f"DataCopy({local}, {gm}, {params});" if h.direction == "in"
                         else f"DataCopy({gm}, {local}, {params});")
    if h.direction == "in":
        return f"DataCopy({h.local}, {h.gm}, {h.count});"
    return f"DataCopy({h.gm}, {h.local}, {h.count});"


def row_gap(h: GmCopy) -> str:
    """Elements between the end of one row and the start of the next in GM."""
    return "0" if h.gm_stride == h.cols else f"({h.gm_stride} - {paren(h.cols)})"


def rows_copy(h: GmCopy, statement) -> str:
    """The copy of a tile of rows: `statement(gm, local)` for one plane of rows, inside a loop per
    outer axis for a tile of rank 3 or more (one strided copy per plane, never one per row)."""
    if not h.outer:
        return statement(h.gm, h.local)
    lines, gm_terms, ub_terms = [], [h.gm_offset] if h.gm_offset != "0" else [], []
    for depth, (extent, gm_step, ub_step) in enumerate(h.outer):
        i = f"plane{depth}" if len(h.outer) > 1 else "plane"
        lines.append("    " * depth + f"for (int64_t {i} = 0; {i} < {extent}; ++{i}) {{")
        gm_terms.append(f"{i} * {paren(gm_step)}")
        ub_terms.append(f"{i} * {paren(ub_step)}")
    gm = f"{h.gm_tensor}[{' + '.join(gm_terms)}]"
    local = f"{h.local}[{' + '.join(ub_terms)}]"
    lines += ["    " * len(h.outer) + line for line in statement(gm, local).split("\n")]
    lines += ["    " * d + "}" for d in reversed(range(len(h.outer)))]
    return "\n".join(lines)


def plain_dequeue(h: InputDequeue, source: KernelSource) -> str:
    return h.text()


def check(plan: Plan, bundle: Bundle, options) -> list[Finding]:
    text, found = kernel_text(SPEC, plan, bundle)
    if text is None:
        return found
    decls = cpp.declarations(text)
    queues = {name for name, t in decls.items() if t.startswith(("TQue<", "TQueBind<"))}
    ops = cpp.calls(text, {"AllocTensor", "FreeTensor", "EnQue", "DeQue"})
    # a stage method called from several places (one copy-in for every sweep) counts that often
    starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]
    bodies = cpp.call_weights(text)

    def weight(line: int) -> int:
        at = starts[line - 1]
        return next((w for a, b, w in bodies if a <= at < b), 1)
    count = Counter()
    for c in ops:
        count[(c.receiver, c.name)] += weight(c.line)
    first = {}
    for c in ops:
        first.setdefault((c.receiver, c.name), c.line)
    for q in sorted(queues):
        pairs = (("AllocTensor", "FreeTensor", "tensor allocated from `{q}` is never freed",
                  "free it with {q}.FreeTensor(t) once its last reader is done"),
                 ("EnQue", "DeQue", "`{q}` is enqueued {a} time(s) but dequeued {b} time(s)",
                  "every EnQue needs the DeQue of the stage that consumes it"))
        for a_name, b_name, msg, help in pairs:
            a, b = count[(q, a_name)], count[(q, b_name)]
            if a != b:
                line = first.get((q, a_name)) or first.get((q, b_name)) or 0
                found.append(finding(SPEC, "queue-balance",
                                     msg.format(q=q, a=a, b=b) + f" ({a_name} x{a}, {b_name} x{b})",
                                     bundle, plan.kernel_path, line, help=help.format(q=q)))
    return found


def _padded_uses(stage: ir.Stage, name: str) -> tuple[bool, bool]:
    """(whole, tile): whether a stage needs the whole buffer of padded tile `name` (a fresh
    definition refills its padding; a padded window op reads it in place) and the tile itself."""
    whole = tile = False
    for st, _ in ir.walk_stmts(stage.body):
        if not isinstance(st, ir.Assign):
            continue
        reads = [n for n in ir.walk_exprs(st.value) if isinstance(n, ir.Name) and n.id == name]
        windows = [n for n in ir.walk_exprs(st.value) if isinstance(n, ir.Call) and n.op in OPS
                   and OPS[n.op].category == "window" and window_form(n) == "padded"
                   and isinstance(n.args[0], ir.Name) and n.args[0].id == name]
        if st.target == name:
            whole |= not reads
            tile = True
        whole |= bool(windows)
        tile |= len(reads) > len(windows)
    return whole, tile
