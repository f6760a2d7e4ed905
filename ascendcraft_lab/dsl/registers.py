"""The scratch registers of compute statements: one Sethi–Ullman walk, shared by the UB plan
(which counts the slots a statement needs) and the compute pass (which names and fills them).

A tile sub-expression that is not a DSL tile name lives in a *register*: the statement's
destination buffer, an operand's register it may overwrite (an in-place op of the same dtype),
or a slot of the shared scratch TBuf. Children are evaluated in the order that keeps the peak
lowest (`expr_need`); the destination stands in for the first operand along a chain of
in-place ops of its dtype. An op's own work tiles (a reduction's work tensor, a Gather's
offsets, the f32 copy and bit mask of a byte mask) are taken while its operands are held.

`RegisterWalk` counts; `passes/vector.py` subclasses it to emit code, so the count the UB plan
allocates is the count the lowering uses.
"""
from __future__ import annotations

from dataclasses import dataclass

from .ir import Assign, Call, DType, Expr, Name, TileType, walk_exprs
from .ops import OPS, window_scratch
from .tiles import broadcast_work, is_pitched, stretched


@dataclass(frozen=True)
class Reg:
    """A value's place in the counting walk: a DSL tile (`slot` None), the destination, or slot `slot`."""
    dtype: DType
    slot: int | None = None


def is_tile(e: Expr) -> bool:
    return isinstance(e.type, TileType)


def is_byte_mask(e: Expr, masks: frozenset[str]) -> bool:
    """A bool tile with one byte per element (loaded from GM, or made by cast()): Select wants bits."""
    return (isinstance(e, Name) and e.id in masks) or (isinstance(e, Call) and e.op in OPS
                                                          and OPS[e.op].category == "cast")


def work_tiles(e: Call, masks: frozenset[str], padded: frozenset[str] = frozenset()) -> int:
    """Work tiles the lowering takes while computing `e`, its operands held: the op table's
    `scratch`, a window op's gather offsets and gathered tile (and a padded copy, unless the
    source is one of the `padded` tiles that live padded in their own buffer), and for a
    Select the f32 copy and bit mask of a byte mask, and a tile of the scalar when the first
    choice is a scalar."""
    spec = OPS.get(e.op)
    if spec is None:
        return 0
    if spec.category == "reduce" and isinstance(e.args[0].type, TileType) and is_pitched(e.args[0].type) \
            and not is_tile(e):
        return spec.scratch + 1        # a whole tile of rows: one value per row first, then those
    if spec.category == "window":
        return window_scratch(e, in_place=isinstance(e.args[0], Name) and e.args[0].id in padded)
    bcast = broadcast_work(e)
    if spec.category == "select" and is_tile(e):
        fill = 0 if is_tile(e.args[1]) else 1
        if is_byte_mask(e.args[0], masks):      # f32 copy + bit mask, then the bit mask and the fill
            return spec.scratch + max(2, 1 + fill) + bcast
        return spec.scratch + fill + bcast
    return spec.scratch + bcast


def has_reduction(e: Expr) -> bool:
    return any(isinstance(n, Call) and n.op in OPS and OPS[n.op].category in ("reduce", "element")
               for n in walk_exprs(e))


class RegisterWalk:
    """Evaluates tile expressions over registers; this base class only counts slots (`peak`)."""

    def __init__(self, masks: frozenset[str] = frozenset(), padded: frozenset[str] = frozenset()):
        self.masks = masks
        self.padded = padded
        self.in_use: set[int] = set()
        self.peak = 0
        self.target: str | None = None      # the DSL name the statement assigns

    # -- registers (the compute pass overrides these to name and declare them) ----------------
    def take(self, dtype: DType):
        i = 0
        while i in self.in_use:
            i += 1
        self.in_use.add(i)
        self.peak = max(self.peak, i + 1)
        return self.slot_value(i, dtype)

    def slot_value(self, i: int, dtype: DType):
        return Reg(dtype, i)

    def release(self, value) -> None:
        if value.slot is not None:
            self.in_use.discard(value.slot)

    def leaf(self, name: Name):
        return Reg(name.type.dtype)

    # -- the walk ---------------------------------------------------------------------------------
    def tile(self, e: Expr, into, final=None):
        """Evaluate tile expression `e`; the result lands in `into` when given (a fresh buffer
        the expression does not read), else in a scratch slot or over a dying operand."""
        if isinstance(e, Name):
            return self.leaf(e)
        spec = OPS[e.op]
        tile_args = [(i, a) for i, a in enumerate(e.args) if is_tile(a)]
        need = {i: expr_need(a, self.masks, self.padded) for i, a in tile_args}
        order = sorted(tile_args, key=lambda ia: need[ia[0]][0] - need[ia[0]][1], reverse=True)
        values: dict[int, object] = {}
        offered = into
        wide = set(stretched(e))               # operands stretched to e's shape: never written over
        for i, a in order:
            if isinstance(a, Name):
                values[i] = self.leaf(a)
                continue
            dst = offered if (offered is not None and spec.inplace and a.type.dtype == offered.dtype
                              and i not in wide) else None
            values[i] = self.tile(a, dst)
            if dst is not None:
                offered = None          # `into` now holds this operand; the op below writes over it
        out = self.destination(e, values, into, final)
        self.emit(e, out, values)
        for v in values.values():
            if v is not out and v is not into:
                self.release(v)
        return out

    def destination(self, e: Call, values: dict, into, final):
        spec = OPS[e.op]
        dtype = e.type.dtype
        if into is not None and into.dtype == dtype:
            return into
        if final is not None and final.dtype == dtype and (spec.inplace or not self.reads_target(e)):
            return final                # (an op that is never in place does not write over its own operand)
        if spec.inplace:
            wide = set(stretched(e))
            for i, v in values.items():
                if v.slot is not None and v.dtype == dtype and i not in wide:
                    return v
        return self.take(dtype)

    def reads_target(self, e: Call) -> bool:
        """Whether `e` reads the statement's target tile itself (`a = a ** 3`)."""
        return any(isinstance(a, Name) and a.id == self.target for a in e.args)

    def emit(self, e: Call, out, values: dict) -> None:
        """Compute `e` into `out`: here, count the op's work tiles and the reductions its scalar
        operands need, taken while the operands are held."""
        for a in e.args:
            if not is_tile(a) and has_reduction(a):
                self.scalar(a)
        work = [self.take(DType.f32) for _ in range(work_tiles(e, self.masks, self.padded))]
        for w in work:
            self.release(w)

    def scalar(self, e: Expr) -> None:
        """A scalar expression: each reduction of a tile in it, in the order they are written."""
        if not isinstance(e, Call):
            return
        if e.op in OPS and OPS[e.op].category in ("reduce", "element"):
            src = self.tile(e.args[0], None)
            work = [self.take(DType.f32) for _ in range(work_tiles(e, self.masks))]
            for w in work:
                self.release(w)
            self.release(src)
            return
        for a in e.args:
            self.scalar(a)

    def assign(self, target_dtype: DType, st: Assign):
        """`target = value`: a tile computed straight into the target where it is not an operand."""
        value = st.value
        if not is_tile(value):
            self.scalar(value)
            return
        if isinstance(value, Name):
            return
        self.target = st.target
        target = Reg(target_dtype)
        reads_target = st.target in {n.id for n in walk_exprs(value) if isinstance(n, Name)}
        result = self.tile(value, None if reads_target else target, final=target)
        self.release(result)


def statement_slots(st: Assign, target_dtype: DType, masks: frozenset[str] = frozenset(),
                    padded: frozenset[str] = frozenset()) -> int:
    """Scratch slots a compute assignment needs (the walk the compute pass makes)."""
    walk = RegisterWalk(masks, padded)
    walk.assign(target_dtype, st)
    return walk.peak


# ----------------------------------------------------------------------------- the evaluation order


def expr_need(e: Expr, masks: frozenset[str] = frozenset(), padded: frozenset[str] = frozenset()) -> tuple[int, int]:
    """(peak tile registers while evaluating e, 1 if its result occupies a tile register): the
    Sethi–Ullman numbers that order the walk's children (the larger need first).

    Tile names are leaves: they already have buffers. An in-place op writes its result over an
    operand's register.
    """
    if not isinstance(e, Call):
        return 0, 0
    kids = [expr_need(a, masks, padded) for a in e.args]
    kids.sort(key=lambda ph: ph[0] - ph[1], reverse=True)
    held = peak = 0
    for p, h in kids:
        peak = max(peak, held + p)
        held += h
    spec = OPS.get(e.op)
    result_tile = isinstance(e.type, TileType)
    scratch = work_tiles(e, masks, padded)
    inplace = spec.inplace if spec else True
    reuse = inplace and held >= 1
    peak = max(peak, held + scratch + (0 if (reuse or not result_tile) else 1))
    return peak, (1 if result_tile else 0)


__all__ = ["Reg", "RegisterWalk", "expr_need", "has_reduction", "is_byte_mask", "is_tile", "statement_slots",
           "work_tiles"]
