"""The kernel source as the passes build it: named sections, filled pass by pass, with holes.

The kernel file has the canonical AscendC shape (constants, a KernelXxx class with Init /
Process and its stage methods, helpers, members, the entry function). `KernelSource` holds
it as sections that each pass appends to (`LAYOUT` fixes where a pass's lines go inside a
section), and *holes*: typed pieces of text that a later pass rewrites. Compute writes a GM
copy as a `GmCopy` hole and a vector instruction's element count as a `VectorCount`; init
writes a buffer size as `BufferBytes`. Each hole kind has a rendering rule, registered by the
pass that introduces it; align registers its own rules for the same kinds (DataCopyPad,
AlignUp sizes, whole-repeat counts), so align is a rewrite of what compute produced.

`KernelFacts` is what init and compute both need to know about the kernel: C++ names of DSL
values, the stage methods, the tiles kept for a whole core, the scalars that live in members.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, ClassVar

import numpy as np

from ..dsl import ir
from ..dsl.buffers import byte_masks, stage_groups, ub_buffers
from ..dsl import cube
from ..dsl.host import needs_workspace, syncs_all
from ..dsl.printer import expr_text
from ..dsl.ops import window_lead
from .cexpr import KERNEL, KERNEL_HELPERS, float_literal, paren, render, rounding_helper
from .emit import Emitter
from .plan import Plan, cpp_name
from .spec import LoweringError

# -- holes ----------------------------------------------------------------------------------------

_OPEN, _CLOSE = "\ue000", "\ue001"         # private-use characters: never in generated C++
_MARK = re.compile(f"{_OPEN}(\\d+){_CLOSE}")


class Hole:
    """Text a later pass may rewrite. `str(hole)` is only valid inside one `KernelSource`:
    use `source.hole(h)`, which registers it and returns its marker."""

    kind: ClassVar[str] = "hole"


@dataclass(frozen=True)
class VectorCount(Hole):
    """How many elements a vector instruction processes: the tile's length (align pads it to
    whole 256-byte repeats in kernels that compare)."""
    count: str


@dataclass(frozen=True)
class CompareCount(Hole):
    """The count of a Compare: Compare writes whole 256-byte repeats."""
    count: str


@dataclass(frozen=True)
class BufferBytes(Hole):
    """Bytes of a UB buffer of `capacity` elements of `elem_size` (a C++ size expression)."""
    capacity: str
    elem_size: str


@dataclass(frozen=True)
class GmCopy(Hole):
    """A copy between GM and a UB tile of `count` elements (a statement). A tile of rows
    (`rows` set) moves `rows` runs of `cols` elements, `gm_stride` elements apart in GM and
    `pitch` apart in UB, in one strided copy; `outer` lists the loops of a tile of rank 3 or
    more around it: (extent, GM step, UB step) per outer axis, each copy one plane of rows."""
    direction: str          # "in" (GM -> UB) or "out" (UB -> GM)
    gm: str                 # GlobalTensor expression, e.g. xGm[cStart]
    local: str              # LocalTensor name
    dtype: ir.DType
    count: str              # exact element count (of one row, for a tile of rows: `cols`)
    rows: str = ""          # a tile of rows: how many rows one copy moves
    cols: str = ""
    gm_stride: str = ""     # elements from one row to the next in GM
    pitch: str = ""         # elements from one row to the next in UB
    outer: tuple = ()       # ((extent, gm step, ub step), ...) of the outer axes of a tile of rank >= 3
    gm_tensor: str = ""     # the GlobalTensor (xGm) and the offset of the view, for the outer loops
    gm_offset: str = ""


@dataclass(frozen=True)
class InputDequeue(Hole):
    """A compute stage takes a loaded tile from its VECIN queue (a statement); a tile loaded once
    per core (`kept`) is a member, dequeued right after its copy-in and kept for the later stages."""
    name: str
    queue: str
    dtype: ir.DType
    count: str              # the tile's exact element count
    kept: bool = False

    def text(self) -> str:
        if self.kept:
            return (f"{self.name} = {self.queue}.DeQue<{self.dtype.cpp}>();  // wait for the copy once; "
                    f"`{self.name}` stays in UB for the later stages")
        return f"LocalTensor<{self.dtype.cpp}> {self.name} = {self.queue}.DeQue<{self.dtype.cpp}>();"


@dataclass(frozen=True)
class MaskWiden(Hole):
    """A byte-per-element bool mask converted to f32 before Compare turns it into bits (a statement)."""
    wide: str
    mask: str
    count: str
    compare_count: str


@dataclass(frozen=True)
class ExactWrite(Hole):
    """A tile an instruction wrote exactly `count` elements of (a per-row reduction, a repeat-form
    broadcast or cast): nothing here; in a kernel that compares, align zeroes the lanes up to the
    whole repeat, which the padded counts of the instructions after it read (a statement)."""
    tile: str
    dtype: ir.DType
    count: str


Rule = Callable[[Hole, "KernelSource"], str]

# Where each pass's lines go inside a section; render() writes the parts in this order.
LAYOUT: dict[str, tuple[str, ...]] = {
    "constants": ("buffers", "scalar", "compare", "sync"),
    "init": ("globals", "buffers", "compute", "sync"),
    "helpers": ("scratch", "tail"),
    "members": ("pipe", "buffers", "compute", "sync", "gm", "tiling", "state", "sizes"),
}


@dataclass
class Method:
    name: str
    params: list[tuple[str, str]]      # (C++ type, name)
    body: Emitter
    dsl_line: int


@dataclass
class KernelSource:
    """The kernel file in the making; see the module docstring."""

    plan: Plan
    src: str                                        # the DSL file's name, quoted in the header
    placeholders: list[tuple[int, str, str, list[int]]] = field(default_factory=list)
    class_written: bool = False                     # init has written the class
    parts: dict[tuple[str, str], Emitter] = field(default_factory=dict)
    process: Emitter | None = None                  # Process's body (None: a placeholder)
    methods: list[Method] = field(default_factory=list)
    entry: Emitter | None = None
    holes: list[Hole] = field(default_factory=list)
    rules: dict[type, Rule] = field(default_factory=dict)
    uses: set[str] = field(default_factory=set)     # min/max helpers the code calls: MinOf, MaxOf, MinOf:float, ...

    def hole(self, h: Hole) -> str:
        self.holes.append(h)
        return f"{_OPEN}{len(self.holes) - 1}{_CLOSE}"

    def spelled(self, text: str) -> str:
        """`text` with each hole written as what it is (two texts with equal holes compare equal)."""
        return _MARK.sub(lambda m: repr(self.holes[int(m.group(1))]), text)

    def holes_in(self, text: str) -> list[Hole]:
        """The holes whose markers `text` holds, in order (not those nested inside them)."""
        return [self.holes[int(m.group(1))] for m in _MARK.finditer(text)]

    def part(self, section: str, name: str) -> Emitter:
        """The emitter of one part of a section (created on first use)."""
        assert name in LAYOUT[section], f"{section} has no part {name!r}"
        return self.parts.setdefault((section, name), Emitter())

    def section(self, section: str) -> list[Emitter]:
        return [self.parts[(section, n)] for n in LAYOUT[section] if (section, n) in self.parts]

    # -- rendering -----------------------------------------------------------------------
    def fill(self, text: str) -> str:
        """`text` with every hole replaced by its current rule's rendering (holes nest)."""
        def one(m: re.Match) -> str:
            h = self.holes[int(m.group(1))]
            return self.fill(self.rules[type(h)](h, self))
        return _MARK.sub(one, text)

    def _copy_into(self, em: Emitter, part: Emitter) -> None:
        for text, line in zip(part.text().splitlines(), part.source_map()):
            if text or not em.ends_blank():   # a part's blank line separates it from what comes before
                em.line(text, dsl=line)

    def render(self) -> Emitter:
        p, plan = self.plan.program, self.plan
        em = Emitter()
        mixed = is_mix(p)
        unit = ("cube and vector kernel, one instance per AI core (a cube core and its two vector cores)" if mixed else
                "cube kernel, one instance per cube core (AIC)" if p.plan is not None and p.plan.uses_cube else
                "vector kernel, one instance per core")
        em.line(f"// {plan.entry}: AscendC {unit}.")
        em.line(f"// Generated by AscendCraft Lab (rule engine) from {self.src}; "
                "`DSL n` comments name the line each block implements.")
        em.line('#include "kernel_operator.h"')
        em.line(f'#include "{plan.op}_tiling.h"')
        em.blank()
        if not self.class_written:
            em.line("using namespace AscendC;")
            em.blank()
            for number, name, what, lines in self.placeholders:
                placeholder(em, p, number, name, what, lines)
            return _filled(em, self)
        body = Emitter()
        self._class(body)
        filled = _filled(body, self)
        # the sizes the code names, away from the passes' constants (an edit of one merges with the other)
        for name, line in named_constants(plan.soc):
            if re.search(rf"\b{name}\b", filled.text()):
                em.line(line)
        em.blank()
        em.line("using namespace AscendC;")
        em.blank()
        for part in self.section("constants"):
            self._copy_into(em, part)
        em.blank()
        for text, line in zip(filled.text().splitlines(), filled.source_map()):
            em.line(text, dsl=line)
        return _filled(em, self)

    def _class(self, em: Emitter) -> None:
        """The kernel class and the entry function."""
        p, plan = self.plan.program, self.plan
        with em.block(f"class {plan.cls}", "};"):
            em.label("public:")
            em.line(f"__aicore__ inline {plan.cls}() {{}}")
            em.blank()
            gm_args = self.init_params()
            with em.block(f"__aicore__ inline void Init({gm_args}, const {plan.tiling_struct} &tilingData)",
                          dsl=p.kernel.span.line):
                for part in self.section("init"):
                    self._copy_into(em, part)
            em.blank()
            with em.block("__aicore__ inline void Process()", dsl=p.kernel.span.line):
                if self.process is None:
                    placeholder(em, p, 3, "compute", "the tile loop and the stage calls for", body_lines(p.kernel.body))
                else:
                    self._copy_into(em, self.process)
            em.blank()
            em.label("private:")
            for m in self.methods:
                params = ", ".join(f"{t} {n}" for t, n in m.params)
                with em.block(f"__aicore__ inline void {m.name}({params})", dsl=m.dsl_line):
                    self._copy_into(em, _forwarded(_folded(_without_unused_locals(_filled(m.body, self)))))
                em.blank()
            for helper in MIN_MAX_HELPERS:
                if helper.key in self.uses:
                    em.line(helper.text)
            for part in self.section("helpers"):
                self._copy_into(em, part)
            em.blank()
            for part in self.section("members"):
                self._copy_into(em, part)
        em.blank()
        if self.entry is not None:
            self._copy_into(em, self.entry)

    def init_params(self) -> str:
        p = self.plan.program
        workspace = ", GM_ADDR workspace" if needs_workspace(p) else ""
        return ", ".join(f"GM_ADDR {cpp_name(t.name)}" for t in p.tensors()) + workspace


# The kernel types of KERNEL_TASK_TYPE_DEFAULT (API reference "设置Kernel类型"): what a launch's blockDim counts.
MIX_AIC_1_2 = "KERNEL_TYPE_MIX_AIC_1_2"      # blockDim AI cores, each a cube core and two vector cores
AIC_ONLY = "KERNEL_TYPE_AIC_ONLY"            # blockDim cube cores


def is_mix(p: ir.Program) -> bool:
    """A kernel of cube and vector parts: each part runs on its own kind of core, handing over by flags."""
    return p.plan is not None and p.plan.uses_cube and len({u for _, u in cube.phases(p)}) > 1


def kernel_type(p: ir.Program) -> str | None:
    """The kernel type every launch form of `p` declares (the session's entry and the exports'); None for
    a vector kernel, which runs on vector cores only (the default without a declaration)."""
    if is_mix(p):
        return MIX_AIC_1_2
    return AIC_ONLY if p.plan is not None and p.plan.uses_cube else None


KERNEL_TYPE_NOTE = {MIX_AIC_1_2: "blockDim AI cores: a cube core and two vector cores each",
                    AIC_ONLY: "the cube cores only: blockDim AIC cores start"}

# A <<<>>> launch of a MIX kernel does not set the base address of the cross-core flags (the FFTS
# registers): the host asks the runtime for it (ACL API reference aclrtGetHardwareSyncAddr, Atlas A2 / A3)
# and the kernel sets it with SetSyncBaseAddr before its first CrossCoreSetFlag / CrossCoreWaitFlag, as
# the public CATLASS and tilelang-ascend kernels do (their hosts read it with rtGetC2cCtrlAddr).
SYNC_BASE_PARAM = "syncBase"
SYNC_BASE_QUERY = "aclrtGetHardwareSyncAddr"


def needs_sync_base(p: ir.Program) -> bool:
    return is_mix(p)


def named_constants(soc) -> tuple[tuple[str, str], ...]:
    """Constants a kernel defines when its code names them (instead of literal 32, 256, infinity)."""
    return (
        ("BLOCK_BYTES", f"constexpr int64_t BLOCK_BYTES = {soc.block_bytes};  "
                        "// UB addresses and DataCopy lengths are whole 32-byte blocks"),
        ("REPEAT_BYTES", f"constexpr int64_t REPEAT_BYTES = {soc.repeat_bytes};  // one vector repeat"),
        ("F32_INF", "constexpr float F32_INF = __builtin_inff();  "
                    "// IEEE +infinity: what a min starts from (-F32_INF for a max)"),
        ("REPEAT_ROWS", f"constexpr int64_t REPEAT_ROWS = {REPEAT_ROWS};  // rows one vector instruction "
                        f"covers: at most {soc.max_repeat} repeats, whole 32-byte blocks of per-row values"),
    )


# Rows of a tile of rows one repeat-form instruction covers (a row per repeat): at most 255 repeats,
# and a multiple of 16, so the per-row values of the next group start on a 32-byte block (f16 or f32).
REPEAT_ROWS = 240


@dataclass(frozen=True)
class MinMaxHelper:
    key: str                # what `KernelSource.uses` holds when the code calls it
    text: str


# The kernel class's min/max: MinOf / MaxOf on int64 for sizes and indices, MinOfFloat / MaxOfFloat for float
# scalars (two names, not overloads: an int32_t beside an int literal would fit both overloads equally);
# then the size helpers (AlignUp for copies, buffers and row pitches; CeilDiv for the cube's whole fractals).
MIN_MAX_HELPERS = tuple(MinMaxHelper(f"{fn}{':float' if t == 'float' else ''}",
                                     f"__aicore__ inline static {t} {fn}{'Float' if t == 'float' else ''}"
                                     f"({t} a, {t} b) {{ return a {cmp} b ? a : b; }}")
                        for t in ("int64_t", "float") for fn, cmp in (("MinOf", "<"), ("MaxOf", ">"))) + (
    # scalar float -> int casts that round down / up (cast(x, i32, round="floor")): truncate, then step
    MinMaxHelper("FloorOf", "__aicore__ inline static int64_t FloorOf(float a) { "
                            "const int64_t i = static_cast<int64_t>(a); "
                            "return static_cast<float>(i) > a ? i - 1 : i; }"),
    MinMaxHelper("CeilOf", "__aicore__ inline static int64_t CeilOf(float a) { "
                           "const int64_t i = static_cast<int64_t>(a); "
                           "return static_cast<float>(i) < a ? i + 1 : i; }"),
    MinMaxHelper("AlignUp", "__aicore__ inline static int64_t AlignUp(int64_t a, int64_t m) "
                            "{ return (a + m - 1) / m * m; }"),
    MinMaxHelper("CeilDiv", "__aicore__ inline static int64_t CeilDiv(int64_t a, int64_t b) "
                            "{ return (a + b - 1) / b; }"),
)


def _filled(em: Emitter, source: KernelSource) -> Emitter:
    """The emitter's lines with holes rendered; a statement hole may become several lines, each
    indented like its marker and attributed to the same DSL line."""
    out = Emitter()
    for text, line in zip(em.text().splitlines(), em.source_map()):
        if _OPEN not in text:
            out.line(text, dsl=line)
            continue
        indent = text[:len(text) - len(text.lstrip())]
        filled = source.fill(text[len(indent):])
        if not filled:              # a statement hole that renders to nothing
            continue
        for part in filled.split("\n"):
            out.line(indent + part if part else "", dsl=line)
    return out


_LOCAL = re.compile(r"\s*const (?:int64_t|uint8_t) (\w+) = [^;]*;")


def _without_unused_locals(em: Emitter) -> Emitter:
    """A method body without the `const int64_t` locals none of its lines reads (a count the
    compute pass named that only a later pass's rewrite would have used)."""
    lines = em.text().splitlines()
    out = Emitter()
    for i, (text, dsl) in enumerate(zip(lines, em.source_map())):
        m = _LOCAL.match(text)
        if m and not any(re.search(rf"\b{m.group(1)}\b", other) for j, other in enumerate(lines) if j != i):
            continue
        out.line(text, dsl=dsl)
    return out


_SCALAR_OP = re.compile(r"(\s*)(Adds|Muls)\(([\w.\[\]]+), ([\w.\[\]]+), (-?\d[\d.]*(?:e[-+]?\d+)?f), (.+)\);$")


def _folded(em: Emitter) -> Emitter:
    """Two scalar additions (or multiplications) by constants in a row on one tile, as one:
    `Adds(t, t, 1.0f, n); Adds(t, t, 1.0f, n);` (tanh then `1 + tanh`) is `Adds(t, t, 2.0f, n);`."""
    out: list[tuple[str, int]] = []
    for text, dsl in zip(em.text().splitlines(), em.source_map()):
        m = _SCALAR_OP.fullmatch(text)
        prev = _SCALAR_OP.fullmatch(out[-1][0]) if out else None
        if m and prev and m.group(2) == prev.group(2) and m.group(4) == m.group(3) == prev.group(3) \
                and m.group(6) == prev.group(6):
            a, b = np.float32(prev.group(5)[:-1]), np.float32(m.group(5)[:-1])
            value = a + b if m.group(2) == "Adds" else a * b
            out[-1] = (f"{prev.group(1)}{prev.group(2)}({prev.group(3)}, {prev.group(4)}, "
                       f"{float_literal(float(value))}, {prev.group(6)});", out[-1][1])
            continue
        out.append((text, dsl))
    folded = Emitter()
    for text, dsl in out:
        folded.line(text, dsl=dsl)
    return folded


_DECL = re.compile(r"(\s*)(float|int32_t|int64_t|half) (\w+) = (.+);$")


def _forwarded(em: Emitter) -> Emitter:
    """`float s2 = scalarTmp.GetValue(0); float rstd = s2;` as `float rstd = scalarTmp.GetValue(0);`:
    a generated temporary read only by the copy into the DSL's name on the next line."""
    lines, dsls = em.text().splitlines(), list(em.source_map())
    out = Emitter()
    skip = -1
    for i, text in enumerate(lines):
        if i == skip:
            continue
        first = _DECL.fullmatch(text)
        second = _DECL.fullmatch(lines[i + 1]) if i + 1 < len(lines) else None
        if first and second and second.group(4) == first.group(3) and second.group(2) == first.group(2) \
                and not any(re.search(rf"\b{first.group(3)}\b", t) for t in lines[i + 2:]):
            out.line(f"{second.group(1)}{second.group(2)} {second.group(3)} = {first.group(4)};", dsl=dsls[i + 1])
            skip = i + 1
            continue
        out.line(text, dsl=dsls[i])
    return out


def placeholder(em: Emitter, p: ir.Program, number: int, name: str, what: str, lines: list[int]) -> None:
    """`// TODO(pass N name): what` quoting the DSL lines a later pass will lower."""
    src_lines = p.source.splitlines()
    em.line(f"// TODO(pass {number} {name}): {what}", dsl=lines[0] if lines else 0)
    for ln in lines:
        if 0 < ln <= len(src_lines):
            em.line(f"//   {ln:3d} | {src_lines[ln - 1].rstrip()}", dsl=ln)


def body_lines(stmts) -> list[int]:
    return sorted({s.span.line for s, _ in ir.walk_stmts(stmts)} - {0})


def dsl_text(p: ir.Program, node) -> str:
    """The DSL line of `node`, stripped (quoted in the `// DSL n:` comments)."""
    lines = p.source.splitlines()
    ln = node.span.line
    return lines[ln - 1].strip() if 0 < ln <= len(lines) else type(node).__name__


# -- what init and compute share ------------------------------------------------------------------

STAGE_METHOD = {ir.StageKind.copyin: "CopyIn", ir.StageKind.split: "Split", ir.StageKind.compute: "Compute",
                ir.StageKind.copyout: "CopyOut"}


class KernelFacts:
    """Facts about one kernel that the init and compute passes share, derived from the IR.
    `uses` is the kernel source's record of the min/max helpers the code calls."""

    def __init__(self, plan: Plan, uses: set[str] | None = None):
        self.plan, self.p = plan, plan.program
        self.uses = uses if uses is not None else set()
        p = self.p
        self.loops: dict[str, ir.For] = plan.loop_vars
        self.ub = ub_buffers(p)
        self.tiling_names = set(p.dim_names()) | {s.name for s in p.scalars}
        self.scalars = {n: t for n, t in p.kernel.locals if isinstance(t, ir.ScalarType) and n not in self.loops}
        self.members_scalar = self._scalar_members()
        # what the UB plan derived from the IR (dsl/buffers.py): one source for the verifier and the passes
        self.byte_masks = byte_masks(p.kernel.body, {b.name for b in self.ub.buffers
                                                     if b.role == "VECIN" and b.dtype is ir.DType.bool})
        self.compare = self.ub.compare
        self.ub_padded = dict(self.ub.padded)    # tiles living padded for a window op (buffers.padded_rows)
        # every C++ name the DSL gives rise to; generated temporaries must not shadow one
        self.reserved = (frozenset(cpp_name(n) for n, _ in p.kernel.locals)
                         | frozenset(cpp_name(t.name) for t in p.tensors() + p.workspaces)
                         | frozenset(cpp_name(s.name) for s in p.scalars)
                         | frozenset(cpp_name(v) for v in self.loops))
        self.size_notes: dict[ir.Expr, str] = {}    # a size member's comment, when its formula does not say it
        self.size_members = self._size_members()
        self.groups = stage_groups(p.kernel.body)
        self.persistent = {b.name for b in self.ub.buffers if b.once}
        # sync_all() lowers to SyncAll's soft form: a kernel-launch project (<<<>>>) cannot use the
        # hardware form, which CANN supports in op projects only.
        self.sync_line = (next((s.span.line for s in p.kernel.body if isinstance(s, ir.SyncAll)), 0)
                          if syncs_all(p) else 0)
        # a kernel of cube and vector parts: each runs on its own kind of core (AIC / AIV)
        self.phases = cube.phases(p) if self.ub.uses_cube else []
        self.mixed = len({u for _, u in self.phases}) > 1
        clash = {"syncWork", "syncFlags"} & self.reserved
        if self.sync_line and clash:
            raise LoweringError(f"`{min(clash)}` names SyncAll's work areas in the generated kernel; "
                                "rename it in the DSL")
        self.used_vars: set[str] | None = None      # loop variables a stage method reads (its parameters)

    # -- naming ------------------------------------------------------------------------------
    def names(self, e: ir.Expr) -> str:
        tp = self.p.tiling_param
        if isinstance(e, ir.Attr):
            if tp is not None and e.obj.id == tp.name:
                # t.cores is the launch's block count, not a field of the tiling struct
                return "GetBlockNum()" if e.attr == "cores" else f"tiling.{e.attr}"
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
        """A size or index expression as kernel C++ (a tensor size given by an expression reads
        its member; min/max call the int64 helpers)."""
        return render(e, self.names, KERNEL, floats=floats, hook=self._size_call)

    def _size_call(self, e: ir.Call) -> str | None:
        if e.op in KERNEL_HELPERS:
            self.use_min_max(e.op)
        if e.op == "align_up":
            self.uses.add("AlignUp")
        if rounding_helper(e):
            self.uses.add(rounding_helper(e))
        return self.size_members.get(e)

    def use_min_max(self, op: str, float_: bool = False) -> None:
        """Note that the code calls MinOf / MaxOf (for `op` min, max or clamp), on floats or int64."""
        for fn in {**KERNEL_HELPERS, "floor": ("FloorOf",), "ceil": ("CeilOf",)}[op]:
            self.uses.add(fn + (":float" if float_ else ""))

    def element_count(self, t: ir.TileType) -> str:
        """Elements of a tile, exactly: the product of its shape (axes of size 1 left out)."""
        text = "1"
        for d in t.shape:
            part = self.scalar_text(d)
            if part == "1":
                continue
            text = part if text == "1" else f"{text} * ({part})"
        return text

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
        for tile, window in self.ub.padded:      # where a padded tile starts in its buffer
            lead = window_lead(window, window.type.dtype.elems_per_block)
            if isinstance(lead, ir.Call) and lead not in out:
                name = f"{cpp_name(tile)}Lead"
                while name in taken:
                    name += "_"
                taken.add(name)
                out[lead] = name
                self.size_notes[lead] = (f"{expr_text(window.args[3])} rounded up to whole 32-byte blocks: where "
                                         f"{cpp_name(tile)} starts in its buffer, behind {window.op}'s padding")
        return out

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
                    exprs = [n for n in ir.children(s.iter) if isinstance(n, ir.Expr)]
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

    def max_text(self, caps) -> str:
        """The largest of several sizes as C++ (MaxOf of the distinct ones)."""
        def flat(c):     # max(a, b) as two sizes
            return [x for a in c.args for x in flat(a)] if isinstance(c, ir.Call) and c.op == "max" else [c]
        texts = list(dict.fromkeys(self.scalar_text(x) for c in caps for x in flat(c)))
        out = texts[0]
        for t in texts[1:]:
            self.use_min_max("max")
            out = f"MaxOf({out}, {t})"
        return out

    def buffer_bytes(self, source: KernelSource, cap: str, dtype: ir.DType) -> str:
        return source.hole(BufferBytes(cap, f"sizeof({dtype.cpp})"))


def plain_buffer_bytes(h: BufferBytes, source: KernelSource) -> str:
    return f"{paren(h.capacity)} * {h.elem_size}"
