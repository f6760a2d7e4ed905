"""The cube unit's facts: fractals, how each cube tile lies at its level, what an L1 -> L0 move
and an mmad need. One source for the verifier (fractal alignment, budgets), the buffer plan
(`buffers.py`), the interpreter and the cube lowering (`passes/cube.py`).

The cube multiplies matrices stored as *fractals*: blocks of 16 rows of 32 bytes (C0 elements:
16 f16 / bf16, 8 f32, 32 i8), 512 bytes each (Mmad page: "分形shape为16 x (32B/sizeof(AType))").
A tile takes whole fractals at every cube level, so its bytes are those of its shape rounded up:

    L1   the GM view as loaded (ND -> Nz by DataCopy with Nd2NzParams): rows to 16, columns to C0
    L0A  A (m x k): m to 16, k to C0                    (ZZ: fractals row by row)
    L0B  B (k x n): k to C0, n to 16                    (ZN)
    L0C  C (m x n) in f32 (i32 for i8 inputs): both to 16 (NZ; 16 x 16 fractals of 4 bytes)

What the hardware transposes: L0A holds A's fractals as L1 does (16 rows of C0 columns), so
`load(a1, L0A)` of an (m x k) tile copies fractals as they are; L0B holds each fractal of B
transposed, so `load(b1, L0B)` of a (k x n) tile transposes, and `load(bt1, L0B, transpose=True)`
of an (n x k) tile (an nn.Linear weight) copies. LoadData transposes 16 x 16 fractals of 16-bit
types (half; bf16 through LoadDataWithTranspose); an f32 fractal is 16 x 8, so f32 transposes
16 x 16 squares of two side-by-side fractals with LoadDataWithTranspose: the L1 tile is then
laid out in bands of 16 rows (fractals row by row, columns to 16) so that the two fractals of a
square are adjacent, and its K counts in 16s (L0A with Mmad's kDirectionAlign).
"""
from __future__ import annotations

from dataclasses import dataclass

from .ir import (Assign, Call, Const, DType, Expr, IndexExpr, Level, Load, Program, RangeType, Stmt, Store, SyncAll,
                 TileType, walk_exprs, walk_stmts)

FRACTAL_ROWS = 16                # rows of a fractal (and columns of an L0C fractal)
FRACTAL_BYTES = 512
CUBE_DTYPES = (DType.f16, DType.bf16, DType.f32, DType.i8)
# What the cube accumulates in (Mmad page, table 4: half/bf16/float -> float, int8 -> int32).
ACCUMULATOR = {DType.f16: DType.f32, DType.bf16: DType.f32, DType.f32: DType.f32, DType.i8: DType.i32}
# Where InitBuffer puts cube buffers (TPosition -> memory page, 硬件约束): the unit of a slot.
LEVEL_ALIGN = {Level.L1: 32, Level.L0A: 512, Level.L0B: 512, Level.L0C: 64}
CUBE_LEVELS = (Level.L1, Level.L0A, Level.L0B, Level.L0C)
# GM element types Fixpipe can write from an f32 L0C (quantPre NoQuant / F322F16 / F322BF16).
FIXPIPE_OUT = {DType.f32: (DType.f32, DType.f16, DType.bf16), DType.i32: (DType.i32,)}
MAX_MNK = 4095                   # MmadParams m, n, k
MAX_ND2NZ_STRIDE = 65535         # Nd2NzParams.srcDValue: the GM row stride, a uint16


def c0(dtype: DType) -> int:
    """Elements of one 32-byte fractal row."""
    return 32 // dtype.nbytes


def is_cube_level(level: Level) -> bool:
    return level in CUBE_LEVELS


@dataclass(frozen=True)
class Operand:
    """How one L1 tile reaches L0A or L0B (`a0 = load(a1, L0A, transpose=...)`)."""

    l1: str
    l0: str
    level: Level                 # L0A (the left matrix A) or L0B (the right matrix B)
    dtype: DType
    transpose: bool              # the DSL's flag: the L1 tile holds the matrix transposed

    @property
    def hw_transpose(self) -> bool:
        """Whether LoadData transposes the fractals: for A when the L1 tile is A^T, for B when it is B."""
        return self.transpose if self.level is Level.L0A else not self.transpose

    @property
    def square(self) -> bool:
        """The transpose goes through LoadDataWithTranspose (16 x 16 squares; 32 x 32 for i8):
        bf16, f32 and i8. Load2D's own ifTranspose takes 16-bit types other than bf16."""
        return self.hw_transpose and self.dtype is not DType.f16

    @property
    def banded(self) -> bool:
        """The L1 tile is laid out in bands of 16 rows (fractals row by row): an f32 square is two
        fractals side by side, which standard Nz keeps a whole column of fractals apart."""
        return self.hw_transpose and self.dtype is DType.f32

    @property
    def edge(self) -> int:
        """The side of a LoadDataWithTranspose square: 32 for i8 (two 16 x 32 fractals one above the
        other), 16 otherwise (one bf16 fractal, two f32 fractals side by side)."""
        return 32 if self.dtype is DType.i8 else 16

    @property
    def l1_role(self) -> str:
        """The L1 queue's TPosition: A1 for the left matrix, B1 for the right one."""
        return "A1" if self.level is Level.L0A else "B1"

    @property
    def l1_units(self) -> tuple[int, int]:
        """What the L1 tile's (rows, columns) round up to: whole fractals, whole squares when transposed
        through LoadDataWithTranspose."""
        return (self.edge, self.edge) if self.square else (FRACTAL_ROWS, c0(self.dtype))

    @property
    def k_unit(self) -> int:
        """What K rounds up to at L0: C0, or the square's side where squares cover K (16 for f32, whose
        L0A then counts K in 16s: Mmad's kDirectionAlign)."""
        return max(self.edge, c0(self.dtype)) if self.square else c0(self.dtype)

    @property
    def l0_units(self) -> tuple[int, int]:
        """What the L0 tile's (rows, columns) round up to: (m, k) in L0A, (k, n) in L0B."""
        mn = self.edge if self.square else FRACTAL_ROWS
        return (mn, self.k_unit) if self.level is Level.L0A else (self.k_unit, mn)

    @property
    def k_direction_align(self) -> bool:
        """Mmad's kDirectionAlign: an f32 L0A whose K is laid out in 16s (two fractals per square)."""
        return self.level is Level.L0A and self.banded

    def axis_roles(self) -> tuple[str, str]:
        """The matrix dims the L1 tile's (rows, columns) are: m / n / k."""
        if self.level is Level.L0A:
            return ("k", "m") if self.transpose else ("m", "k")
        return ("n", "k") if self.transpose else ("k", "n")

    def l1_axis_unit(self, axis: int) -> int:
        """The whole-fractal step of the L1 tile's axis (0 rows, 1 columns): a tile step that is not
        a multiple of it leaves a partial fractal (or square) in every tile, not only in the last."""
        return self.l1_units[axis]

    @property
    def load_api(self) -> str:
        if not self.hw_transpose:
            return "LoadData"
        return "LoadDataWithTranspose" if self.square else "LoadData (ifTranspose)"


def uses_cube(program: Program) -> bool:
    """The kernel loads cube tiles (L1 / L0) or multiplies on the cube."""
    return any(unit_of(s) == "cube" for s, _ in walk_stmts(program.kernel.body))


def unit_of(s: Stmt) -> str | None:
    """The unit a statement (not its body) works on: "cube" (L1 / L0 tiles, mmad), "vector" (UB
    tiles), or None (scalars only, which both kinds of core have)."""
    levels = []
    if isinstance(s, Load):
        scalar = s.level is Level.UB and all(isinstance(i, IndexExpr) and not isinstance(i.expr.type, RangeType)
                                             for i in (s.src.index or ()))    # one element, onto the scalar unit
        levels.append(None if scalar else s.level)
    elif isinstance(s, Store):
        levels.append(s.value.type.level if isinstance(s.value.type, TileType) else None)
    elif isinstance(s, Assign):
        levels += [n.type.level for n in walk_exprs(s.value) if isinstance(n.type, TileType)]
    kinds = {("cube" if is_cube_level(lv) else "vector") for lv in levels if lv is not None}
    return "cube" if "cube" in kinds else ("vector" if kinds else None)


def phases(program: Program) -> list[tuple[tuple[Stmt, ...], str]]:
    """The kernel's top level cut at its sync_all()s, each part with the unit it runs on ("cube" or
    "vector"; a part of scalars only goes with the vector cores). In a kernel that uses the cube,
    sync_all() is the hand-over between the cube cores (AIC) and the vector cores (AIV)."""
    parts: list[list[Stmt]] = [[]]
    for s in program.kernel.body:
        if isinstance(s, SyncAll):
            parts.append([])
        else:
            parts[-1].append(s)
    out = []
    for part in parts:
        units = {unit_of(x) for p in part for x, _ in walk_stmts((p,))} - {None}
        out.append((tuple(part), "cube" if "cube" in units else "vector"))
    return out


def align_expr(e: Expr, unit: int) -> Expr:
    """`align_up(e, unit)` (the host builtin; plain `e` when unit is 1)."""
    if unit == 1:
        return e
    if isinstance(e, Const) and e.kind == "int":
        return Const(-(-int(e.value) // unit) * unit, "int")
    return Call("align_up", (e, Const(unit, "int")))


def padded_elems(dims: tuple[Expr, ...], units: tuple[int, ...]) -> Expr:
    """Elements of a tile of `dims` rounded up to whole fractals (`units` per axis)."""
    out = None
    for d, u in zip(dims, units):
        part = align_expr(d, u)
        out = part if out is None else Call("mul", (out, part))
    return out if out is not None else Const(1, "int")


def l0c_units() -> tuple[int, int]:
    return (FRACTAL_ROWS, FRACTAL_ROWS)


def padded_shape(shape: tuple[int, ...], units: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(-(-int(s) // u) * u for s, u in zip(shape, units))


__all__ = ["uses_cube", "unit_of", "phases",
           "FRACTAL_ROWS", "FRACTAL_BYTES", "CUBE_DTYPES", "ACCUMULATOR", "LEVEL_ALIGN", "CUBE_LEVELS", "FIXPIPE_OUT",
           "MAX_MNK", "MAX_ND2NZ_STRIDE", "c0", "is_cube_level", "Operand", "align_expr", "padded_elems", "l0c_units",
           "padded_shape"]
