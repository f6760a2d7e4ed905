"""Pass 3's broadcasting: elementwise work where an operand is stretched to the result's shape.

NumPy and PyTorch stretch a size-1 axis; the vector unit does the same with *repeat strides*,
never with a stretched copy in GM. A repeat-form instruction (`Add(dst, src0, src1, mask,
repeatTimes, {dstBlk, src0Blk, src1Blk, dstRep, src0Rep, src1Rep})`) processes 256 bytes per
repeat, 8 blocks of 32 bytes; each operand says how many blocks apart the blocks of one repeat
are (block stride) and how many blocks further the next repeat starts (repeat stride). On a
tile of rows (tiles.py: each row starts on a block, `pitch` elements apart) one repeat covers up
to 256 bytes of one row, and the repeats walk down REPEAT_ROWS rows at once:

  the full operand      block stride 1, repeat stride = the pitch in blocks (the next row)
  one row for all rows  (a bias of shape (N,) against (B, N)) block stride 1, repeat stride 0:
                        every row reads the same 256 bytes of the vector
  one value per row     (a row max kept as (R, 1)) Brcb first spreads each value over a 32-byte
                        block of its own; then block stride 0 (the 8 blocks of a repeat all read
                        that block) and repeat stride 1 (the next row reads the next block)
  one value for all     the same with repeat stride 0

Leading axes where a stretched operand changes pattern (a per-plane value of shape (P, 1, 1)
against (P, H, W)) become loops around the instructions, one per index of those axes. A binary
op of a full tile and one stretched tile is lowered directly like this; anything else (a
comparison, where(), two stretched operands) first copies each stretched operand out at the full
shape with the same strides (Muls by 1), then works on equal shapes.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..dsl import ir, tiles
from ..dsl.printer import expr_text
from .cexpr import paren
from .kernel import ExactWrite
from .spec import LoweringError

REPEAT_BYTES = 256
BRCB_GROUP = 8              # Brcb: each repeat reads 8 values and writes 8 blocks
ONE = ir.Const(1, "int")


@dataclass
class Operand:
    """One operand as the loops read it."""
    name: str                   # the LocalTensor read (a per-row operand: its values spread by Brcb)
    kind: str                   # full (a tile of rows) | vector (one dense row of columns) | values (Brcb'd)
    pitch: str = ""             # full: elements between its rows
    blocks: str = ""            # full: that pitch in 32-byte blocks (its repeat stride)
    step: bool = True           # moves one row with every row of the result in the inner loop
    strides: tuple = ()         # per loop axis: its rows per index of that axis ("" when it stays)


class Broadcaster:
    """The strided instructions of one broadcasting op, emitted through a ComputeLowering."""

    def __init__(self, lowering):
        self.ctx = lowering.ctx
        self.em = lowering.em

    # -- entry points -------------------------------------------------------------------------
    def binary(self, e: ir.Call, api: str, out, operands: dict) -> None:
        """`out = api(a, b)` with one of a, b stretched: repeat-form instructions read it in place."""
        wide = tiles.stretched(e)[0]
        self.em.line(f"// `{expr_text(e.args[wide])}` is stretched to [{_shape(e.type.shape)}] by repeat strides, "
                     "not copied at the full shape")
        self._run(api, e.type, out.name, [(e.args[i].type, operands[i]) for i in (0, 1)], scalar=None)

    def expand(self, e: ir.Call, index: int, tile):
        """Stretched operand `index` of `e` copied out at e's shape into a scratch slot (returned)."""
        a = e.args[index]
        out = ir.TileType(a.type.dtype, e.type.shape)
        slot = self.ctx.take_slot(out.dtype)
        self.em.line(f"// `{expr_text(a)}` stretched to [{_shape(e.type.shape)}] for the op below "
                     "(Muls by 1 with repeat strides)")
        self._run("Muls", out, slot.name, [(a.type, tile)], scalar=_one(out.dtype))
        return slot

    # -- the instructions -----------------------------------------------------------------------
    def _run(self, api: str, out: ir.TileType, dst: str, srcs: list, scalar: str | None) -> None:
        taken = []
        if not tiles.is_pitched(out):
            ops = [self._dense_operand(t, out, tile, taken) for t, tile in srcs]
            self._dense(api, out, dst, ops, scalar)
        else:
            start, loops, rows, out_strides = self._loops_of(out, [t for t, _ in srcs])
            ops = [self._operand(t, out, tile, start, loops, taken) for t, tile in srcs]
            self._rows(api, out, dst, ops, scalar, loops, rows, out_strides)
        for t in taken:
            self.ctx.release(t)
        self.em.line(self.ctx.hole(ExactWrite(dst, out.dtype, self.ctx.count(out, exact=True))))

    def _loops_of(self, out: ir.TileType, types: list) -> tuple[int, list[int], str, list[str]]:
        """Where the last run of leading axes starts along which every stretched operand keeps one
        pattern, the axes before it that are looped over, the rows of that run, and the result's
        rows per index of each looped axis."""
        lead = out.shape[:-1]
        start = max((self._first_uniform(t, out) for t in types if tiles.broadcasts(t.shape, out.shape)), default=0)
        loops = [a for a in range(start) if lead[a] != ONE]
        inner = lead[start:]
        rows = self.ctx.text(_product(inner)) if inner else "1"
        strides = [self.ctx.text(_product(lead[a + 1:])) if lead[a + 1:] else "1" for a in loops]
        return start, loops, rows, strides

    @staticmethod
    def _first_uniform(t: ir.TileType, out: ir.TileType) -> int:
        """The first leading axis of the last run along which operand `t` keeps one pattern (all its
        sizes equal to the result's, or all 1)."""
        lead = out.shape[:-1]
        s = tiles.aligned(t.shape, len(out.shape))[:-1]
        k, pattern = len(lead), None
        for a in reversed(range(len(lead))):
            if lead[a] != ONE:
                full = s[a] == lead[a]
                if pattern is None:
                    pattern = full
                elif full != pattern:
                    break
            k = a
        return k

    def _operand(self, t: ir.TileType, out: ir.TileType, tile, start: int, loops: list[int], taken: list) -> Operand:
        """How operand `tile` (of type t) is read: its kind, whether it moves with the result's rows
        in the inner run (axes from `start`), and its rows per index of each looped axis."""
        n = len(out.shape)
        s = tiles.aligned(t.shape, n)
        lead = out.shape[:-1]
        step = any(s[a] == lead[a] for a in range(start, len(lead)) if lead[a] != ONE)
        strides = tuple(self.ctx.text(_product(s[a + 1:-1])) if s[a] == lead[a] and s[a + 1:-1] else
                        ("1" if s[a] == lead[a] else "") for a in loops)
        if not tiles.broadcasts(t.shape, out.shape):
            return Operand(tile.name, "full", *self.ctx.layout(t)[2:], True, strides)
        self._pad_tail(tile, t)
        if tiles.per_row(t.shape, out.shape):
            spread = self._brcb(tile, t)
            taken.append(spread)
            return Operand(spread.name, "values", step=step, strides=strides)
        if not tiles.is_pitched(t):
            return Operand(tile.name, "vector", step=False, strides=tuple("" for _ in loops))
        return Operand(tile.name, "full", *self.ctx.layout(t)[2:], step, strides)

    def _dense_operand(self, t: ir.TileType, out: ir.TileType, tile, taken: list) -> Operand:
        if not tiles.broadcasts(t.shape, out.shape):
            return Operand(tile.name, "full")
        if any(d != ONE for d in t.shape):
            raise LoweringError(f"a tile of shape [{_shape(t.shape)}] stretched to [{_shape(out.shape)}], whose last "
                                "axis is 1: keep the stretched axes last, or give the result a last axis of its own")
        self._pad_tail(tile, t)
        spread = self._brcb(tile, t)
        taken.append(spread)
        return Operand(spread.name, "values", step=False)

    def _brcb(self, tile, t: ir.TileType):
        """Each value of a per-row operand spread over one 32-byte block (Brcb: 8 values, 8 blocks
        per repeat), so that a repeat reads its row's value with block stride 0."""
        n = self.ctx.count(t, exact=True)
        block = t.dtype.elems_per_block
        spread = self.ctx.take_slot(t.dtype)
        self.ctx.use_min_max("min")
        self.em.line(f"// Brcb: every value of `{tile.name}` to a 32-byte block of its own (8 values per repeat)")
        if n == "1":
            self.em.line(f"Brcb({spread.name}, {tile.name}, 1, {{1, 8}});")
            return spread
        v = self._local("v")
        with self.em.block(f"for (int64_t {v} = 0; {v} < {n}; {v} += REPEAT_ROWS)"):
            self.em.line(f"Brcb({spread.name}[{v} * {block}], {tile.name}[{v}], static_cast<uint8_t>("
                         f"(MinOf(REPEAT_ROWS, {paren(n)} - {v}) + {BRCB_GROUP - 1}) / {BRCB_GROUP}), {{1, 8}});")
        return spread

    def _pad_tail(self, tile, t: ir.TileType) -> None:
        """A stretched 1-D operand is read in whole 32-byte blocks (Brcb reads 8 values at a time, a
        vector of columns the whole pitch): zero the lanes after its last value in its last block,
        unless a copy-in padded them already (a loaded tile)."""
        if tiles.is_pitched(t) or self.ctx.is_loaded(tile.name):
            return
        n = self.ctx.count(t, exact=True)
        block = t.dtype.elems_per_block
        if n.isdigit() and int(n) % block == 0:
            return
        lanes = self._local("lanes")
        zero = "0.0f" if t.dtype is ir.DType.f32 else f"static_cast<{t.dtype.cpp}>(0)"
        with self.em.block(f"if ({paren(n)} % {block} != 0)"):
            self.em.line("// whole blocks are read below: zero the lanes after the last value "
                         "(Duplicate with a bit mask)")
            self.em.line(f"const uint64_t {lanes}[2] = "
                         f"{{((1ull << {block}) - 1) & ~((1ull << ({paren(n)} % {block})) - 1), 0}};")
            self.em.line(f"Duplicate({tile.name}[{paren(n)} / {block} * {block}], {zero}, {lanes}, 1, 1, 8);")

    def _local(self, stem: str) -> str:
        return self.ctx.scalar_name(stem) if stem in self.ctx.reserved else stem

    # -- loops ----------------------------------------------------------------------------------
    def _rows(self, api, out, dst, ops, scalar, loops, rows, out_strides) -> None:
        """REPEAT_ROWS rows x one repeat of columns per instruction, inside a loop per looped axis."""
        em, ctx = self.em, self.ctx
        block = out.dtype.elems_per_block
        per = REPEAT_BYTES // out.dtype.nbytes
        ctx.use_min_max("min")
        _, _, pitch, blocks = ctx.layout(out)
        names = [self._local("plane" if len(loops) == 1 else f"plane{i}") for i in range(len(loops))]
        extents = [ctx.text(out.shape[a]) for a in loops]
        for name, extent in zip(names, extents):
            em.line(f"for (int64_t {name} = 0; {name} < {extent}; ++{name}) {{")
            em._depth += 1

        def base(strides) -> str:
            terms = [f"{n} * {paren(s)}" if s != "1" else n for n, s in zip(names, strides) if s]
            return " + ".join(terms)
        row, col, reps = self._local("row"), self._local("col"), self._local("reps")
        with em.block(f"for (int64_t {row} = 0; {row} < {rows}; {row} += REPEAT_ROWS)"):
            em.line(f"const uint8_t {reps} = static_cast<uint8_t>(MinOf(REPEAT_ROWS, {paren(rows)} - {row}));")
            with em.block(f"for (int64_t {col} = 0; {col} < {pitch}; {col} += {per})"):
                args = [f"{dst}[{_at(_plus(base(out_strides), row), pitch, col)}]"]
                blk, rep = ["1"], [blocks]
                for op in ops:
                    r = _plus(base(op.strides), row) if op.step else (base(op.strides) or "0")
                    if op.kind == "values":
                        args.append(f"{op.name}[{_scale(r, str(block))}]")
                        blk.append("0")
                        rep.append("1" if op.step else "0")
                    elif op.kind == "vector":
                        args.append(f"{op.name}[{col}]")
                        blk.append("1")
                        rep.append("0")
                    else:
                        args.append(f"{op.name}[{_at(r, op.pitch, col)}]")
                        blk.append("1")
                        rep.append(op.blocks if op.step else "0")
                if scalar is not None:
                    args.append(scalar)
                mask = f"static_cast<uint64_t>(MinOf({per}, {pitch} - {col}))"
                em.line(f"{api}({', '.join(args)}, {mask}, {reps}, {{{', '.join(blk + rep)}}});")
        for _ in loops:
            em._depth -= 1
            em.line("}")

    def _dense(self, api, out, dst, ops, scalar) -> None:
        """A dense result (a 1-D tile) with one stretched value: REPEAT_ROWS repeats along it."""
        em = self.em
        block = out.dtype.elems_per_block
        per = REPEAT_BYTES // out.dtype.nbytes
        n = self.ctx.count(out, exact=True)
        rep = self._local("rep")
        self.ctx.use_min_max("min")
        blk = ["1"] + ["0" if op.kind == "values" else "1" for op in ops]
        reps = [str(per // block)] + ["0" if op.kind == "values" else str(per // block) for op in ops]
        strides = ", ".join(blk + reps)

        def call(at: str, mask: str, count: str) -> str:
            args = [f"{dst}[{at}]"] + [f"{op.name}" if op.kind == "values" else f"{op.name}[{at}]" for op in ops]
            if scalar is not None:
                args.append(scalar)
            return f"{api}({', '.join(args)}, {mask}, {count}, {{{strides}}});"
        whole = f"{paren(n)} / {per}"
        with em.block(f"for (int64_t {rep} = 0; {rep} < {whole}; {rep} += REPEAT_ROWS)"):
            em.line(call(f"{rep} * {per}", str(per), f"static_cast<uint8_t>(MinOf(REPEAT_ROWS, {whole} - {rep}))"))
        with em.block(f"if ({paren(n)} % {per} != 0)"):
            em.line(call(f"{whole} * {per}", f"static_cast<uint64_t>({paren(n)} % {per})", "1"))


def _at(row: str, pitch: str, col: str) -> str:
    """Element offset of (row, col) in a tile of rows `pitch` apart."""
    if row == "0":
        return col
    return f"{paren(row) if '+' in row else row} * {pitch} + {col}"


def _scale(row: str, block: str) -> str:
    return "0" if row == "0" else f"{paren(row) if '+' in row else row} * {block}"


def _plus(base: str, row: str) -> str:
    return row if not base else f"{base} + {row}"


def _product(dims) -> ir.Expr:
    out = dims[0]
    for d in dims[1:]:
        out = ir.Call("mul", (out, d))
    return out


def _shape(shape) -> str:
    return " x ".join(expr_text(d) for d in shape)


def _one(dtype: ir.DType) -> str:
    return "1.0f" if dtype is ir.DType.f32 else f"static_cast<{dtype.cpp}>(1)"


__all__ = ["Broadcaster"]
