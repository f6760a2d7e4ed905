"""The numpy interpreter: runs a verified kernel for every core and every tile.

It gives the DSL its executable meaning: the host function computes the launch, each core
(block index 0..cores-1) runs the kernel body, loads copy GM views into UB tiles, stores write
them back (accumulating stores add), and every value keeps the kernel's dtype (fp16 math stays
fp16 unless the DSL casts). The UB budget of the SoC is enforced at run time for the actual
tile sizes, GM accesses are bounds-checked, and a loop budget turns a runaway draft into a
DslError instead of a hang.

The kernel is compiled once per run into Python closures (constants folded: dims, scalar
params and tiling fields), so the per-tile cost is a handful of numpy calls.
"""
from __future__ import annotations

import operator
from typing import Mapping

import numpy as np

from ..soc import Soc, get_soc
from . import cube
from .buffers import (BUDGET_LEVELS, SCALAR_OUT_BYTES, STAGING_BYTES, UbUsage, align, budget_error, capacity_limit,
                      gathered_sources)
from .errors import DslError
from .host import bind_dims, output_shape
from .ir import (Assign, Attr, Barrier, Call, Const, CoreChunk, CoreRows, CoreTiles, DType, DTypeRef, Expr, For,
                 If, IndexExpr, IndexSlice, IndexWindows, Level, LevelRef, Load, Name, Program, Range, RangeType,
                 ScalarType, Stage, Store, Str, SyncAll, TensorRole, TileType, Tiles, walk_exprs)
from .ops import OPS, SCALAR_MATH, cast_numpy, to_bf16
from .tiles import footprint_elems, is_pitched
from .typerules import unify
from .verifier import check_launch, verify

DEFAULT_MAX_ITERATIONS = 5_000_000
MAX_OUTPUT_ELEMS = 1 << 26        # 256 MiB of f32: far beyond any reference the checker runs


class RangeVal:
    """The value of a range variable: [start, start + len), `index` = which tile."""

    __slots__ = ("start", "len", "index")

    def __init__(self, start: int, length: int, index: int):
        self.start, self.len, self.index = start, length, index


class RunOutputs(dict):
    """Output name -> array, plus what the run observed."""

    launch: dict
    unwritten: dict      # output name -> elements never stored
    writers: dict        # output name -> per element (the output's shape), the store that wrote it last:
                         # 0 none, k the k-th store statement of the kernel (`stores[k - 1]`)
    stores: list         # the kernel's Store statements, in the order `writers` numbers them
    ub_peak: int         # bytes of UB the run needed (buffers x copies + scratch)


def run(program: Program, inputs: Mapping[str, object], soc: Soc | str | None = None, *,
        max_iterations: int = DEFAULT_MAX_ITERATIONS) -> RunOutputs:
    """Run `program` on `inputs` (kernel param name -> ndarray or scalar); returns the outputs.

    Tensor inputs are taken in the declared dtype (bf16 values are rounded to bf16); outputs
    come back in the reference shape (not the kernel's grouped view).
    """
    soc = soc if isinstance(soc, Soc) else get_soc(soc)
    if not program.verified:
        program = verify(program)
    return _Run(program, inputs, soc, max_iterations).go()


class _Run:
    def __init__(self, program: Program, inputs, soc: Soc, max_iterations: int):
        self.p = program
        self.soc = soc
        self.max_iterations = max_iterations
        self.iterations = 0
        self.consts: dict[str, object] = {}
        self.arrays: dict[str, np.ndarray] = {}      # tensor name -> view-shaped array
        self.written: dict[str, np.ndarray] = {}     # output name -> store number per element (0: never)
        self.stores: list[Store] = []
        self.full_outputs: dict[str, np.ndarray] = {}
        self._bind(inputs)
        self.ub = _UbTracker(program, soc)

    def err(self, node, msg, help=None) -> DslError:
        return DslError(msg, node.span if node is not None else None, help, self.p.path, self.p.source)

    # -- binding ---------------------------------------------------------------------------
    def _bind(self, inputs):
        p = self.p
        shapes, scalars = {}, {}
        for t in p.tensors():
            if t.role is TensorRole.output:
                continue
            if t.name not in inputs:
                raise self.err(t, f"no value for tensor `{t.name}`", "pass every GM and Param tensor")
            shapes[t.name] = np.shape(inputs[t.name])
        for s in p.scalars:
            if s.name not in inputs:
                raise self.err(s, f"no value for scalar `{s.name}`", "pass every scalar parameter")
            scalars[s.name] = _py(inputs[s.name], s.dtype)
        self.launch = check_launch(p, shapes, scalars, self.soc)
        env = dict(bind_dims(p, shapes))
        env.update(scalars)
        self.consts.update(env)
        tp = p.tiling_param
        if tp is not None:
            self.consts.update({f"{tp.name}.{k}": v for k, v in self.launch.items()})
        for t in p.tensors() + p.workspaces:
            if t.role in (TensorRole.output, TensorRole.workspace):
                shape = output_shape(p, t, env, self.soc)
                size = int(np.prod(shape, dtype=np.int64))
                if size > MAX_OUTPUT_ELEMS:
                    raise self.err(t, f"output `{t.name}` would have {size} elements, more than the interpreter's "
                                   f"limit of {MAX_OUTPUT_ELEMS}",
                                   "check the output dims against the reference's output")
                full = np.zeros(shape, dtype=t.dtype.np)
                self.full_outputs[t.name] = full
                view_shape = tuple(int(np.prod(shape[i:i + len(g)], dtype=np.int64))
                                   for i, g in _group_starts(t.groups))
                self.arrays[t.name] = full.reshape(view_shape)
                if t.role is TensorRole.output:
                    self.written[t.name] = np.zeros(view_shape, dtype=np.uint16)
            else:
                a = np.asarray(inputs[t.name])
                if t.dtype is DType.bf16:
                    a = to_bf16(a.astype(np.float32))
                else:
                    a = a.astype(t.dtype.np, copy=False)
                shape = a.shape
                view_shape = tuple(int(np.prod(shape[i:i + len(g)], dtype=np.int64))
                                   for i, g in _group_starts(t.groups))
                self.arrays[t.name] = np.ascontiguousarray(a).reshape(view_shape)

    # -- run -------------------------------------------------------------------------------
    def go(self) -> RunOutputs:
        # sync_all() (top level only) cuts the body into phases: every core runs a phase before
        # any core starts the next, which is what the barrier guarantees. Each core keeps its
        # scalars from phase to phase.
        phases: list[list] = [[]]
        for st in self.p.kernel.body:
            if isinstance(st, SyncAll):
                phases.append([])
            else:
                phases[-1].append(st)
        bodies = [self._block(tuple(ph)) if ph else None for ph in phases]
        cores = int(self.launch["cores"])
        envs = [{"__block__": b} for b in range(cores)]
        with np.errstate(all="ignore"):
            for body in bodies:
                if body is None:
                    continue
                for env in envs:
                    body(env)
        out = RunOutputs()
        out.update(self.full_outputs)
        out.launch = self.launch
        out.unwritten = {n: int(w.size - np.count_nonzero(w)) for n, w in self.written.items()}
        for n, count in self.p.row_counts.items():     # only the rows the kernel says it filled must be written
            if n in self.written and count.name in self.full_outputs:
                rows = min(max(int(np.reshape(self.full_outputs[count.name], -1)[0]), 0), len(self.written[n]))
                w = self.written[n][:rows]
                out.unwritten[n] = int(w.size - np.count_nonzero(w))
        out.writers = {n: w.reshape(self.full_outputs[n].shape) for n, w in self.written.items()}
        out.stores = list(self.stores)
        out.ub_peak = self.ub.peak
        return out

    # -- statements ------------------------------------------------------------------------
    def _block(self, stmts):
        fns = [self._stmt(s) for s in stmts]
        if len(fns) == 1:
            return fns[0]

        def block(env):
            for f in fns:
                f(env)
        return block

    def _guard(self, st, fn):
        """Turn numpy/Python failures inside one statement into a DslError at that statement."""
        def guarded(env):
            try:
                fn(env)
            except DslError:
                raise
            except (ValueError, OverflowError, ZeroDivisionError, TypeError, IndexError, FloatingPointError) as e:
                raise self.err(st, f"at run time: {e}", "check the index arithmetic and the tile sizes") from None
        return guarded

    def _stmt(self, st):
        if isinstance(st, Stage):
            return self._block(st.body)
        if isinstance(st, Assign):
            return self._guard(st, self._assign(st))
        if isinstance(st, Load):
            return self._guard(st, self._load(st))
        if isinstance(st, Store):
            return self._guard(st, self._store(st))
        if isinstance(st, For):
            return self._guard(st, self._for(st))   # the iterator's own arithmetic can fail too
        if isinstance(st, If):
            cond = self._expr(st.cond)
            body = self._block(st.body)
            orelse = self._block(st.orelse) if st.orelse else None

            def if_(env):
                if cond(env):
                    body(env)
                elif orelse is not None:
                    orelse(env)
            return self._guard(st, if_)
        if isinstance(st, (Barrier, SyncAll)):
            return lambda env: None
        raise self.err(st, f"cannot run {type(st).__name__}")

    def _assign(self, st: Assign):
        value = self._expr(st.value)
        name = st.target
        t = st.value.type
        # a statement with temporaries sizes the scratch slots by the largest tile it touches, but for
        # the source of a take(), which Gather reads in place (dsl/buffers.py: stmt_tile_sizes)
        temps = any(s.span == st.span for s in self.p.plan.scratch)
        gathered = gathered_sources(st.value)
        leaves = sorted({n.id for n in walk_exprs(st.value)
                         if isinstance(n, Name) and isinstance(n.type, TileType) and id(n) not in gathered})
        if isinstance(t, TileType):
            ub = self.ub

            def assign_tile(env):
                v = value(env)
                if not isinstance(v, np.ndarray):   # a scalar broadcast by `yu = s`-like code cannot happen; keep safe
                    v = np.asarray(v)
                env[name] = v
                ub.note(name, ub.footprint(name, v), st)
                if temps:
                    footprints = [ub.footprint(name, v)] + [ub.footprint(n, env[n]) for n in leaves if n in env]
                    ub.note_slot(max(footprints), st)
            return assign_tile
        dtype = self.p.local_type(name).dtype
        if temps:
            ub = self.ub

            def assign_scalar_from_tiles(env):
                env[name] = _rep(value(env), dtype)
                ub.note_slot(max([ub.footprint(n, env[n]) for n in leaves if n in env], default=0), st)
            return assign_scalar_from_tiles

        def assign_scalar(env):
            env[name] = _rep(value(env), dtype)
        return assign_scalar

    def _index(self, g, write: bool):
        """A function env -> (numpy index tuple, shape of the kept axes), bounds-checked."""
        arr = self.arrays[g.tensor]
        dims = arr.shape
        if g.index is None:
            return lambda env: ()
        parts = []
        for axis, (ix, size) in enumerate(zip(g.index, dims)):
            parts.append(self._index_part(g, ix, axis, size))

        def index(env):
            return tuple(f(env) for f in parts)
        return index

    def _index_part(self, g, ix, axis: int, size: int):
        name = g.tensor

        def oob(what, lo, hi):
            return self.err(ix, f"{what} [{lo}, {hi}) is outside axis {axis} of `{name}` (size {size})",
                            "check the core split and tile arithmetic; the last tile is c.len long")
        if isinstance(ix, IndexExpr):
            if isinstance(ix.expr.type, RangeType):
                f = self._expr(ix.expr)

                def rng(env):
                    r = f(env)
                    if r.start < 0 or r.start + r.len > size:
                        raise oob("range", r.start, r.start + r.len)
                    return slice(r.start, r.start + r.len)
                return rng
            f = self._expr(ix.expr)

            def at(env):
                i = f(env)
                if not 0 <= i < size:
                    raise self.err(ix, f"index {i} is outside axis {axis} of `{name}` (size {size})",
                                   "check the core split and the index arithmetic")
                return i
            return at
        if isinstance(ix, IndexSlice):
            lo = self._expr(ix.lo) if ix.lo is not None else (lambda env: 0)
            hi = self._expr(ix.hi) if ix.hi is not None else (lambda env: size)
            step = self._expr(ix.step) if ix.step is not None else (lambda env: 1)

            def sl(env):
                a, b, s = lo(env), hi(env), step(env)
                if s < 1:
                    raise self.err(ix, f"a slice step of {s}: the rows of a stepped slice go forward",
                                   "compute the step so that it is at least 1")
                if s == 1 and not 0 <= a <= b <= size:
                    raise oob("slice", a, b)
                if s > 1 and b > a and not (0 <= a and a + (b - a - 1) // s * s < size):
                    # a stepped slice reads lo, lo + step, ... below hi: only those must lie inside
                    raise oob(f"slice with step {s}: rows", a, a + (b - a - 1) // s * s + 1)
                return slice(a, max(a, b), s)
            return sl
        assert isinstance(ix, IndexWindows)
        var, k, s = self._expr(ix.var), self._expr(ix.k), self._expr(ix.stride)

        def win(env):
            r, kk, ss = var(env), k(env), s(env)
            if kk < 1 or ss < 1:
                raise self.err(ix, f"windows() needs k >= 1 and stride >= 1, got {kk} and {ss}", None)
            start = r.start * ss
            n = (r.len - 1) * ss + kk if r.len > 0 else 0
            if start < 0 or start + n > size:
                raise oob("window span", start, start + n)
            return slice(start, start + n)
        return win

    def _load(self, st: Load):
        name = st.target
        ub = self.ub
        if st.level in (Level.L0A, Level.L0B):      # an L1 tile moved to L0 (the matrix as it was, or transposed)
            src, transpose = st.src.tensor, st.transpose

            def move(env):
                v = env[src]
                env[name] = np.ascontiguousarray(v.T if transpose else v)
                ub.note(name, ub.footprint(name, env[name]), st)
            return move
        index = self._index(st.src, write=False)
        arr = self.arrays[st.src.tensor]
        tile = isinstance(self.p.local_type(name), TileType)
        dtype = self.p.local_type(name).dtype

        def load(env):
            v = arr[index(env)]
            if tile:
                v = v.copy()
                env[name] = v
                ub.note(name, ub.footprint(name, v), st)
            else:
                env[name] = _rep(v, dtype)
        return load

    def _store(self, st: Store):
        index = self._index(st.dst, write=True)
        arr = self.arrays[st.dst.tensor]
        written = self.written.get(st.dst.tensor, np.zeros(arr.shape, dtype=np.uint16))
        self.stores.append(st)
        number = min(len(self.stores), np.iinfo(np.uint16).max)
        name = st.value.id
        acc = st.accumulate
        # Fixpipe converts the L0C accumulator to the output's dtype (bf16 is kept in f32, rounded)
        to_out = to_bf16 if (isinstance(st.value.type, TileType) and st.value.type.level is Level.L0C
                             and self.p.param(st.dst.tensor).dtype is DType.bf16) else None

        def store(env):
            idx = index(env)
            v = env[name]
            if to_out is not None:
                v = to_out(v)
            if isinstance(v, np.ndarray):
                target_shape = arr[idx].shape
                if v.shape != target_shape:
                    raise self.err(st, f"tile `{name}` has shape {list(v.shape)} "
                                   f"but the GM view has {list(target_shape)}",
                                   "store into a view with the tile's extent")
            if acc:
                arr[idx] += v
            else:
                arr[idx] = v
            written[idx] = number
        return store

    def _for(self, st: For):
        """A loop: its body run for every value the iterator gives this core, within the loop budget."""
        body = self._block(st.body)
        limit = self.max_iterations

        def count(n):
            self.iterations += n
            if self.iterations > limit:
                raise self.err(st, f"the kernel runs more than {limit} loop iterations",
                               "use larger tiles (t.tile) or fewer rows per core; the interpreter stops runaway loops")
        return _LOOPS[type(st.iter)](self, st, body, count)

    def _core_rows(self, st: For, body, count):
        """This core's rows: cdiv(total, cores) of them from block * rows on."""
        it, var = st.iter, st.var
        rows, total = self._expr(it.rows), self._expr(it.total)

        def core_rows(env):
            n, tot = rows(env), total(env)
            if n < 0:
                raise self.err(it, f"core_rows() gets {n} rows per core", "rows per core is cdiv(total, cores) >= 0")
            start = env["__block__"] * n
            stop = min(start + n, tot)
            count(max(stop - start, 0))
            for r in range(start, stop):
                env[var] = r
                body(env)
        return core_rows

    def _core_chunk(self, st: For, body, count):
        """This core's one chunk of `size` elements (the last one shorter, none past the total)."""
        it, var = st.iter, st.var
        size, total = self._expr(it.size), self._expr(it.total)

        def core_chunk(env):
            n, tot = size(env), total(env)
            if n < 1:
                raise self.err(it, f"core_chunk() gets a chunk of {n}", "the per-core size is at least 1")
            b = env["__block__"]
            start = b * n
            if start < tot:
                count(1)
                env[var] = RangeVal(start, min(n, tot - start), b)
                body(env)
        return core_chunk

    def _core_tiles(self, st: For, body, count):
        """The blocks of a grid of tiles, dealt round-robin: block q on core q % cores."""
        it, names = st.iter, st.vars
        exts, steps = [self._expr(x) for x in it.extents], [self._expr(x) for x in it.steps]
        cores = int(self.launch["cores"])

        def core_tiles(env):
            ext, step = [f(env) for f in exts], [f(env) for f in steps]
            if any(x < 1 for x in step):
                raise self.err(it, f"core_tiles() gets steps {step}", "every tile step is at least 1")
            counts = [-(-max(e, 0) // x) for e, x in zip(ext, step)]
            total = int(np.prod(counts, dtype=np.int64))
            mine = range(env["__block__"], total, cores)
            count(len(mine))
            for q in mine:
                for var, i, e, x in zip(names, np.unravel_index(q, counts), ext, step):
                    i = int(i)
                    env[var] = RangeVal(i * x, min(x, e - i * x), i)
                body(env)
        return core_tiles

    def _tiles(self, st: For, body, count):
        """Tiles of `step` elements over an extent (or over a range variable's elements)."""
        it, var = st.iter, st.var
        ext, step = self._expr(it.extent), self._expr(it.step)
        ranged = isinstance(it.extent.type, RangeType)

        def tiles(env):
            s = step(env)
            if s < 1:
                raise self.err(it, f"tiles() gets a step of {s}", "the tile size must be at least 1 element")
            e = ext(env)
            base, end = (e.start, e.start + e.len) if ranged else (0, e)
            n = -(-(end - base) // s) if end > base else 0
            count(n)
            for i in range(n):
                start = base + i * s
                env[var] = RangeVal(start, min(s, end - start), i)
                body(env)
        return tiles

    def _range(self, st: For, body, count):
        it, var = st.iter, st.var
        a, b, c = self._expr(it.start), self._expr(it.stop), self._expr(it.step)

        def range_(env):
            lo, hi, step = a(env), b(env), c(env)
            if step == 0:
                raise self.err(it, "range() step is zero", "use a non-zero step")
            rg = range(lo, hi, step)
            count(len(rg))
            for i in rg:
                env[var] = i
                body(env)
        return range_

    # -- expressions -----------------------------------------------------------------------
    def _expr(self, e: Expr):
        if isinstance(e, Const):
            v = _rep(e.value, e.type.dtype) if e.kind != "float" else e.value
            return lambda env: v
        if isinstance(e, Name):
            if e.id in self.consts:
                v = self.consts[e.id]
                return lambda env: v
            name = e.id
            return lambda env: env[name]
        if isinstance(e, Attr):
            key = f"{e.obj.id}.{e.attr}"
            if key in self.consts:
                v = self.consts[key]
                return lambda env: v
            obj, attr = e.obj.id, e.attr
            getter = operator.attrgetter(attr)
            return lambda env: getter(env[obj])
        if isinstance(e, (DTypeRef, Str, LevelRef)):
            v = e.dtype if isinstance(e, DTypeRef) else e.level if isinstance(e, LevelRef) else e.value
            return lambda env: v
        assert isinstance(e, Call)
        return self._call(e)

    def _call(self, e: Call):
        """A closure env -> the call's value, by its category's rule (EVAL_RULES)."""
        spec = OPS[e.op]
        rule = EVAL_RULES.get(spec.category)
        if rule is None:
            raise self.err(e, f"cannot run `{e.op}`")
        return rule(self, e, spec, [self._expr(a) for a in e.args])


# what each iterator of a loop runs (`_Run._for`)
_LOOPS = {CoreRows: _Run._core_rows, CoreChunk: _Run._core_chunk, CoreTiles: _Run._core_tiles, Tiles: _Run._tiles,
          Range: _Run._range}


# ----------------------------------------------------------------------------- the rules
# Each takes the run (for its errors), the typed call, its row and the closures of its arguments,
# and returns a closure env -> value. A scalar is the interpreter's representation (`_rep`), a
# tile a numpy array of the call's dtype.


def _eval_binary(run, e: Call, spec, args):
    """binary, compare and intbinary: numpy on the operands converted to the operation's dtype;
    integer scalars in Python ints (SCALAR_MATH)."""
    types = [a.type for a in e.args]
    rt, fn = e.type, spec.numpy
    tiles = [t for t in types if isinstance(t, TileType)]
    if tiles:
        od = tiles[0].dtype
    elif spec.category == "compare":
        od = unify(types[0], types[1]).dtype
    else:
        od = rt.dtype
    fa, fb = args
    if not tiles and od.is_int:
        return _int_scalars(e, spec, fa, fb)
    ca, cb = _conv_for(types[0], od), _conv_for(types[1], od)
    if tiles and spec.powers and not _literal_power(e.args[1], spec.powers):
        fn = _pow_by_logs
    if not tiles and spec.category == "compare":
        return lambda env: bool(fn(ca(fa(env)), cb(fb(env))))
    return lambda env: fn(ca(fa(env)), cb(fb(env)))


def _literal_power(exp, powers: int) -> bool:
    """The exponent the lowering turns into k - 1 multiplications: a literal whole k in 1..powers."""
    return isinstance(exp, Const) and float(exp.value).is_integer() and 1 <= int(exp.value) <= powers


def _pow_by_logs(a, b):
    """A tile's power as the vector unit computes it, exp(b ln a) (Ln, Mul, Exp): nan for a < 0
    even where b is whole, so a draft the lowering gets wrong is wrong here too (one meaning)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return np.exp(b * np.log(a))


def _int_scalars(e: Call, spec, fa, fb):
    """Two integer scalars of an integer result or a comparison: Python arithmetic (SCALAR_MATH)."""
    pyop = SCALAR_MATH[e.op]
    if spec.category == "compare":
        return lambda env: bool(pyop(int(fa(env)), int(fb(env))))
    return lambda env: pyop(int(fa(env)), int(fb(env)))


def _eval_unary(run, e: Call, spec, args):
    f, rt = args[0], e.type
    if isinstance(rt, ScalarType) and rt.dtype.is_int:
        pyf = SCALAR_MATH[e.op]
        return lambda env: pyf(f(env))
    c, fn = _conv_for(e.args[0].type, rt.dtype), spec.numpy
    return lambda env: fn(c(f(env)))


def _eval_select(run, e: Call, spec, args):
    fm, fa, fb = args
    rt = e.type
    ca, cb = _conv_for(e.args[1].type, rt.dtype), _conv_for(e.args[2].type, rt.dtype)
    dt = rt.dtype.np
    return lambda env: np.where(fm(env), ca(fa(env)), cb(fb(env))).astype(dt, copy=False)


def _eval_clamp(run, e: Call, spec, args):
    fx, flo, fhi = args
    rt, fn = e.type, spec.numpy
    if isinstance(rt, ScalarType) and rt.dtype.is_int:
        clamp = SCALAR_MATH["clamp"]
        return lambda env: clamp(int(fx(env)), int(flo(env)), int(fhi(env)))
    c, cx = _scalar_conv(rt.dtype), _conv_for(e.args[0].type, rt.dtype)
    return lambda env: fn(cx(fx(env)), c(flo(env)), c(fhi(env)))


def _eval_reduce(run, e: Call, spec, args):
    f, fn = args[0], spec.numpy
    axis, keepdim = e.args[1].value, bool(e.args[2].value)
    if isinstance(e.type, TileType):
        return lambda env: fn(f(env), axis, keepdim)
    if spec.index:
        return lambda env: int(fn(f(env)))
    return lambda env: fn(f(env))


def _eval_scan(run, e: Call, spec, args):
    f, finit = args
    c, fn = _scalar_conv(e.type.dtype), spec.numpy
    return lambda env: fn(f(env), c(finit(env)))


def _eval_window(run, e: Call, spec, args):
    f, fk, fs, fpad, fdil, fcount = args
    fn = spec.numpy

    def window(env):
        k, s, pad, dil, count = (int(g(env)) for g in (fk, fs, fpad, fdil, fcount))
        if k < 1 or s < 1 or dil < 1 or pad < 0 or count < 0:
            raise run.err(e, f"`{e.op}` needs k, stride, dilation >= 1 and pad, count >= 0, got k={k}, "
                          f"stride={s}, dilation={dil}, pad={pad}, count={count}", None)
        return fn(f(env), k, s, pad, dil, count)
    return window


def _eval_rows(run, e: Call, spec, args):
    """repeat and pick: the row length k is the last argument (a 2-D pick's rows are the tile's own)."""
    fk, fn = args[-1], spec.numpy
    two_d = spec.category == "gather" and len(e.args[0].type.shape) == 2

    def rows(env):
        k = int(fk(env))
        if k < 1 and not two_d:
            raise run.err(e, f"`{e.op}` needs a row length k >= 1, got {k}", None)
        try:
            return fn(*(f(env) for f in args[:-1]), k)
        except ValueError as err:
            raise run.err(e, str(err), None) from None
    return rows


def _eval_take(run, e: Call, spec, args):
    fx, fi = args
    fn = spec.numpy

    def take(env):
        try:
            return fn(fx(env), fi(env))
        except ValueError as err:
            raise run.err(e, str(err), None) from None
    return take


def _eval_transpose(run, e: Call, spec, args):
    f, fn = args[0], spec.numpy
    return lambda env: fn(f(env))


def _eval_sort(run, e: Call, spec, args):
    fx, fk = args[0], args[2]
    fn = spec.numpy
    descending = bool(e.args[1].value)
    whole = isinstance(e.args[2], Const) and e.args[2].value == 0

    def argsort(env):
        k = int(fk(env))
        if not whole and k < 1:
            raise run.err(e, f"argsort() keeps k = {k} elements; k must be at least 1 (k=0, the "
                          "literal, keeps them all)", None)
        try:
            return fn(fx(env), descending, k)
        except ValueError as err:
            raise run.err(e, str(err), None) from None
    return argsort


def _eval_iota(run, e: Call, spec, args):
    fn_n, fstart = args[0], args[1]
    dt, fn = e.args[2].dtype, spec.numpy

    def iota(env):
        n = int(fn_n(env))
        if n < 0:
            raise run.err(e, f"iota() of {n} elements", None)
        return fn(n, fstart(env), dt)
    return iota


def _eval_cube(run, e: Call, spec, args):
    """mmad adds a @ b into its accumulator; the op without one (zeros) makes an accumulator."""
    fn = spec.numpy
    if not spec.accumulator:
        fr, fc = args[0], args[1]
        dt = e.args[3].dtype
        return lambda env: fn(fr(env), fc(env), None, dt)
    fa, fb, facc = args
    return lambda env: fn(fa(env), fb(env), facc(env))


def _eval_cast(run, e: Call, spec, args):
    f = args[0]
    dtype, mode, src = e.args[1].dtype, e.args[2].value, e.args[0].type.dtype
    if isinstance(e.type, ScalarType):
        return lambda env: _rep(cast_numpy(np.asarray(f(env), dtype=src.np), dtype, mode, src), dtype)
    return lambda env: cast_numpy(f(env), dtype, mode, src)


def _eval_element(run, e: Call, spec, args):
    f, dtype, fn = args[0], e.type.dtype, spec.numpy

    def element(env):
        x = f(env)
        if x.size == 0:
            raise run.err(e, f"`{e.op}` of an empty tile", None)
        return _rep(fn(x), dtype)
    return element


EVAL_RULES = {
    "binary": _eval_binary,
    "compare": _eval_binary,
    "intbinary": _eval_binary,
    "unary": _eval_unary,
    "select": _eval_select,
    "clamp": _eval_clamp,
    "reduce": _eval_reduce,
    "scan": _eval_scan,
    "window": _eval_window,
    "repeat": _eval_rows,
    "gather": _eval_rows,
    "take": _eval_take,
    "transpose": _eval_transpose,
    "sort": _eval_sort,
    "iota": _eval_iota,
    "cube": _eval_cube,
    "cast": _eval_cast,
    "element": _eval_element,
}


def _scalar_conv(dtype: DType):
    """Python/numpy scalar -> numpy scalar of `dtype` (for mixing with tiles of that dtype)."""
    t = dtype.np.type
    if dtype is DType.bf16:
        return lambda v: np.float32(to_bf16(np.float32(v)))
    return t


def _conv_for(arg_type, dtype: DType):
    if isinstance(arg_type, TileType):
        if arg_type.dtype is dtype:
            return _identity
        return lambda a: a.astype(dtype.np)
    return _scalar_conv(dtype)


def _identity(x):
    return x


def _rep(v, dtype: DType):
    """The interpreter's scalar representation: ints as Python int, bool as bool, floats as numpy scalars."""
    if dtype.is_int:
        return int(v)
    if dtype is DType.bool:
        return bool(v)
    if dtype is DType.bf16:
        return np.float32(to_bf16(np.float32(v)))
    return dtype.np.type(v)


def _py(v, dtype: DType):
    if isinstance(v, np.ndarray):
        v = v.item()
    return _rep(v, dtype) if not dtype.is_float else float(v)


def _group_starts(groups):
    i = 0
    for g in groups:
        yield i, g
        i += len(g)


class _UbTracker:
    """Run-time UB accounting with the plan's rules, on the sizes the run actually uses."""

    def __init__(self, program: Program, soc: Soc):
        self.p = program
        self.soc = soc
        self.plan = program.plan
        self.buffers = {b.name: b for b in self.plan.buffers}
        self.units = {}                # cube tiles: what each axis rounds up to (whole fractals)
        for b in self.plan.buffers:
            op = self.plan.operand(b.name)
            if b.level is Level.L1:
                self.units[b.name] = op.l1_units
            elif b.level in (Level.L0A, Level.L0B):
                self.units[b.name] = op.l0_units
            elif b.level is Level.L0C:
                self.units[b.name] = cube.l0c_units()
        self.elems: dict[str, int] = {}
        self.slot_elems = 0
        self.scratch_span = None
        self.peak = 0

    def footprint(self, name: str, value: np.ndarray) -> int:
        """Elements tile `name` takes in its buffer for this value: a cube tile's shape in whole
        fractals, a tile of rows rows x pitch (tiles.py), any other tile its size."""
        units = self.units.get(name)
        if units:
            return int(np.prod(cube.padded_shape(value.shape, units)))
        t = self.p.local_type(name)
        return footprint_elems(value.shape, t.dtype, is_pitched(t))

    def note(self, name: str, elems: int, st):
        if elems <= self.elems.get(name, -1):
            return
        self.elems[name] = elems
        self._check(st)

    def note_slot(self, elems: int, st):
        """A statement with temporaries touched a tile of `elems` elements (the slots are that large)."""
        if elems <= self.slot_elems:
            return
        self.slot_elems, self.scratch_span = elems, st.span
        self._check(st)

    def _check(self, st):
        items = []
        for name, n in self.elems.items():
            b = self.buffers[name]
            items.append((b, n, align(n * b.dtype.nbytes, b.unit(self.plan, self.soc))))
        scratch = self.plan.scratch_slots * align(self.slot_elems * self.plan.slot_dtype.nbytes,
                                                  self.plan.unit(self.soc, self.plan.slot_dtype.nbytes))
        usage = UbUsage(tuple(items), scratch, self.scratch_span, self.plan.sync_bytes(self.soc),
                        STAGING_BYTES if self.plan.staging else 0, SCALAR_OUT_BYTES * len(self.plan.scalar_outs))
        for level in BUDGET_LEVELS:
            total = usage.total(level)
            if level is Level.UB:
                self.peak = max(self.peak, total)
            limit = capacity_limit(level, self.soc)
            if total > limit:
                raise budget_error(self.p, usage, level, self.soc, total, limit, st.span, "at run time, ")


__all__ = ["run", "RunOutputs", "RangeVal", "DEFAULT_MAX_ITERATIONS"]
