"""Pass 2, init: the kernel entry, the kernel class, Init (GlobalTensors with per-core offsets,
TPipe, its queues and buffers) and the members they need; Process stays a placeholder.

Every UB tile of the DSL gets a VECIN / VECOUT queue (double-buffered) or a VECCALC TBuf, sized
by the largest definition of its name. The entry declares the kernel type, and a cube + vector (MIX)
entry takes the cross-core sync base and sets it first (`kernel_entry_prologue`, which the exports
share); in a MIX kernel core_rows splits each AI core's rows between its two vector cores. The checker
holds any engine's output to the plan's tiles (each has its queue or TBuf) and evaluates the InitBuffer
total against the SoC's UB.
"""
from __future__ import annotations

import collections
import re

from ..dsl import cube, ir
from ..dsl.buffers import capacity_limit
from ..dsl.host import SYNC_ALL_BYTES_PER_CORE, WORKSPACE_ALIGN, needs_workspace
from ..dsl.printer import expr_text
from . import cpp, cube as cube_lowering
from .bundle import Bundle
from .cexpr import KERNEL, paren, render
from .emit import Emitter
from .findings import Finding, finding, kernel_text
from .kernel import (KERNEL_TYPE_NOTE, SYNC_BASE_PARAM, SYNC_BASE_QUERY, BufferBytes, KernelFacts, KernelSource,
                     dsl_text, kernel_type, needs_sync_base, plain_buffer_bytes)
from .plan import Plan, cpp_name, sample_dim
from .project import Project
from .spec import LoweringError, PassSpec

SPEC = PassSpec(
    2, "init", "kernel entry, kernel class, GlobalTensors with per-core offsets, TPipe and its queues and buffers",
    "Every core runs the same kernel function; GetBlockIdx() tells it which rows are its own. Init points "
    "GlobalTensors at that core's slice of global memory and carves the Unified Buffer into queues "
    "(VECIN for data coming in, VECOUT for results going out) and TBuf scratch space with InitBuffer.",
    rules=("every DSL tile has a queue or TBuf",
           "the InitBuffer total fits the SoC's UB (and each cube memory: L1, L0A, L0B, L0C, "
           "by the queues' TPosition)"))


DOUBLE_BUFFERING = ("constexpr int32_t BUFFER_NUM = 2;  "
                    "// double buffering: copy-in of tile i+1 overlaps compute of tile i")
SINGLE_BUFFERING = ("constexpr int32_t BUFFER_NUM = 1;  "
                    "// one buffer per queue: copy-in, compute and copy-out take turns")


def with_buffer_num(bundle: Bundle, plan: Plan, buffers: int) -> Bundle:
    """The project with `buffers` copies of every double-buffered queue (the tiling ranking's
    single-buffered trial): the one BUFFER_NUM line of the vector kernel, rewritten."""
    text = bundle[plan.kernel_path]
    line = {2: DOUBLE_BUFFERING, 1: SINGLE_BUFFERING}[buffers]
    found = [ln for ln in (DOUBLE_BUFFERING, SINGLE_BUFFERING) if ln in text]
    if not found:
        raise ValueError(f"{plan.kernel_path} has no BUFFER_NUM line as the init pass writes it (edited by hand?)")
    return bundle.with_files({plan.kernel_path: text.replace(found[0], line)})


def write(project: Project) -> None:
    source, facts = project.kernel, project.facts
    source.class_written = True
    source.rules[BufferBytes] = plain_buffer_bytes
    if cube_lowering.uses_cube(facts):
        source.part("constants", "buffers").line(
            "constexpr int32_t BUFFER_NUM = 2;  "
            "// double buffering: the copies of K slice i+1 overlap the Mmad of slice i")
        cube_lowering.constants(source, facts)
    else:
        source.part("constants", "buffers").line(DOUBLE_BUFFERING)
    if facts.sync_line:
        sync = source.part("constants", "sync")
        sync.line(f"constexpr int32_t SYNC_ALL_INTS = {SYNC_ALL_BYTES_PER_CORE // 4};  "
                  f"// SyncAll (soft form): {SYNC_ALL_BYTES_PER_CORE} B of GM flags and of UB work area per core")
        sync.line(f"constexpr int32_t SYNC_ALL_MAX_CORES = {project.plan.soc.vector_cores};  "
                  f"// {project.plan.soc.name}'s vector cores: the most blocks a launch that syncs may have")
    _globals(source.part("init", "globals"), facts)
    _buffers(source, facts)
    _members(source, facts)
    source.entry = _entry(project.plan)


def _owned_rows(em: Emitter, facts: KernelFacts) -> dict[str, str]:
    """The rows a core owns, `rEnd - rBegin`, named once for a core_rows variable that slices
    three or more tensors (each slice's length counts in them)."""
    counts = collections.Counter(facts.plan.gm[t.name].core_var for t in facts.p.tensors())
    owned = {}
    for var, n in counts.items():
        if var is not None and n >= 3:
            v = cpp_name(var)
            name = f"{v}Rows"
            while name in facts.reserved:
                name += "_"
            em.line(f"const int64_t {name} = {v}End - {v}Begin;  // the rows this core owns")
            owned[v] = name
    return owned


def _globals(em: Emitter, facts: KernelFacts) -> None:
    """Init up to the buffers: the tiling copy, size members, this core's share, GlobalTensors."""
    p = facts.p
    em.line("tiling = tilingData;")
    for d, name in facts.size_members.items():   # MinOf/MaxOf, which the checkers read
        em.line(f"{name} = {render(d, facts.names, KERNEL)};  // {facts.size_notes.get(d, expr_text(d))}")
    plan = facts.plan
    # A size several tensors share is computed once, as a careful author would.
    sliced = {t.name for t in p.tensors() if plan.gm[t.name].core_var}

    def product(dims) -> str:
        return _unparen(" * ".join(paren(facts.scalar_text(d)) for d in dims) or "1")
    # each whole tensor's elements, each sliced tensor's row (the unit its core's slice counts in)
    sizes = {t.name: product(t.shape[1:] if t.name in sliced else t.shape) for t in p.tensors()}
    uses = collections.Counter(sizes[t.name] for t in p.tensors() for _ in range(2 if t.name in sliced else 1))
    shared = {}
    for text, count in uses.items():
        if count > 1 and paren(text) != text:
            users = [t.name for t in p.tensors() if sizes[t.name] == text]
            rows = all(u in sliced for u in users)
            name = "rowElems" if rows else "elems"
            while name in facts.reserved or name in shared.values():
                name = f"{users[0]}{'Row' if rows else ''}Elems"
                if name in facts.reserved or name in shared.values():
                    name += "_"
            shared[text] = name
            what = f"a row of {_and(users)}" if rows else _and(users)
            em.line(f"const int64_t {name} = {text};  // elements of {what}")
    split_done: set[str] = set()      # sibling core loops of one variable split alike (the verifier checks): once
    for s, _ in ir.walk_stmts(p.kernel.body):
        if isinstance(s, ir.For) and isinstance(s.iter, (ir.CoreRows, ir.CoreChunk)) and s.var not in split_done:
            split_done.add(s.var)
            v = cpp_name(s.var)
            per, total = ((s.iter.rows, s.iter.total) if isinstance(s.iter, ir.CoreRows)
                          else (s.iter.size, s.iter.total))
            fields = {id(n.obj) for n in ir.walk_exprs(ir.Call("add", (per, total))) if isinstance(n, ir.Attr)}
            late = sorted({n.id for n in ir.walk_exprs(ir.Call("add", (per, total))) if isinstance(n, ir.Name)
                           and id(n) not in fields and n.id not in facts.tiling_names})
            if late:
                raise LoweringError(f"`{dsl_text(p, s)}` reads the kernel scalar `{late[0]}`, but the rule engine "
                                    "splits the work over the cores in Init, before the kernel's scalars exist; "
                                    "write it with dims, scalar parameters and tiling fields", s)
            per, total = facts.scalar_text(per), facts.scalar_text(total)
            total = shared.get(_unparen(total), total)
            facts.use_min_max("min")
            with em.dsl(s.span.line):
                if facts.mixed and isinstance(s.iter, ir.CoreRows):
                    _mixed_core_rows(em, facts, s, v, paren(per), total)
                elif isinstance(s.iter, ir.CoreRows):
                    em.line(f"// DSL {s.span.line}: this core owns rows [{v}Begin, {v}End) of {dsl_text(p, s)}")
                    em.line(f"{v}Begin = MinOf(static_cast<int64_t>(GetBlockIdx()) * {paren(per)}, {total});")
                    em.line(f"{v}End = MinOf({v}Begin + {paren(per)}, {total});")
                else:
                    em.line(f"// DSL {s.span.line}: this core owns [{v}Start, {v}Start + {v}Len) of {dsl_text(p, s)}")
                    em.line(f"{v}Start = MinOf(static_cast<int64_t>(GetBlockIdx()) * {paren(per)}, {total});")
                    em.line(f"{v}Len = MinOf({v}Start + {paren(per)}, {total}) - {v}Start;")
    owned = _owned_rows(em, facts)
    for t in p.tensors():
        gm = plan.gm[t.name]
        size = shared.get(sizes[t.name], sizes[t.name])
        ptr = f"(__gm__ {t.dtype.cpp} *){cpp_name(t.name)}"
        with em.dsl(t.span.line):
            if gm.core_var:
                v = cpp_name(gm.core_var)
                em.line(f"{t.name}Gm.SetGlobalBuffer({ptr} + {v}Begin * {paren(size)}, "
                        f"{owned.get(v, f'({v}End - {v}Begin)')} * {paren(size)});")
            else:
                em.line(f"{t.name}Gm.SetGlobalBuffer({ptr}, {size});")
    _workspace_globals(em, facts)


def _workspace_globals(em: Emitter, facts: KernelFacts) -> None:
    """The Workspace tensors, one after another in the launch's workspace, then SyncAll's flags."""
    offset = "0"
    for t in facts.p.workspaces:
        total = " * ".join(paren(facts.scalar_text(d)) for d in t.shape) or "1"
        with em.dsl(t.span.line):
            at = "workspace" if offset == "0" else f"workspace + {offset}"
            em.line(f"// `{t.name}`: GM scratch shared by the cores, {offset} B into the launch's workspace "
                    "(zeroed by the host)")
            em.line(f"{t.name}Gm.SetGlobalBuffer((__gm__ {t.dtype.cpp} *)({at}), {total});")
        step = (f"({paren(total)} * sizeof({t.dtype.cpp}) + {WORKSPACE_ALIGN - 1}) / {WORKSPACE_ALIGN} "
                f"* {WORKSPACE_ALIGN}")
        offset = step if offset == "0" else f"{offset} + {step}"
    if facts.sync_line:
        with em.dsl(facts.sync_line):
            at = "workspace" if offset == "0" else f"workspace + {offset}"
            where = "at the start of" if offset == "0" else "after the Workspace tensors in"
            em.line(f"// SyncAll's flags, {where} the launch's workspace (zeroed by the host): the soft")
            em.line("// form, as a kernel-launch project cannot use the hardware SyncAll()")
            em.line(f"syncFlagsGm.SetGlobalBuffer((__gm__ int32_t *)({at}), GetBlockNum() * SYNC_ALL_INTS);")


def _mixed_core_rows(em: Emitter, facts: KernelFacts, s: ir.For, v: str, per: str, total: str) -> None:
    """core_rows in a MIX kernel. The DSL's `per` rows are one block's, an AI core's; its vector cores split
    them. On a vector core of a MIX launch GetBlockIdx() counts vector cores, two per AI core (asc-devkit's
    matmul_leakyrelu_basic_api sample maps one back to its cube core by GetBlockIdx() / 2), so its AI core is
    GetBlockIdx() / GetSubBlockNum() and its part GetSubBlockIdx(); a cube core, one sub-block whose
    GetBlockIdx() counts AI cores, keeps the whole share. (A core_chunk keeps the plain split: halving
    a chunk would lose the 32-byte alignment the align pass relies on.)"""
    facts.uses.add("CeilDiv")
    em.line(f"// DSL {s.span.line}: this core owns rows [{v}Begin, {v}End) of {dsl_text(facts.p, s)}")
    em.line("// A cube + vector launch: the rows of this AI core, split between its vector cores")
    parts, first, last, part = f"{v}Parts", f"{v}AiCoreBegin", f"{v}AiCoreEnd", f"{v}Part"
    em.line(f"const int64_t {parts} = static_cast<int64_t>(GetSubBlockNum());")
    em.line(f"const int64_t {first} = MinOf(static_cast<int64_t>(GetBlockIdx()) / {parts} * {per}, {total});")
    em.line(f"const int64_t {last} = MinOf({first} + {per}, {total});")
    em.line(f"const int64_t {part} = CeilDiv({last} - {first}, {parts});")
    em.line(f"{v}Begin = MinOf({first} + static_cast<int64_t>(GetSubBlockIdx()) * {part}, {last});")
    em.line(f"{v}End = MinOf({v}Begin + {part}, {last});")


def _unparen(text: str) -> str:
    return text[1:-1] if text.startswith("(") and paren(text[1:-1]) != text[1:-1] and paren(text) == text else text


def _and(names: list[str], word: str = "and") -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" {word} " + names[-1]


def _buffers(source: KernelSource, facts: KernelFacts) -> None:
    """InitBuffer for every DSL tile, and for SyncAll's UB work area."""
    em = source.part("init", "buffers")
    sizes = {}
    for b in facts.ub.buffers:
        if b.level is not ir.Level.UB:
            continue
        caps = [c for c in b.capacities if c is not None]
        if not caps:
            raise LoweringError(f"tile `{b.name}` has no size known before the loop; size tiles by tiling fields")
        sizes[b.name] = (facts.max_text(caps), b.dtype)
    order = ("A1", "B1", "A2", "B2", "CO1")      # the pipeline's order: L1, L0A, L0B, L0C
    cube_bufs = sorted((b for b in facts.ub.buffers if b.level is not ir.Level.UB), key=lambda b: order.index(b.role))
    if facts.mixed:     # each kind of core sets up the memories it has: the cube's L1 / L0, the vector cores' UB
        em.line("if ASCEND_IS_AIC {")
        em = _Indented(em)
    if cube_bufs:
        em.line("// the cube's tiles in whole fractals; two buffers per input queue, one L0C accumulator")
    for b in cube_bufs:
        with em.dsl(b.sites[0].line if b.sites else 0):
            num = "BUFFER_NUM" if b.nbuf == 2 else "1"
            em.line(f"pipe.InitBuffer({b.name}Queue, {num}, {cube_lowering.buffer_bytes(facts, b)});  "
                    f"// {b.level.value}")
    if facts.mixed:
        em = em.outer
        em.line("}")
        em.line("if ASCEND_IS_AIV {")
        em = _Indented(em)
    # a buffer size several buffers share is computed once
    names = {}
    for (cap, dtype), count in collections.Counter(sizes.values()).items():
        if count > 1:
            stem = re.findall(r"\w+", cap)[-1] if re.fullmatch(r"[\w.]+", cap) else "tile"
            if not re.fullmatch(r"[A-Za-z_]\w*", stem):     # a literal size (`1`): a C++ name starts with a letter
                stem = f"elems{stem}"
            name = f"{stem}Bytes" if sum(1 for c, _ in names if c == cap) == 0 else f"{stem}Bytes{dtype.value.upper()}"
            while name in facts.reserved or name in names.values():
                name += "_"
            names[(cap, dtype)] = name
            users = _and([b for b, s in sizes.items() if s == (cap, dtype)], "or")
            em.line(f"const int64_t {name} = {facts.buffer_bytes(source, cap, dtype)};  // bytes of one {users} tile")
    for b in facts.ub.buffers:
        if b.level is not ir.Level.UB:
            continue
        cap, dtype = sizes[b.name]
        with em.dsl(b.sites[0].line if b.sites else 0):
            nbytes = names.get((cap, dtype)) or facts.buffer_bytes(source, cap, dtype)
            if b.role == "VECCALC":
                em.line(f"pipe.InitBuffer({b.name}Buf, {nbytes});")
            elif b.once:
                em.line(f"pipe.InitBuffer({b.name}Queue, 1, {nbytes});  // loaded once per core: one buffer")
            else:
                em.line(f"pipe.InitBuffer({b.name}Queue, BUFFER_NUM, {nbytes});")
    if facts.mixed:
        em.outer.line("}")
    if facts.sync_line:
        sync = source.part("init", "sync")
        with sync.dsl(facts.sync_line):
            sync.line("// SyncAll's UB work area, sized for the widest launch as the UB plan counts it")
            sync.line("pipe.InitBuffer(syncWorkBuf, SYNC_ALL_MAX_CORES * SYNC_ALL_INTS * sizeof(int32_t));")
            sync.line("syncWork = syncWorkBuf.Get<int32_t>();")


class _Indented:
    """An emitter's lines one level deeper (a block whose braces the caller writes)."""

    def __init__(self, outer: Emitter):
        self.outer = outer

    def line(self, text: str = "", dsl: int | None = None) -> None:
        self.outer.line("    " + text if text else "", dsl)

    def dsl(self, line: int):
        return self.outer.dsl(line)


def _members(source: KernelSource, facts: KernelFacts) -> None:
    p, plan = facts.p, facts.plan
    source.part("members", "pipe").line("TPipe pipe;")
    bufs = source.part("members", "buffers")
    for b in facts.ub.buffers:
        line = b.sites[0].line if b.sites else 0
        if b.role == "VECCALC":
            bufs.line(f"TBuf<TPosition::VECCALC> {b.name}Buf;", dsl=line)
        else:
            bufs.line(f"TQue<TPosition::{b.role}, 1> {b.name}Queue;", dsl=line)
    if facts.sync_line:
        sync = source.part("members", "sync")
        sync.line("TBuf<TPosition::VECCALC> syncWorkBuf;", dsl=facts.sync_line)
        sync.line("LocalTensor<int32_t> syncWork;", dsl=facts.sync_line)
    gm = source.part("members", "gm")
    for t in p.tensors() + p.workspaces:
        gm.line(f"GlobalTensor<{t.dtype.cpp}> {t.name}Gm;", dsl=t.span.line)
    if facts.sync_line:
        gm.line("GlobalTensor<int32_t> syncFlagsGm;", dsl=facts.sync_line)
    tiling = source.part("members", "tiling")
    tiling.line(f"{plan.tiling_struct} tiling;")
    members_done: set[str] = set()
    for s, _ in ir.walk_stmts(p.kernel.body):
        if not isinstance(s, ir.For) or s.var in members_done:
            continue
        if isinstance(s.iter, (ir.CoreRows, ir.CoreChunk)):
            members_done.add(s.var)
        if isinstance(s.iter, ir.CoreRows):
            tiling.line(f"int64_t {cpp_name(s.var)}Begin = 0;", dsl=s.span.line)
            tiling.line(f"int64_t {cpp_name(s.var)}End = 0;", dsl=s.span.line)
        elif isinstance(s.iter, ir.CoreChunk):
            tiling.line(f"int64_t {cpp_name(s.var)}Start = 0;", dsl=s.span.line)
            tiling.line(f"int64_t {cpp_name(s.var)}Len = 0;", dsl=s.span.line)
    sizes = source.part("members", "sizes")
    for d, name in facts.size_members.items():
        sizes.line(f"int64_t {name} = 0;  // {facts.size_notes.get(d, expr_text(d))}")


def kernel_entry_prologue(p: ir.Program, sync_base: str = SYNC_BASE_PARAM) -> list[str]:
    """The first statements of every entry of `p` (the session's and the exports'): the kernel type, and in a
    MIX kernel the cross-core sync base from the entry's `sync_base` argument, set before any flag."""
    ktype = kernel_type(p)
    lines = [f"KERNEL_TASK_TYPE_DEFAULT({ktype});  // {KERNEL_TYPE_NOTE[ktype]}"] if ktype else []
    if needs_sync_base(p):
        lines += [f"// The cross-core flags' base address, which the host read with {SYNC_BASE_QUERY}: a <<<>>> launch",
                  "// does not set it, and a flag wait without it never returns.",
                  f"SetSyncBaseAddr(reinterpret_cast<uint64_t>({sync_base}));"]
    return lines


def _entry(plan: Plan) -> Emitter:
    p = plan.program
    em = Emitter()
    gm = [cpp_name(t.name) for t in p.tensors()]
    params = ", ".join(f"GM_ADDR {n}" for n in gm + ["workspace", "tiling"] + [SYNC_BASE_PARAM] * needs_sync_base(p))
    with em.block(f'extern "C" __global__ __aicore__ void {plan.entry}({params})', dsl=p.kernel.span.line):
        for line in kernel_entry_prologue(p):
            em.line(line)
        if not needs_workspace(p):
            em.line("(void)workspace;  // this kernel needs no GM workspace")
        em.line("// A kernel-launch project reads its tiling struct straight from GM (GET_TILING_DATA")
        em.line("// is for registered op projects): copy it word by word into a local struct.")
        em.line(f"{plan.tiling_struct} tilingData;")
        em.line("const __gm__ uint32_t *tilingWords = reinterpret_cast<const __gm__ uint32_t *>(tiling);")
        em.line("uint32_t *words = reinterpret_cast<uint32_t *>(&tilingData);")
        with em.block(f"for (uint32_t i = 0; i < sizeof({plan.tiling_struct}) / sizeof(uint32_t); ++i)"):
            em.line("words[i] = tilingWords[i];")
        em.line(f"{plan.cls} op;")
        em.line(f"op.Init({', '.join(gm + (['workspace'] if needs_workspace(p) else []))}, tilingData);")
        em.line("op.Process();")
    return em


# TPosition -> the memory it allocates in (API reference, "TPosition与物理内存映射关系" on Atlas A2)
POSITION_LEVEL = {"VECIN": ir.Level.UB, "VECOUT": ir.Level.UB, "VECCALC": ir.Level.UB, "A1": ir.Level.L1,
                  "B1": ir.Level.L1, "C1": ir.Level.L1, "A2": ir.Level.L0A, "B2": ir.Level.L0B, "CO1": ir.Level.L0C}
# AscendC's own constants the cube code names (BLOCK_CUBE rows of a fractal, ONE_BLK_SIZE bytes of a block)
API_CONSTANTS = {"BLOCK_CUBE": 16, "ONE_BLK_SIZE": 32, "CUBE_MAX_SIZE": 256}


def _level_of(call, decls: dict[str, str]) -> ir.Level:
    m = re.search(r"TPosition::(\w+)", decls.get(call.args[0].strip(), ""))
    return POSITION_LEVEL.get(m.group(1), ir.Level.UB) if m else ir.Level.UB


def initbuffer_totals(text: str, values: dict, calls=None) -> dict:
    """Per memory level, (bytes, [(call, buffers, bytes each)]) of a kernel's InitBuffer calls,
    evaluated with the tiling `values`, each buffer rounded up to its memory's unit as the pipe
    allocates (UB and L1 32 bytes, L0A / L0B 512, L0C 64); the level comes from the queue's TPosition."""
    calls = calls if calls is not None else [c for c in cpp.calls(text, {"InitBuffer"}) if len(c.args) in (2, 3)]
    decls = cpp.declarations(text)
    referenced = {w for c in calls for a in c.args[1:] for w in re.findall(r"[A-Za-z_]\w*", a)}
    names = {**API_CONSTANTS, **cpp.constants(text), **values}
    names.update(cpp.member_values(text, names, referenced - set(names)))
    out: dict = {}
    for call in calls:
        level = _level_of(call, decls)
        unit = cube.LEVEL_ALIGN.get(level, 32)
        num_expr, bytes_expr = ("1", call.args[1]) if len(call.args) == 2 else call.args[1:]
        num = cpp.evaluate(num_expr, names)
        size = -(-cpp.evaluate(bytes_expr, names) // unit) * unit
        total, parts = out.get(level, (0, []))
        out[level] = (total + num * size, parts + [(call, num, size)])
    return out


def initbuffer_total(text: str, values: dict, calls=None, level: ir.Level = ir.Level.UB) -> tuple[int, list]:
    """(bytes, [(call, buffers, bytes each)]) of the InitBuffer calls at one memory level (UB by default)."""
    return initbuffer_totals(text, values, calls).get(level, (0, []))


def check(plan: Plan, bundle: Bundle, options) -> list[Finding]:
    text, found = kernel_text(SPEC, plan, bundle)
    if text is None:
        return found
    decls = cpp.declarations(text)
    for buf in plan.buffers:
        if buf.member not in decls:
            found.append(finding(SPEC, "missing-buffer",
                                 f"tile `{buf.name}` has no {buf.kind} "
                                 f"{'TBuf' if buf.kind == 'VECCALC' else 'queue'} `{buf.member}`",
                                 bundle, plan.kernel_path, dsl_line=buf.dsl_line,
                                 help=f"declare `{buf.declaration}` and give it "
                                      f"{'UB' if buf.level is ir.Level.UB else buf.level.value} with pipe.InitBuffer"))
    calls = [c for c in cpp.calls(text, {"InitBuffer"}) if len(c.args) in (2, 3)]

    def totals_for(values):
        return initbuffer_totals(text, values, calls)

    try:
        totals = totals_for(plan.tiling_values(options))
    except cpp.EvalError as exc:
        call = next((c for c in calls), None)
        found.append(finding(SPEC, "ub-unknown", f"cannot size the InitBuffer calls: {exc}", bundle,
                             plan.kernel_path, call.line if call else 0,
                             help="size buffers from tiling fields, constants and sizeof"))
        return found
    for level, (total, parts) in totals.items():
        budget = plan.soc.ub_usable if level is ir.Level.UB else capacity_limit(level, plan.soc)
        if total <= budget:
            continue
        severity = "error"
        note = ""
        if not getattr(options, "shapes", None):
            # No reference shapes: the sizes were taken at large sample dims. When smaller dims
            # fit, the budget depends on the shape, which the verifier checks per shape.
            small = totals_for(plan.tiling_values(options, dim_size=256)).get(level, (0, []))[0]
            if small <= budget:
                severity = "warning"
                note = (f" at sample dims of {sample_dim(plan.program)} (it fits smaller shapes; the verifier checks "
                        "real ones)")
        worst = max(parts, key=lambda p: p[1] * p[2])
        detail = ", ".join(f"{c.args[0]} {n} x {s} B" for c, n, s in parts)
        where = f"UB usable on {plan.soc.name}" if level is ir.Level.UB else f"{level.value} of {plan.soc.name}"
        kind = "ub-overflow" if level is ir.Level.UB else f"{level.value.lower()}-overflow"
        found.append(finding(SPEC, kind,
                             f"InitBuffer total {total} B exceeds the {budget} B of {where}{note} ({detail})",
                             bundle, plan.kernel_path, worst[0].line,
                             help="lower the tile size in the host tiling function or use fewer buffers",
                             severity=severity))
    return found
