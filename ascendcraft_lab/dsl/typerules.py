"""The typing rules of the operations: TYPE_RULES, one small function per ops-table category.

A rule gets the verifier, the call and its typed arguments, checks them and returns the call's
type (a ScalarType or a TileType). It reads the op's row for what differs between the ops of a
category (`float_only`, `reduction`, `row_api`, `accumulator`, ...), never the op's name. Which
tile kinds a category takes is `ops.LOWERED`'s to say: a rule asks `v.lowers(...)` where it meets
an operand of a kind the category may not take, and the verifier's driver (`_call_type`) checks
the call's kind once more, so a category lowered for fewer kinds is refused in one place.

Also the type helpers the verifier and the interpreter share: scalar promotion (`unify`), the
shapes of window and row results, and how a type reads in a message (`kind_text`).
"""
from __future__ import annotations

from typing import Callable

from .dtypes import wider
from .ir import (INDEX, Attr, Call, Const, DType, Expr, Level, MetaType, Name, RangeType, ScalarType, Str, TensorType,
                 TilingType, TileType)
from .printer import expr_text
from .tiles import is_pitched
from . import cube

ONE = Const(1, "int")
ZERO = Const(0, "int")


# ----------------------------------------------------------------------------- elementwise


def _two_operands(v, e: Call, spec, args):
    """a (op) b over scalars and tiles: (the operand types, the tile operands)."""
    ta, tb = v.operand(args[0], spec), v.operand(args[1], spec)
    return ta, tb, [t for t in (ta, tb) if isinstance(t, TileType)]


def _tile_result(v, e: Call, spec, args, ta, tb, tiles) -> TileType:
    """The broadcast tile of an elementwise binary op or comparison of at least one tile."""
    op = spec.name
    if len(tiles) == 2 and tiles[0].dtype != tiles[1].dtype:
        raise v.err(e, f"`{op}` of a {tiles[0].dtype.value} tile and a {tiles[1].dtype.value} tile",
                    f"cast one of them: `cast(x, {wider(tiles[0].dtype, tiles[1].dtype).value})`", rule="ops.dtypes")
    shape = v.broadcast(e, tiles)
    tile = tiles[0]
    for t, a in ((ta, args[0]), (tb, args[1])):
        if isinstance(t, ScalarType):
            v.tile_scalar(tile, t, a, op)
    if tile.dtype is DType.bool:
        raise v.err(e, f"`{op}` on bool tiles", "bool tiles are masks: use them in where(mask, a, b)",
                    rule="ops.dtypes")
    v.need_dtype(e, spec, tile.dtype)
    return TileType(tile.dtype, shape)


def _type_binary(v, e: Call, spec, args):
    ta, tb, tiles = _two_operands(v, e, spec, args)
    if not tiles:
        if DType.bool in (ta.dtype, tb.dtype):
            raise v.err(e, f"`{spec.name}` on bool values", "use comparisons in `if`, masks in where()",
                        rule="ops.scalars")
        r = unify(ta, tb)
        if spec.float_only and not r.dtype.is_float:
            return ScalarType(DType.f32, weak=r.weak)
        return r
    t = _tile_result(v, e, spec, args, ta, tb, tiles)
    _check_binary_form(v, e, spec, ta, tb)
    return t


def _check_binary_form(v, e: Call, spec, ta, tb) -> None:
    """The operand order the row's AscendC mapping has: tile (op) tile its `api`, tile (op) scalar
    its `scalar_api` or expansion, scalar (op) tile its `rscalar` steps or a commuting scalar API."""
    what = spec.symbol or spec.name
    written = f"write it out: {spec.why}" if spec.why else "compute it from operations that have one"
    if isinstance(ta, TileType) and isinstance(tb, TileType) and not spec.api:
        raise v.err(e, f"tile {what} tile has no AscendC instruction (`{spec.name}` of two tiles is not lowered)",
                    f"make one operand a scalar, or {written}", rule="ops.binary")
    if isinstance(tb, ScalarType) and not (spec.scalar_api or spec.expand):
        raise v.err(e, f"tile {what} scalar has no AscendC instruction", written, rule="ops.binary")
    if isinstance(ta, ScalarType) and not (spec.rscalar or (spec.scalar_api and spec.scalar_arg == "{s}")):
        raise v.err(e, f"scalar {what} tile has no AscendC instruction (no form of `{spec.name}` takes the "
                    "scalar first)", f"make the tile the first operand, or {written}", rule="ops.binary")


def _type_compare(v, e: Call, spec, args):
    ta, tb, tiles = _two_operands(v, e, spec, args)
    if not tiles:
        return ScalarType(DType.bool)
    return TileType(DType.bool, _tile_result(v, e, spec, args, ta, tb, tiles).shape)


def _type_intbinary(v, e: Call, spec, args):
    ta, tb = v.operand(args[0], spec), v.operand(args[1], spec)
    if isinstance(ta, TileType) or isinstance(tb, TileType):
        raise v.err(e, f"`{spec.symbol}` works on integer scalars (index arithmetic)", "use `/` for tiles",
                    rule="ops.scalars")
    if not (ta.dtype.is_int and tb.dtype.is_int):
        raise v.err(e, f"`{spec.symbol}` works on integer scalars", "use `/` for float division", rule="ops.scalars")
    return unify(ta, tb)


def _type_unary(v, e: Call, spec, args):
    t = v.operand(args[0], spec)
    if t.dtype is DType.bool:
        raise v.err(e, f"`{spec.name}` of a bool value", "bool values are masks and conditions", rule="ops.scalars")
    if isinstance(t, ScalarType):
        if spec.float_only and not t.dtype.is_float:
            return ScalarType(DType.f32, weak=t.weak)
        return t
    v.need_dtype(e, spec, t.dtype)
    return t


def _type_select(v, e: Call, spec, args):
    mask = v.operand(args[0], spec)
    if not (isinstance(mask, TileType) and mask.dtype is DType.bool):
        raise v.err(args[0], f"where() selects by a bool tile, not a {kind_text(mask)}",
                    "compare tiles (`xu > 0.0`) for a mask; for a scalar condition use `if`", rule="ops.broadcast")
    ta, tb = v.operand(args[1], spec), v.operand(args[2], spec)
    tiles = [t for t in (ta, tb) if isinstance(t, TileType)]
    shape = v.broadcast(e, [mask] + tiles, mask)
    if len(tiles) == 2 and tiles[0].dtype != tiles[1].dtype:
        raise v.err(e, f"where() of a {tiles[0].dtype.value} tile and a {tiles[1].dtype.value} tile",
                    "cast one of them so both have one dtype", rule="ops.broadcast")
    if tiles:
        dtype = tiles[0].dtype
        for t, a in ((ta, args[1]), (tb, args[2])):
            if isinstance(t, ScalarType):
                v.tile_scalar(tiles[0], t, a, spec.name)
    else:
        dtype = unify(ta, tb).dtype
    v.need_dtype(e, spec, dtype)
    if is_pitched(mask) and v.is_byte_mask(args[0]):
        m = expr_text(args[0])
        raise v.err(e, f"`{expr_text(e)}`: a byte-per-element bool mask of a tile of rows is not lowered yet "
                       f"(`{m}` is loaded or cast to bool, one byte per element, and its rows are padded to a pitch "
                       "of their own)",
                    f"load the mask and the values one row at a time, as 1-D tiles (`{m} = load(mask[r, c])` "
                    "in `for r in core_rows(...)`; reduce_max / reduce_sum of the row for a row softmax), where a "
                    "byte mask is lowered; or compute the mask at the tile's shape by a comparison (`xu > 0.0`)",
                    rule="ops.broadcast")
    return TileType(dtype, shape)


def _type_clamp(v, e: Call, spec, args):
    t = v.operand(args[0], spec)
    lo, hi = v.operand(args[1], spec), v.operand(args[2], spec)
    for b, a in ((lo, args[1]), (hi, args[2])):
        if isinstance(b, TileType):
            raise v.err(a, "clamp() bounds are scalars", "use max(min(x, hi_tile), lo_tile) for tile bounds",
                        rule="ops.binary")
    if isinstance(t, ScalarType):
        return unify(unify(t, lo), hi)
    for b, a in ((lo, args[1]), (hi, args[2])):
        v.tile_scalar(t, b, a, spec.name)
    v.need_dtype(e, spec, t.dtype)
    return t


def _type_cast(v, e: Call, spec, args):
    t = v.operand(args[0], spec)
    dtype = args[1].dtype
    if isinstance(t, ScalarType):
        return ScalarType(dtype)
    if DType.i8 in (t.dtype, dtype) and {t.dtype, dtype} - {DType.i8, DType.f16}:
        raise v.err(e, f"Cast converts i8 tiles to and from f16 only, not {t.dtype.value} -> {dtype.value} "
                       f"(API page Cast)", "cast through f16", rule="ops.cast")
    if is_pitched(t) and t.dtype.elems_per_block != dtype.elems_per_block and 1 in (t.dtype.nbytes, dtype.nbytes):
        raise v.err(e, f"`{expr_text(e)}`: a cast of a tile of rows from or to a 1-byte dtype is not lowered yet",
                    "cast one row at a time", rule="ops.cast")
    return TileType(dtype, t.shape)


# ----------------------------------------------------------------------------- whole tiles


def _tile_operand(v, e: Call, spec, arg) -> TileType:
    """The one tile a reduce, scan, window or element op reads, at a kind its category takes."""
    t = v.operand(arg, spec)
    if not isinstance(t, TileType):
        v.lowers(spec, t, arg)
    v.need_dtype(e, spec, t.dtype)
    return t


def _type_reduce(v, e: Call, spec, args):
    """A whole-tile reduction is a scalar; along an axis (the last: one value per row) a tile."""
    t = _tile_operand(v, e, spec, args[0])
    op = spec.name
    axis, keepdim = args[1], args[2]
    if not (isinstance(keepdim, Const) and keepdim.kind == "bool"):
        raise v.err(keepdim, "keepdim is True or False", f"write {op}(x, axis=-1, keepdim=True)", rule="ops.reduce")
    if isinstance(axis, Str):
        if is_pitched(t) and not spec.row_api:
            raise v.err(e, f"`{op}` of a whole tile of rows [{' x '.join(expr_text(d) for d in t.shape)}]",
                        "load one row at a time, or reduce along the rows first", rule="ops.reduce")
        if keepdim.value:
            raise v.err(keepdim, "keepdim needs an axis", f"write {op}(x, axis=-1, keepdim=True)", rule="ops.reduce")
        return ScalarType(INDEX if spec.index else t.dtype)
    return _reduce_along(v, e, spec, t, axis, keepdim)


def _reduce_along(v, e: Call, spec, t: TileType, axis: Const, keepdim: Const):
    op = spec.name
    rank = len(t.shape)
    a = int(axis.value)
    if not -rank <= a < rank:
        raise v.err(axis, f"axis {a} of a tile of rank {rank}", f"the axes are 0..{rank - 1} (or -1 for the last)",
                    rule="ops.reduce")
    a %= rank
    # the rows folded into one: one combine (Add / Max / Min / Mul) per row, so prod too; never an index
    fold = a == 0 and rank == 2 and is_pitched(t) and not spec.index
    if not spec.row_api and not fold:
        raise v.err(e, f"`{op}` along an axis is not in the DSL yet", f"reduce the whole tile: {op}(x)",
                    rule="ops.reduce")
    if fold:
        # the rows folded into one (a pooling window's rows): elementwise across rows, one per column
        if keepdim.value:
            raise v.err(keepdim, f"`{op}` along axis 0 gives one row, a 1-D tile of the columns",
                        f"write {op}(x, axis=0)", rule="ops.reduce")
        return TileType(t.dtype, (t.shape[1],))
    if a != rank - 1:
        raise v.err(axis, f"`{op}` along axis {a}: the vector unit reduces along the last axis of a tile "
                    "(one value per row), or folds the rows of a 2-D tile into one (axis=0)",
                    "view the axes so the reduced one is last, or keep a running "
                    "tile across the rows (acc = acc + xu)", rule="ops.reduce")
    shape = tuple(t.shape[:-1]) + ((ONE,) if keepdim.value else ())
    if not shape:
        return ScalarType(t.dtype)
    return TileType(t.dtype, shape)


def _type_element(v, e: Call, spec, args):
    t = _tile_operand(v, e, spec, args[0])
    v.lowers(spec, t, args[0])
    return ScalarType(t.dtype)


def _type_scan(v, e: Call, spec, args):
    t = _tile_operand(v, e, spec, args[0])
    v.lowers(spec, t, args[0])
    init = v.operand(args[1], spec)
    if isinstance(init, TileType):
        raise v.err(args[1], "a scan's init is a scalar", "pass the carry: `init=carry`", rule="ops.scan")
    v.tile_scalar(t, init, args[1], spec.name)
    return t


def _type_window(v, e: Call, spec, args):
    t = _tile_operand(v, e, spec, args[0])
    v.lowers(spec, t, args[0])
    k, s, pad, dil, count = args[1:6]
    for a, what in ((k, "a window size"), (s, "a window stride"), (pad, "a window padding"),
                    (dil, "a window dilation"), (count, "a window count")):
        v.operand(a, spec)
        v.index_scalar(a, what)
    for a, lo, what in ((k, 1, "window size"), (s, 1, "window stride"), (dil, 1, "window dilation"),
                        (pad, 0, "window padding"), (count, 0, "window count")):
        if isinstance(a, Const) and a.value < lo:
            raise v.err(a, f"a {what} of {a.value}", f"the {what} is at least {lo}", rule="ops.scan")
    if count != ZERO:
        return TileType(t.dtype, (strip(count),))
    if pad == ZERO and dil == ONE:
        return TileType(t.dtype, (window_out(t.shape[0], k, s),))
    # (len + 2 pad - dilation (k - 1) - 1) // stride + 1 windows fit the padded tile
    span = Call("add", (Call("mul", (strip(dil), Call("sub", (strip(k), ONE)))), ONE))
    padded = Call("add", (strip(t.shape[0]), Call("mul", (Const(2, "int"), strip(pad)))))
    return TileType(t.dtype, (Call("add", (Call("floordiv", (Call("sub", (padded, span)), strip(s))), ONE)),))


# ----------------------------------------------------------------------------- rows and indices


def _rows_operand(v, e: Call, spec, args) -> TileType:
    """repeat / pick: the tile of rows, and its row length k (the last argument) checked."""
    t = v.operand(args[0], spec)
    if not isinstance(t, TileType):
        v.lowers(spec, t, args[0])
    v.need_dtype(e, spec, t.dtype)
    k = args[-1]
    v.operand(k, spec)
    v.index_scalar(k, "a row length")
    return t


def _one_d(v, e: Call, spec, t: TileType, arg) -> None:
    if len(t.shape) != 1:
        raise v.err(arg, f"`{spec.name}` works on 1-D tiles of packed rows or on 2-D tiles, not on a tile of "
                    f"rank {len(t.shape)}", "view the leading axes as one", rule="ops.rows")


def _i32_indices(v, spec, arg, what: str, help: str) -> TileType:
    idx = v.operand(arg, spec)
    if not (isinstance(idx, TileType) and idx.dtype is DType.i32):
        raise v.err(arg, f"{what}, not a {kind_text(idx)}", help, rule="ops.rows")
    return idx


def _type_repeat(v, e: Call, spec, args):
    t = _rows_operand(v, e, spec, args)
    _one_d(v, e, spec, t, args[0])
    # the same length expression as a `windows(c, k, k)` load of those rows
    return TileType(t.dtype, (rows_len(t.shape[0], args[-1]),))


def _type_gather(v, e: Call, spec, args):
    t = _rows_operand(v, e, spec, args)
    k = args[-1]
    per_row = "load the indices as a tile and convert them: `cast(tu, i32)`"
    if len(t.shape) == 2:
        # rows of a 2-D tile: element index[i] of row i
        if k != ZERO:
            raise v.err(k, "pick() of a 2-D tile takes no row length: its rows are the tile's rows",
                        f"write pick({expr_text(args[0])}, {expr_text(args[1])})", rule="ops.rows")
        idx = _i32_indices(v, spec, args[1], "pick() takes one i32 index per row", per_row)
        if tuple(idx.shape) != (t.shape[0],):
            raise v.err(args[1], f"pick() takes one index per row: [{expr_text(t.shape[0])}] indices, not "
                        f"[{' x '.join(expr_text(d) for d in idx.shape)}]",
                        "load the indices with the range of the rows", rule="ops.rows")
        return TileType(t.dtype, (t.shape[0],))
    _one_d(v, e, spec, t, args[0])
    if k == ZERO:
        raise v.err(e, "pick() of a 1-D tile needs the row length k", f"write pick({expr_text(args[0])}, "
                    f"{expr_text(args[1])}, K), or load the rows as a 2-D tile", rule="ops.rows")
    idx = _i32_indices(v, spec, args[1], "pick() takes one i32 index per row", per_row)
    return TileType(t.dtype, idx.shape)


def _type_take(v, e: Call, spec, args):
    t = v.operand(args[0], spec)
    if not isinstance(t, TileType):
        v.lowers(spec, t, args[0])
    v.need_dtype(e, spec, t.dtype)
    idx = _i32_indices(v, spec, args[1], "take() takes an i32 tile of positions",
                       "load the indices as a tile and convert them: `cast(iu, i32)`")
    return TileType(t.dtype, idx.shape)


def _type_transpose(v, e: Call, spec, args):
    t = v.operand(args[0], spec)
    if not (isinstance(t, TileType) and len(t.shape) == 2):
        raise v.err(args[0], _NOT_2D.format(kind=kind_text(t)), _NOT_2D_HELP, rule="ops.rows")
    v.need_dtype(e, spec, t.dtype)
    return TileType(t.dtype, (t.shape[1], t.shape[0]))


_NOT_2D = "transpose() turns the rows of a 2-D tile into its columns, not a {kind}"
_NOT_2D_HELP = ("load a tile of rows: a range on the axis that becomes the rows of the result and one on the last "
                "axis, `load(x[r, k])`")


def _type_iota(v, e: Call, spec, args):
    n, start, dtype = args
    v.index_scalar(n, "the length of iota()")
    st = v.operand(start, spec)
    if not isinstance(st, ScalarType) or st.dtype is DType.bool:
        raise v.err(start, f"iota() starts at a number, not a {kind_text(st)}", "pass a scalar: `iota(c.len, c.start)`",
                    rule="ops.iota")
    v.need_dtype(e, spec, dtype.dtype)
    if dtype.dtype.is_int and st.dtype.is_float:
        raise v.err(start, "an i32 iota() from a float start", "start at an integer, or make it f32", rule="ops.iota")
    return TileType(dtype.dtype, (strip(n),))


def _type_sort(v, e: Call, spec, args):
    x, _descending, k = args
    t = v.operand(x, spec)
    if not isinstance(t, TileType) or len(t.shape) != 1:
        raise v.err(x, _NOT_A_ROW.format(kind=kind_text(t)), "load the row as one tile: `xu = load(x[r, :])`",
                    rule="ops.rows")
    v.need_dtype(e, spec, t.dtype)
    v.index_scalar(k, "argsort()'s k")
    if isinstance(k, Const) and k.value == 0:
        return TileType(DType.i32, t.shape)
    return TileType(DType.i32, (strip(k),))


_NOT_A_ROW = "argsort() sorts a 1-D tile (a whole row in UB), not a {kind}"


# ----------------------------------------------------------------------------- the cube


def _type_cube(v, e: Call, spec, args):
    """mmad multiplies into its `accumulator`; the op without one (zeros) starts an accumulator."""
    return _type_mmad(v, e, spec, args) if spec.accumulator else _type_zeros(v, e, spec, args)


def _type_zeros(v, e: Call, spec, args):
    rows, cols, level, dtype = args
    for a, what in ((rows, "rows"), (cols, "columns")):
        v.index_scalar(a, f"the {what} of zeros()")
    if level.level is not Level.L0C:
        raise v.err(level, f"zeros() makes the cube's accumulator, in L0C, not in {level.level.value}",
                    "write `acc = zeros(mi.len, ni.len, L0C)` before the K loop", rule="cube.mmad")
    if dtype.dtype not in (DType.f32, DType.i32):
        raise v.err(dtype, f"the cube accumulates in f32 (i32 for i8 inputs), not {dtype.dtype.value}",
                    "drop the dtype (f32), or write dtype=i32 for an i8 matmul", rule="cube.mmad")
    return TileType(dtype.dtype, (strip(rows), strip(cols)), Level.L0C)


def _type_mmad(v, e: Call, spec, args):
    a, b, acc = args
    for x, level, which, hint in ((a, Level.L0A, "first operand (the left matrix A)", "a0 = load(a1, L0A)"),
                                  (b, Level.L0B, "second operand (the right matrix B)", "b0 = load(b1, L0B)")):
        t = x.type
        if not (isinstance(x, Name) and isinstance(t, TileType) and t.level is level):
            raise v.err(x, f"mmad's {which} is a tile in {level.value}, not {a_kind(t)}",
                        f"move it there in a split stage: `with split: {hint}`", rule="cube.mmad")
        prev = v.mmad_uses.setdefault(x.id, (which, x.span))
        if prev[0] != which:
            raise v.err(x, f"`{x.id}` is mmad's {prev[0]} at line {prev[1].line}", "give each operand its own L0 tile",
                        rule="cube.mmad")
    ta, tb = a.type, b.type
    if ta.dtype != tb.dtype:
        raise v.err(e, f"mmad of a {ta.dtype.value} and a {tb.dtype.value} matrix",
                    "the cube multiplies two matrices of one dtype: cast one on the vector unit first",
                    rule="cube.mmad")
    (m, k), (k2, n) = ta.shape, tb.shape
    if strip(k) != strip(k2):
        raise v.err(e, f"mmad of [{expr_text(m)} x {expr_text(k)}] and [{expr_text(k2)} x {expr_text(n)}]: "
                    "A's columns and B's rows differ",
                    "load A's columns and B's rows with the same range (the same `ki`)", rule="cube.mmad")
    return _accumulated(v, acc, cube.ACCUMULATOR[ta.dtype], ta.dtype, (strip(m), strip(n)), (m, n))


def _accumulated(v, acc, want: DType, dtype: DType, shape: tuple, mn: tuple) -> TileType:
    """The L0C tile mmad adds into: 0.0 (a new sum), or an L0C tile of the product's dtype and shape."""
    if isinstance(acc, Const):
        if acc.value != 0:
            raise v.err(acc, "mmad's accumulator is an L0C tile, or 0.0 (start a new sum)",
                        "write `acc = zeros(mi.len, ni.len, L0C)` before the K loop and `acc = mmad(a0, b0, acc)` "
                        "in it", rule="cube.mmad")
        return TileType(want, shape, Level.L0C)
    tc = acc.type
    if not (isinstance(acc, Name) and isinstance(tc, TileType) and tc.level is Level.L0C):
        raise v.err(acc, f"mmad accumulates into an L0C tile, not {a_kind(tc)}",
                    "start it with `acc = zeros(mi.len, ni.len, L0C)` before the K loop", rule="cube.mmad")
    if tc.dtype is not want:
        raise v.err(acc, f"{dtype.value} products accumulate in {want.value}, but `{acc.id}` is {tc.dtype.value}",
                    f"make it `zeros(..., L0C, dtype={want.value})`" if want is not DType.f32
                    else "drop its dtype= (f32)", rule="cube.mmad")
    if tuple(strip(d) for d in tc.shape) != shape:
        have = " x ".join(expr_text(d) for d in tc.shape)
        raise v.err(acc, f"`{acc.id}` is [{have}] but A x B is [{expr_text(mn[0])} x {expr_text(mn[1])}]",
                    "size the accumulator by A's rows and B's columns: zeros(mi.len, ni.len, L0C)", rule="cube.mmad")
    return TileType(want, shape, Level.L0C)


TYPE_RULES: dict[str, Callable] = {
    "binary": _type_binary,
    "intbinary": _type_intbinary,
    "compare": _type_compare,
    "unary": _type_unary,
    "select": _type_select,
    "clamp": _type_clamp,
    "reduce": _type_reduce,
    "scan": _type_scan,
    "window": _type_window,
    "element": _type_element,
    "repeat": _type_repeat,
    "gather": _type_gather,
    "take": _type_take,
    "transpose": _type_transpose,
    "iota": _type_iota,
    "sort": _type_sort,
    "cast": _type_cast,
    "cube": _type_cube,
}


# ----------------------------------------------------------------------------- refusals by kind


def refusal(spec, t, kind: str, kinds, node: Expr) -> tuple[str, str]:
    """(message, help) for `node`, an operand (or a call) of `kind` that `spec`'s category is not lowered for."""
    op, cat = spec.name, spec.category
    arg = node
    if kind == "cube" and isinstance(t, TileType):
        if t.level is Level.L0C:
            return (f"`{expr_text(arg)}` is an L0C tile (the cube's accumulator); `{op}` runs on the vector unit, "
                    "which reads UB only",
                    "store it to a Workspace in copyout, sync_all(), then load it into UB for vector work")
        return (f"`{expr_text(arg)}` is an {t.level.value} tile; vector operations work on UB tiles",
                "load it into UB (the default level) for vector work")
    if kind == "scalar" and cat in ("reduce", "scan", "window", "element"):
        return (f"`{op}` takes a tile, not a scalar",
                "a scalar needs no reduction" if cat == "reduce" else "pass a UB tile")
    if kind == "scalar" and cat in ("repeat", "gather"):
        return (f"`{op}` takes a tile of rows, not a scalar",
                "a scalar broadcasts over a tile by itself: `xu - m`" if cat == "repeat" else "pass a UB tile")
    if kind == "scalar" and cat == "take":
        return "`take` reads elements of a tile, not of a scalar", "pass a UB tile"
    if kind == "rows" and cat in ("scan", "window", "element"):
        return (f"`{op}` works on 1-D tiles; `{expr_text(arg)}` is a tile of rows "
                f"[{' x '.join(expr_text(d) for d in t.shape)}]",
                "load one row at a time (index the row axis with a scalar), or reduce the rows first: "
                "reduce_sum(x, axis=-1)")
    lowered = ", ".join(KIND_TEXT[k] for k in sorted(kinds)) or "nothing"
    if not kinds:
        return (f"`{op}` is an operation of category `{cat}`, which no lowering rule takes: the passes could not "
                "turn it into AscendC", f"give category `{cat}` its lowering (passes/vector.py LOWER_RULES) and its "
                "tile kinds (dsl/ops.py LOWERED)")
    return (f"`{op}` is not lowered for {KIND_TEXT[kind]} (category `{cat}` is lowered for {lowered})",
            f"use it on {lowered}")


KIND_TEXT = {"scalar": "scalars", "tile": "1-D tiles", "rows": "tiles of rows",
             "cube": "cube tiles (L1, L0A, L0B, L0C)"}


# ----------------------------------------------------------------------------- type helpers


def unify(a: ScalarType, b: ScalarType) -> ScalarType:
    """Scalar promotion: literals adopt the other side; int with float gives the float."""
    if a.weak and b.weak:
        if DType.f32 in (a.dtype, b.dtype):
            return ScalarType(DType.f32, weak=True)
        return ScalarType(INDEX if DType.bool not in (a.dtype, b.dtype) or a.dtype != b.dtype else DType.bool,
                          weak=True)
    if a.weak or b.weak:
        weak, strong = (a, b) if a.weak else (b, a)
        if weak.dtype.is_float and not strong.dtype.is_float:
            return ScalarType(DType.f32)
        return ScalarType(strong.dtype)
    if a.dtype == b.dtype:
        return ScalarType(a.dtype)
    if a.dtype.is_float or b.dtype.is_float:
        floats = [d for d in (a.dtype, b.dtype) if d.is_float]
        if len(floats) == 2:
            return ScalarType(DType.f32)
        return ScalarType(floats[0])
    return ScalarType(wider(a.dtype, b.dtype))


def kind_text(t) -> str:
    if isinstance(t, ScalarType):
        return f"{t.dtype.value} scalar"
    if isinstance(t, TileType):
        return f"{t.dtype.value} tile" + ("" if t.level is Level.UB else f" in {t.level.value}")
    if isinstance(t, RangeType):
        return "range"
    if isinstance(t, TensorType):
        return "GM tensor"
    if isinstance(t, TilingType):
        return "tiling struct"
    if isinstance(t, MetaType):
        return t.what
    return "value"


def a_kind(t) -> str:
    """`kind_text` with its article: "an f32 tile in L0B", "a bf16 scalar" (as the letters are read)."""
    text = kind_text(t) if t is not None else "value"
    return ("an " if text[:1] in "aefhilmnorsx" else "a ") + text


def strip(e: Expr) -> Expr:
    """An expression without spans and types (for shapes and capacities)."""
    if isinstance(e, Call):
        return Call(e.op, tuple(strip(a) for a in e.args))
    if isinstance(e, Attr):
        return Attr(Name(e.obj.id), e.attr)
    if isinstance(e, Name):
        return Name(e.id)
    if isinstance(e, Const):
        return Const(e.value, e.kind)
    return e


def windows_len(var: Expr, k: Expr, s: Expr) -> Expr:
    """Elements covering the windows of range `var`: (var.len - 1) * s + k, or var.len * k when
    the windows tile the row (s = k: whole rows of k)."""
    length = Attr(Name(var.id), "len") if isinstance(var, Name) else var
    if strip(s) == strip(k):
        return Call("mul", (length, strip(k)))
    return Call("add", (Call("mul", (Call("sub", (length, ONE)), strip(s))), strip(k)))


def rows_len(rows: Expr, k: Expr) -> Expr:
    """Elements of `rows` whole rows of k: spelled like a `windows(c, k, k)` load when rows is c.len."""
    if isinstance(rows, Attr):
        return windows_len(strip(rows), k, k)
    return Call("mul", (strip(rows), strip(k)))


def window_out(length: Expr, k: Expr, s: Expr) -> Expr:
    """Windows in `length` elements: (length - k) // s + 1, simplified for a `windows(c, k, s)` load."""
    k, s = strip(k), strip(s)
    if k == s and isinstance(length, Call) and length.op == "mul" and length.args[1] == k \
            and isinstance(length.args[0], Attr):
        return length.args[0]                # c.len whole rows of k: c.len windows
    if isinstance(length, Call) and length.op == "add" and length.args[1] == k:
        mul = length.args[0]
        if isinstance(mul, Call) and mul.op == "mul" and mul.args[1] == s:
            sub = mul.args[0]
            if isinstance(sub, Call) and sub.op == "sub" and sub.args[1] == ONE and isinstance(sub.args[0], Attr):
                return sub.args[0]
    return Call("add", (Call("floordiv", (Call("sub", (strip(length), k)), s)), ONE))


__all__ = ["TYPE_RULES", "KIND_TEXT", "refusal", "unify", "kind_text", "a_kind", "strip", "windows_len", "rows_len",
           "window_out"]
