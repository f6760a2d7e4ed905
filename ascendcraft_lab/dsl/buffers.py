"""The UB plan: every on-chip buffer a kernel needs, in which role, and how many bytes.

One model, computed once from the verified KernelIR, used by the verifier (static budget), the
interpreter (run-time budget), `ub_elems` and the tiling explanation, and printed by the init
pass as the C++ InitBuffer sizes (so a draft the verifier accepts is one the lowering fits):

- every tile *name* is one buffer (the same name in several loops reuses it; its size is the
  largest of its definitions);
- a tile defined by `load` is a VECIN queue, a tile computed and then stored is a VECOUT
  queue — both double-buffered (x2) — except a tile loaded once per core and kept for every
  later row (a weight): one buffer; any other computed tile is a VECCALC TBuf (x1);
- one shared VECCALC scratch TBuf of `scratch_slots` equal slots holds the temporaries of the
  most demanding compute statement (the registers of its Sethi–Ullman walk, `registers.py`,
  which the compute pass makes too); a slot is as large as the largest tile any such statement
  touches, in the widest dtype they compute;
- a 32-byte staging block when scalars go through the vector unit (a reduction's result, exp
  of a scalar), and one 32-byte queue per scalar stored to GM;
- a kernel that calls sync_all() has SyncAll's UB work area, 32 bytes per core of the widest
  launch that may sync (`host.sync_all_ub_bytes`);
- each buffer is rounded up to 32 bytes, or to whole 256-byte repeats in a kernel that
  compares (Compare writes whole repeats). The total must fit `Soc.ub_usable`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from ..soc import Soc
from . import cube
from .errors import DslError, Span, human_bytes
from .host import HostEvaluator, sync_all_ub_bytes
from .ir import (Assign, Attr, Call, Const, DType, Expr, For, If, Level, Load, Name, Program, ScalarType, Stage,
                 StageKind, Store, TileType, walk, walk_exprs, walk_stmts)
from .ops import OPS, REDUCTIONS, window_form, window_padded_len
from .registers import is_byte_mask
from .tiles import MAX_PITCH_BLOCKS, footprint, is_pitched, per_row, stretched



@dataclass(frozen=True)
class UbBuffer:
    name: str
    dtype: DType
    level: Level
    role: str                               # VECIN | VECOUT | VECCALC (UB); A1 | B1 (L1), A2 (L0A), B2 (L0B), CO1 (L0C)
    capacities: tuple[Expr | None, ...]     # elements per definition site; None: known only at run time
    defined_in: StageKind
    used_in: frozenset[StageKind]
    sites: tuple[Span, ...] = field(compare=False, default=())
    once: bool = False                      # loaded once per core and kept: not double-buffered
    rows: tuple = field(compare=False, default=())   # a tile of rows: (span, rows cap, columns cap) per site

    @property
    def nbuf(self) -> int:
        """Copies in UB: queues are double-buffered so copy-in, compute and copy-out overlap
        (a tile loaded once per core needs one); the cube's input queues likewise, so MTE2, MTE1
        and M overlap; one L0C accumulator."""
        return 2 if self.role in ("VECIN", "VECOUT", "A1", "B1", "A2", "B2") and not self.once else 1

    def unit(self, plan: "UbPlan", soc: Soc) -> int:
        """What this buffer's bytes round up to: its cube level's InitBuffer unit, or the UB's."""
        return cube.LEVEL_ALIGN[self.level] if cube.is_cube_level(self.level) else plan.unit(soc, self.dtype.nbytes)


@dataclass(frozen=True)
class ScratchNeed:
    """Temporaries one compute statement needs, sized by the largest tile it touches."""

    span: Span
    tiles: int
    sizes: tuple[tuple[Expr | None, DType], ...]
    stmt: Assign | None = field(default=None, compare=False)     # the typed statement
    dtype: DType | None = field(default=None, compare=False)     # its target's dtype


STAGING_BYTES = 32          # the scalar staging block: one 32-byte block of f32 lanes
SCALAR_OUT_BYTES = 32       # the UB queue of a scalar stored to GM: one block


@dataclass(frozen=True)
class UbPlan:
    buffers: tuple[UbBuffer, ...]
    scratch: tuple[ScratchNeed, ...]
    sync_all: bool = False                      # the kernel calls sync_all(): SyncAll's UB work area too
    staging: bool = False                       # scalars pass through the vector unit: the staging block
    scalar_outs: tuple[str, ...] = ()           # scalars stored to GM: one queue each
    compare: bool = False                       # Compare in the kernel: buffers padded to whole repeats
    operands: tuple = ()                        # cube.Operand per L1 tile: how it reaches L0A / L0B
    padded: tuple[tuple[str, Call], ...] = ()   # tiles living padded for a window op: (name, the op)

    def padding(self, name: str) -> Call | None:
        """The window op whose padding tile `name` carries in its own buffer (`padded_rows`)."""
        return next((call for n, call in self.padded if n == name), None)

    def buffer(self, name: str) -> UbBuffer | None:
        return next((b for b in self.buffers if b.name == name), None)

    @property
    def uses_cube(self) -> bool:
        return any(cube.is_cube_level(b.level) for b in self.buffers)

    def operand(self, name: str) -> "cube.Operand | None":
        """The operand an L1 tile or an L0A / L0B tile belongs to."""
        return next((op for op in self.operands if name in (op.l1, op.l0)), None)

    def sync_bytes(self, soc: Soc) -> int:
        """UB of SyncAll's work area (0 in a kernel that does not sync)."""
        return sync_all_ub_bytes(soc) if self.sync_all else 0

    def unit(self, soc: Soc, nbytes: int = 4) -> int:
        """What a buffer of `nbytes` elements is rounded up to: 32 bytes, or in a kernel that
        compares as many elements as a whole f32 repeat holds (the lowering rounds every vector
        count up to CMP_ALIGN = 64 elements: 256 bytes, or 512 for int64 tiles)."""
        if not self.compare:
            return soc.block_bytes
        return soc.repeat_bytes * max(1, nbytes // 4)

    @property
    def scratch_slots(self) -> int:
        """Slots of the scratch TBuf: the temporaries of the most demanding statement."""
        return max((s.tiles for s in self.scratch), default=0)

    scratch_tiles = scratch_slots

    @property
    def slot_capacities(self) -> tuple[Expr | None, ...]:
        """Elements of a scratch slot: as many as the largest tile a statement with temporaries
        touches (the buffers' sizes when no statement gives one)."""
        caps = tuple(c for need in self.scratch for c, _ in need.sizes if c is not None)
        return caps or tuple(c for b in self.buffers if b.level is Level.UB for c in b.capacities if c is not None)

    @property
    def slot_dtype(self) -> DType:
        """A slot holds a temporary of any dtype the statements compute (f32 math on f16 tiles);
        8-byte tiles (int64 indices) widen the slots only when a statement with temporaries touches one."""
        in_scratch = {dt for need in self.scratch for _, dt in need.sizes}
        widths = [b.dtype for b in self.buffers
                  if b.level is Level.UB and (b.dtype.nbytes <= 4 or b.dtype in in_scratch)] \
            + sorted(in_scratch, key=str)
        return max(widths, key=lambda d: d.nbytes, default=DType.f32)

    def usage(self, env: Mapping[str, int | float], soc: Soc) -> "UbUsage":
        """Bytes of every buffer with `env` (dims, scalar params, `t.field`s), as the init pass
        allocates them; buffers whose size is unknown are skipped."""
        ev = HostEvaluator(soc, env)
        items = []
        for b in self.buffers:
            known = [c for c in (_try_eval(ev, c, env) for c in b.capacities) if c is not None]
            if known:
                elems = max(known)
                items.append((b, elems, align(elems * b.dtype.nbytes, b.unit(self, soc))))
        slot = 0
        if self.scratch_slots:
            known = [c for c in (_try_eval(ev, c, env) for c in self.slot_capacities) if c is not None]
            slot = align(max(known, default=0) * self.slot_dtype.nbytes, self.unit(soc, self.slot_dtype.nbytes))
        span = max(self.scratch, key=lambda s: s.tiles).span if self.scratch else None
        return UbUsage(tuple(items), self.scratch_slots * slot, span, self.sync_bytes(soc),
                       STAGING_BYTES if self.staging else 0, SCALAR_OUT_BYTES * len(self.scalar_outs))


@dataclass(frozen=True)
class UbUsage:
    items: tuple[tuple[UbBuffer, int, int], ...]    # (buffer, elements, bytes of one copy)
    scratch_bytes: int
    scratch_span: Span | None
    sync_bytes: int = 0                              # SyncAll's UB work area
    staging_bytes: int = 0                           # the scalar staging block
    scalar_out_bytes: int = 0                        # the queues of scalars stored to GM

    def total(self, level: Level = Level.UB) -> int:
        t = sum(b.nbuf * nbytes for b, _, nbytes in self.items if b.level is level)
        if level is Level.UB:
            t += self.scratch_bytes + self.sync_bytes + self.staging_bytes + self.scalar_out_bytes
        return t

    def breakdown(self, level: Level = Level.UB) -> str:
        parts = [f"{b.name} {b.nbuf} x {human_bytes(n)}" for b, _, n in self.items if b.level is level]
        if level is Level.UB:
            for what, n in (("scratch", self.scratch_bytes), ("SyncAll work area", self.sync_bytes),
                            ("scalar staging", self.staging_bytes), ("scalar outputs", self.scalar_out_bytes)):
                if n:
                    parts.append(f"{what} {human_bytes(n)}")
        return ", ".join(parts)


def align(n: int, to: int = 32) -> int:
    return -(-int(n) // to) * to


def _try_eval(ev, e: Expr | None, env) -> int | None:
    if e is None:
        return None
    if not _known(e, env):
        return None
    try:
        v = ev.eval(e)
    except DslError:
        return None
    return int(v) if isinstance(v, (int, float)) else None


def _known(e: Expr, env) -> bool:
    """Every name and field of `e` has a value in `env` (SoC constants are upper case)."""
    if isinstance(e, Attr):
        return f"{e.obj.id}.{e.attr}" in env
    if isinstance(e, Name):
        return e.id in env or e.id.isupper()
    if isinstance(e, Call):
        return all(_known(a, env) for a in e.args)
    return True


def capacity_limit(level: Level, soc: Soc) -> int:
    """Bytes the kernel's buffers may take at `level`: in UB the usable UB (the plan counts every
    buffer the lowering allocates)."""
    return {Level.UB: soc.ub_usable, Level.L1: soc.l1_bytes, Level.L0A: soc.l0a_bytes,
            Level.L0B: soc.l0b_bytes, Level.L0C: soc.l0c_bytes}[level]


BUDGET_LEVELS = (Level.UB,) + cube.CUBE_LEVELS

MAX_COPY_ROWS = 4095        # DataCopyPad's blockCount: rows one strided copy moves


def check_rows(program: Program, env: Mapping[str, int | float], soc: Soc) -> None:
    """A tile of rows must be addressable by repeat strides (a row pitch of at most 255 blocks) and
    copied by one strided copy per plane (at most 4095 rows)."""
    ev = HostEvaluator(soc, env)
    for b in ub_buffers(program).buffers:
        for span, rows, cols in b.rows:
            c = _try_eval(ev, cols, env)
            if c is not None:
                block = b.dtype.elems_per_block
                blocks = -(-c // block)
                if blocks > MAX_PITCH_BLOCKS:
                    raise DslError(f"tile `{b.name}` has rows of {c} {b.dtype.value} "
                                   f"({blocks} blocks of 32 bytes); a vector "
                                   f"repeat stride reaches {MAX_PITCH_BLOCKS} blocks ({MAX_PITCH_BLOCKS * block} "
                                   f"{b.dtype.value}), so its rows cannot be walked one per repeat",
                                   span, f"tile the columns too (`x[c, k]` with `k in tiles(N, t.cols)`, at most "
                                   f"{MAX_PITCH_BLOCKS * block} wide), or load one row at a time",
                                   program.path, program.source)
            r = _try_eval(ev, rows, env)
            if r is not None and r > MAX_COPY_ROWS and b.role in ("VECIN", "VECOUT"):
                raise DslError(f"tile `{b.name}` has {r} rows; one strided copy (DataCopyPad) moves at most "
                               f"{MAX_COPY_ROWS}", span, f"take at most {MAX_COPY_ROWS} rows per tile, e.g. "
                               f"min(..., {MAX_COPY_ROWS}) in the host function", program.path, program.source)


def check_budget(program: Program, env: Mapping[str, int | float], soc: Soc) -> UbUsage:
    """Raise a DslError naming the biggest tile when the plan does not fit the SoC's buffers."""
    check_rows(program, env, soc)
    plan = ub_buffers(program)
    usage = plan.usage(env, soc)
    for level in BUDGET_LEVELS:
        total = usage.total(level)
        limit = capacity_limit(level, soc)
        if total > limit:
            raise budget_error(program, usage, level, soc, total, limit)
    return usage


def budget_error(program: Program, usage: UbUsage, level: Level, soc: Soc, total: int, limit: int,
                 span: Span | None = None, when: str = "") -> DslError:
    items = [(b, e, n) for b, e, n in usage.items if b.level is level]
    if items:
        big, elems, nbytes = max(items, key=lambda it: it[2])
        what = f"tile `{big.name}` of {elems} {big.dtype.value} ({human_bytes(nbytes)})"
        span = span or big.sites[0]
        count = sum(b.nbuf for b, _, _ in items)
    else:
        what, count = "scratch", 1
        span = span or usage.scratch_span
    room = f"UB usable on {soc.name}" if level is Level.UB else f"{level.value} of {soc.name}"
    msg = (f"{when}{what} with the other {level.value} buffers needs {human_bytes(total)} "
           f"({usage.breakdown(level)}), over the {human_bytes(limit)} of {room}")
    if level is Level.UB:
        help = (f"lower `tile` in the host function — ub_elems(dtype, live=K) with K covering all {count} "
                "buffer copies and the scratch — or split the row into tiles")
    else:
        steps = {Level.L1: "base_m / base_n / base_k", Level.L0A: "base_m or base_k", Level.L0B: "base_k or base_n",
                 Level.L0C: "base_m or base_n"}[level]
        help = (f"lower {steps} in the host function: the {count} {level.value} buffer copies (double-buffered "
                "queues) must fit together, each rounded up to whole fractals")
    return DslError(msg, span, help, program.path, program.source)


# ----------------------------------------------------------------------------- what the plan derives from the IR

STAGE_ORDER = {StageKind.copyin: 0, StageKind.split: 1, StageKind.compute: 2, StageKind.copyout: 3}


@dataclass(frozen=True)
class StageGroup:
    """One copyin -> compute -> copyout pass over the data: its stages, in order."""
    number: int
    stages: tuple[Stage, ...]


def stage_groups(body) -> list[StageGroup]:
    """The kernel's stages in groups: a stage that does not come after the previous one in
    copyin -> compute -> copyout order starts the next group (a compute of per-column values,
    then the copyin of the next sweep's first step)."""
    groups: list[list[Stage]] = []

    def collect(stmts):
        run: list[Stage] = []
        for s in stmts:
            if isinstance(s, Stage):
                if run and STAGE_ORDER[s.kind] <= STAGE_ORDER[run[-1].kind]:
                    groups.append(run)
                    run = []
                run.append(s)
                continue
            if run:
                groups.append(run)
                run = []
            if isinstance(s, For):
                collect(s.body)
            elif isinstance(s, If):
                collect(s.body)
                collect(s.orelse)
        if run:
            groups.append(run)

    collect(body)
    return [StageGroup(i, tuple(g)) for i, g in enumerate(groups, 1)]


def loaded_once(groups: list[StageGroup], tiles: set[str]) -> frozenset[str]:
    """Loaded tiles (of `tiles`, the tile names) read by compute stages of another stage group
    (a weight loaded once per core, used for every row): dequeued once and kept until the end."""
    loaded: dict[str, set[int]] = {}
    for group in groups:
        for st in group.stages:
            if st.kind is StageKind.copyin:
                for s in st.body:
                    if isinstance(s, Load) and s.target in tiles:
                        loaded.setdefault(s.target, set()).add(group.number)
    keep = set()
    for group in groups:
        for st in group.stages:
            if st.kind is StageKind.compute:
                reads = {n.id for x in st.body for n in walk(x) if isinstance(n, Name)}
                # A name loaded again in this compute's own group is a per-tile queue here.
                keep |= {t for t in reads if t in loaded and group.number not in loaded[t]}
    return frozenset(keep)


def _category(call: Call) -> str:
    spec = OPS.get(call.op)
    return spec.category if spec is not None else ""


def needs_staging(body) -> bool:
    """Whether scalars pass through the vector unit: a reduction's result, or a function the
    scalar unit has no instruction for (exp, log, sqrt, ... of a scalar)."""
    for n in walk(Stage(StageKind.compute, tuple(body))):
        if isinstance(n, Call) and n.op in OPS:
            spec = OPS[n.op]
            if spec.category == "reduce" and spec.api and isinstance(n.type, ScalarType):
                return True      # a vector reduction's result, read back through the staging block
            if isinstance(n.type, ScalarType) and spec.category in ("unary", "binary") and spec.vector_for_scalar:
                return True
    return False


def byte_masks(body, loaded_bool: set[str]) -> frozenset[str]:
    """bool tiles holding one byte per element: loaded from GM, or made by cast()."""
    cast = {s.target for s, _ in walk_stmts(body) if isinstance(s, Assign) and isinstance(s.value, Call)
            and _category(s.value) == "cast" and isinstance(s.value.type, TileType)
            and s.value.type.dtype is DType.bool}
    return frozenset(loaded_bool | cast)


def compares(body, masks: frozenset[str]) -> bool:
    """Whether a Compare runs (a tile comparison, or a byte mask turned into Select's bit mask)."""
    return any(isinstance(n, Call) and isinstance(n.type, TileType) and (
        _category(n) == "compare" or (_category(n) == "select" and is_byte_mask(n.args[0], masks)))
        for n in walk(Stage(StageKind.compute, tuple(body))))


def scalar_outputs(body) -> tuple[str, ...]:
    """Scalars stored to GM, in order (each gets a one-block UB queue)."""
    out = []
    for s, _ in walk_stmts(body):
        if isinstance(s, Store) and isinstance(s.value.type, ScalarType) and s.value.id not in out:
            out.append(s.value.id)
    return tuple(out)


def padded_rows(body, calc: Mapping[str, tuple], compare: bool, locals_: set[str]) -> tuple[tuple[str, Call], ...]:
    """Compute tiles that live padded in their own buffer: (name, the window op that reads them).

    A padded window op (pooling with padding) reads its row from a copy behind `window_lead`
    slots of its padding value. When the row is a VECCALC tile (`calc`: name -> its definitions'
    capacities) that every padded window op reads the same way, the tile itself can be that copy:
    its buffer holds the padding, the tile starts `lead` elements in, each fresh definition
    refills the padding first, and the op reads it in place: one UB copy of the row fewer.

    Not when the kernel compares (vector counts are then rounded up to whole repeats and would
    write over the padding behind the row), when the tile's definitions differ in length, or when
    the padding depends on a value computed in the kernel (the lead must be the same in every method)."""
    if compare:
        return ()
    uses: dict[str, list[Call]] = {}
    for n in walk(Stage(StageKind.compute, tuple(body))):
        if isinstance(n, Call) and n.op in OPS and OPS[n.op].category == "window" and window_form(n) == "padded" \
                and isinstance(n.args[0], Name) and n.args[0].id in calc:
            uses.setdefault(n.args[0].id, []).append(n)
    out = []
    for name, calls in uses.items():
        first = calls[0]
        same = all(c.args[1:6] == first.args[1:6] and _pad_value(c) == _pad_value(first) for c in calls)
        invariant = not any(isinstance(x, Name) and x.id in locals_ for x in walk_exprs(first.args[3]))
        if same and invariant and len(set(calc[name])) == 1:
            out.append((name, first))
    return tuple(out)


def _pad_value(window: Call) -> float:
    """What a window op's padding holds: its reduction's identity (-inf for max, 0 for a sum)."""
    return REDUCTIONS[OPS[window.op].reduction].identity


def padded_len(call: Call) -> Expr:
    """Elements of the padded row a window op reads (`window_padded_len` of its source tile)."""
    dt = call.type.dtype
    return window_padded_len(call, call.args[0].type.shape[0], call.type.shape[0], dt.elems_per_block)


# ----------------------------------------------------------------------------- statement temporaries


def gathered_sources(e: Expr) -> set[int]:
    """ids of the tiles in `e` that a Gather reads in place (a take()'s source, its row's `gathers`):
    a whole row or plane held in UB never sizes the scratch slots (the result, one element per
    index, does)."""
    return {id(n.args[0]) for n in walk_exprs(e)
            if isinstance(n, Call) and n.op in OPS and OPS[n.op].gathers and isinstance(n.args[0], Name)}


def stmt_tile_sizes(st: Assign, cap, padded: frozenset[str] = frozenset()) -> tuple[tuple[Expr | None, DType], ...]:
    """(capacity, dtype) of every tile-valued sub-expression (the scratch is sized by the largest;
    a window op reading one of the `padded` tiles in place needs no padded copy)."""
    out = []
    gathered = gathered_sources(st.value)
    for n in walk_exprs(st.value):
        if id(n) in gathered:
            continue
        if isinstance(n.type, TileType):
            out.append((cap(n.type), n.type.dtype))
            is_window = isinstance(n, Call) and n.op in OPS and OPS[n.op].category == "window"
            form = window_form(n) if is_window else "blocks"
            if form == "padded" and isinstance(n.args[0], Name) and n.args[0].id in padded:
                form = "gather"
            if isinstance(n, Call) and _category(n) == "transpose":   # its lanes' offsets are f32 / i32
                out.append((cap(n.type), DType.i32))
            dt = n.type.dtype
            if form == "padded":      # the padded copy is longer than the row
                out.append((cap(TileType(dt, (padded_len(n),))), dt))
            if form != "blocks" and dt.nbytes < 4:    # one uint32 gather offset per window
                out.append((cap(TileType(dt, (Call("mul", (Const(4 // dt.nbytes, "int"), n.type.shape[0])),))), dt))
            if isinstance(n, Call) and n.op in OPS and OPS[n.op].category == "sort":
                # a slot holds the row padded to whole Extract repeats in f32 (scores, positions);
                # a buffer of (score, index) pairs takes two
                src = n.args[0].type
                unit = Const(256 // src.dtype.nbytes, "int")
                out.append((cap(TileType(DType.f32, (Call("align_up", (src.shape[0], unit)),))), DType.f32))
            for i in stretched(n):                    # Brcb spreads 8 values at a time over a block each
                a = n.args[i].type
                if per_row(a.shape, n.type.shape) or not is_pitched(n.type):
                    values = Call("align_up", (footprint(a), Const(8, "int")))
                    elems = Call("mul", (values, Const(a.dtype.elems_per_block, "int")))
                    out.append((cap(TileType(a.dtype, (elems,))), a.dtype))
    return tuple(dict.fromkeys(out))


def ub_buffers(program: Program) -> UbPlan:
    """The UB plan of a verified program (the lowering's query: buffers, roles, stages, sizes)."""
    plan = program.plan
    if plan is None:
        raise ValueError("ub_buffers needs a verified program: call verify(program) first")
    return plan


# ----------------------------------------------------------------------------- fit_tile / fit_rows

# Every dim while the plan is probed: larger than the probed tiles even split over the cores, so
# min(tile, N) is the tile, and small enough that a product of four dims stays a 64-bit number.
PROBE_DIM = 1 << 15
# two values of the fitted tile (whole f16 and f32 repeats): the plan grows affinely between them
PROBE_FIT = (256, 512)


def solve_fits(program: Program, plan: UbPlan, soc: Soc) -> Program:
    """`program` with its host's fit_tile(dtype) / fit_rows(dtype, cols) replaced by the ub_elems
    they stand for, the live count taken from the UB plan instead of the author's hand count.

    The plan is affine in the fitted value: the host function runs twice with the fit at two
    probe values (every dim far larger), and each UB buffer copy and scratch slot counts by how
    many elements of `dtype` (fit_rows: rows of the padded pitch) it grows by per fitted unit.
    A buffer that does not grow with the fit (a weight, a one-element shift) counts as one more
    unit, and the total rounds up: the budget check, which sums the plan exactly, then holds."""
    fit = _the_fit(program)
    if fit is None:
        return program
    live, parts = _live_units(program, plan, soc, fit)
    what = "row" if fit.op == "fit_rows" else "tile"
    note = f"{fit.op}: {live} {what}-sized UB copies counted from the plan ({', '.join(parts)})"
    return _with_fit(program, fit, _solved(program.host, fit, live), note)


def _the_fit(program: Program) -> Call | None:
    """The host function's one fit_tile() / fit_rows() call (None without; a second is an error)."""
    calls = [(n, where) for where, e in _host_exprs(program.host) for n in walk_exprs(e)
             if isinstance(n, Call) and n.op in ("fit_tile", "fit_rows")]
    if len(calls) > 1:
        second = calls[1][0]
        raise DslError(f"a second {second.op}() in the host function; the UB plan solves one fitted size",
                       second.span, f"fit one size (`{calls[0][0].op}` on line {calls[0][0].span.line}) and derive "
                       "the others from it, or size them with ub_elems(dtype, live=K)", program.path, program.source,
                       rule="host.fit")
    return calls[0][0] if calls else None


def _live_units(program: Program, plan: UbPlan, soc: Soc, fit: Call) -> tuple[int, list[str]]:
    """How many fitted units of UB the plan takes (rounded up), and the buffers that count, by name."""
    dtype = fit.args[0].dtype
    rows = fit.op == "fit_rows"

    def fail(msg: str, help: str) -> DslError:
        return DslError(msg, fit.span, help, program.path, program.source, rule="host.fit")
    usages, pitch = [], None
    for value in PROBE_FIT:
        try:
            env, pitch = _probe(program, fit, value, soc)
        except DslError as e:
            raise fail(f"{fit.op}() cannot be solved: the host function does not run on probe shapes "
                       f"(every dim {PROBE_DIM}, int scalars 1, float scalars 1.0): {e.message}",
                       "size the tile by hand with ub_elems(dtype, live=K)") from None
        usages.append(plan.usage(env, soc))
    per_unit = (pitch if rows else 1) * dtype.nbytes        # bytes of one fitted unit of `dtype`
    step = PROBE_FIT[1] - PROBE_FIT[0]
    block = rows and dtype.elems_per_block * dtype.nbytes
    units, parts = 0.0, []
    lo = {id(b): n for b, _, n in usages[0].items}
    for b, _, n in usages[1].items:
        if b.level is not Level.UB:
            continue
        grow = (n - lo.get(id(b), 0)) / step
        units += b.nbuf * (_share(grow, per_unit, block) if grow > 0 else 1)
        parts.append(f"{b.name}" + (f" x{b.nbuf}" if b.nbuf > 1 else "") + ("" if grow > 0 else " (fixed size)"))
    if plan.scratch_slots:
        grow = (usages[1].scratch_bytes - usages[0].scratch_bytes) / step
        units += _share(grow, per_unit, block) if grow > 0 else plan.scratch_slots
        parts.append(f"scratch x{plan.scratch_slots}" if plan.scratch_slots > 1 else "scratch")
    shares = [(n - lo.get(id(b), 0)) / step / per_unit for b, _, n in usages[1].items if b.level is Level.UB]
    if not any(x > 0 for x in shares):
        raise fail(f"{fit.op}() reaches no UB buffer: no tile of the kernel grows with it",
                   "pass it to the Launch field that sizes the tiles (`tile=min(tile, N)` read by `tiles(N, t.tile)`); "
                   "a tile of rows is `tile_rows = fit_rows(f32, cols)`")
    if not rows and max(shares) < 0.25:      # a tile grows by >= 1 byte per element of a 4-byte dtype
        raise fail("fit_tile() counts elements of a tile, but here the plan grows by a fraction of one per "
                   "element: it is divided (by a row's length?) before it sizes the tiles",
                   "for a tile of rows write `tile_rows = fit_rows(f32, cols)` with the row's columns")
    return max(1, -int(-round(units, 6) // 1)), parts


def _solved(host, fit: Call, live: int) -> Expr:
    """What the fit stands for: ub_elems(dtype, live, 1), for fit_rows divided by the row's pitch
    (at least one row)."""
    dtype = fit.args[0].dtype
    solved: Expr = Call("ub_elems", (fit.args[0], Const(live, "int"), Const(1, "int")), span=fit.span, type=fit.type)
    if fit.op != "fit_rows":
        return solved
    lanes = Const(dtype.elems_per_block, "int")
    pitch_e = fit.args[1] if _whole_blocks(fit.args[1], {st.target: st.value for st in host.body},
                                           dtype.elems_per_block) \
        else Call("align_up", (fit.args[1], lanes), span=fit.span, type=fit.type)
    return Call("max", (Call("floordiv", (solved, pitch_e), span=fit.span, type=fit.type), Const(1, "int")),
                span=fit.span, type=fit.type)


def _with_fit(program: Program, fit: Call, solved: Expr, note: str) -> Program:
    """`program` with the fit call replaced by `solved` wherever the host function has it."""
    from dataclasses import replace as _replace
    host = program.host

    def sub(e: Expr) -> Expr:
        if e is fit:
            return solved
        if isinstance(e, Call):
            return _replace(e, args=tuple(sub(a) for a in e.args))
        return e
    body = tuple(_replace(st, value=sub(st.value)) for st in host.body)
    launch = _replace(host.launch, cores=sub(host.launch.cores),
                      fields=tuple(_replace(f, value=sub(f.value)) for f in host.launch.fields))
    return _replace(program, host=_replace(host, body=body, launch=launch, fits=((fit.span.line, note),)))


def _whole_blocks(e: Expr, host_vars: Mapping[str, Expr], lanes: int, depth: int = 0) -> bool:
    """`e` is provably a multiple of `lanes` (align_up / align_down to a multiple of it, a literal
    multiple, a min / max of such): the pitch is `e` itself, with no align_up around it."""
    if depth > 32:
        return False
    rec = lambda x: _whole_blocks(x, host_vars, lanes, depth + 1)  # noqa: E731
    if isinstance(e, Const):
        return e.kind == "int" and int(e.value) % lanes == 0
    if isinstance(e, Name):
        return e.id in host_vars and rec(host_vars[e.id])
    if isinstance(e, Call):
        if e.op in ("align_up", "align_down"):
            return isinstance(e.args[1], Const) and int(e.args[1].value) % lanes == 0
        if e.op in ("min", "max"):
            return all(rec(a) for a in e.args)
        if e.op == "mul":
            return any(rec(a) for a in e.args)
    return False


def _share(grow: float, per_unit: int, block: int) -> float:
    """Fitted units a buffer takes per unit it grows by `grow` bytes. For rows (`block`: the bytes
    of the narrowest pitch) a buffer growing by less than the probe's pitch per row (one factor per
    row) is counted against the narrowest pitch, where it weighs most."""
    return max(grow / per_unit, min(1.0, grow / block)) if block else grow / per_unit


def _host_exprs(host):
    for st in host.body:
        yield st, st.value
    yield host.launch, host.launch.cores
    for f in host.launch.fields:
        yield f, f.value


def _probe(program: Program, fit: Call, value: int, soc: Soc) -> tuple[dict, int]:
    """The plan's environment with the fit at `value` and every dim PROBE_DIM (int scalars 1,
    float scalars 1.0), and fit_rows's pitch in elements there."""
    env: dict = {d: PROBE_DIM for d in program.dim_names()}
    for p in program.scalars:
        env.setdefault(p.name, 1.0 if p.dtype.is_float else 1)
    ev = HostEvaluator(soc, env, program.path, program.source, fit=value)
    host = program.host
    for st in host.body:
        ev.env[st.target] = ev.eval(st.value)
    launch = {"cores": ev.eval(host.launch.cores)}
    for f in host.launch.fields:
        launch[f.name] = ev.eval(f.value)
    tp = program.tiling_param
    out = dict(env)
    if tp is not None:
        out.update({f"{tp.name}.{k}": v for k, v in launch.items()})
    pitch = 1
    if fit.op == "fit_rows":
        cols = int(ev.eval(fit.args[1]))
        lanes = fit.args[0].dtype.elems_per_block
        pitch = max(-(-cols // lanes) * lanes, lanes)
    return out, pitch
