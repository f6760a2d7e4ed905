"""The UB plan: which on-chip buffers a kernel needs, in which role, and how many bytes.

One model, used by the verifier (static budget), the interpreter (run-time budget) and the
lowering (queue / TBuf declarations and InitBuffer sizes):

- every tile *name* is one buffer (the same name in several loops reuses it; its size is the
  largest of its definitions);
- a tile defined by `load` is a VECIN queue, a tile computed and then stored is a VECOUT
  queue — both double-buffered (x2); any other computed tile is a VECCALC TBuf (x1);
- one shared VECCALC scratch TBuf holds the temporaries of the most demanding compute
  statement: nested tile sub-expressions that cannot be written into the destination
  (a Sethi–Ullman count) plus the work tiles of ops such as reductions (`OpSpec.scratch`);
- a kernel that calls sync_all() has one more VECCALC TBuf: SyncAll's UB work area, 32 bytes per
  core of the widest launch that may sync (`host.sync_all_ub_bytes`);
- each buffer is rounded up to 32 bytes. The total must fit `Soc.ub_for_tiles` (the usable UB
  less the small reserve the lowering keeps for its own staging buffers).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from ..soc import Soc
from .errors import DslError, Span, human_bytes
from .ir import Assign, Attr, Call, Const, DType, Expr, Level, Name, Program, StageKind, TileType, walk_exprs
from .ops import OPS, window_form, window_padded_len, window_scratch


@dataclass(frozen=True)
class UbBuffer:
    name: str
    dtype: DType
    level: Level
    role: str                               # VECIN | VECOUT | VECCALC (UB), L1 (cube input)
    capacities: tuple[Expr | None, ...]     # elements per definition site; None: known only at run time
    defined_in: StageKind
    used_in: frozenset[StageKind]
    sites: tuple[Span, ...] = field(compare=False, default=())

    @property
    def nbuf(self) -> int:
        """Copies in UB: queues are double-buffered so copy-in, compute and copy-out overlap."""
        return 2 if self.role in ("VECIN", "VECOUT") else 1


@dataclass(frozen=True)
class ScratchNeed:
    """Temporaries one compute statement needs, sized by the largest tile it touches."""

    span: Span
    tiles: int
    sizes: tuple[tuple[Expr | None, DType], ...]


@dataclass(frozen=True)
class UbPlan:
    buffers: tuple[UbBuffer, ...]
    scratch: tuple[ScratchNeed, ...]
    sync_all: bool = False          # the kernel calls sync_all(): SyncAll's UB work area too

    def buffer(self, name: str) -> UbBuffer | None:
        return next((b for b in self.buffers if b.name == name), None)

    def sync_bytes(self, soc: Soc) -> int:
        """UB of SyncAll's work area (0 in a kernel that does not sync)."""
        from .host import sync_all_ub_bytes
        return sync_all_ub_bytes(soc) if self.sync_all else 0

    @property
    def scratch_tiles(self) -> int:
        return max((s.tiles for s in self.scratch), default=0)

    def usage(self, env: Mapping[str, int | float], soc: Soc) -> "UbUsage":
        """Bytes per buffer with `env` (dims, scalar params, `t.field`s); unknown sizes are skipped."""
        from .host import HostEvaluator
        ev = HostEvaluator(soc, env)
        items = []
        for b in self.buffers:
            caps = [_try_eval(ev, c, env) for c in b.capacities]
            known = [c for c in caps if c is not None]
            if not known:
                continue
            elems = max(known)
            items.append((b, elems, align(elems * b.dtype.nbytes, soc.block_bytes)))
        scratch_bytes, scratch_span = 0, None
        for s in self.scratch:
            sizes = [(_try_eval(ev, c, env), dt) for c, dt in s.sizes]
            tile_bytes = max((align(n * dt.nbytes, soc.block_bytes) for n, dt in sizes if n is not None), default=0)
            if s.tiles * tile_bytes > scratch_bytes:
                scratch_bytes, scratch_span = s.tiles * tile_bytes, s.span
        return UbUsage(tuple(items), scratch_bytes, scratch_span, self.sync_bytes(soc))


@dataclass(frozen=True)
class UbUsage:
    items: tuple[tuple[UbBuffer, int, int], ...]    # (buffer, elements, bytes of one copy)
    scratch_bytes: int
    scratch_span: Span | None
    sync_bytes: int = 0                              # SyncAll's UB work area

    def total(self, level: Level = Level.UB) -> int:
        t = sum(b.nbuf * nbytes for b, _, nbytes in self.items if b.level is level)
        return t + (self.scratch_bytes + self.sync_bytes if level is Level.UB else 0)

    def breakdown(self, level: Level = Level.UB) -> str:
        parts = [f"{b.name} {b.nbuf} x {human_bytes(n)}" for b, _, n in self.items if b.level is level]
        if level is Level.UB and self.scratch_bytes:
            parts.append(f"scratch {human_bytes(self.scratch_bytes)}")
        if level is Level.UB and self.sync_bytes:
            parts.append(f"SyncAll work area {human_bytes(self.sync_bytes)}")
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
    """Bytes the DSL's buffers may take at `level`. In UB that is `Soc.ub_for_tiles`: the usable
    UB less the small reserve the lowering keeps for the buffers it adds beside the tiles."""
    return {Level.UB: soc.ub_for_tiles, Level.L1: soc.l1_bytes, Level.L0A: soc.l0a_bytes,
            Level.L0B: soc.l0b_bytes, Level.L0C: soc.l0c_bytes}[level]


def check_budget(program: Program, env: Mapping[str, int | float], soc: Soc) -> UbUsage:
    """Raise a DslError naming the biggest tile when the plan does not fit the SoC's buffers."""
    plan = ub_buffers(program)
    usage = plan.usage(env, soc)
    for level in (Level.UB, Level.L1):
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
    room = f"UB for tiles on {soc.name}" if level is Level.UB else f"{level.value} of {soc.name}"
    msg = (f"{when}{what} with the other {level.value} buffers needs {human_bytes(total)} "
           f"({usage.breakdown(level)}), over the {human_bytes(limit)} of {room}")
    help = (f"lower `tile` in the host function — ub_elems(dtype, live=K) with K covering all {count} "
            "buffer copies and the scratch — or split the row into tiles")
    return DslError(msg, span, help, program.path, program.source)


# ----------------------------------------------------------------------------- statement temporaries


def expr_need(e: Expr) -> tuple[int, int]:
    """(peak tile registers while evaluating e, 1 if its result occupies a tile register).

    Tile names are leaves: they already have buffers. Children are evaluated in the order that
    keeps the peak lowest; an in-place op writes its result over an operand's register.
    """
    if not isinstance(e, Call):
        return 0, 0
    kids = [expr_need(a) for a in e.args]
    kids.sort(key=lambda ph: ph[0] - ph[1], reverse=True)
    held = peak = 0
    for p, h in kids:
        peak = max(peak, held + p)
        held += h
    spec = OPS.get(e.op)
    result_tile = isinstance(e.type, TileType)
    scratch = (window_scratch(e) if spec.category == "window" else spec.scratch) if spec else 0
    inplace = spec.inplace if spec else True
    reuse = inplace and held >= 1
    peak = max(peak, held + scratch + (0 if (reuse or not result_tile) else 1))
    return peak, (1 if result_tile else 0)


def stmt_temps(st: Assign) -> int:
    """Scratch tiles a compute assignment needs beyond its destination buffer."""
    peak, _ = expr_need(st.value)
    if isinstance(st.value.type, TileType):
        if isinstance(st.value, Call) and st.target in {n.id for n in walk_exprs(st.value) if isinstance(n, Name)}:
            # `acc = acc + xu * xu`: the destination is an operand, so it cannot hold an
            # intermediate result (xu * xu); only the last operation writes into it.
            return _operands_peak(st.value)
        return max(0, peak - 1)   # the destination holds the last result
    return peak


def _operands_peak(e: Call) -> int:
    """Tile registers needed for e's operands and e's own work tiles, its result going elsewhere."""
    kids = sorted((expr_need(a) for a in e.args), key=lambda ph: ph[0] - ph[1], reverse=True)
    held = peak = 0
    for p, h in kids:
        peak = max(peak, held + p)
        held += h
    spec = OPS.get(e.op)
    return max(peak, held + (spec.scratch if spec else 0))


def stmt_tile_sizes(st: Assign, cap) -> tuple[tuple[Expr | None, DType], ...]:
    """(capacity, dtype) of every tile-valued sub-expression (the scratch is sized by the largest)."""
    out = []
    for n in walk_exprs(st.value):
        if isinstance(n.type, TileType):
            out.append((cap(n.type), n.type.dtype))
            form = window_form(n) if isinstance(n, Call) and n.op in OPS and OPS[n.op].category == "window" else "blocks"
            dt = n.type.dtype
            if form == "padded":      # the padded copy is longer than the row
                padded = window_padded_len(n, n.args[0].type.shape[0], n.type.shape[0], dt.elems_per_block)
                out.append((cap(TileType(dt, (padded,))), dt))
            if form != "blocks" and dt.nbytes < 4:    # one uint32 gather offset per window
                out.append((cap(TileType(dt, (Call("mul", (Const(4 // dt.nbytes, "int"), n.type.shape[0])),))), dt))
    return tuple(dict.fromkeys(out))


def ub_buffers(program: Program) -> UbPlan:
    """The UB plan of a verified program (the lowering's query: buffers, roles, stages, sizes)."""
    plan = program.plan
    if plan is None:
        raise ValueError("ub_buffers needs a verified program: call verify(program) first")
    return plan
