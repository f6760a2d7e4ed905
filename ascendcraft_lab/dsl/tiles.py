"""The UB layout of a tile and the broadcasting rules: one place for both.

A tile of rank 0 or 1 is dense: its elements lie back to back. A tile of rank 2 or more is
*rows x columns*: the last axis is a row, every other axis is folded into the rows (a
(P, H, W) tile has P * H rows of W), and each row starts on a 32-byte block, so a row is
`pitch` elements apart from the next, `pitch = align_up(columns, elements per block)`. That is
what one strided copy gives (DataCopyPad moves `rows` blocks of `columns` elements and pads
each to 32 bytes in UB), and what vector instructions need: a repeat starts on a block, and
a repeat stride counts whole blocks. A tile whose last axis is the literal 1 (a per-row value
`reduce_max(x, axis=1, keepdim=True)`, a `w[c, None]` load) stays dense: one value per row.

The padding lanes of a row (`columns .. pitch`) hold zeros after a copy-in and whatever an
elementwise instruction left there after compute: elementwise work runs over the whole pitch,
reductions and stores over the columns only.

Broadcasting follows NumPy and PyTorch: shapes are aligned at their last axes, a missing axis
counts as 1, and an axis of size 1 stretches to the other operand's size.
"""
from __future__ import annotations

from .ir import Call, Const, DType, Expr, Level, TileType

ONE = Const(1, "int")
MAX_PITCH_BLOCKS = 255     # a vector repeat stride is an 8-bit count of 32-byte blocks


def is_pitched(t: TileType) -> bool:
    """A UB tile of rows x columns with a row pitch (rank >= 2 and a last axis that is not the
    literal 1). The cube's 2-D tiles (L1, L0*) are laid out in fractals instead (cube.py)."""
    return t.level is Level.UB and len(t.shape) >= 2 and t.shape[-1] != ONE


def kind(t) -> str:
    """The tile kind of a value's type, as `ops.LOWERED` names them: "scalar", "tile" (a dense
    tile), "rows" (a tile of rows) or "cube" (a tile in L1 / L0A / L0B / L0C)."""
    if not isinstance(t, TileType):
        return "scalar"
    if t.level is not Level.UB:
        return "cube"
    return "rows" if is_pitched(t) else "tile"


def principal(e: Call):
    """The type that decides a typed call's tile kind: its first tile operand's, else its result's."""
    return next((a.type for a in e.args if isinstance(a.type, TileType)), e.type)


def rows(t: TileType) -> Expr:
    """Rows of the tile: the product of every axis but the last (1 for a 1-D tile)."""
    out: Expr = ONE
    for d in t.shape[:-1]:
        out = d if out == ONE else Call("mul", (out, d))
    return out


def cols(t: TileType) -> Expr:
    """Elements of one row: the last axis (1 for a scalar-shaped tile)."""
    return t.shape[-1] if t.shape else ONE


def pitch(t: TileType, width: Expr | None = None) -> Expr:
    """Elements from the start of one row to the next: the columns (`width`, default the tile's)
    rounded up to whole 32-byte blocks of the tile's dtype; a dense tile's rows are 1 apart."""
    c = cols(t) if width is None else width
    if not is_pitched(t):
        return c
    block = t.dtype.elems_per_block
    if isinstance(c, Const) and c.kind == "int":
        return Const(-(-int(c.value) // block) * block, "int")
    return Call("align_up", (c, Const(block, "int")))


def footprint(t: TileType) -> Expr:
    """Elements the tile takes in UB (padding lanes included): rows x pitch, or its elements."""
    if not is_pitched(t):
        out: Expr = ONE
        for d in t.shape:
            out = d if out == ONE else Call("mul", (out, d))
        return out
    r, p = rows(t), pitch(t)
    return p if r == ONE else Call("mul", (r, p))


def footprint_elems(shape: tuple[int, ...], dtype: DType, pitched: bool) -> int:
    """`footprint` for concrete extents (the interpreter's run-time UB accounting)."""
    if not pitched:
        n = 1
        for d in shape:
            n *= int(d)
        return n
    block = dtype.elems_per_block
    r = 1
    for d in shape[:-1]:
        r *= int(d)
    return r * (-(-int(shape[-1]) // block) * block)


# -- broadcasting ---------------------------------------------------------------------------------


def broadcast_shape(a: tuple[Expr, ...], b: tuple[Expr, ...]) -> tuple[Expr, ...] | None:
    """The NumPy broadcast of two tile shapes (None when an axis differs and neither is 1)."""
    rank = max(len(a), len(b))
    a = (ONE,) * (rank - len(a)) + tuple(a)
    b = (ONE,) * (rank - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        if x == y or y == ONE:
            out.append(x)
        elif x == ONE:
            out.append(y)
        else:
            return None
    return tuple(out)


def aligned(shape: tuple[Expr, ...], rank: int) -> tuple[Expr, ...]:
    """`shape` with leading 1s up to `rank` axes."""
    return (ONE,) * (rank - len(shape)) + tuple(shape)


def broadcasts(operand: tuple[Expr, ...], out: tuple[Expr, ...]) -> bool:
    """Whether an operand of this shape is stretched to `out` (it has fewer elements)."""
    return aligned(operand, len(out)) != tuple(out)


def per_row(operand: tuple[Expr, ...], out: tuple[Expr, ...]) -> bool:
    """A stretched operand that is one value per row of `out` (its last axis is 1, out's is not):
    the lowering spreads each value over a 32-byte block (Brcb) and reads that block for the row."""
    return bool(out) and aligned(operand, len(out))[-1] == ONE and out[-1] != ONE


ELEMENTWISE = ("binary", "compare", "select")


def stretched(e) -> list[int]:
    """Positions of the tile operands of elementwise call `e` that broadcast to its shape."""
    from .ops import OPS
    spec = OPS.get(getattr(e, "op", None))
    if spec is None or spec.category not in ELEMENTWISE or not isinstance(e.type, TileType):
        return []
    return [i for i, a in enumerate(e.args) if isinstance(a.type, TileType) and broadcasts(a.type.shape, e.type.shape)]


def direct_broadcast(e) -> bool:
    """A binary op of a full tile and one stretched tile: one repeat-form instruction per block of
    rows reads the stretched one with strides (no copy of it at the full shape)."""
    from .ops import OPS
    spec = OPS.get(e.op)
    if spec is None or spec.category != "binary" or len(stretched(e)) != 1:
        return False
    return all(isinstance(a.type, TileType) for a in e.args)


def broadcast_work(e) -> int:
    """Scratch tiles a broadcasting op takes while its operands are held: one for the Brcb of a
    per-row operand read directly; otherwise each stretched operand is first copied out at the
    full shape (a slot each, and one more while a per-row one is spread by Brcb)."""
    out = e.type.shape if isinstance(e.type, TileType) else ()
    which = stretched(e)
    if not which:
        return 0
    rows = [i for i in which if per_row(e.args[i].type.shape, out)]
    if direct_broadcast(e):
        return 1 if rows else 0
    return len(which) + (1 if rows else 0)


__all__ = ["kind", "principal", "per_row", "stretched", "direct_broadcast", "broadcast_work", "is_pitched", "rows",
           "cols", "pitch", "footprint", "footprint_elems", "broadcast_shape", "aligned", "broadcasts",
           "MAX_PITCH_BLOCKS"]
