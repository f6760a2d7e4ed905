"""Pass 3's expression lowering: DSL expressions -> AscendC vector and scalar code.

A compute statement is lowered like a register allocator would: tile sub-expressions are
evaluated in Sethi-Ullman order (`dsl/registers.py`'s walk, which the UB plan counts the scratch by),
an in-place AscendC call writes its result over an operand's buffer, and other
temporaries take slots of the shared scratch TBuf. Each DSL operation is lowered by the rule
of its category and tile kind (`LOWER_RULES`, the kinds `dsl.ops.LOWERED` names), which reads
the op's row for the AscendC to write: its API, its scalar form, the expansion of a function
AscendC lacks (tanh, sigmoid, pow; with a comment saying so). Scalars live on the scalar unit;
reading a value the vector unit wrote needs a V->S sync, which the rules insert. Element counts
of vector instructions, Compare counts and mask conversions are holes of the kernel source
(`kernel.py`): align pads them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

from ..dsl import ir, tiles
from ..dsl.registers import RegisterWalk, has_reduction as _has_reduction, is_byte_mask, is_tile
from ..dsl.buffers import padded_len
from ..dsl.ops import OPS, REDUCTIONS, ROUND_MODES, Reduction, Step, fold, window_base, window_form, window_lead
from ..dsl.printer import expr_text
from .broadcast import Broadcaster
from .cexpr import KERNEL, KERNEL_HELPERS, float_literal, paren as _paren, render, rounding_helper
from .emit import Emitter
from .kernel import CompareCount, ExactWrite, Hole, MaskWiden
from .spec import LoweringError

REPEAT_BYTES = 256        # one vector repeat: 64 floats, 128 halves

# a < s is s > a: the comparison with its operands swapped
SWAPPED_MODE = {"LT": "GT", "GT": "LT", "LE": "GE", "GE": "LE", "EQ": "EQ", "NE": "NE"}


@dataclass
class Tile:
    name: str              # C++ LocalTensor expression
    dtype: ir.DType
    slot: int | None = None  # scratch slot it occupies, if any


@dataclass
class ComputeContext:
    """What a compute statement's lowering needs from the kernel generator."""
    names: Callable[[ir.Expr], str]          # scalar Name/Attr -> C++
    text: Callable[[ir.Expr], str]           # an index expression -> C++ (named tensor sizes included)
    count: Callable[..., str]                # element count of a tile (exact=True: never padded)
    tile_of: Callable[[str], Tile]           # a named UB tile
    hole: Callable[[Hole], str]              # a piece of text align rewrites (see kernel.py)
    em: Emitter
    slots_in_use: set[int] = field(default_factory=set)
    max_slots: int = 0
    slot_dtypes: dict[int, ir.DType] = field(default_factory=dict)
    uses_scalar_buf: bool = False
    uses_compare: bool = False
    scalar_tmp: int = 0
    declared_slots: set = field(default_factory=set)
    events: int = 0
    reserved: frozenset = frozenset()        # C++ names the DSL uses: generated names avoid them
    sizes: dict = field(default_factory=dict)   # tensor sizes given by an expression -> their C++ member
    byte_masks: frozenset = frozenset()      # bool tiles holding one byte per element (loaded, or cast)
    padded: dict = field(default_factory=dict)   # DSL tile -> the window op whose padding its buffer holds
    use_min_max: Callable[..., None] = lambda op, float_=False: None   # note a MinOf / MaxOf call (kernel.py)
    # a tile of rows: (rows, cols, pitch, pitch in blocks)
    layout: Callable[[ir.TileType], tuple[str, str, str, str]] | None = None
    is_loaded: Callable[[str], bool] = lambda name: False   # a VECIN tile (its copy-in padded its last block)
    uses: set = field(default_factory=set)   # helpers the code calls (kernel.py's MIN_MAX_HELPERS keys)

    # -- scratch slots -------------------------------------------------------------------
    def take_slot(self, dtype: ir.DType) -> Tile:
        i = 0
        while i in self.slots_in_use:
            i += 1
        self.slots_in_use.add(i)
        self.max_slots = max(self.max_slots, i + 1)
        cpp = "uint8_t" if dtype is ir.DType.bool else dtype.cpp
        # One C++ name per (slot, type): a slot may hold a float temporary in one statement
        # and a mask or a half temporary in another.
        name = f"mask{i}" if dtype is ir.DType.bool else f"tmp{i}" if cpp == "float" else f"tmp{i}{dtype.value.upper()}"
        while name in self.reserved:
            name += "_"
        key = (i, cpp)
        if key not in self.declared_slots:
            self.em.line(f"LocalTensor<{cpp}> {name} = Scratch<{cpp}>({i});")
            self.declared_slots.add(key)
        return Tile(name, dtype, i)

    def take_slots(self, dtype: ir.DType, count: int) -> Tile:
        """`count` adjacent scratch slots viewed as one tile (Sort32's (score, index) pairs, 8 bytes
        an element, span two f32 slots); `release_slots` gives them back."""
        i = 0
        while any(j in self.slots_in_use for j in range(i, i + count)):
            i += 1
        for j in range(i, i + count):
            self.slots_in_use.add(j)
        self.max_slots = max(self.max_slots, i + count)
        cpp = dtype.cpp
        name = f"tmp{i}" if cpp == "float" else f"tmp{i}{dtype.value.upper()}"
        while name in self.reserved:
            name += "_"
        if (i, cpp) not in self.declared_slots:
            self.em.line(f"LocalTensor<{cpp}> {name} = Scratch<{cpp}>({i});")
            self.declared_slots.add((i, cpp))
        return Tile(name, dtype, i)

    def release_slots(self, t: Tile, count: int) -> None:
        for j in range(t.slot, t.slot + count):
            self.slots_in_use.discard(j)

    def release(self, t: Tile) -> None:
        if t.slot is not None:
            self.slots_in_use.discard(t.slot)

    def scalar_name(self, hint: str = "v") -> str:
        """A fresh C++ local for a generated scalar, never one of the DSL's own names (a DSL
        scalar `s1` must not be shadowed by the temporary of `sqrt(s)`)."""
        self.scalar_tmp += 1
        while f"{hint}{self.scalar_tmp}" in self.reserved:
            self.scalar_tmp += 1
        return f"{hint}{self.scalar_tmp}"

    def sync(self, event: str) -> None:
        """A pipe hand-over inside one stage (V->S before GetValue, S->V after SetValue)."""
        self.events += 1
        name = f"event{event.replace('_', '')}{self.events}"
        self.em.line(f"TEventID {name} = GetTPipePtr()->FetchEventID(HardEvent::{event});")
        self.em.line(f"SetFlag<HardEvent::{event}>({name});")
        self.em.line(f"WaitFlag<HardEvent::{event}>({name});")


def _leaf_names(e: ir.Expr) -> set[str]:
    return {n.id for n in ir.walk_exprs(e) if isinstance(n, ir.Name)}




class ComputeLowering(RegisterWalk):
    """The shared register walk (dsl/registers.py), emitting code: slots are named scratch
    tiles, leaves the kernel's UB tiles, and `emit` writes the AscendC for each op."""

    def __init__(self, ctx: ComputeContext):
        super().__init__(ctx.byte_masks, frozenset(ctx.padded))
        self.ctx = ctx
        self.em = ctx.em
        self._leads: dict[str, str] = {}      # padded tile -> the C++ of its lead in this method
        self._rendered: dict[int, str] = {}   # the current op's scalar operands, already emitted

    def take(self, dtype: ir.DType) -> Tile:
        return self.ctx.take_slot(dtype)

    def release(self, value: Tile) -> None:
        self.ctx.release(value)

    def leaf(self, name: ir.Name) -> Tile:
        return self.ctx.tile_of(name.id)

    def emit(self, e: ir.Call, out: Tile, values: dict) -> None:
        # scalar operands that reduce a tile are computed first, before the op takes its work
        # tiles: the order the UB plan counts in (RegisterWalk.emit)
        rendered = {id(a): self._scalar(a) for a in e.args if not is_tile(a) and _has_reduction(a)}
        outer, self._rendered = self._rendered, rendered
        try:
            self._emit(e, OPS[e.op], out, values, self.count(e))
        finally:
            self._rendered = outer

    # -- tiles that live padded -----------------------------------------------------------
    def padded_handles(self, name: str, dtype: ir.DType, whole: bool, tile: bool) -> list[str]:
        """Declarations of tile `name` living padded (buffers.padded_rows) in a method that needs
        its `whole` buffer (a fresh definition refills the padding, a window op reads it) and/or the
        `tile` itself, which starts `lead` elements in (a whole number of 32-byte blocks)."""
        window = self.ctx.padded[name]
        cpp, t = self.ctx.tile_of(name).name, dtype.cpp
        lead = self._lead(window)
        if not whole:
            return [f"LocalTensor<{t}> {cpp} = {name}Buf.Get<{t}>()[{lead}];  // behind {window.op}'s padding"]
        lines = [f"LocalTensor<{t}> {cpp}Padded = {name}Buf.Get<{t}>();  // {cpp} behind {lead} slots of "
                 f"{window.op}'s padding"]
        if tile:
            lines.append(f"LocalTensor<{t}> {cpp} = {cpp}Padded[{lead}];")
        return lines

    def _lead(self, window: ir.Call) -> str:
        """Where a padded tile starts in its buffer: a constant, or the kernel's member for it."""
        return self.ctx.text(window_lead(window, window.type.dtype.elems_per_block))

    def _refill_padding(self, name: str) -> None:
        """Before a fresh definition of a padded tile: its whole buffer to the padding value (the
        definition then writes exactly the row; nothing else writes the padding)."""
        window = self.ctx.padded[name]
        red = REDUCTIONS[OPS[window.op].reduction]
        dtype = window.type.dtype
        cpp = self.ctx.tile_of(name).name
        total = render(padded_len(window), self.ctx.names, KERNEL,
                       hook=lambda n: self.ctx.sizes.get(n) or self._index_call(n))
        self.em.line(f"// {cpp} lives padded for {window.op}: the padding around it holds {_pad_fill_text(red)}")
        self.em.line(f"Duplicate({cpp}Padded, {_pad_fill(red, dtype)}, {total});")

    # -- statements ------------------------------------------------------------------------
    def assign_tile(self, target: Tile, value: ir.Expr, dsl: str | None = None) -> None:
        """`target = value` for a tile value: computed straight into `target` where safe."""
        reads_target = target.name in _leaf_names(value)
        self.target = dsl
        if dsl in self.ctx.padded and not reads_target:
            self._refill_padding(dsl)
        if isinstance(value, ir.Name):
            src = self.ctx.tile_of(value.id)
            if src.name != target.name:
                self._copy_tile(target, src, value)
            return
        result = self.tile(value, None if reads_target else target, final=target)
        if result.name != target.name:
            self._copy_tile(target, result, value)
        self.ctx.release(result)

    def _copy_tile(self, target: Tile, src: Tile, value: ir.Expr) -> None:
        """UB -> UB copy of a tile. DataCopy moves whole 32-byte blocks (a ragged count would be
        rounded down), so vector dtypes copy through Muls by 1, which takes any count."""
        n = self.count(value)
        if src.dtype in (ir.DType.f16, ir.DType.f32, ir.DType.i16, ir.DType.i32):
            self.em.line(f"Muls({target.name}, {src.name}, {_one(src.dtype)}, {n});  "
                         "// UB -> UB copy (any element count)")
        else:
            self.em.line(f"DataCopy({target.name}, {src.name}, {n});")

    def scalar(self, e: ir.Expr) -> str:
        """C++ text of a scalar value; tile reductions and scalar math emit statements first."""
        return self._scalar(e)

    # -- helpers ---------------------------------------------------------------------------
    def count(self, e: ir.Expr) -> str:
        return self.ctx.count(e.type)

    def _scalar(self, e: ir.Expr) -> str:
        """C++ of a scalar expression (the one printer, kernel dialect); what the scalar unit
        cannot compute by itself goes through the vector unit first (see `_vector_for_scalar`)."""
        if id(e) in self._rendered:
            return self._rendered[id(e)]
        return render(e, self.ctx.names, KERNEL, hook=self._vector_for_scalar)

    def _vector_for_scalar(self, e: ir.Call) -> str | None:
        """The C++ of a call a scalar expression needs the vector unit for (a reduction of a
        tile, exp / log / sqrt / pow of a scalar), after emitting its statements; None for
        the calls the printer writes itself. Float min/max note the helpers they need."""
        if e in self.ctx.sizes:
            return self.ctx.sizes[e]
        spec = OPS.get(e.op)
        if spec is None:
            return None
        if e.op in KERNEL_HELPERS:
            self.ctx.use_min_max(e.op, isinstance(e.type, ir.ScalarType) and e.type.dtype.is_float)
        if rounding_helper(e):
            self.ctx.use_min_max("floor" if rounding_helper(e) == "FloorOf" else "ceil")
        return self.lower(e, spec, None, {}, "")

    def lower(self, e: ir.Call, spec, out: Tile | None, v: dict[int, Tile], n: str) -> str | None:
        """`e` by the rule of its category and tile kind (LOWER_RULES): into `out` (its operands'
        registers `v`, `n` elements), or for a scalar (`out` None) the C++ of its value, None
        when the expression printer writes it."""
        rule = LOWER_RULES.get(spec.category, {}).get(tiles.kind(tiles.principal(e)))
        if rule is None:
            what = "on scalars is not lowered" if out is None else "has no tile rule"
            raise LoweringError(f"`{e.op}` {what} in the rule engine", e)
        return rule(self, e, spec, out, v, n)

    def _scalar_vector_math(self, op: str, value: str, e: ir.Expr, exponent: str | None = None) -> str:
        """exp/log/sqrt/... of a scalar: the scalar unit has no such instructions, so the value
        goes through one vector block and comes back after a V->S sync."""
        self.ctx.uses_scalar_buf = True
        name = self.ctx.scalar_name("s")
        dt = e.type.dtype if isinstance(e.type, ir.ScalarType) and e.type.dtype.is_float else ir.DType.f32
        self.em.line(f"// {op} of a scalar runs on the vector unit (the scalar unit has no {op})")
        self.em.line(f"Duplicate(scalarTmp, static_cast<float>({value}), SCALAR_LANES);")
        self._unary_into("scalarTmp", "scalarTmp", op, "SCALAR_LANES", exponent)
        self.ctx.sync("V_S")
        self.em.line(f"{dt.cpp} {name} = scalarTmp.GetValue(0);")
        return name

    def _lane_chain(self, e: ir.Expr) -> tuple[ir.Call, list[tuple[object, ir.Expr]]] | None:
        """(reduction, [(op row, scalar), ...]) when f32 scalar `e` is a reduction of a tile then
        ops of `in_lane` rows with scalars (`reduce_sum(d * d) * t.inv_n + eps`): the vector unit
        can finish it in the reduction's own lane, saving a trip through the scalar unit."""
        steps: list[tuple[object, ir.Expr]] = []
        while isinstance(e, ir.Call) and e.op in OPS and OPS[e.op].in_lane and isinstance(e.type, ir.ScalarType):
            spec = OPS[e.op]
            a, b = e.args
            reduced_a, reduced_b = _has_reduction(a), _has_reduction(b)
            if reduced_a == reduced_b:
                return None
            x, c = (a, b) if reduced_a else (b, a)
            if spec.rscalar and x is not a:
                return None                                   # c - x, c / x: not in one lane op
            steps.append((spec, c))
            e = x
        if isinstance(e, ir.Call) and e.op in OPS and OPS[e.op].category == "reduce" and OPS[e.op].api \
                and e.args[0].type.dtype is ir.DType.f32 and not tiles.is_pitched(e.args[0].type):
            return e, steps[::-1]
        return None

    def _on_the_reduction_lanes(self, e: ir.Call) -> str:
        """op(f(reduce(tile))) with f additions and multiplications by scalars, all on the vector
        unit: the reduction's result stays in its lane of scalarTmp, one vector->scalar sync at the end."""
        red, steps = self._lane_chain(e.args[0])
        src = self.tile(red.args[0], None)
        n = self.ctx.count(red.args[0].type, exact=True)
        self.ctx.uses_scalar_buf = True
        work = self.ctx.take_slot(src.dtype)
        spec = OPS[red.op]
        self.em.line(f"// {e.op} of a reduction finished on the vector unit, in the reduction's lane")
        self.em.line(f"{spec.api}(scalarTmp, {src.name}, {work.name}, {n}{spec.api_args});")
        self.ctx.release(work)
        self.ctx.release(src)
        for step, c in steps:
            value = _SCALAR_ARG[step.scalar_arg](self._scalar(c))
            self.em.line(f"{step.scalar_api}(scalarTmp, scalarTmp, {value}, 1);")
        self._unary_into("scalarTmp", "scalarTmp", e.op, "1")
        self.ctx.sync("V_S")
        name = self.ctx.scalar_name("s")
        self.em.line(f"float {name} = scalarTmp.GetValue(0);")
        return name

    def _unary_into(self, dst: str, src: str, op: str, n: str, exponent: str | None = None) -> None:
        """`dst = op(src)` by the op table's API, or by its expansion (the table's `why` above it)."""
        spec = OPS[op]
        if spec.api:
            self.em.line(f"{spec.api}({dst}, {src}, {n});")
        elif spec.expand:
            if spec.why:
                self.em.line(f"// {spec.why}")
            self._steps(dst, src, spec.expand, n, {"s": exponent})
        else:
            raise LoweringError(f"`{op}` has no vector rule")

    def _steps(self, dst: str, src: str, steps: tuple[Step, ...], n: str, scalars: dict[str, str | None],
               why: str = "") -> None:
        """An op table expansion: the first step reads `src`, the rest work in place on `dst`;
        `{name}` in a step's scalar is the op's scalar operand of that name; `why` trails the first."""
        for i, st in enumerate(steps):
            arg = st.scalar.format(**scalars) if st.scalar else ""
            args = ", ".join(x for x in (dst, src if i == 0 else dst, arg, n) if x)
            self.em.line(f"{st.api}({args});" + (f"  // {why}" if why and i == 0 else ""))

    # -- tile expressions ------------------------------------------------------------------------
    def tile(self, e: ir.Expr, into: Tile | None, final: Tile | None = None) -> Tile:
        if not isinstance(e, (ir.Name, ir.Call)):
            raise LoweringError(f"`{expr_text(e)}` is not a tile expression", e)
        return super().tile(e, into, final)

    def _emit(self, e: ir.Call, spec, out: Tile, v: dict[int, Tile], n: str) -> None:
        wide = tiles.stretched(e)
        if wide and tiles.direct_broadcast(e):
            if not spec.api:
                raise LoweringError(f"`{e.op}` of a stretched tile is not lowered by the rule engine", e)
            Broadcaster(self).binary(e, spec.api, out, v)
            return
        if wide:                    # copy the stretched operands out at the result's shape first
            v = dict(v)
            expanded = [Broadcaster(self).expand(e, i, v[i]) for i in wide]
            for i, t in zip(wide, expanded):
                v[i] = t
            self.lower(e, spec, out, v, n)
            for t in expanded:
                self.ctx.release(t)
            return
        self.lower(e, spec, out, v, n)

    # -- tiles of rows -----------------------------------------------------------------------------
    def _cast_rows(self, e: ir.Call, out: Tile, src: Tile, mode: str) -> None:
        """Cast of a tile of rows to a dtype of another width: the two pitches differ (rows start on
        32-byte blocks of each dtype), so Cast runs in repeat form, one row per repeat, each side
        with its own repeat stride; a repeat converts 256 bytes of the wider type. The destination's
        padding lanes are written too (a narrower destination's last ones zeroed by a masked Duplicate)."""
        st, dt = e.args[0].type, e.type       # neither is a 1-byte dtype (typerules._type_cast)
        rows, cols, src_pitch, src_blocks = self.ctx.layout(st)
        _, _, dst_pitch, dst_blocks = self.ctx.layout(dt)
        per = REPEAT_BYTES // max(st.dtype.nbytes, dt.dtype.nbytes)
        narrow = dt.dtype.nbytes < st.dtype.nbytes
        width = src_pitch if narrow else dst_pitch         # the lanes both rows hold
        row, col, reps = (self.ctx.scalar_name(x) if x in self.ctx.reserved else x for x in ("row", "col", "reps"))
        self.ctx.use_min_max("min")
        em = self.em
        em.line(f"// {expr_text(e)}: rows of {st.dtype.value} and of {dt.dtype.value} have different pitches, "
                "so Cast walks")
        em.line("// the rows in repeat form (one row per repeat, each side its own repeat stride), "
                f"{per} elements a repeat")
        with em.block(f"for (int64_t {row} = 0; {row} < {rows}; {row} += REPEAT_ROWS)"):
            em.line(f"const uint8_t {reps} = static_cast<uint8_t>(MinOf(REPEAT_ROWS, {rows} - {row}));")
            with em.block(f"for (int64_t {col} = 0; {col} < {width}; {col} += {per})"):
                em.line(f"Cast({out.name}[{row} * {dst_pitch} + {col}], {src.name}[{row} * {src_pitch} + {col}], "
                        f"RoundMode::{mode}, static_cast<uint64_t>(MinOf({per}, {width} - {col})), {reps}, "
                        f"{{1, 1, {dst_blocks}, {src_blocks}}});")
            if narrow:
                block = dt.dtype.elems_per_block
                zero = f"static_cast<{dt.dtype.cpp}>(0)"
                with em.block(f"if ({dst_pitch} > {src_pitch})"):
                    em.line(f"// the destination's rows are longer: zero their last {block // 2} lanes "
                            "(Duplicate with a bit mask)")
                    em.line("const uint64_t lanes[2] = "
                            f"{{{hex(((1 << block) - 1) & ~((1 << (block // 2)) - 1))}ull, 0}};")
                    em.line(f"Duplicate({out.name}[{row} * {dst_pitch} + {dst_pitch} - {block}], {zero}, lanes, "
                            f"{reps}, 1, {dst_blocks});")
        em.line(self.ctx.hole(ExactWrite(out.name, dt.dtype, self.ctx.count(dt, exact=True))))
    def _reduce_rows(self, e: ir.Call, out: Tile, src: Tile) -> None:
        """One value per row of a tile of rows, on the vector unit. A row is `cols` elements that
        start on a 32-byte block (`pitch` apart), so repeat-form instructions handle REPEAT_ROWS rows
        at once, one row per repeat (repeat stride = the pitch in blocks): a row of one repeat's
        width or less is reduced by WholeReduce (mask = the columns, so the padding lanes never
        count); a longer row is first folded into its first repeat with Add/Max/Min, a repeat of
        every row per instruction, then WholeReduce reduces that repeat."""
        t = e.args[0].type
        spec = OPS[e.op]
        if tiles.is_pitched(t) and not tiles.is_pitched(e.type) and len(e.type.shape) == 1 and len(t.shape) == 2 \
                and e.type.shape[0] == t.shape[1]:
            self._fold_rows(e, out, src, spec)
            return
        work = self.ctx.take_slot(t.dtype)
        em = self.em
        if not tiles.is_pitched(t):          # a 1-D tile along its one axis, kept: one value
            em.line(f"{spec.api}({out.name}, {src.name}, {work.name}, {self.ctx.count(t, exact=True)}{spec.api_args});")
            self.ctx.release(work)
            # one value written: in a kernel that compares, the next op reads whole repeats (pass 4 zeroes the rest)
            em.line(self.ctx.hole(ExactWrite(out.name, e.type.dtype, "1")))
            return
        rows, cols, pitch, rep_stride = self.ctx.layout(t)
        per = REPEAT_BYTES // t.dtype.nbytes
        block = t.dtype.elems_per_block
        self.ctx.use_min_max("min")
        row, col, reps = (self.ctx.scalar_name(x) if x in self.ctx.reserved else x for x in ("row", "col", "reps"))
        em.line(f"// {expr_text(e)}: one {spec.reduction} per row, REPEAT_ROWS rows per instruction (a row per repeat,")
        em.line(f"// repeat stride = the row pitch in 32-byte blocks); the mask covers the {cols} columns, "
                "never the padding")
        with em.block(f"for (int64_t {row} = 0; {row} < {rows}; {row} += REPEAT_ROWS)"):
            em.line(f"const int32_t {reps} = static_cast<int32_t>(MinOf(REPEAT_ROWS, {rows} - {row}));")
            whole = (f"{spec.row_api}({out.name}[{row}], {src.name}[{row} * {pitch}], static_cast<int32_t>({cols}), "
                     f"{reps}, 1, 1, {rep_stride}{spec.row_args});")
            if isinstance(t.shape[-1], ir.Const) and int(t.shape[-1].value) <= per:
                em.line(whole)
            else:
                fold = OPS[REDUCTIONS[spec.reduction].combine].api
                with em.block(f"if ({cols} <= {per})"):
                    em.line(whole)
                with em.block("else"):
                    em.line(f"// fold each row's repeats into its first {per} lanes, then reduce those")
                    em.line(f"Muls({work.name}, {src.name}[{row} * {pitch}], {_one(t.dtype)}, {per}, {reps}, "
                            f"{{1, 1, {per // block}, {rep_stride}}});")
                    with em.block(f"for (int64_t {col} = {per}; {col} < {cols}; {col} += {per})"):
                        em.line(f"{fold}({work.name}, {work.name}, {src.name}[{row} * {pitch} + {col}], "
                                f"static_cast<uint64_t>(MinOf({per}, {cols} - {col})), {reps}, "
                                f"{{1, 1, 1, {per // block}, {per // block}, {rep_stride}}});")
                    em.line(f"{spec.row_api}({out.name}[{row}], {work.name}, {per}, {reps}, 1, 1, {per // block}"
                            f"{spec.row_args});")
        self.ctx.release(work)
        em.line(self.ctx.hole(ExactWrite(out.name, e.type.dtype, rows)))

    def _fold_rows(self, e: ir.Call, out: Tile, src: Tile, spec) -> None:
        """Along axis 0 of a tile of rows: the rows folded into one, elementwise over the columns.
        Every row starts on a 32-byte block (`pitch` apart), so row i is the aligned operand
        src[i * pitch]: a copy of the first row, then one Add/Max/Min per further row."""
        t = e.args[0].type
        rows, cols, pitch, _ = self.ctx.layout(t)
        fold = OPS[REDUCTIONS[spec.reduction].combine].api
        row = self.ctx.scalar_name("row") if "row" in self.ctx.reserved else "row"
        em = self.em
        em.line(f"// {expr_text(e)}: the rows folded into one with {fold}, one instruction per further row")
        em.line(f"// (row i starts i * {pitch} elements in, on a 32-byte block)")
        em.line(f"Muls({out.name}, {src.name}, {_one(t.dtype)}, {cols});")
        with em.block(f"for (int64_t {row} = 1; {row} < {rows}; ++{row})"):
            em.line(f"{fold}({out.name}, {out.name}, {src.name}[{row} * {pitch}], {cols});")
        em.line(self.ctx.hole(ExactWrite(out.name, e.type.dtype, cols)))

    def _is_byte_mask(self, e: ir.Expr) -> bool:
        """A bool tile from GM or from cast() holds one byte per element; Select wants the bit
        mask Compare writes, so such a mask is compared with 0 first."""
        return is_byte_mask(e, self.ctx.byte_masks)

    def _mask_bits(self, mask: Tile, n: str, exact: str) -> Tile:
        em = self.em
        self.ctx.uses_compare = True
        wide = self.ctx.take_slot(ir.DType.f32)
        bits = self.ctx.take_slot(ir.DType.bool)
        cn = self._compare_count(exact)
        em.line("// a byte-per-element bool mask -> the bit mask Select reads: (float)mask != 0")
        em.line(self.ctx.hole(MaskWiden(wide.name, mask.name, n, cn)))
        em.line(f"CompareScalar({bits.name}, {wide.name}, 0.0f, CMPMODE::NE, {cn});")
        self.ctx.release(wide)
        return bits

    def _compare_count(self, n: str) -> str:
        """Compare writes whole 256-byte repeats; pass 4 rounds the count up (buffers are padded)."""
        return self.ctx.hole(CompareCount(n))

    def _expand_with_scalar(self, spec, out: Tile, base: Tile, exp: ir.Expr, n: str) -> None:
        """tile (op) scalar for an op AscendC has no API for: its expansion, the scalar as `{s}`;
        a literal k in 1..`powers` as k - 1 multiplications instead (pow's x ** 2 is x * x)."""
        if spec.powers and isinstance(exp, ir.Const) and float(exp.value).is_integer() \
                and 1 <= int(exp.value) <= spec.powers:
            k = int(exp.value)
            self.em.line(f"// x ** {k} as {k - 1} multiplication(s)")
            if k == 1:
                self.em.line(f"Muls({out.name}, {base.name}, 1.0f, {n});")
                return
            if out.name == base.name:
                raise LoweringError("x ** k in place needs a copy of x; assign the power to a new name")
            self.em.line(f"Mul({out.name}, {base.name}, {base.name}, {n});")
            for _ in range(k - 2):
                self.em.line(f"Mul({out.name}, {out.name}, {base.name}, {n});")
            return
        self._unary_into(out.name, base.name, spec.name, n, exponent=self._scalar(exp))

    def _scan(self, e: ir.Call, out: Tile, src: Tile, n: str) -> None:
        acc = self.ctx.scalar_name("carry")
        init = self._scalar(e.args[1])
        self.ctx.sync("V_S")
        t = out.dtype.cpp
        spec = OPS[e.op]
        reverse = spec.reverse
        # exactly the tile's elements: in a kernel that compares `n` is rounded up to whole repeats, and a
        # scan from the end would start in the padding lanes (whatever compute left there, nan included)
        n = self.ctx.count(e.type, exact=True)
        loop = (f"for (int64_t i = static_cast<int64_t>({n}) - 1; i >= 0; --i)" if reverse
                else f"for (uint32_t i = 0; i < static_cast<uint32_t>({n}); ++i)")
        order = " from the last element back" if reverse else ""
        if REDUCTIONS[spec.reduction].combine == "add":
            # Compensated (Kahan) summation: over a long row the rounding error stays near one
            # ulp instead of growing with the row length, as a plain running sum's would.
            self.em.line(f"// {e.op}: a compensated (Kahan) running sum on the scalar unit, element by element{order}")
            self.em.line(f"{t} {acc} = {init};")
            self.em.line(f"{t} {acc}Lost = 0;  // the low-order part the running sum could not hold")
            with self.em.block(loop):
                self.em.line(f"const {t} term = {src.name}.GetValue(i) - {acc}Lost;")
                self.em.line(f"const {t} next = {acc} + term;")
                # an infinite sum has no low-order part (inf - inf would make every later value nan)
                zero = f"static_cast<{t}>(0)"
                self.em.line(f"{acc}Lost = next - next == {zero} ? (next - {acc}) - term : {zero};")
                self.em.line(f"{acc} = next;")
                self.em.line(f"{out.name}.SetValue(i, {acc});")
        else:
            self.em.line(f"// {e.op}: a running product on the scalar unit, element by element{order}")
            self.em.line(f"{t} {acc} = {init};")
            with self.em.block(loop):
                self.em.line(f"{acc} = {acc} * {src.name}.GetValue(i);")
                self.em.line(f"{out.name}.SetValue(i, {acc});")
        self.ctx.sync("S_V")

    def _window(self, e: ir.Call, out: Tile, src: Tile, n: str) -> None:
        if window_form(e) != "blocks":
            self._window_gather(e, out, src)
            return
        k, s = self._scalar(e.args[1]), self._scalar(e.args[2])
        kind = OPS[e.op].reduction
        red = REDUCTIONS[kind]
        # the loop's locals must not hide a tile of the kernel with the same name
        o, j, acc, v = (x if x not in self.ctx.reserved else self.ctx.scalar_name(x) for x in ("o", "j", "acc", "v"))
        self.em.line(f"// {e.op}: one {kind} per window of {k} elements every {s}, on the scalar unit")
        self.ctx.sync("V_S")
        with self.em.block(f"for (uint32_t {o} = 0; {o} < static_cast<uint32_t>({n}); ++{o})"):
            self.em.line(f"{out.dtype.cpp} {acc} = {src.name}.GetValue({o} * {s});")
            with self.em.block(f"for (uint32_t {j} = 1; {j} < static_cast<uint32_t>({k}); ++{j})"):
                self.em.line(f"{out.dtype.cpp} {v} = {src.name}.GetValue({o} * {s} + {j});")
                self.em.line(f"{acc} = {v} {red.wins} {acc} ? {v} : {acc};" if red.wins else f"{acc} = {acc} + {v};")
            if red.mean:
                self.em.line(f"{acc} = {acc} / static_cast<{out.dtype.cpp}>({k});")
            self.em.line(f"{out.name}.SetValue({o}, {acc});")
        self.ctx.sync("S_V")

    # Rows of k elements packed back to back in a tile start at any element, so no vector
    # instruction can address a row on its own (UB operands start 32-byte aligned). The per-row
    # broadcast and the per-row pick are vector Gathers instead: each lane reads the element at
    # its own byte offset, and the offsets are built by vector arithmetic on CreateVecIndex.
    def _repeat(self, e: ir.Call, out: Tile, src: Tile, n: str) -> None:
        if out.name == src.name:
            raise LoweringError("repeat() cannot write over its own operand; assign it to a new name", e)
        k = self._scalar(e.args[1])
        rows = self.ctx.count(e.args[0].type, exact=True)
        offs = self.ctx.take_slot(ir.DType.i32)
        em = self.em
        em.line(f"// {expr_text(e)}: row r's value to elements [r * k, (r + 1) * k) by a vector Gather; "
                "element i reads")
        em.line("// row floor((i + 0.5) / k), exact in f32 for tile lengths below 2^22 elements")
        em.line(f"CreateVecIndex({out.name}, 0.0f, {n});")
        em.line(f"Adds({out.name}, {out.name}, 0.5f, {n});")
        em.line(f"Muls({out.name}, {out.name}, 1.0f / static_cast<float>({k}), {n});")
        em.line(f"Mins({out.name}, {out.name}, static_cast<float>({_paren(rows)} - 1), {n});  "
                "// lanes past the last row stay in the source")
        em.line(f"Cast({offs.name}, {out.name}, RoundMode::CAST_FLOOR, {n});")
        em.line(f"Muls({offs.name}, {offs.name}, static_cast<int32_t>(sizeof(float)), {n});  "
                "// row index -> byte offset")
        em.line(f"Gather({out.name}, {src.name}, {offs.name}.ReinterpretCast<uint32_t>(), 0, {n});")
        self.ctx.release(offs)

    def _pick(self, e: ir.Call, out: Tile, src: Tile, index: Tile, n: str) -> None:
        if out.name in (src.name, index.name):
            raise LoweringError("pick() cannot write over its own operand; assign it to a new name", e)
        rows = self.ctx.count(e.type, exact=True)
        if len(e.args[0].type.shape) == 2:          # a tile of rows: rows `pitch` apart, `cols` long
            _, k, step, _ = self.ctx.layout(e.args[0].type)
            where = "(r * pitch + index[r]) * 4"
        else:
            k = step = self._scalar(e.args[2])
            where = "(r * k + index[r]) * 4"
        offs = self.ctx.take_slot(ir.DType.i32)
        col = f"{out.name}.ReinterpretCast<int32_t>()"
        em = self.em
        em.line(f"// {expr_text(e)}: element index[r] of row r by a vector Gather at byte offset {where};")
        em.line("// the index is clamped into its row, so a bad index never reads outside the tile")
        em.line(f"CreateVecIndex({offs.name}, static_cast<int32_t>(0), {n});")
        em.line(f"Mins({offs.name}, {offs.name}, static_cast<int32_t>({_paren(rows)} - 1), {n});  "
                "// lanes past the last row repeat it")
        em.line(f"Muls({offs.name}, {offs.name}, static_cast<int32_t>({step}), {n});")
        em.line(f"Maxs({col}, {index.name}, static_cast<int32_t>(0), {n});  "
                "// the destination holds the clamped index meanwhile")
        em.line(f"Mins({col}, {col}, static_cast<int32_t>({k} - 1), {n});")
        em.line(f"Add({offs.name}, {offs.name}, {col}, {n});")
        em.line(f"Muls({offs.name}, {offs.name}, static_cast<int32_t>(sizeof(float)), {n});  // element -> byte offset")
        em.line(f"Gather({out.name}, {src.name}, {offs.name}.ReinterpretCast<uint32_t>(), 0, {n});")
        self.ctx.release(offs)

    def _take(self, e: ir.Call, out: Tile, src: Tile, index: Tile, n: str) -> None:
        if out.name in (src.name, index.name):
            raise LoweringError("take() cannot write over its own operand; assign it to a new name", e)
        offs = self.ctx.take_slot(ir.DType.i32)
        em = self.em
        length = self.ctx.count(e.args[0].type, exact=True)
        em.line(f"// {expr_text(e)}: element index[i] of the source by a vector Gather at byte offset index[i] * size;")
        em.line("// not clamped: the indices are the reference's. The Gather reads a handle sized to the source's")
        em.line("// valid elements (SetSize), so an index into the buffer's padding is outside it too")
        em.line(f"Muls({offs.name}, {index.name}, static_cast<int32_t>(sizeof({src.dtype.cpp})), {n});  "
                "// element -> byte offset")
        em.line("{")
        em.line(f"    LocalTensor<{src.dtype.cpp}> valid = {src.name};")
        em.line(f"    valid.SetSize(static_cast<uint32_t>({length}));")
        # exactly the index's elements: in a kernel that compares, `n` is rounded up to whole repeats and the
        # index's padding lanes hold no index (a reversed iota is negative there)
        exact = self.ctx.count(e.type, exact=True)
        em.line(f"    Gather({out.name}, valid, {offs.name}.ReinterpretCast<uint32_t>(), 0, {exact});")
        em.line("}")
        em.line(self.ctx.hole(ExactWrite(out.name, e.type.dtype, exact)))
        self.ctx.release(offs)

    def _transpose(self, e: ir.Call, out: Tile, src: Tile, n: str) -> None:
        """y = transpose(x) for a tile of rows: one vector Gather. AscendC's Transpose works on 16 x 16
        blocks of 2-byte data and TransDataTo5HD on 16 rows of 32 bytes, so neither takes a tile of any
        rows x columns of 4-byte data; Gather reads any element of a tile by byte offset (2- and 4-byte
        types). Lane p of the result (rows `pitch_y` apart) is row j = floor((p + 0.5) / pitch_y),
        column i = p - j * pitch_y, and reads x[i, j] at element i * pitch_x + j
        = p * pitch_x - j * (pitch_y * pitch_x - 1): no division on the integer unit, f32 exact below
        2^22 lanes. A padding lane (i past x's rows) reads a valid element (clamped): padding lanes are
        free after compute, but a Gather outside the source is not."""
        if out.name == src.name:
            raise LoweringError("transpose() cannot write over its own operand; assign it to a new name", e)
        st, dt = e.args[0].type, e.type
        src_rows, _, src_pitch, _ = self.ctx.layout(st)
        _, _, dst_pitch, _ = self.ctx.layout(dt)
        lane = self.ctx.take_slot(ir.DType.f32)
        offs = self.ctx.take_slot(ir.DType.i32)
        em = self.em
        em.line(f"// {expr_text(e)}: row j of the result is column j of the source, by one vector Gather; lane p of")
        em.line(f"// row j = floor((p + 0.5) / {dst_pitch}) reads source element "
                f"p * {src_pitch} - j * ({dst_pitch} * {src_pitch} - 1)")
        em.line(f"CreateVecIndex({lane.name}, 0.0f, {n});")
        em.line(f"Adds({lane.name}, {lane.name}, 0.5f, {n});")
        em.line(f"Muls({lane.name}, {lane.name}, 1.0f / static_cast<float>({dst_pitch}), {n});")
        em.line(f"Cast({offs.name}, {lane.name}, RoundMode::CAST_FLOOR, {n});  // j, the result's row")
        em.line(f"Muls({offs.name}, {offs.name}, static_cast<int32_t>({dst_pitch} * {src_pitch} - 1), {n});")
        em.line("{")
        em.line(f"    LocalTensor<int32_t> offsets = {lane.name}.ReinterpretCast<int32_t>();  "
                "// the f32 lanes are done with")
        em.line(f"    CreateVecIndex(offsets, static_cast<int32_t>(0), {n});  // p, the lane")
        em.line(f"    Muls(offsets, offsets, static_cast<int32_t>({src_pitch}), {n});")
        em.line(f"    Sub(offsets, offsets, {offs.name}, {n});")
        em.line(f"    Mins(offsets, offsets, static_cast<int32_t>({_paren(src_rows)} * {src_pitch} - 1), {n});  "
                "// padding lanes stay in the source")
        em.line(f"    Muls(offsets, offsets, static_cast<int32_t>(sizeof({src.dtype.cpp})), {n});  "
                "// element -> byte offset")
        em.line(f"    Gather({out.name}, {src.name}, offsets.ReinterpretCast<uint32_t>(), 0, {n});")
        em.line("}")
        self.ctx.release(offs)
        self.ctx.release(lane)

    def _argsort(self, e: ir.Call, out: Tile, src: Tile, n: str) -> None:
        """argsort() by the vector unit's sorting instructions. Sort32 sorts scores largest first,
        32 at a time, into (score, index) pairs of 8 bytes; MrgSort merges up to four sorted queues
        into one, so rounds of it turn queues of 32 pairs into 128, 512, ...; Extract splits the
        indices off. Equal scores keep their positions' order (Sort32's rule, and the queues are
        merged in position order), so the sort is stable; an ascending sort sorts the negated scores."""
        if out.name == src.name:
            raise LoweringError("argsort() cannot write over its own operand; assign it to a new name", e)
        em, ctx = self.em, self.ctx
        t = src.dtype.cpp
        unit = 256 // src.dtype.nbytes                 # one Extract repeat: 64 floats, 128 halves
        pair = 8 // src.dtype.nbytes                   # elements of T in one (score, index) pair
        descending = bool(e.args[1].value)
        length = ctx.count(e.args[0].type, exact=True)
        ctx.use_min_max("min")
        # scores and positions of P elements, then two buffers of P pairs (two slots each)
        scores = ctx.take_slot(src.dtype)
        positions = ctx.take_slot(ir.DType.i32)
        pairs = ctx.take_slots(src.dtype, 2)
        merged = ctx.take_slots(src.dtype, 2)
        em.line(f"// {expr_text(e)}: Sort32 sorts groups of 32 (score, index) pairs largest first, MrgSort merges")
        em.line("// four sorted queues a round (32 -> 128 -> 512 ... pairs), Extract splits the indices off. "
                "The row is")
        em.line(f"// padded with -inf to whole Extract repeats ({unit} elements), "
                "so the padding sorts after every element")
        em.line("// (equal scores keep their positions' order: the sort is stable)")
        em.line("{")
        with em.indented():
            em.line(f"const uint32_t sortLen = static_cast<uint32_t>({length});")
            em.line(f"const uint32_t sortPadded = (sortLen + {unit - 1}) / {unit} * {unit};")
            as_t = (lambda v: v) if t == "float" else (lambda v: f"static_cast<{t}>({v})")
            em.line(f"Duplicate({scores.name}, {as_t('-F32_INF')}, sortPadded);")
            sign = "1.0f" if descending else "-1.0f"
            why = "the scores as they are: largest first" if descending else "negated: the smallest value sorts first"
            em.line(f"Muls({scores.name}, {src.name}, {as_t(sign)}, sortLen);  // {why}")
            em.line(f"CreateVecIndex({positions.name}, 0, sortPadded);  // each score's position")
            em.line(f"LocalTensor<{t}> sorted = {pairs.name};")
            em.line(f"LocalTensor<{t}> spare = {merged.name};")
            em.line(f"Sort32(sorted, {scores.name}, {positions.name}.ReinterpretCast<uint32_t>(), "
                    "static_cast<int32_t>(sortPadded / 32));")
            em.line("for (uint32_t run = 32; run < sortPadded; run *= 4) {  "
                    "// sorted queues of `run` pairs -> of 4 * run")
            with em.indented():
                em.line("for (uint32_t start = 0; start < sortPadded; start += 4 * run) {")
                with em.indented():
                    em.line("const uint32_t left = sortPadded - start;  // pairs from this group's first queue on")
                    em.line("const uint32_t q1 = MinOf(run, left), q2 = MinOf(2 * run, left), "
                            "q3 = MinOf(3 * run, left);")
                    em.line("const uint16_t lengths[4] = {static_cast<uint16_t>(q1), static_cast<uint16_t>(q2 - q1), "
                            "static_cast<uint16_t>(q3 - q2),")
                    em.line("                             static_cast<uint16_t>(MinOf(4 * run, left) - q3)};")
                    em.line("// a last group of one queue merges it with an empty one: a copy")
                    em.line("const uint16_t validBit = lengths[2] == 0 ? 0b11 : (lengths[3] == 0 ? 0b111 : 0b1111);")
                    em.line(f"MrgSort(spare[start * {pair}], "
                            f"MrgSortSrcList<{t}>(sorted[start * {pair}], sorted[(start + q1) * {pair}], "
                            f"sorted[(start + q2) * {pair}],")
                    em.line(f"                                                 sorted[(start + q3) * {pair}]), "
                            "MrgSort4Info(lengths, false, validBit, 1));")
                em.line("}")
                em.line(f"const LocalTensor<{t}> done = spare;")
                em.line("spare = sorted;")
                em.line("sorted = done;")
            em.line("}")
            em.line(f"Extract({scores.name}, {positions.name}.ReinterpretCast<uint32_t>(), sorted, "
                    f"static_cast<int32_t>(sortPadded / {unit}));")
            em.line(f"Adds({out.name}, {positions.name}, 0, {n});  // the first {n} positions")
        em.line("}")
        ctx.release(scores)
        ctx.release(positions)
        ctx.release_slots(pairs, 2)
        ctx.release_slots(merged, 2)

    def _index_call(self, e: ir.Call) -> str | None:
        """Index arithmetic calls min/max through the kernel's int64 helpers."""
        if e.op in KERNEL_HELPERS:
            self.ctx.use_min_max(e.op)
        return None

    def _padded_copy(self, e: ir.Call, out: Tile, src: Tile, c, named: dict, windows: str) -> Tile:
        """The row copied behind whole 32-byte blocks of the padding value, into a slot of its own."""
        em, ctx = self.em, self.ctx
        red = REDUCTIONS[OPS[e.op].reduction]
        pad, length = c(e.args[3]), c(e.args[0].type.shape[0])
        lead_expr = window_lead(e, out.dtype.elems_per_block)
        if not isinstance(lead_expr, ir.Const):
            lead = ctx.scalar_name("lead")
            em.line(f"const int64_t {lead} = {c(lead_expr)};  "
                    f"// the padding {pad} rounded up to a whole 32-byte block")
            named[lead_expr] = lead
        else:
            lead = c(lead_expr)
        total = c(padded_len(e))
        fill = _pad_fill(red, out.dtype)
        row = ctx.take_slot(out.dtype)
        em.line(f"// {e.op}: {windows} over the row padded by {pad}. The row is")
        em.line(f"// copied behind {lead} padding slots so that it starts on a 32-byte boundary; the padding holds")
        em.line(f"// {_pad_fill_text(red)}.")
        em.line(f"Duplicate({row.name}, {fill}, {total});")
        em.line(f"Muls({row.name}[{lead}], {src.name}, {_one(out.dtype)}, {length});")
        return row

    def _window_gather(self, e: ir.Call, out: Tile, src: Tile) -> None:
        """Overlapping, strided, dilated or padded windows on the vector unit. Vector operands
        start on 32-byte boundaries and a window may start anywhere, so the windows are never
        addressed directly: Gather (uint32 byte offsets, any element) collects element j of
        every window into a dense tile, and Max/Min/Add folds it into the result. With padding,
        the row is first copied behind `align_up(pad, block)` slots of the padding value, so the
        copy starts on a block boundary and no window reads outside the copy."""
        em, ctx = self.em, self.ctx
        red = REDUCTIONS[OPS[e.op].reduction]
        t = out.dtype.cpp
        block = out.dtype.elems_per_block
        padded = window_form(e) == "padded"
        named: dict[ir.Expr, str] = {}     # values computed once for the statement (the lead of a padded copy)

        def c(x: ir.Expr) -> str:          # index arithmetic: plain C++ on the scalar unit
            return render(x, ctx.names, KERNEL, hook=lambda n: named.get(n) or ctx.sizes.get(n) or self._index_call(n))
        k, stride, pad, dil = (c(a) for a in e.args[1:5])
        n = c(e.type.shape[0])
        fold_api = OPS[red.combine].api
        dilated = "" if dil == "1" else f" (dilation {dil})"
        source = e.args[0].id if isinstance(e.args[0], ir.Name) else None
        in_place = padded and source in ctx.padded
        if in_place:
            row = Tile(f"{src.name}Padded", src.dtype)
            em.line(f"// {e.op}: windows of {k} every {stride}{dilated} over the row padded by {pad}, read in place:")
            em.line(f"// {src.name} starts {self._lead(e)} slots into its buffer, whose padding holds "
                    f"{_pad_fill_text(red)}.")
            base = c(window_base(e, block))
            where = f"{row.name}"
        elif padded:
            row = self._padded_copy(e, out, src, c, named, f"windows of {k} every {stride}{dilated}")
            base = c(window_base(e, block))
            where = "the padded copy"
        else:
            row = src
            em.line(f"// {e.op}: windows of {k} every {stride}{dilated}, all inside the row.")
            base = "0"
            where = "the row"

        def at(j: str) -> str:
            """Byte offset of element j of window 0: (j * dilation + base) * sizeof(T)."""
            terms = [x for x in (j if dil == "1" or j == "0" else f"{j} * {_paren(dil)}", base) if x != "0"]
            return f"static_cast<uint32_t>({_paren(' + '.join(terms))} * sizeof({t}))" if terms else "0"

        first = " + ".join(x for x in (f"j * {_paren(dil)}" if dil != "1" else "j", base) if x != "0")
        em.line(f"// Element j of window o is element o * {_paren(stride)} + {first} of {where}: one Gather per window")
        em.line("// offset j collects it from every window (no unaligned vector address), then it is folded in.")
        idx = ctx.take_slot(ir.DType.i32)
        offsets = ctx.scalar_name("offsets")
        em.line(f"CreateVecIndex({idx.name}, static_cast<int32_t>(0), {n});")
        em.line(f"Muls({idx.name}, {idx.name}, static_cast<int32_t>({_paren(stride)} * sizeof({t})), {n});")
        em.line(f"const LocalTensor<uint32_t> {offsets} = {idx.name}.ReinterpretCast<uint32_t>();")
        em.line(f"Gather({out.name}, {row.name}, {offsets}, {at('0')}, {n});")
        part = ctx.take_slot(out.dtype)
        j = ctx.scalar_name("j")
        with em.block(f"for (int32_t {j} = 1; {j} < {k}; ++{j})"):
            em.line(f"Gather({part.name}, {row.name}, {offsets}, {at(j)}, {n});")
            em.line(f"{fold_api}({out.name}, {out.name}, {part.name}, {n});")
        for slot in (part, idx) + ((row,) if padded and not in_place else ()):
            ctx.release(slot)
        if red.mean:
            inv = float_literal(1.0 / int(k)) if k.isdigit() else f"1.0f / static_cast<float>({k})"
            em.line(f"Muls({out.name}, {out.name}, {inv}, {n});  // no Divs: multiply by 1/k")
            if padded:
                self._window_avg_overhang(e, out, c)

    def _window_avg_overhang(self, e: ir.Call, out: Tile, c) -> None:
        """A last window that hangs past the padded row (PyTorch's ceil mode) averages over the
        positions it covers inside [-pad, len + pad), not over k: fix those few on the scalar unit."""
        em, t = self.em, out.dtype.cpp
        k, stride, pad, dil = e.args[1:5]
        o = self.ctx.scalar_name("o")
        # window o covers [o * stride, o * stride + span) of the padded row [0, edge)
        span = fold("add", fold("mul", fold("sub", k, ir.Const(1, "int")), dil), ir.Const(1, "int"))
        edge = fold("add", e.args[0].type.shape[0], fold("mul", ir.Const(2, "int"), pad))
        last = fold("sub", e.type.shape[0], ir.Const(1, "int"))
        hangs = lambda w: f"{c(fold('add', fold('mul', w, stride), span))} > {c(edge)}"  # noqa: E731
        covered = fold("sub", edge, fold("mul", ir.Name(o), stride))
        if dil != ir.Const(1, "int"):
            covered = fold("floordiv", fold("add", covered, fold("sub", dil, ir.Const(1, "int"))), dil)
        with em.block(f"if ({hangs(last)})"):
            em.line("// the last windows hang past the padded row (ceil mode): "
                    "they average over the positions they cover")
            self.ctx.sync("V_S")
            with em.block(f"for (int64_t {o} = {c(last)}; {o} >= 0 && {hangs(ir.Name(o))}; --{o})"):
                em.line(f"const int64_t covered = {c(covered)};")
                em.line(f"{out.name}.SetValue({o}, {out.name}.GetValue({o}) * static_cast<{t}>({c(k)}) / "
                        f"static_cast<{t}>(covered));")
            self.ctx.sync("S_V")

    def _reduce(self, e: ir.Call) -> str:
        src_expr = e.args[0]
        src = self.tile(src_expr, None)
        # exactly the tile's elements: lanes a Compare padding added hold values of no element
        # (0 * log(0) is NaN, and a padded 0 would be the max of negative data)
        n = self.ctx.count(src_expr.type, exact=True)
        rows = None
        if tiles.is_pitched(src_expr.type):
            # a tile of rows: one value per row first (the padding lanes never count), then those
            t = src_expr.type
            rows = self.ctx.take_slot(src.dtype)
            per_row = ir.Call(e.op, (src_expr, ir.Const(-1, "int"), ir.Const(False, "bool")),
                              type=ir.TileType(t.dtype, tuple(t.shape[:-1])))
            self._reduce_rows(per_row, rows, src)
            self.ctx.release(src)
            src, n = rows, self.ctx.layout(t)[0]
        name = self.ctx.scalar_name("r")
        spec = OPS[e.op]
        if spec.category == "element":
            self.ctx.sync("V_S")
            idx = "0" if spec.at == 0 else f"{n} - 1"
            self.em.line(f"{e.type.dtype.cpp} {name} = {src.name}.GetValue({idx});")
        elif spec.api:
            self._reduce_by_api(e, spec, src, n, name)
        else:                  # no vector instruction (a product, argmax): exact on the scalar unit
            self._reduce_on_the_scalar_unit(e, spec, src, n, name)
        self.ctx.release(src)
        return name

    def _reduce_by_api(self, e: ir.Call, spec, src: Tile, n: str, name: str) -> None:
        """ReduceSum / ReduceMax / ReduceMin into the scalar staging block, read back after a V->S sync."""
        self.ctx.uses_scalar_buf = True
        work = self.ctx.take_slot(src.dtype)
        dst = "scalarTmp" if src.dtype is ir.DType.f32 else f"scalarTmp.ReinterpretCast<{src.dtype.cpp}>()"
        self.em.line(f"{spec.api}({dst}, {src.name}, {work.name}, {n}{spec.api_args});")
        self.ctx.sync("V_S")
        self.em.line(f"{e.type.dtype.cpp} {name} = {dst}.GetValue(0);")
        self.ctx.release(work)

    def _reduce_on_the_scalar_unit(self, e: ir.Call, spec, src: Tile, n: str, name: str) -> None:
        """A running combine of the elements (a product), or the position of the first that wins (argmax)."""
        red, dt = REDUCTIONS[spec.reduction], e.type.dtype
        self.ctx.sync("V_S")
        if not spec.index:
            start = int(red.identity) if float(red.identity).is_integer() else float_literal(red.identity)
            self.em.line(f"{dt.cpp} {name} = {start};")
            with self.em.block(f"for (uint32_t i = 0; i < static_cast<uint32_t>({n}); ++i)"):
                self.em.line(f"{name} = {name} {OPS[red.combine].symbol} {src.name}.GetValue(i);")
            return
        self.em.line(f"{dt.cpp} {name} = 0;")
        with self.em.block(f"for (uint32_t i = 1; i < static_cast<uint32_t>({n}); ++i)"):
            self.em.line(f"if ({src.name}.GetValue(i) {red.wins} {src.name}.GetValue({name})) {{ {name} = i; }}")


def _pad_fill(red: Reduction, dtype: ir.DType) -> str:
    """What a window op's padding holds, as C++: its reduction's identity (-inf for max, +inf for
    min, 0 for sum and avg)."""
    fill = float_literal(red.identity)
    return fill if dtype is ir.DType.f32 else f"static_cast<{dtype.cpp}>({fill})"


def _pad_fill_text(red: Reduction) -> str:
    fill = _pad_fill(red, ir.DType.f32)
    return "0, which adds nothing" if red.identity == 0 else f"{fill}, which never wins"


def _one(dtype: ir.DType) -> str:
    return "1.0f" if dtype is ir.DType.f32 else f"static_cast<{dtype.cpp}>(1)"


def _negate(s: str) -> str:
    if s.startswith("-") and s[1:].replace(".", "").replace("f", "").replace("e", "").replace("+", "").isdigit():
        return s[1:]
    if s[:1].isdigit():
        return "-" + s
    return f"-({s})"


def _reciprocal(s: str) -> str:
    try:
        v = float(s.rstrip("f"))
        if v != 0 and math.isfinite(v):
            return float_literal(1.0 / v)
    except ValueError:
        pass
    return f"1.0f / ({s})"


# how a scalar API takes the op's scalar (an OpSpec's `scalar_arg`): as it is, negated, or its reciprocal
_SCALAR_ARG = {"{s}": lambda s: s, "-{s}": _negate, "1/{s}": _reciprocal}


# ----------------------------------------------------------------------------- the rules
# One function per category and tile kind (the kinds `dsl.ops.LOWERED` names; a test keeps the two
# equal). A rule gets the lowering, the typed call, its row, the destination `out`, the registers
# `v` of its tile operands (by position) and the element count `n`; for a scalar result `out` is
# None, and the rule returns the C++ of the value (None: the expression printer writes it).


def _lower_binary(low: ComputeLowering, e: ir.Call, spec, out: Tile | None, v: dict, n: str) -> str | None:
    """a (op) b: the row's `api` for two tiles, its `scalar_api` (or its expansion) for a tile and a
    scalar, its `rscalar` steps or the commuting scalar API for a scalar first. Two scalars: the
    printer, or one vector block for an op the scalar unit has no instruction for (pow)."""
    a = e.args
    if out is None:
        if spec.vector_for_scalar:
            return low._scalar_vector_math(e.op, low._scalar(a[0]), e, exponent=low._scalar(a[1]))
        return None
    em = low.em
    if 0 in v and 1 in v:
        em.line(f"{spec.api}({out.name}, {v[0].name}, {v[1].name}, {n});")
    elif 0 in v and not spec.scalar_api:            # tile (op) scalar by the row's expansion
        low._expand_with_scalar(spec, out, v[0], a[1], n)
    elif 0 in v:                                    # tile (op) scalar
        arg = _SCALAR_ARG[spec.scalar_arg](low._scalar(a[1]))
        why = f"  // {spec.scalar_why}" if spec.scalar_why else ""
        em.line(f"{spec.scalar_api}({out.name}, {v[0].name}, {arg}, {n});{why}")
    elif spec.rscalar:                              # scalar (op) tile, an op that does not commute
        low._steps(out.name, v[1].name, spec.rscalar, n, {"s": low._scalar(a[0])}, why=spec.rscalar_why)
    else:                                           # scalar (op) tile of an op that commutes
        em.line(f"{spec.scalar_api}({out.name}, {v[1].name}, {low._scalar(a[0])}, {n});")
    return None


def _lower_compare(low: ComputeLowering, e: ir.Call, spec, out: Tile | None, v: dict, n: str) -> None:
    """Compare / CompareScalar with the row's CMPMODE (swapped when the scalar comes first), over the
    operands' elements: a mask has one bit per element of its operands' layout."""
    if out is None:
        return None
    low.ctx.uses_compare = True
    a, mode = e.args, spec.cmp_mode
    operand = next(x.type for x in a if isinstance(x.type, ir.TileType))
    cn = low._compare_count(low.ctx.count(ir.TileType(operand.dtype, e.type.shape), exact=True))
    if 0 in v and 1 in v:
        low.em.line(f"{spec.api}({out.name}, {v[0].name}, {v[1].name}, CMPMODE::{mode}, {cn});")
    elif 0 in v:
        s = f"static_cast<{a[0].type.dtype.cpp}>({low._scalar(a[1])})"
        low.em.line(f"{spec.scalar_api}({out.name}, {v[0].name}, {s}, CMPMODE::{mode}, {cn});")
    else:                       # s < x is x > s: the comparison with its operands swapped
        s = f"static_cast<{a[1].type.dtype.cpp}>({low._scalar(a[0])})"
        low.em.line(f"{spec.scalar_api}({out.name}, {v[1].name}, {s}, CMPMODE::{SWAPPED_MODE[mode]}, {cn});")
    return None


def _lower_select(low: ComputeLowering, e: ir.Call, spec, out: Tile, v: dict, n: str) -> None:
    """Select by a bit mask (a byte-per-element mask compared with 0 first); a scalar first choice
    is spread over a scratch tile, a scalar second one is Select's scalar mode."""
    a, em = e.args, low.em
    mask, bits = v[0].name, None
    if low._is_byte_mask(a[0]):          # never a tile of rows (typerules._type_select)
        bits = low._mask_bits(v[0], n, low.ctx.count(e.type, exact=True))
        mask = bits.name
    scalar = f"static_cast<{out.dtype.cpp}>"
    if 1 in v and 2 in v:
        em.line(f"Select({out.name}, {mask}, {v[1].name}, {v[2].name}, SELMODE::VSEL_TENSOR_TENSOR_MODE, {n});")
    elif 1 in v:
        em.line(f"Select({out.name}, {mask}, {v[1].name}, {scalar}({low._scalar(a[2])}), "
                f"SELMODE::VSEL_TENSOR_SCALAR_MODE, {n});")
    else:
        fill = low.ctx.take_slot(out.dtype)
        em.line(f"Duplicate({fill.name}, {scalar}({low._scalar(a[1])}), {n});")
        if 2 in v:
            em.line(f"Select({out.name}, {mask}, {fill.name}, {v[2].name}, SELMODE::VSEL_TENSOR_TENSOR_MODE, {n});")
        else:
            em.line(f"Select({out.name}, {mask}, {fill.name}, {scalar}({low._scalar(a[2])}), "
                    f"SELMODE::VSEL_TENSOR_SCALAR_MODE, {n});")
        low.ctx.release(fill)
    if bits is not None:
        low.ctx.release(bits)


def _lower_unary(low: ComputeLowering, e: ir.Call, spec, out: Tile | None, v: dict, n: str) -> str | None:
    """The row's API or expansion; a scalar on the scalar unit (the printer), or through one vector
    block for a function it has no instruction for (exp, sqrt, ...), in a reduction's own lane when
    the scalar is one."""
    if out is None:
        if not spec.vector_for_scalar:
            return None
        if low._lane_chain(e.args[0]) is not None:
            return low._on_the_reduction_lanes(e)
        return low._scalar_vector_math(e.op, low._scalar(e.args[0]), e)
    low._unary_into(out.name, v[0].name, e.op, n)
    return None


def _lower_clamp(low: ComputeLowering, e: ir.Call, spec, out: Tile | None, v: dict, n: str) -> None:
    """The row's expansion (Maxs by lo, Mins by hi); scalars by the printer."""
    if out is not None:
        low._steps(out.name, v[0].name, spec.expand, n, {"lo": low._scalar(e.args[1]), "hi": low._scalar(e.args[2])})


def _lower_cast(low: ComputeLowering, e: ir.Call, spec, out: Tile | None, v: dict, n: str) -> None:
    """Cast with the rounding mode; rows of another width in repeat form (`_cast_rows`); scalars by the printer."""
    if out is None:
        return
    a = e.args
    mode = ROUND_MODES[a[2].value if isinstance(a[2], ir.Str) else "none"]
    src_t = a[0].type
    if tiles.is_pitched(src_t) and src_t.dtype.elems_per_block != e.type.dtype.elems_per_block:
        low._cast_rows(e, out, v[0], mode)
        return
    low.em.line(f"{spec.api}({out.name}, {v[0].name}, RoundMode::{mode}, {n});")


def _lower_reduce(low: ComputeLowering, e: ir.Call, spec, out: Tile | None, v: dict, n: str) -> str | None:
    """A whole tile to a scalar (`_reduce`), or along an axis to a tile (`_reduce_rows`)."""
    if out is None:
        return low._reduce(e)
    low._reduce_rows(e, out, v[0])
    return None


def _lower_element(low: ComputeLowering, e: ir.Call, spec, out: None, v: dict, n: str) -> str:
    """One element of a tile, read by the scalar unit after a V->S sync."""
    return low._reduce(e)


def _lower_scan(low: ComputeLowering, e: ir.Call, spec, out: Tile, v: dict, n: str) -> None:
    low._scan(e, out, v[0], n)


def _lower_window(low: ComputeLowering, e: ir.Call, spec, out: Tile, v: dict, n: str) -> None:
    low._window(e, out, v[0], n)


def _lower_repeat(low: ComputeLowering, e: ir.Call, spec, out: Tile, v: dict, n: str) -> None:
    low._repeat(e, out, v[0], n)


def _lower_pick(low: ComputeLowering, e: ir.Call, spec, out: Tile, v: dict, n: str) -> None:
    low._pick(e, out, v[0], v[1], n)


def _lower_take(low: ComputeLowering, e: ir.Call, spec, out: Tile, v: dict, n: str) -> None:
    low._take(e, out, v[0], v[1], n)


def _lower_transpose(low: ComputeLowering, e: ir.Call, spec, out: Tile, v: dict, n: str) -> None:
    low._transpose(e, out, v[0], n)


def _lower_sort(low: ComputeLowering, e: ir.Call, spec, out: Tile, v: dict, n: str) -> None:
    low._argsort(e, out, v[0], n)


def _lower_iota(low: ComputeLowering, e: ir.Call, spec, out: Tile, v: dict, n: str) -> None:
    start = low._scalar(e.args[1])
    low.em.line(f"{spec.api}({out.name}, static_cast<{out.dtype.cpp}>({start}), {n});  // {start}, {start} + 1, ...")


def _printed(low: ComputeLowering, e: ir.Call, spec, out: None, v: dict, n: str) -> None:
    """Scalars only (index arithmetic): the expression printer writes the C++."""
    return None


def _at(rule: Callable, *kinds: str) -> dict[str, Callable]:
    return {kind: rule for kind in kinds}


LOWER_RULES: dict[str, dict[str, Callable]] = {
    "binary": _at(_lower_binary, "scalar", "tile", "rows"),
    "intbinary": _at(_printed, "scalar"),
    "compare": _at(_lower_compare, "scalar", "tile", "rows"),
    "unary": _at(_lower_unary, "scalar", "tile", "rows"),
    "select": _at(_lower_select, "tile", "rows"),
    "clamp": _at(_lower_clamp, "scalar", "tile", "rows"),
    "reduce": _at(_lower_reduce, "tile", "rows"),
    "scan": _at(_lower_scan, "tile"),
    "window": _at(_lower_window, "tile"),
    "element": _at(_lower_element, "tile"),
    "repeat": _at(_lower_repeat, "tile"),
    "gather": _at(_lower_pick, "tile", "rows"),
    "take": _at(_lower_take, "tile", "rows"),
    "transpose": _at(_lower_transpose, "tile", "rows"),
    "iota": _at(_lower_iota, "tile"),
    "sort": _at(_lower_sort, "tile"),
    "cast": _at(_lower_cast, "scalar", "tile", "rows"),
}
