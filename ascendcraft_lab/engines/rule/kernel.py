"""Passes 2-4 (init, compute, align) of the rule engine: the kernel source, region by region.

`render_kernel(plan, level)` writes the kernel file as it stands after pass `level`:
  1 host     includes only, and placeholders quoting the DSL the later passes will lower;
  2 init     the entry function, the kernel class, Init (GlobalTensors with per-core
             offsets, TPipe, queues and buffers) and a placeholder for Process;
  3 compute  Process and the CopyIn / Compute / CopyOut methods, with plain DataCopy;
  4 align    DataCopyPad where a length is not provably 32-byte aligned, aligned buffer
             sizes, and whole-repeat padding for Compare.
The class follows the canonical AscendC shape (Init / Process / CopyIn / Compute / CopyOut).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ...dsl import ir
from ...dsl.buffers import ub_buffers
from ...dsl.host import SYNC_ALL_BYTES_PER_CORE, WORKSPACE_ALIGN, needs_workspace
from ...dsl.printer import expr_text
from ...passes.emit import Emitter
from ...passes.plan import Plan, cpp_name
from .cexpr import paren as _paren, render
from .compute import ComputeContext, ComputeLowering, LoweringError, Tile

_HELPER = {"min": "MinOf", "max": "MaxOf"}   # the kernel class's int64 helpers


def _min_max_of(e: ir.Call, args: list[str]) -> str | None:
    """min/max of sizes as the MinOf/MaxOf helpers (the checkers evaluate those, not `?:`)."""
    return f"{_HELPER[e.op]}({', '.join(args)})" if e.op in _HELPER else None


STAGE_METHOD = {ir.StageKind.copyin: "CopyIn", ir.StageKind.compute: "Compute", ir.StageKind.copyout: "CopyOut"}
STAGE_ORDER = {ir.StageKind.copyin: 0, ir.StageKind.compute: 1, ir.StageKind.copyout: 2}
SCALAR_LANES = 8            # one 32-byte block of f32: the scalar buffer's lanes
CMP_ALIGN_BYTES = 256       # Compare writes whole 256-byte repeats


@dataclass
class StageMethod:
    name: str
    stage: ir.Stage
    params: list[tuple[str, str]] = field(default_factory=list)   # (C++ type, name)
    body: Emitter | None = None


class KernelGen:
    def __init__(self, plan: Plan, level: int, src: str):
        self.plan, self.p, self.level, self.src = plan, plan.program, level, src
        self.align = level >= 4
        self.loops: dict[str, ir.For] = plan.loop_vars
        self.ub = ub_buffers(self.p)
        self.tiling_names = set(self.p.dim_names()) | {s.name for s in self.p.scalars}
        self.scalars = {n: t for n, t in self.p.kernel.locals if isinstance(t, ir.ScalarType) and n not in self.loops}
        self.stage_of: dict[int, StageMethod] = {}
        self.members_scalar = self._scalar_members()
        self.used_vars: set[str] | None = None
        self.slots = 0
        self.scalar_buf = False
        self.byte_masks = frozenset(
            [b.name for b in plan.tiles.values() if b.kind == "VECIN" and b.dtype is ir.DType.bool]
            + [s.target for s, _ in ir.walk_stmts(self.p.kernel.body) if isinstance(s, ir.Assign)
               and isinstance(s.value, ir.Call) and s.value.op == "cast" and isinstance(s.value.type, ir.TileType)
               and s.value.type.dtype is ir.DType.bool])
        self.compare = any(isinstance(n, ir.Call) and isinstance(n.type, ir.TileType) and (
            n.op in ("lt", "le", "gt", "ge", "eq", "ne")
            or (n.op == "where" and ((isinstance(n.args[0], ir.Name) and n.args[0].id in self.byte_masks)
                                     or (isinstance(n.args[0], ir.Call) and n.args[0].op == "cast"))))
            for n in ir.walk(self.p.kernel))
        self.scalar_out: dict[str, ir.DType] = {}       # scalars stored to GM -> their UB queue
        # every C++ name the DSL gives rise to; generated temporaries must not shadow one
        self.reserved = frozenset(cpp_name(n) for n, _ in self.p.kernel.locals) | frozenset(
            cpp_name(t.name) for t in self.p.tensors() + self.p.workspaces) | frozenset(cpp_name(s.name) for s in self.p.scalars) | frozenset(
            cpp_name(v) for v in self.loops)
        self._declared: set[str] = set()                # scalar locals declared in the current method
        self.size_members = self._size_members()
        self.methods = self._stage_methods()
        # sync_all() lowers to SyncAll's soft form: a kernel-launch project (<<<>>>) cannot use the
        # hardware form, which CANN supports in op projects only.
        self.sync_line = next((s.span.line for s in self.p.kernel.body if isinstance(s, ir.SyncAll)), 0)
        clash = {"syncWork", "syncFlags"} & self.reserved
        if self.sync_line and clash:
            raise LoweringError(f"`{min(clash)}` names SyncAll's work areas in the generated kernel; rename it in the DSL")

    # -- naming -----------------------------------------------------------------------------
    def names(self, e: ir.Expr) -> str:
        tp = self.p.tiling_param
        if isinstance(e, ir.Attr):
            if tp is not None and e.obj.id == tp.name:
                return f"tiling.{e.attr}"
            if e.obj.id in self.loops:
                self._use(e.obj.id, e.attr)
                return f"{cpp_name(e.obj.id)}{e.attr.capitalize()}"
            raise LoweringError(f"`{expr_text(e)}` has no C++ meaning here", e)
        if isinstance(e, ir.Name):
            if e.id in self.loops:
                self._use(e.id, None)
                return cpp_name(e.id)
            if e.id in self.tiling_names:
                return f"tiling.{e.id}"
            return cpp_name(e.id)
        raise LoweringError(f"`{expr_text(e)}` has no C++ meaning here", e)

    def _use(self, var: str, attr: str | None) -> None:
        if self.used_vars is not None:
            self.used_vars.add(f"{var}.{attr}" if attr else var)

    def scalar_text(self, e: ir.Expr, floats: bool = False) -> str:
        return render(e, self.names, floats=floats, call=self._size_call)

    def _size_call(self, e: ir.Call, args: list[str]) -> str | None:
        """A tensor size given by an expression (a pooled output's length) has its own member."""
        return self.size_members.get(e)

    def _size_members(self) -> dict[ir.Expr, str]:
        """C++ members for the dims of tensors written as expressions, e.g. `outW` for an output
        dim `(W - 5) // 2 + 1`: computed once in Init, so the kernel reads a name, not the formula."""
        dims = set(self.p.dim_names())
        out: dict[ir.Expr, str] = {}
        taken = set(self.reserved)
        for t in self.p.tensors():
            for i, d in enumerate(t.dims):
                if not isinstance(d, ir.Call) or d in out:
                    continue
                inner = sorted({n.id for n in ir.walk_exprs(d) if isinstance(n, ir.Name) and n.id in dims})
                name = f"out{inner[0]}" if len(inner) == 1 else f"{cpp_name(t.name)}Dim{i}"
                while name in taken:
                    name += "_"
                taken.add(name)
                out[d] = name
        return out

    def count(self, t: ir.TileType, exact: bool = False) -> str:
        text = "1"
        for d in t.shape:
            part = self.scalar_text(d)
            text = part if text == "1" else f"{text} * ({part})"
        if self.align and self.compare and not exact:
            return f"AlignUp({text}, CMP_ALIGN)"
        return text

    def _scalar_members(self) -> set[str]:
        """Scalars that outlive one stage method become class members."""
        where: dict[str, set[int]] = {}
        outside: set[str] = set()

        def walk(stmts, stage_id):
            for s in stmts:
                if isinstance(s, ir.Stage):
                    walk(s.body, id(s))
                    continue
                exprs = []
                if isinstance(s, ir.Assign):
                    exprs = [s.value]
                    if stage_id is None:
                        outside.add(s.target)
                    where.setdefault(s.target, set()).add(stage_id or 0)
                elif isinstance(s, ir.Load):
                    where.setdefault(s.target, set()).add(stage_id or 0)
                    exprs = [i.expr for i in (s.src.index or ()) if isinstance(i, ir.IndexExpr)]
                elif isinstance(s, ir.Store):
                    exprs = [s.value] + [i.expr for i in (s.dst.index or ()) if isinstance(i, ir.IndexExpr)]
                elif isinstance(s, ir.If):
                    exprs = [s.cond]
                elif isinstance(s, ir.For):
                    exprs = [getattr(s.iter, f) for f in s.iter.__dataclass_fields__ if f != "span"]
                for e in exprs:
                    for n in ir.walk_exprs(e):
                        if isinstance(n, ir.Name) and n.id in self.scalars:
                            where.setdefault(n.id, set()).add(stage_id or 0)
                if isinstance(s, (ir.For, ir.If)):
                    walk(s.body, stage_id)
                    if isinstance(s, ir.If):
                        walk(s.orelse, stage_id)

        walk(self.p.kernel.body, None)
        return {n for n in self.scalars if n in outside or len(where.get(n, ())) > 1 or 0 in where.get(n, ())}

    # -- stage methods ----------------------------------------------------------------------
    def _stage_methods(self) -> list[StageMethod]:
        groups: list[list[ir.Stage]] = []

        def collect(stmts):
            run: list[ir.Stage] = []
            for s in stmts:
                if isinstance(s, ir.Stage):
                    # a group is one copyin -> compute -> copyout pass: a stage that does not come
                    # after the previous one in that order starts the next group (a compute of
                    # per-column values, then the copyin of the next sweep's first step)
                    if run and STAGE_ORDER[s.kind] <= STAGE_ORDER[run[-1].kind]:
                        groups.append(run)
                        run = []
                    run.append(s)
                    continue
                if run:
                    groups.append(run)
                    run = []
                if isinstance(s, ir.For):
                    collect(s.body)
                elif isinstance(s, ir.If):
                    collect(s.body)
                    collect(s.orelse)
            if run:
                groups.append(run)

        collect(self.p.kernel.body)
        numbered = len(groups) > 1
        methods = []
        group_of: dict[int, int] = {}
        for gi, group in enumerate(groups, 1):
            for st in group:
                m = StageMethod(STAGE_METHOD[st.kind] + (str(gi) if numbered else ""), st)
                self.stage_of[id(st)] = m
                group_of[id(st)] = gi
                methods.append(m)
        self.persistent = self._persistent_tiles(groups, group_of)
        for m in methods:
            self._render_stage(m)
        return methods

    def _persistent_tiles(self, groups, group_of) -> set[str]:
        """Loaded tiles read by compute stages of another stage group (a weight loaded once per
        core, used for every row): dequeued once after their copy and kept until the end."""
        loaded: dict[str, set[int]] = {}
        for group in groups:
            for st in group:
                if st.kind is ir.StageKind.copyin:
                    for s in st.body:
                        if isinstance(s, ir.Load) and isinstance(self.p.local_type(s.target), ir.TileType):
                            loaded.setdefault(s.target, set()).add(group_of[id(st)])
        keep = set()
        for group in groups:
            for st in group:
                if st.kind is ir.StageKind.compute:
                    reads = {n.id for x in st.body for n in ir.walk(x) if isinstance(n, ir.Name)}
                    # A name loaded again in this compute's own group is a per-tile queue here.
                    keep |= {t for t in reads if t in loaded and group_of[id(st)] not in loaded[t]}
        return keep

    def _render_stage(self, m: StageMethod) -> None:
        em = Emitter()
        self.used_vars = set()
        self._declared = set()
        ctx = self._context(em)
        lower = ComputeLowering(ctx)
        kind = m.stage.kind
        if kind is ir.StageKind.copyin:
            for st in m.stage.body:
                with em.dsl(st.span.line):
                    em.line(f"// DSL {st.span.line}: {_dsl_text(self.p, st)}")
                    self._copy_in(em, st)
        elif kind is ir.StageKind.copyout:
            for st in m.stage.body:
                with em.dsl(st.span.line):
                    em.line(f"// DSL {st.span.line}: {_dsl_text(self.p, st)}")
                    self._copy_out(em, st)
        else:
            self._compute(em, m.stage, lower, ctx)
        self.slots = max(self.slots, ctx.max_slots)
        self.scalar_buf = self.scalar_buf or ctx.uses_scalar_buf
        m.body = em
        params = []
        order = list(self.loops)
        for v in sorted(self.used_vars, key=lambda v: (order.index(v.partition(".")[0]) if v.partition(".")[0] in order else 99, _var_order(v))):
            var, _, attr = v.partition(".")
            ctype = "int64_t"
            params.append((ctype, f"{cpp_name(var)}{attr.capitalize()}" if attr else cpp_name(var)))
        m.params = params
        self.used_vars = None

    def _context(self, em: Emitter) -> ComputeContext:
        """What the compute lowering of one method (or of Process) needs from this kernel."""
        return ComputeContext(names=self.names, text=self.scalar_text, count=self.count, tile_of=self._tile_of,
                              align=self.align, em=em, reserved=self.reserved, byte_masks=self.byte_masks,
                              sizes=self.size_members)

    def _tile_of(self, name: str) -> Tile:
        t = self.p.local_type(name)
        return Tile(cpp_name(name), t.dtype)

    # -- copies -------------------------------------------------------------------------------
    def gm_offset(self, ref: ir.GmRef) -> tuple[str, ir.TensorParam]:
        """Element offset of a GM view, relative to this core's slice when the tensor is sliced."""
        t = self.p.param(ref.tensor)
        shape = t.shape
        gm = self.plan.gm[ref.tensor]
        terms = []
        for axis, ix in enumerate(ref.index or ()):
            stride = None
            for d in shape[axis + 1:]:
                part = _paren(self.scalar_text(d))
                stride = part if stride is None else f"{stride} * {part}"
            if isinstance(ix, ir.IndexExpr):
                e = ix.expr
                if isinstance(e.type, ir.RangeType):
                    base = f"{self.names(ir.Attr(e, 'start'))}"
                else:
                    base = self.scalar_text(e)
                    if axis == 0 and gm.core_var and isinstance(e, ir.Name) and e.id == gm.core_var:
                        base = f"({base} - {cpp_name(gm.core_var)}Begin)"
            elif isinstance(ix, ir.IndexSlice):
                if ix.lo is None:
                    continue
                base = self.scalar_text(ix.lo)
            else:
                start = self.names(ir.Attr(ix.var, "start"))
                base = f"{start} * {self.scalar_text(ix.stride)}"
            if base in ("0",):
                continue
            terms.append(base if stride is None else f"{_paren(base)} * {stride}")
        kept = [i for i, ix in enumerate(ref.index or ()) if not (isinstance(ix, ir.IndexExpr) and not isinstance(ix.expr.type, ir.RangeType))]
        if kept and kept[-1] != len(shape) - 1 and any(self.scalar_text(d) != "1" for d in shape[kept[-1] + 1:]):
            raise LoweringError(f"`{expr_text(ref.tensor) if False else ref.tensor}` is tiled along axis {kept[-1]}, "
                                "which is not the last: the copy would be strided; view the axes so the tiled one is last", ref)
        return (" + ".join(terms) or "0"), t

    def _copy(self, em: Emitter, direction: str, gm_expr: str, local: str, dtype: ir.DType, count: str,
              pad_value: bool = True) -> None:
        if not self.align:
            if direction == "in":
                em.line(f"DataCopy({local}, {gm_expr}, {count});")
            else:
                em.line(f"DataCopy({gm_expr}, {local}, {count});")
            return
        if not self.plan.soc.has_datacopypad:
            raise LoweringError(f"{self.plan.soc.name} has no DataCopyPad and `{count}` elements is not provably a "
                                "multiple of 32 bytes; make the tile and the row lengths multiples of "
                                f"{32 // dtype.nbytes} elements")
        bytes_ = f"static_cast<uint32_t>({_paren(count)} * sizeof({dtype.cpp}))"
        if direction == "in":
            em.line(f"// {count} elements may not fill whole 32-byte blocks: DataCopyPad pads the last block with 0")
            em.line(f"DataCopyExtParams {local}Copy{{1, {bytes_}, 0, 0, 0}};")
            em.line(f"DataCopyPadExtParams<{dtype.cpp}> {local}Pad{{true, 0, "
                    f"static_cast<uint8_t>(AlignUp({count}, {32 // dtype.nbytes}) - {_paren(count)}), 0}};")
            em.line(f"DataCopyPad({local}, {gm_expr}, {local}Copy, {local}Pad);")
        else:
            em.line(f"// DataCopyPad writes exactly {count} elements (DataCopy would round down to 32 bytes)")
            em.line(f"DataCopyExtParams {local}Copy{{1, {bytes_}, 0, 0, 0}};")
            em.line(f"DataCopyPad({gm_expr}, {local}, {local}Copy);")

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
            decl = "" if st.target in self.members_scalar or st.target in self._declared else f"{ty.dtype.cpp} "
            self._declared.add(st.target)
            em.line(f"{decl}{name} = {t.name}Gm.GetValue({off});")
            return
        q = f"{name}Queue"
        keep = st.target in self.persistent
        em.line(f"{'' if keep else f'LocalTensor<{ty.dtype.cpp}> '}{name} = {q}.AllocTensor<{ty.dtype.cpp}>();")
        self._copy(em, "in", f"{t.name}Gm[{off}]", name, ty.dtype, self.count(ty, exact=True))
        em.line(f"{q}.EnQue({name});")
        if keep:
            em.line(f"{name} = {q}.DeQue<{ty.dtype.cpp}>();  // wait for the copy once; `{name}` stays in UB for the later stages")

    def _copy_out(self, em: Emitter, st) -> None:
        if not isinstance(st, ir.Store):
            raise LoweringError("a copyout stage holds stores only", st)
        off, t = self.gm_offset(st.dst)
        vt = st.value.type
        name = cpp_name(st.value.id)
        if st.accumulate:
            em.line(f"SetAtomicAdd<{t.dtype.cpp}>();  // every core adds its part (the output starts at zero)")
        if isinstance(vt, ir.ScalarType):
            q = f"{name}OutQueue"
            self.scalar_out[st.value.id] = vt.dtype
            em.line(f"LocalTensor<{vt.dtype.cpp}> {name}Out = {q}.AllocTensor<{vt.dtype.cpp}>();")
            em.line(f"{name}Out.SetValue(0, {name});")
            em.line("// the scalar unit wrote the UB value the copy engine reads next")
            ready = f"{name}OutReady"   # one event per stored scalar: a stage may store several
            em.line(f"TEventID {ready} = GetTPipePtr()->FetchEventID(HardEvent::S_MTE3);")
            em.line(f"SetFlag<HardEvent::S_MTE3>({ready});")
            em.line(f"WaitFlag<HardEvent::S_MTE3>({ready});")
            self._copy(em, "out", f"{t.name}Gm[{off}]", f"{name}Out", vt.dtype, "1")
            em.line(f"{q}.FreeTensor({name}Out);")
        else:
            q = f"{name}Queue"
            em.line(f"LocalTensor<{vt.dtype.cpp}> {name} = {q}.DeQue<{vt.dtype.cpp}>();")
            self._copy(em, "out", f"{t.name}Gm[{off}]", name, vt.dtype, self.count(vt, exact=True))
            em.line(f"{q}.FreeTensor({name});")
        if st.accumulate:
            em.line("SetAtomicNone();")

    # -- compute ------------------------------------------------------------------------------
    def _compute(self, em: Emitter, stage: ir.Stage, lower: ComputeLowering, ctx: ComputeContext) -> None:
        reads = {n.id for s in stage.body for n in ir.walk(s) if isinstance(n, ir.Name)}
        defined = [s.target for s in stage.body if isinstance(s, ir.Assign)]
        ins = [b for b in self.ub.buffers if b.role == "VECIN" and b.name in reads and b.name not in self.persistent]
        outs = [b for b in self.ub.buffers if b.role == "VECOUT" and b.name in defined]
        calcs = [b for b in self.ub.buffers if b.role == "VECCALC" and (b.name in defined or b.name in reads)]
        with em.dsl(stage.span.line):
            for b in ins:
                em.line(f"LocalTensor<{b.dtype.cpp}> {cpp_name(b.name)} = {b.name}Queue.DeQue<{b.dtype.cpp}>();")
                if self.align and self.compare:
                    em.line(f"ZeroTail({cpp_name(b.name)}, {self.count(self.p.local_type(b.name), exact=True)});")
            for b in outs:
                em.line(f"LocalTensor<{b.dtype.cpp}> {cpp_name(b.name)} = {b.name}Queue.AllocTensor<{b.dtype.cpp}>();")
            for b in calcs:
                em.line(f"LocalTensor<{b.dtype.cpp}> {cpp_name(b.name)} = {b.name}Buf.Get<{b.dtype.cpp}>();")
        for st in stage.body:
            with em.dsl(st.span.line):
                em.line(f"// DSL {st.span.line}: {_dsl_text(self.p, st)}")
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
                lower.assign_tile(Tile(cpp_name(st.target), ty.dtype), st.value)
            else:
                value = lower.scalar(st.value)
                decl = "" if st.target in self.members_scalar or st.target in self._declared else f"{ty.dtype.cpp} "
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

    # -- Process ------------------------------------------------------------------------------
    def _process_body(self, em: Emitter, stmts, lower: ComputeLowering) -> None:
        kept = [x.target for s in stmts if isinstance(s, ir.Stage) and s.kind is ir.StageKind.copyin
                for x in s.body if isinstance(x, ir.Load) and x.target in self.persistent]
        self._process_stmts(em, stmts, lower)
        for name in kept:
            em.line(f"{name}Queue.FreeTensor({cpp_name(name)});")

    def _process_stmts(self, em: Emitter, stmts, lower: ComputeLowering) -> None:
        for s in stmts:
            line = s.span.line
            with em.dsl(line):
                if isinstance(s, ir.Stage):
                    m = self.stage_of[id(s)]
                    args = ", ".join(name for _, name in m.params)
                    em.line(f"{m.name}({args});")
                elif isinstance(s, ir.For):
                    self._loop(em, s, lower)
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
        v = cpp_name(s.var)
        it = s.iter
        head = f"// DSL {s.span.line}: {_dsl_text(self.p, s)}"
        em.line(head)
        if isinstance(it, ir.CoreRows):
            with em.block(f"for (int64_t {v} = {v}Begin; {v} < {v}End; ++{v})"):
                self._process_body(em, s.body, lower)
        elif isinstance(it, ir.CoreChunk):
            with em.block(f"if ({v}Len > 0)"):
                self._process_body(em, s.body, lower)
        elif isinstance(it, ir.Tiles):
            step = self.scalar_text(it.step)
            if isinstance(it.extent.type, ir.RangeType):
                r = cpp_name(it.extent.id)
                base, end = f"{r}Start", f"{r}Start + {r}Len"
            else:
                base, end = "0", self.scalar_text(it.extent)
            with em.block(f"for (int64_t {v}Start = {base}; {v}Start < {end}; {v}Start += {step})"):
                em.line(f"const int64_t {v}Len = MinOf({step}, {_paren(end)} - {v}Start);")
                uses_index = any(isinstance(n, ir.Attr) and n.obj.id == s.var and n.attr == "index"
                                 for n in ir.walk(ir.Stage(ir.StageKind.compute, s.body)))
                if uses_index:
                    em.line(f"const int64_t {v}Index = ({v}Start - {base}) / {_paren(step)};")
                self._process_body(em, s.body, lower)
        else:
            start, stop, step = (self.scalar_text(x) for x in (it.start, it.stop, it.step))
            inc = f"++{v}" if step == "1" else f"--{v}" if step == "-1" else f"{v} += {step}"
            if isinstance(it.step, ir.Const):
                cond = f"{v} > {stop}" if float(it.step.value) < 0 else f"{v} < {stop}"
            else:   # the sign of the step is known only at run time, as in Python's range
                cond = f"({step} > 0 ? {v} < {stop} : {v} > {stop})"
            with em.block(f"for (int64_t {v} = {start}; {cond}; {inc})"):
                self._process_body(em, s.body, lower)

    # -- the file -----------------------------------------------------------------------------
    def render(self) -> Emitter:
        p, plan = self.p, self.plan
        em = Emitter()
        em.line(f"// {plan.entry}: AscendC vector kernel, one instance per core.")
        em.line(f"// Generated by AscendCraft Lab (rule engine) from {self.src}; `DSL n` comments name the line each block implements.")
        em.line('#include "kernel_operator.h"')
        em.line(f'#include "{plan.op}_tiling.h"')
        em.blank()
        em.line("using namespace AscendC;")
        em.blank()
        if self.level < 2:
            self._placeholder(em, 2, "init", "the kernel entry, the kernel class, GlobalTensors and UB buffers for",
                              [p.kernel.span.line])
            self._placeholder(em, 3, "compute", "Process and CopyIn / Compute / CopyOut for", _body_lines(p.kernel.body))
            return em
        if self.level >= 3:
            # Scalar math in Process itself (outside any stage) may need the scalar buffer too;
            # find out before Init is written, which initialises it.
            probe = self._context(Emitter())
            self._process_body(probe.em, p.kernel.body, ComputeLowering(probe))
            self.scalar_buf = self.scalar_buf or probe.uses_scalar_buf
        em.line("constexpr int32_t BUFFER_NUM = 2;  // double buffering: copy-in of tile i+1 overlaps compute of tile i")
        if self.level >= 3 and self.scalar_buf:
            em.line(f"constexpr int32_t SCALAR_LANES = {SCALAR_LANES};  // one 32-byte block of f32")
        if self.align and self.compare:
            em.line(f"constexpr int64_t CMP_ALIGN = {CMP_ALIGN_BYTES // 4};  // Compare works on whole 256-byte repeats")
        if self.sync_line:
            em.line(f"constexpr int32_t SYNC_ALL_INTS = {SYNC_ALL_BYTES_PER_CORE // 4};  "
                    f"// SyncAll (soft form): {SYNC_ALL_BYTES_PER_CORE} B of GM flags and of UB work area per core")
            em.line(f"constexpr int32_t SYNC_ALL_MAX_CORES = {plan.soc.vector_cores};  "
                    f"// {plan.soc.name}'s vector cores: the most blocks a launch that syncs may have")
        em.blank()
        with em.block(f"class {plan.cls}", "};"):
            em.label("public:")
            if True:
                em.line(f"__aicore__ inline {plan.cls}() {{}}")
                em.blank()
                self._init(em)
                em.blank()
                with em.block("__aicore__ inline void Process()", dsl=p.kernel.span.line):
                    if self.level < 3:
                        self._placeholder(em, 3, "compute", "the tile loop and the stage calls for", _body_lines(p.kernel.body))
                    else:
                        ctx = self._context(em)
                        lower = ComputeLowering(ctx)
                        self._process_body(em, p.kernel.body, lower)
                        self.scalar_buf = self.scalar_buf or ctx.uses_scalar_buf
            em.blank()
            em.label("private:")
            if True:
                if self.level >= 3:
                    for m in self.methods:
                        params = ", ".join(f"{t} {n}" for t, n in m.params)
                        with em.block(f"__aicore__ inline void {m.name}({params})", dsl=m.stage.span.line):
                            for text, line in zip(m.body.text().splitlines(), m.body.source_map()):
                                em.line(text, dsl=line)
                        em.blank()
                self._helpers(em)
                self._members(em)
        em.blank()
        self._entry(em)
        return em

    def _placeholder(self, em: Emitter, number: int, name: str, what: str, lines: list[int]) -> None:
        src_lines = self.p.source.splitlines()
        em.line(f"// TODO(pass {number} {name}): {what}", dsl=lines[0] if lines else 0)
        for ln in lines:
            if 0 < ln <= len(src_lines):
                em.line(f"//   {ln:3d} | {src_lines[ln - 1].rstrip()}", dsl=ln)

    def _init(self, em: Emitter) -> None:
        p, plan = self.p, self.plan
        gm_args = ", ".join(f"GM_ADDR {cpp_name(t.name)}" for t in p.tensors()) + (", GM_ADDR workspace" if needs_workspace(p) else "")
        with em.block(f"__aicore__ inline void Init({gm_args}, const {plan.tiling_struct} &tilingData)", dsl=p.kernel.span.line):
            em.line("tiling = tilingData;")
            for d, name in self.size_members.items():   # MinOf/MaxOf, which the checkers read
                em.line(f"{name} = {render(d, self.names, call=_min_max_of)};  // {expr_text(d)}")
            for s, _ in ir.walk_stmts(p.kernel.body):
                if isinstance(s, ir.For) and isinstance(s.iter, (ir.CoreRows, ir.CoreChunk)):
                    v = cpp_name(s.var)
                    per, total = ((s.iter.rows, s.iter.total) if isinstance(s.iter, ir.CoreRows) else (s.iter.size, s.iter.total))
                    fields = {id(n.obj) for n in ir.walk_exprs(ir.Call("add", (per, total))) if isinstance(n, ir.Attr)}
                    late = sorted({n.id for n in ir.walk_exprs(ir.Call("add", (per, total))) if isinstance(n, ir.Name)
                                   and id(n) not in fields and n.id not in self.tiling_names})
                    if late:
                        raise LoweringError(f"`{_dsl_text(p, s)}` reads the kernel scalar `{late[0]}`, but the rule engine "
                                            "splits the work over the cores in Init, before the kernel's scalars exist; "
                                            "write it with dims, scalar parameters and tiling fields", s)
                    per, total = self.scalar_text(per), self.scalar_text(total)
                    with em.dsl(s.span.line):
                        if isinstance(s.iter, ir.CoreRows):
                            em.line(f"// DSL {s.span.line}: this core owns rows [{v}Begin, {v}End) of {_dsl_text(p, s)}")
                            em.line(f"{v}Begin = MinOf(static_cast<int64_t>(GetBlockIdx()) * {_paren(per)}, {total});")
                            em.line(f"{v}End = MinOf({v}Begin + {_paren(per)}, {total});")
                        else:
                            em.line(f"// DSL {s.span.line}: this core owns [{v}Start, {v}Start + {v}Len) of {_dsl_text(p, s)}")
                            em.line(f"{v}Start = MinOf(static_cast<int64_t>(GetBlockIdx()) * {_paren(per)}, {total});")
                            em.line(f"{v}Len = MinOf({v}Start + {_paren(per)}, {total}) - {v}Start;")
            for t in p.tensors():
                gm = plan.gm[t.name]
                total = " * ".join(_paren(self.scalar_text(d)) for d in t.shape) or "1"
                ptr = f"(__gm__ {t.dtype.cpp} *){cpp_name(t.name)}"
                with em.dsl(t.span.line):
                    if gm.core_var:
                        v = cpp_name(gm.core_var)
                        row = " * ".join(_paren(self.scalar_text(d)) for d in t.shape[1:]) or "1"
                        em.line(f"{t.name}Gm.SetGlobalBuffer({ptr} + {v}Begin * {_paren(row)}, ({v}End - {v}Begin) * {_paren(row)});")
                    else:
                        em.line(f"{t.name}Gm.SetGlobalBuffer({ptr}, {total});")
            offset = "0"
            for t in p.workspaces:
                total = " * ".join(_paren(self.scalar_text(d)) for d in t.shape) or "1"
                with em.dsl(t.span.line):
                    at = "workspace" if offset == "0" else f"workspace + {offset}"
                    em.line(f"// `{t.name}`: GM scratch shared by the cores, {offset} B into the launch's workspace (zeroed by the host)")
                    em.line(f"{t.name}Gm.SetGlobalBuffer((__gm__ {t.dtype.cpp} *)({at}), {total});")
                step = f"({_paren(total)} * sizeof({t.dtype.cpp}) + {WORKSPACE_ALIGN - 1}) / {WORKSPACE_ALIGN} * {WORKSPACE_ALIGN}"
                offset = step if offset == "0" else f"{offset} + {step}"
            if self.sync_line:
                with em.dsl(self.sync_line):
                    at = "workspace" if offset == "0" else f"workspace + {offset}"
                    where = "at the start of" if offset == "0" else "after the Workspace tensors in"
                    em.line(f"// SyncAll's flags, {where} the launch's workspace (zeroed by the host): the soft")
                    em.line("// form, as a kernel-launch project cannot use the hardware SyncAll()")
                    em.line(f"syncFlagsGm.SetGlobalBuffer((__gm__ int32_t *)({at}), GetBlockNum() * SYNC_ALL_INTS);")
            for b in self.ub.buffers:
                if b.level is not ir.Level.UB:
                    raise LoweringError(f"tile `{b.name}` is in {b.level.value}: the rule engine lowers vector kernels only")
                caps = [c for c in b.capacities if c is not None]
                if not caps:
                    raise LoweringError(f"tile `{b.name}` has no size known before the loop; size tiles by tiling fields")
                cap = self._max_text(caps)
                with em.dsl(b.sites[0].line if b.sites else 0):
                    nbytes = self._buffer_bytes(cap, b.dtype)
                    if b.role == "VECCALC":
                        em.line(f"pipe.InitBuffer({b.name}Buf, {nbytes});")
                    else:
                        em.line(f"pipe.InitBuffer({b.name}Queue, BUFFER_NUM, {nbytes});")
            if self.level >= 3:
                for name, dt in self.scalar_out.items():
                    em.line(f"pipe.InitBuffer({name}OutQueue, 1, 32);  // one block for the scalar `{name}`")
                if self.slots:
                    caps = [c for need in self.ub.scratch for c, _ in need.sizes if c is not None]
                    caps = caps or [c for b in self.ub.buffers for c in b.capacities if c is not None]
                    # A slot holds a temporary of any dtype the statements compute (f32 math on f16 tiles).
                    # 8-byte tiles (int64 indices) widen the slots only when a statement with temporaries
                    # touches one.
                    in_scratch = {dt.nbytes for need in self.ub.scratch for _, dt in need.sizes}
                    widest = max([b.dtype.nbytes for b in self.ub.buffers if b.dtype.nbytes <= 4 or b.dtype.nbytes in in_scratch]
                                 + sorted(in_scratch), default=4)
                    em.line(f"scratchSlotBytes = {self._buffer_bytes(self._max_text(caps), None, widest)};")
                    em.line(f"pipe.InitBuffer(scratchBuf, {self.slots} * scratchSlotBytes);  // {self.slots} temporaries")
                if self.scalar_buf:
                    em.line("pipe.InitBuffer(scalarBuf, SCALAR_LANES * sizeof(float));")
                    em.line("scalarTmp = scalarBuf.Get<float>();")
            if self.sync_line:
                with em.dsl(self.sync_line):
                    em.line("// SyncAll's UB work area, sized for the widest launch as the UB plan counts it")
                    em.line("pipe.InitBuffer(syncWorkBuf, SYNC_ALL_MAX_CORES * SYNC_ALL_INTS * sizeof(int32_t));")
                    em.line("syncWork = syncWorkBuf.Get<int32_t>();")

    def _max_text(self, caps) -> str:
        def flat(c):     # max(a, b) as two sizes
            return [x for a in c.args for x in flat(a)] if isinstance(c, ir.Call) and c.op == "max" else [c]

        def size_text(c):  # min/max as the MinOf/MaxOf helpers, which the checkers read
            return render(c, self.names, call=lambda e, args: self.size_members.get(e) or _min_max_of(e, args))
        texts = list(dict.fromkeys(size_text(x) for c in caps for x in flat(c)))
        out = texts[0]
        for t in texts[1:]:
            out = f"MaxOf({out}, {t})"
        return out

    def _buffer_bytes(self, cap: str, dtype: ir.DType | None, nbytes: int | None = None) -> str:
        size = f"sizeof({dtype.cpp})" if dtype else str(nbytes)
        if not self.align:
            return f"{_paren(cap)} * {size}"
        unit = CMP_ALIGN_BYTES if self.compare else 32
        return f"AlignUp({_paren(cap)} * {size}, {unit})"

    def _helpers(self, em: Emitter) -> None:
        em.line("__aicore__ inline static int64_t MinOf(int64_t a, int64_t b) { return a < b ? a : b; }")
        if "MaxOf(" in em.text() or any("MaxOf(" in m.body.text() for m in self.methods) \
                or len({c for b in self.ub.buffers for c in b.capacities}) > 1:
            em.line("__aicore__ inline static int64_t MaxOf(int64_t a, int64_t b) { return a > b ? a : b; }")
        if self.align:
            em.line("__aicore__ inline static int64_t AlignUp(int64_t a, int64_t m) { return (a + m - 1) / m * m; }")
        if self.level >= 3 and self.slots:
            em.blank()
            em.line("// Slot `i` of the scratch buffer, viewed as T: the temporaries of one compute statement.")
            with em.block("template <typename T> __aicore__ inline LocalTensor<T> Scratch(int32_t i)"):
                em.line("return scratchBuf.Get<uint8_t>()[i * scratchSlotBytes].ReinterpretCast<T>();")
        if self.align and self.compare:
            em.blank()
            em.line("// Compare reads whole 256-byte repeats: zero a loaded tile from its 32-byte end to the repeat end.")
            dtypes = sorted({b.dtype for b in self.ub.buffers if b.role == "VECIN"}, key=lambda d: d.value)
            for dt in dtypes:
                with em.block(f"__aicore__ inline void ZeroTail(const LocalTensor<{dt.cpp}> &t, int64_t n)"):
                    per = 32 // dt.nbytes
                    em.line(f"const int64_t filled = AlignUp(n, {per});")
                    em.line("const int64_t wanted = AlignUp(n, CMP_ALIGN);")
                    with em.block("if (wanted > filled)"):
                        if dt.nbytes == 1:
                            # Duplicate takes no 8-bit type: zero the (even, 32-byte aligned) tail as 16-bit lanes.
                            em.line("Duplicate(t[filled].ReinterpretCast<uint16_t>(), static_cast<uint16_t>(0), "
                                    "static_cast<int32_t>((wanted - filled) / 2));")
                        else:
                            em.line(f"Duplicate(t[filled], static_cast<{dt.cpp}>(0), static_cast<int32_t>(wanted - filled));")
                        em.line("PipeBarrier<PIPE_V>();")
        em.blank()

    def _members(self, em: Emitter) -> None:
        p, plan = self.p, self.plan
        em.line("TPipe pipe;")
        for b in self.ub.buffers:
            if b.role == "VECCALC":
                em.line(f"TBuf<TPosition::VECCALC> {b.name}Buf;", dsl=b.sites[0].line if b.sites else 0)
            else:
                em.line(f"TQue<TPosition::{b.role}, 1> {b.name}Queue;", dsl=b.sites[0].line if b.sites else 0)
        if self.level >= 3:
            for name in self.scalar_out:
                em.line(f"TQue<TPosition::VECOUT, 1> {name}OutQueue;")
            if self.slots:
                em.line("TBuf<TPosition::VECCALC> scratchBuf;")
            if self.scalar_buf:
                em.line("TBuf<TPosition::VECCALC> scalarBuf;")
                em.line("LocalTensor<float> scalarTmp;")
        if self.sync_line:
            em.line("TBuf<TPosition::VECCALC> syncWorkBuf;", dsl=self.sync_line)
            em.line("LocalTensor<int32_t> syncWork;", dsl=self.sync_line)
        for t in p.tensors() + p.workspaces:
            em.line(f"GlobalTensor<{t.dtype.cpp}> {t.name}Gm;", dsl=t.span.line)
        if self.sync_line:
            em.line("GlobalTensor<int32_t> syncFlagsGm;", dsl=self.sync_line)
        em.line(f"{plan.tiling_struct} tiling;")
        for s, _ in ir.walk_stmts(p.kernel.body):
            if isinstance(s, ir.For) and isinstance(s.iter, ir.CoreRows):
                em.line(f"int64_t {cpp_name(s.var)}Begin = 0;", dsl=s.span.line)
                em.line(f"int64_t {cpp_name(s.var)}End = 0;", dsl=s.span.line)
            elif isinstance(s, ir.For) and isinstance(s.iter, ir.CoreChunk):
                em.line(f"int64_t {cpp_name(s.var)}Start = 0;", dsl=s.span.line)
                em.line(f"int64_t {cpp_name(s.var)}Len = 0;", dsl=s.span.line)
        if self.level >= 3:
            for name in sorted(self.persistent):
                em.line(f"LocalTensor<{self.p.local_type(name).dtype.cpp}> {cpp_name(name)};  // loaded once per core")
            if self.slots:
                em.line("int64_t scratchSlotBytes = 0;")
            for name in sorted(self.members_scalar):
                em.line(f"{self.scalars[name].dtype.cpp} {cpp_name(name)} = 0;")
        for d, name in self.size_members.items():
            em.line(f"int64_t {name} = 0;  // {expr_text(d)}")

    def _entry(self, em: Emitter) -> None:
        p, plan = self.p, self.plan
        gm = [cpp_name(t.name) for t in p.tensors()]
        params = ", ".join(f"GM_ADDR {n}" for n in gm + ["workspace", "tiling"])
        with em.block(f'extern "C" __global__ __aicore__ void {plan.entry}({params})', dsl=p.kernel.span.line):
            if not needs_workspace(p):
                em.line("(void)workspace;  // this kernel needs no GM workspace")
            em.line(f"// A kernel-launch project reads its tiling struct straight from GM (GET_TILING_DATA")
            em.line(f"// is for registered op projects): copy it word by word into a local struct.")
            em.line(f"{plan.tiling_struct} tilingData;")
            em.line(f"const __gm__ uint32_t *tilingWords = reinterpret_cast<const __gm__ uint32_t *>(tiling);")
            em.line(f"uint32_t *words = reinterpret_cast<uint32_t *>(&tilingData);")
            with em.block(f"for (uint32_t i = 0; i < sizeof({plan.tiling_struct}) / sizeof(uint32_t); ++i)"):
                em.line("words[i] = tilingWords[i];")
            em.line(f"{plan.cls} op;")
            em.line(f"op.Init({', '.join(gm + (['workspace'] if needs_workspace(p) else []))}, tilingData);")
            em.line("op.Process();")


def _var_order(v: str) -> int:
    return {"": 0, "start": 1, "len": 2, "index": 3}.get(v.partition(".")[2], 4)


def _dsl_text(p: ir.Program, node) -> str:
    lines = p.source.splitlines()
    ln = node.span.line
    return lines[ln - 1].strip() if 0 < ln <= len(lines) else type(node).__name__


def _body_lines(stmts) -> list[int]:
    lines = set()
    for s, _ in ir.walk_stmts(stmts):
        lines.add(s.span.line)
    return sorted(l for l in lines if l > 0)


def render_kernel(plan: Plan, level: int, src: str) -> Emitter:
    return KernelGen(plan, level, src).render()
