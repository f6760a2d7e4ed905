"""The verifier: untyped KernelIR -> typed KernelIR, or one DslError.

It owns the meaning rules of the DSL:
- names and scopes (loop and `if` bodies are scopes; stages are not), one kind per name;
- types and shapes of every expression, by the typing rule of the op's category
  (`typerules.TYPE_RULES`), at the tile kinds (`ops.LOWERED`) and dtypes (its row's `dtypes`) the
  lowering takes;
- stage rules: copyin holds only loads, copyout only stores, tile work only in compute, and a
  tile crosses stages only copyin -> compute -> copyout;
- the host function (its names, types and Launch fields) and the kernel's `t.field` reads;
- the UB plan (`buffers.UbPlan`) and, given concrete shapes, the launch and the UB budget
  against the SoC table.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field, replace
from typing import Mapping

from ..soc import Soc, get_soc
from .buffers import (ScratchNeed, UbBuffer, UbPlan, byte_masks, check_budget, compares, loaded_once, needs_staging,
                      solve_fits, padded_len, padded_rows, scalar_outputs, stage_groups, stmt_tile_sizes)
from .errors import DslError, Span
from .host import HOST_BUILTINS, SOC_CONSTANTS, HostEvaluator, bind_dims, check_dims, evaluate_host, syncs_all
from . import cube
from .ir import (INDEX, RANGE_FIELDS, Assign, Attr, Barrier, Call, Const, CoreChunk, CoreRows, CoreTiles, DType,
                 DTypeRef, Expr, For, GmRef, If, IndexExpr, IndexSlice, IndexWindows, Level, LevelRef, Load, MetaType,
                 Name, Program, RangeType, ScalarParam, ScalarType, Stage, StageKind, Store, Str, SyncAll, TensorParam,
                 TensorRole, TensorType, TileType, Tiles, TilingParam, TilingType, walk_exprs, walk_stmts)
from .ops import HOST_FITS, LOWERED, OPS, SCALAR_MATH
from .printer import expr_text, gmref_text, shape_text
from .registers import is_byte_mask, statement_slots
from .tiles import broadcast_shape, broadcasts, footprint, is_pitched, principal
from .tiles import cols as cols_of, kind as tile_kind, rows as rows_of
from .typerules import TYPE_RULES, kind_text, refusal, strip, windows_len

ONE = Const(1, "int")


@dataclass
class _Sym:
    kind: str                 # dim | param | tensor | tiling | local | loop
    type: object
    span: Span
    cap: Expr | None = None   # range variables: elements of `.len` at most (the buffer size)


@dataclass
class _TileInfo:
    dtype: DType
    level: Level
    origin: str               # load | compute
    span: Span
    sites: list = field(default_factory=list)   # (span, capacity expr | None)
    rows: list = field(default_factory=list)    # a tile of rows: (span, rows cap, columns cap) per site
    defined_in: StageKind = StageKind.compute
    used_in: set = field(default_factory=set)
    dims: list = field(default_factory=list)    # per site: each axis's static bound (None: unknown); cube tiles


def verify(program: Program, soc: Soc | str | None = None, *, shapes: Mapping[str, tuple[int, ...]] | None = None,
           scalars: Mapping[str, int | float] | None = None) -> Program:
    """Type and check `program`; returns the typed Program (expressions carry `.type`).

    With `shapes` (tensor param -> concrete shape) and `scalars`, also binds the dims, runs the
    host function and checks the launch and the UB budget of `soc` (default Ascend910B2).
    """
    typed = _Verifier(program).run()
    if shapes is not None:
        check_launch(typed, shapes, scalars or {}, soc)
    return typed


def check_launch(program: Program, shapes, scalars, soc=None) -> dict[str, int | float]:
    """Concrete checks: dims agree, the host function runs, the tiles fit the UB. Returns the launch."""
    soc = soc if isinstance(soc, Soc) else get_soc(soc)
    env: dict[str, int | float] = dict(bind_dims(program, shapes))
    for p in program.scalars:
        if p.name in scalars:
            env[p.name] = scalars[p.name]
    check_dims(program, env, shapes, soc)
    launch = evaluate_host(program, shapes, scalars, soc)
    if len({u for _, u in cube.phases(program)}) > 1 and launch["cores"] > soc.cube_cores:
        raise DslError(f"the launch has {launch['cores']} blocks, but a kernel with a cube part and a vector part runs "
                       f"one AI core per block (a cube core and its vector cores), and {soc.name} has {soc.cube_cores}",
                       program.host.launch.cores.span, "launch at most CUBE_CORES blocks: min(CUBE_CORES, ...)",
                       program.path, program.source, rule="host.launch")
    tp = program.tiling_param
    if tp is not None:
        env.update({f"{tp.name}.{k}": v for k, v in launch.items()})
    check_loop_steps(program, env, soc)
    check_fractals(program, env, soc)
    check_budget(program, env, soc)
    return launch


def check_loop_steps(program: Program, env: Mapping[str, int | float], soc: Soc) -> None:
    """A tile step, rows or chunk per core below 1 (or a range() step of 0) loops forever or
    not at all on the device: refuse it before lowering, naming the Launch field it came from."""
    ev = HostEvaluator(soc, env, program.path, program.source)
    fields = {f.name: f for f in program.host.launch.fields}
    tp = program.tiling_param
    for st, _ in walk_stmts(program.kernel.body):
        if not isinstance(st, For):
            continue
        it = st.iter
        if isinstance(it, Tiles):
            checks = [(it.step, "tiles() gets a step of {v}", 1)]
        elif isinstance(it, CoreTiles):
            checks = [(step, "core_tiles() gets a tile of {v}", 1) for step in it.steps]
        elif isinstance(it, CoreRows):
            checks = [(it.rows, "core_rows() gets {v} rows per core", 1)]
        elif isinstance(it, CoreChunk):
            checks = [(it.size, "core_chunk() gets a chunk of {v} per core", 1)]
        else:
            checks = [(it.step, "range() gets a step of {v}", 0)]
        for e, what, least in checks:
            try:
                v = ev.eval(e)
            except DslError:       # depends on loop variables: only known while the kernel runs
                continue
            if isinstance(v, bool) or not isinstance(v, (int, float)) or (v != 0 if least == 0 else v >= least):
                continue
            field = fields.get(e.attr) if isinstance(e, Attr) and tp is not None and e.obj.id == tp.name else None
            origin = (f" (Launch field `{field.name}` = {expr_text(field.value)}, line {field.span.line})"
                      if field is not None else "")
            raise DslError(what.format(v=v) + f" for these shapes{origin}", e.span,
                           "a step below 1 loops forever or never on the device: compute it so that it is at least 1 "
                           "for every shape, e.g. max(1, ...)", program.path, program.source, rule="host.launch")


def check_fractals(program: Program, env, soc: Soc) -> None:
    """Every tile step along an axis of an L1 tile is whole fractals (or covers the axis): a step of
    20 f32 columns leaves a partial fractal in every K slice, which the cube pads and computes anyway
    (the Matmul API rejects such base tiles). The last tile of an axis may be short."""
    plan = program.plan
    if plan is None or not plan.operands:
        return
    steps: dict[str, tuple[Expr, Expr, For]] = {}      # range variable -> (step, extent, loop)
    for s, _ in walk_stmts(program.kernel.body):
        if isinstance(s, For) and isinstance(s.iter, CoreTiles):
            for v, step, ext in zip(s.vars, s.iter.steps, s.iter.extents):
                steps[v] = (step, ext, s)
        elif isinstance(s, For) and isinstance(s.iter, Tiles):
            steps[s.var] = (s.iter.step, s.iter.extent, s)
    ev = HostEvaluator(soc, env, program.path, program.source)
    for s, _ in walk_stmts(program.kernel.body):
        if not (isinstance(s, Load) and s.level is Level.L1):
            continue
        op = plan.operand(s.target)
        kept = [ix for ix in s.src.index if isinstance(ix, IndexExpr) and isinstance(ix.expr.type, RangeType)
                or not isinstance(ix, IndexExpr)]
        for axis, ix in enumerate(kept):
            if not (isinstance(ix, IndexExpr) and isinstance(ix.expr, Name) and ix.expr.id in steps):
                continue
            step_e, ext_e, loop = steps[ix.expr.id]
            if isinstance(ext_e.type, RangeType):
                continue          # tiles of a range: its own bound decides
            step, ext = ev.eval(step_e), ev.eval(ext_e)
            unit = op.l1_axis_unit(axis)
            if step < ext and step % unit:
                role = op.axis_roles()[axis]
                what = f"{op.dtype.value} {'rows' if axis == 0 else 'columns'}"
                frac = (f"16 x {cube.c0(op.dtype)} {op.dtype.value} fractals" if unit in (16, cube.c0(op.dtype))
                        else f"{unit} x {unit} transposed squares")
                raise DslError(f"`{ix.expr.id}` steps by {expr_text(step_e)} = {step} {what} ({role} of the matmul), "
                               f"not whole {frac}: every {role} tile but the last would carry a partial one ({unit} "
                               f"{'rows' if axis == 0 else 'columns'} per fractal)", s.span,
                               f"make the step a multiple of {unit} in the host function, e.g. align_down(..., {unit}) "
                               f"(a step that covers the whole axis is fine)", program.path, program.source,
                               rule="cube.steps")


class _Verifier:
    def __init__(self, program: Program):
        self.p = program
        self.scopes: list[dict[str, _Sym]] = [{}]
        self.kinds: dict[str, tuple[object, Span]] = {}
        self.tiles: dict[str, _TileInfo] = {}
        self.scratch: list[ScratchNeed] = []
        self.stage: StageKind | None = None
        self.core_loop = False
        self.core_splits: dict[str, tuple[str, int]] = {}   # core-loop variable -> (its split, its line)
        self.stores: dict[str, tuple[bool, Span]] = {}
        self.launch_fields: dict[str, ScalarType] = {}
        self.synced = False       # a sync_all() came before: workspace stores of every core have landed
        self.cast_masks: frozenset[str] = frozenset()   # bool tiles assigned from cast(): one byte per element
        self.operands: dict[str, cube.Operand] = {}     # L1 tile -> how it reaches L0A / L0B
        self.mmad_uses: dict[str, tuple[str, Span]] = {}  # L0 tile -> the mmad operand it is (a / b), first use
        self.defs = _single_defs(program.kernel.body)   # scalar -> its one definition (bounds a tile's size)

    # -- helpers ---------------------------------------------------------------------------
    def err(self, where, message: str, help: str | None = None, *, rule: str) -> DslError:
        """The refusal of `rule` (an id of `rules.RULES`, whose statement the DSL reference gives)."""
        span = where if isinstance(where, Span) or where is None else where.span
        return DslError(message, span, help, self.p.path, self.p.source, rule=rule)

    def lookup(self, name: str) -> _Sym | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def visible(self) -> list[str]:
        return [n for s in self.scopes for n in s]

    # -- entry -----------------------------------------------------------------------------
    def run(self) -> Program:
        self._kernel_params()
        host = self._host()
        kernel = self.p.kernel
        body = self._block(kernel.body)
        for t in self.p.outputs:
            if t.name not in self.stores:
                raise self.err(t, f"output `{t.name}` is never stored",
                               f"write it in a copyout stage: `store({t.name}[...], tile)`",
                               rule="params.outputs-stored")
        for name, info in self.tiles.items():
            if info.origin == "load" and info.level is Level.L1 and StageKind.split not in info.used_in:
                raise self.err(info.span, f"L1 tile `{name}` is loaded but never moved to L0A / L0B",
                               f"move it in a split stage: `with split: {name[:-1] or name}0 = load({name}, L0A)` "
                               "(or L0B), or drop the load", rule="cube.levels")
            if info.origin == "load" and info.level is not Level.L1 and StageKind.compute not in info.used_in:
                where = "an mmad" if info.level in (Level.L0A, Level.L0B) else "a compute stage"
                raise self.err(info.span, f"tile `{name}` is loaded but never read",
                               f"use it in {where}, or drop the load (it would only cost a copy)", rule="stage.flow")
        self._check_units(body)
        self._check_stored_carries(body)
        locals_ = tuple((n, t) for n, (t, _) in self.kinds.items())
        plan = self._plan(body)
        kernel = replace(kernel, body=body, locals=locals_)
        typed = replace(self.p, host=host, kernel=kernel, verified=True, plan=plan)
        return solve_fits(typed, plan, get_soc(None))

    def _check_stored_carries(self, body) -> None:
        """A stored tile is an output queue (VECOUT): its buffer is taken when a compute stage
        writes it and handed to the copy-out after that stage. A compute stage that reads it
        before writing it would read a buffer no stage of this pass through the queue wrote."""
        stored = {st.value.id for st, _ in walk_stmts(body) if isinstance(st, Store)}
        for stage, _ in walk_stmts(body):
            if not (isinstance(stage, Stage) and stage.kind is StageKind.compute):
                continue
            written: set[str] = set()
            for st in stage.body:
                if not isinstance(st, Assign):
                    continue
                carried = [n for n in walk_exprs(st.value) if isinstance(n, Name) and n.id in stored
                           and n.id not in written and self.tiles.get(n.id) is not None
                           and self.tiles[n.id].origin == "compute" and self.tiles[n.id].level is Level.UB]
                if carried:
                    name = carried[0].id
                    raise self.err(st, f"`{name}` is stored, and this compute stage reads the value an earlier stage "
                                       "gave it: a stored tile is an output queue, taken afresh by each stage that "
                                       "writes it",
                                   f"carry the value in another tile (`acc = acc + ...` in the loop, then "
                                   f"`{name} = acc` in the stage before the store)", rule="stage.stored-queue")
                written.add(st.target)

    # -- parameters ------------------------------------------------------------------------
    def _kernel_params(self):
        top = self.scopes[0]
        params = self.p.kernel.params
        tilings = [p for p in params if isinstance(p, TilingParam)]
        if len(tilings) > 1:
            raise self.err(tilings[1], "a kernel takes one Tiling parameter", "remove the second one",
                           rule="params.one-tiling")
        scalar_names = {p.name for p in params if isinstance(p, ScalarParam)}
        for p in params:
            if isinstance(p, ScalarParam):
                if p.dtype is DType.bf16:
                    raise self.err(p, "bf16 scalar parameters are not supported", "declare it f32",
                                   rule="params.one-tiling")
                top[p.name] = _Sym("param", ScalarType(p.dtype), p.span)
            elif isinstance(p, TilingParam):
                top[p.name] = _Sym("tiling", None, p.span)
            else:
                top[p.name] = _Sym("tensor", TensorType(p.dtype, p.shape, p.role), p.span)
        bound: set[str] = set()
        for p in params:
            if isinstance(p, TensorParam) and p.role not in (TensorRole.output, TensorRole.workspace):
                bound |= {d.id for d in p.dims if isinstance(d, Name) and d.id not in scalar_names}
        for p in params:
            if not isinstance(p, TensorParam):
                continue
            for d in p.dims:
                for n in walk_exprs(d):
                    if not isinstance(n, Name):
                        continue
                    sym = top.get(n.id)
                    if sym is not None and sym.kind != "param":
                        raise self.err(n, f"dim `{n.id}` has the name of a parameter", "give the dim its own name",
                                       rule="params.dims-bound")
                    if sym is not None and not sym.type.dtype.is_int:
                        raise self.err(n, f"dim `{n.id}` is the {sym.type.dtype.value} scalar parameter `{n.id}`",
                                       "dims are integers: declare the scalar as i32", rule="params.dims-bound")
                    if n.id not in bound and n.id not in scalar_names:
                        if p.role in (TensorRole.output, TensorRole.workspace):
                            raise self.err(n, f"{'output' if p.role is TensorRole.output else 'workspace'} dim "
                                           f"`{n.id}` is not bound by any input",
                                           "write it with input dims and int scalars, e.g. (N - K) // S + 1",
                                           rule="params.dims-bound")
                        raise self.err(n, f"dim `{n.id}` is only used inside an expression, so nothing binds it",
                                       f"declare `{n.id}` on its own as a dim of some input", rule="params.dims-bound")
        for name in bound:
            top.setdefault(name, _Sym("dim", ScalarType(INDEX), self.p.kernel.span))
        self._row_counts(params)

    def _row_counts(self, params):
        """`n: Out[i64, (1,), "y"]` counts the rows the kernel filled of output `y`, declared at an upper bound."""
        outs = {p.name: p for p in params if isinstance(p, TensorParam) and p.role is TensorRole.output}
        counted: set[str] = set()
        for p in outs.values():
            if p.source is None:
                continue
            y = outs.get(p.source)
            if y is None or y.source is not None:
                raise self.err(p, f"`{p.name}` counts the rows of `{p.source}`, which is not an output of this kernel",
                               "name an Out[...] parameter whose rows the kernel fills: n: Out[i64, (1,), \"y\"]",
                               rule="params.row-count")
            if p.dtype is not DType.i64 or p.shape != (ONE,):
                raise self.err(p, f"the row count `{p.name}` of `{p.source}` is one i64 element",
                               f'declare it `{p.name}: Out[i64, (1,), "{p.source}"]`', rule="params.row-count")
            if y.rank < 1:
                raise self.err(p, f"`{p.source}` has no rows to count (a 0-d output)",
                               "count the rows of an output of rank 1 or more", rule="params.row-count")
            if p.source in counted:
                raise self.err(p, f"`{p.source}` has two row counts", "keep one", rule="params.row-count")
            counted.add(p.source)

    # -- host ------------------------------------------------------------------------------
    def _host(self):
        h = self.p.host
        kparams = {p.name: p for p in self.p.kernel.params}
        env: dict[str, str] = {}   # host name -> "int" | "float"
        for p in h.params:
            k = kparams.get(p.name)
            if k is None or isinstance(k, TilingParam):
                raise self.err(p, f"host parameter `{p.name}` is not a kernel parameter",
                               "host parameters repeat kernel parameters (tensors as Tensor[dtype, shape])",
                               rule="host.params")
            if isinstance(p, TensorParam):
                # Same dtype and dims; the grouping may differ (the kernel's view is its own business).
                if not isinstance(k, TensorParam) or k.dtype != p.dtype or k.dims != p.dims:
                    want = (f"Tensor[{k.dtype.value}, {shape_text(tuple((d,) for d in k.dims))}]"
                            if isinstance(k, TensorParam) else k.dtype.value)
                    raise self.err(p, f"host parameter `{p.name}` differs from the kernel's declaration",
                                   f"declare it `{p.name}: {want}`", rule="host.params")
                for d in p.dims:
                    for n in walk_exprs(d):
                        if isinstance(n, Name):
                            env[n.id] = "int"
            else:
                if not isinstance(k, ScalarParam) or k.dtype != p.dtype:
                    declared = k.dtype.value if isinstance(k, ScalarParam) else "Tensor[...]"
                    raise self.err(p, f"host parameter `{p.name}` differs from the kernel's declaration",
                                   f"declare it `{p.name}: {declared}`", rule="host.params")
                env[p.name] = "float" if p.dtype.is_float else "int"
        fixed = set(env)   # dims and parameters; host variables may be reassigned
        body = []
        for st in h.body:
            if st.target in fixed or st.target in SOC_CONSTANTS:
                raise self.err(st, f"`{st.target}` is already a dim, parameter or constant of the host function",
                               "give the host variable a new name", rule="host.params")
            kind, value = self._host_expr(st.value, env)
            env[st.target] = kind
            body.append(replace(st, value=value))
        ck, cores = self._host_expr(h.launch.cores, env)
        if ck != "int":
            raise self.err(h.launch.cores, "the core count is a float",
                           "use an int expression such as min(VECTOR_CORES, B)", rule="host.cores")
        fields = [("cores", ScalarType(INDEX))]
        new_fields = []
        for f in h.launch.fields:
            kind, value = self._host_expr(f.value, env)
            fields.append((f.name, ScalarType(INDEX if kind == "int" else DType.f32)))
            new_fields.append(replace(f, value=value))
        self.launch_fields = dict(fields)
        tp = self.p.tiling_param
        if tp is not None:
            self.scopes[0][tp.name] = _Sym("tiling", TilingType(tuple(fields)), tp.span)
        launch = replace(h.launch, cores=cores, fields=tuple(new_fields))
        return replace(h, body=tuple(body), launch=launch)

    def _host_expr(self, e: Expr, env) -> tuple[str, Expr]:
        def typed(kind):
            st = ScalarType(INDEX if kind == "int" else DType.f32)
            return kind, replace(e, type=st)
        if isinstance(e, Const):
            if e.kind == "bool":
                raise self.err(e, "True/False is not a host value", "tiling values are numbers",
                               rule="host.expressions")
            return typed(e.kind)
        if isinstance(e, Name):
            if e.id in env:
                return typed(env[e.id])
            if e.id in SOC_CONSTANTS:
                return typed("int")
            kp = self.p.param(e.id)
            if e.id in self.p.dim_names() or kp is not None:
                raise self.err(e, f"`{e.id}` is not known in the host function",
                               "declare the tensor or scalar it comes from as a host parameter, e.g. "
                               "`x: Tensor[f32, (B, N)]`", rule="host.expressions")
            close = difflib.get_close_matches(e.id, list(env) + list(SOC_CONSTANTS), n=2)
            raise self.err(e, f"`{e.id}` is not defined in the host function",
                           f"did you mean {' or '.join(f'`{c}`' for c in close)}?" if close else
                           "host names are dims of its Tensor parameters, its scalars, earlier host variables "
                           "and SoC constants (" + ", ".join(SOC_CONSTANTS) + ")", rule="host.expressions")
        if isinstance(e, Attr):
            raise self.err(e, f"`{expr_text(e)}` reads an attribute in the host function",
                           "the host function computes the tiling; it reads dims, scalars and SoC constants",
                           rule="host.expressions")
        if isinstance(e, (DTypeRef, Str)):
            raise self.err(e, f"`{expr_text(e)}` is not a number", "dtypes appear only as ub_elems(dtype, ...)",
                           rule="host.expressions")
        assert isinstance(e, Call)
        op = e.op
        kinds, args = [], []
        for i, a in enumerate(e.args):
            if op in ("ub_elems",) + HOST_FITS and i == 0:
                if not isinstance(a, DTypeRef):
                    more = ", live=4" if op == "ub_elems" else ", cols" if op == "fit_rows" else ""
                    raise self.err(a, f"{op}() takes a dtype first", f"write {op}(f32{more})", rule="host.expressions")
                args.append(replace(a, type=MetaType("dtype")))
                kinds.append("dtype")
                continue
            k, ta = self._host_expr(a, env)
            kinds.append(k)
            args.append(ta)
        e = replace(e, args=tuple(args))
        nums = [k for k in kinds if k != "dtype"]
        if op in ("add", "sub", "mul", "neg", "min", "max"):
            return typed("float" if "float" in nums else "int")
        if op in ("floordiv", "mod"):
            return typed("float" if "float" in nums else "int")
        if op in ("div", "pow"):
            return typed("float")
        if op in ("cdiv", "align_up", "align_down", "ub_elems") + HOST_FITS:
            if "float" in nums:
                raise self.err(e, f"{op}() takes integers", "pass int expressions (use // for integer division)",
                               rule="host.expressions")
            return typed("int")
        raise self.err(e, f"`{op}` is not available in the host function",
                       "host expressions use + - * / // %, " + ", ".join(HOST_BUILTINS), rule="host.expressions")

    # -- statements ------------------------------------------------------------------------
    def _block(self, stmts) -> tuple:
        return tuple(self._stmt(s) for s in stmts)

    def _scoped(self, stmts) -> tuple:
        self.scopes.append({})
        try:
            return self._block(stmts)
        finally:
            self.scopes.pop()

    def _stmt(self, st):
        if isinstance(st, Assign):
            return self._assign(st)
        if isinstance(st, Load):
            return self._load(st)
        if isinstance(st, Store):
            return self._store(st)
        if isinstance(st, For):
            return self._for(st)
        if isinstance(st, Stage):
            return self._stage(st)
        if isinstance(st, If):
            return self._if(st)
        if isinstance(st, Barrier):
            if self.stage in (StageKind.copyin, StageKind.split, StageKind.copyout):
                raise self.err(st, f"barrier() inside `with {self.stage.value}:`", "put it between stages",
                               rule="loops.sync")
            return st
        if isinstance(st, SyncAll):
            if self.stage is not None or len(self.scopes) > 1:
                where = f"`with {self.stage.value}:`" if self.stage is not None else "a loop or an if"
                raise self.err(st, f"sync_all() inside {where}: every core must reach it the same number of times",
                               "put sync_all() at the top level of the kernel, between the loops", rule="loops.sync")
            self.synced = True
            return st
        raise self.err(st, f"unexpected statement {type(st).__name__}", rule="stage.kinds")

    def _define(self, name: str, type_, span: Span, origin: str | None = None):
        sym = self.lookup(name)
        if sym is not None and sym.kind != "local":
            what = {"dim": "a dim", "param": "a scalar parameter", "tensor": "a GM tensor",
                    "tiling": "the tiling struct", "loop": "a loop variable"}[sym.kind]
            raise self.err(span, f"`{name}` is {what} and cannot be assigned",
                           "assign to a new name" if sym.kind != "loop"
                           else "loop variables are read-only; use a new name", rule="names.fixed")
        kind_key = _kind_key(type_)
        if name in self.kinds:
            old, old_span = self.kinds[name]
            if _kind_key(old) != kind_key:
                raise self.err(span, f"`{name}` was a {kind_text(old)} (line {old_span.line}) and here is a "
                               f"{kind_text(type_)}; one name has one kind in a kernel",
                               f"use a new name, e.g. `{name}2`", rule="names.one-kind")
        else:
            self.kinds[name] = (type_, span)
        if isinstance(type_, TileType):
            info = self.tiles.get(name)
            if info is not None and info.origin != origin:
                first = "loaded" if info.origin == "load" else "computed"
                now = "loaded" if origin == "load" else "computed"
                raise self.err(span, f"tile `{name}` is {first} at line {info.span.line} and {now} here; "
                               "a loaded tile is a read-only copy-in buffer",
                               f"give the {'result' if origin == 'compute' else 'load'} its own name, e.g. `{name}2`",
                               rule="names.one-origin")
            if info is None:
                info = self.tiles[name] = _TileInfo(type_.dtype, type_.level, origin, span,
                                                    defined_in=self.stage or StageKind.compute)
            info.sites.append((span, self._cap_shape(type_)))
            info.dims.append(tuple(self._cap_expr(d) for d in type_.shape))
            if is_pitched(type_):
                info.rows.append((span, self._cap_expr(rows_of(type_)), self._cap_expr(cols_of(type_))))
        if sym is None:
            self.scopes[-1][name] = _Sym("local", type_, span)
        else:
            sym.type = type_

    def _byte_masks(self) -> frozenset[str]:
        """bool tiles so far that hold one byte per element: loaded ones (cast ones are seen in place)."""
        loaded = frozenset(n for n, i in self.tiles.items() if i.dtype is DType.bool and i.origin == "load")
        return loaded | self.cast_masks

    def _assign(self, st: Assign):
        if self.stage in (StageKind.copyin, StageKind.split, StageKind.copyout):
            what = {StageKind.copyin: "loads (`xu = load(x[...])`)",
                    StageKind.split: "L1 -> L0 moves (`a0 = load(a1, L0A)`)",
                    StageKind.copyout: "stores (`store(y[...], yu)`)"}[self.stage]
            raise self.err(st, f"`with {self.stage.value}:` holds only {what}",
                           "compute values in `with compute:`, scalars also outside any stage", rule="stage.kinds")
        value = self._expr(st.value)
        t = value.type
        if isinstance(t, RangeType):
            raise self.err(st.value, "a range cannot be copied", "use its fields: c.start, c.len", rule="names.values")
        if not isinstance(t, (ScalarType, TileType)):
            raise self.err(st.value, f"`{expr_text(st.value)}` is not a value", "assign a scalar or tile expression",
                           rule="names.values")
        spec = OPS.get(value.op) if isinstance(value, Call) else None
        if isinstance(t, TileType) and self.stage is not StageKind.compute and not (spec and spec.stageless):
            raise self.err(st, f"tile `{st.target}` is computed outside a compute stage",
                           "put tile arithmetic in `with compute:`", rule="stage.kinds")
        if spec is not None and spec.accumulator:
            self._accumulates_in_place(st, spec, value)
        if isinstance(t, ScalarType):
            t = ScalarType(t.dtype)   # a variable has a definite dtype even when set from a literal
        self._define(st.target, t, st.span, "compute")
        if isinstance(t, TileType) and t.dtype is DType.bool and spec is not None and spec.category == "cast":
            self.cast_masks |= {st.target}
        new = replace(st, value=value)
        if isinstance(t, TileType) and cube.is_cube_level(t.level):
            return new          # the cube's operands are its own buffers: no UB scratch
        if isinstance(t, TileType) or any(isinstance(n.type, TileType) for n in walk_exprs(value)):
            temps = statement_slots(new, t.dtype, self._byte_masks())
            if temps:
                self.scratch.append(ScratchNeed(st.span, temps, stmt_tile_sizes(new, self._cap_shape), new, t.dtype))
        return new

    def _accumulates_in_place(self, st: Assign, spec, value: Call) -> None:
        """`acc = mmad(a, b, acc)`: an op that adds into its accumulator operand gives that tile again."""
        arg = value.args[[p.name for p in spec.params].index(spec.accumulator)]
        if isinstance(arg, Name) and arg.id != st.target:
            raise self.err(st, f"{spec.name} adds into `{arg.id}` in L0C, so its result is `{arg.id}` again",
                           f"accumulate in place: `{arg.id} = {spec.name}(..., {arg.id})`", rule="cube.mmad")

    def _load(self, st: Load):
        if st.level in (Level.L0A, Level.L0B):
            return self._move(st)
        if self.stage is not StageKind.copyin:
            raise self.err(st, "load() outside `with copyin:`", "wrap it: `with copyin: xu = load(x[...])`",
                           rule="stage.kinds")
        if st.transpose:
            raise self.err(st, "transpose=True is for L1 -> L0A / L0B moves",
                           "load the GM view as it is; transpose when the L1 tile moves to L0: "
                           "`load(a1, L0A, transpose=True)`", rule="cube.levels")
        src, tensor, kept = self._gmref(st.src, write=False, level=st.level)
        if len(kept) == 0:
            if st.level is not Level.UB:
                raise self.err(st, "a single element loads as a scalar, not into L1", "drop the level",
                               rule="cube.levels")
            t = ScalarType(tensor.dtype)
            self._define(st.target, t, st.span, "load")
            return replace(st, src=src)
        if st.level is Level.L1:
            if len(kept) != 2:
                raise self.err(st.src, f"`{gmref_text(st.src)}` keeps {len(kept)} axis; "
                               "an L1 tile is a matrix for the cube",
                               "index two axes with ranges (rows, columns), e.g. `load(a[mi, ki], L1)`, and the others "
                               "with scalars", rule="cube.levels")
            if tensor.dtype not in cube.CUBE_DTYPES:
                raise self.err(st, f"the cube multiplies f16, bf16, f32 and i8, not {tensor.dtype.value}",
                               "cast the tensor on the vector unit first (a Workspace, then sync_all())",
                               rule="cube.levels")
        t = TileType(tensor.dtype, tuple(kept), st.level)
        self._define(st.target, t, st.span, "load")
        self.tiles[st.target].defined_in = StageKind.copyin
        return replace(st, src=src)

    def _move(self, st: Load):
        """`a0 = load(a1, L0A[, transpose=True])`: an L1 tile into L0A / L0B (MTE1, in a split stage)."""
        level = st.level
        if self.stage is not StageKind.split:
            raise self.err(st, f"a move into {level.value} outside `with split:`",
                           f"L1 -> L0A / L0B moves (the MTE1 pipe) go in their own stage: `with split: "
                           f"{st.target} = load(...)`", rule="stage.kinds")
        name = st.src.tensor
        sym = self.lookup(name)
        if (st.src.index is not None or sym is None or not isinstance(sym.type, TileType)
                or sym.type.level is not Level.L1):
            what = ("a GM tensor" if sym is not None and sym.kind == "tensor" else
                    f"a {kind_text(sym.type)}" if sym is not None else "not defined")
            raise self.err(st.src, f"`{gmref_text(st.src)}` is {what}; {level.value} is loaded from an L1 tile",
                           f"load the GM view into L1 in copyin (`{name}1 = load({name}[...], L1)`), then "
                           f"`{st.target} = load({name}1, {level.value})` here", rule="cube.levels")
        l1 = sym.type
        info = self.tiles[name]
        info.used_in.add(StageKind.split)
        rows, cols = l1.shape
        shape = (cols, rows) if st.transpose else (rows, cols)
        t = TileType(l1.dtype, shape, level)
        prev = self.operands.get(name)
        op = cube.Operand(name, st.target, level, l1.dtype, st.transpose)
        if op.dtype is DType.i8 and op.hw_transpose:      # found by the fuzzer: the lowering refused it
            side, fix = (("A as [K, M]", "A as [M, K] (`load(a1, L0A)`)") if level is Level.L0A else
                         ("B as [K, N]", "B as [N, K] (`load(b1, L0B, transpose=True)`)"))
            raise self.err(st, f"an i8 matrix moves into {level.value} with its fractals as they are only: {side} "
                           "would need 32 x 32 squares transposed, which the lowering does not do",
                           f"give the cube {fix}", rule="cube.i8-layout")
        if prev is not None and (prev.level, prev.transpose, prev.l0) != (op.level, op.transpose, op.l0):
            raise self.err(st, f"L1 tile `{name}` is moved to {prev.level.value} as `{prev.l0}` elsewhere; "
                           "an L1 tile has one layout, fixed by the one L0 tile it feeds",
                           "load the GM view into a second L1 tile", rule="cube.one-layout")
        self.operands[name] = op
        self._define(st.target, t, st.span, "load")
        self.tiles[st.target].defined_in = StageKind.split
        return st

    def _store(self, st: Store):
        if self.stage is not StageKind.copyout:
            raise self.err(st, "store() outside `with copyout:`", "wrap it: `with copyout: store(y[...], yu)`",
                           rule="stage.kinds")
        sym = self.lookup(st.value.id)
        if sym is None:
            raise self._undefined(st.value)
        vt = sym.type
        from_l0c = isinstance(vt, TileType) and vt.level is Level.L0C
        dst, tensor, kept = self._gmref(st.dst, write=True, level=Level.L1 if from_l0c else Level.UB)
        if isinstance(vt, TileType):
            info = self.tiles[st.value.id]
            if info.origin == "load":
                raise self.err(st.value, f"tile `{st.value.id}` goes from copyin straight to copyout",
                               f"a value crosses copyin -> compute -> copyout: compute a result, e.g. "
                               f"`with compute: {st.value.id}_out = {st.value.id}`", rule="stage.flow")
            if vt.level not in (Level.UB, Level.L0C):
                raise self.err(st.value, f"`{st.value.id}` is in {vt.level.value}; stores go from UB (or from L0C, the "
                               "cube's result)", "multiply it with mmad and store the L0C result", rule="gm.store")
            info.used_in.add(StageKind.copyout)
            if vt.level is Level.L0C:
                if tensor.dtype not in cube.FIXPIPE_OUT[vt.dtype]:
                    ok = ", ".join(d.value for d in cube.FIXPIPE_OUT[vt.dtype])
                    raise self.err(st.value, f"Fixpipe writes an {vt.dtype.value} L0C tile as {ok}, not "
                                   f"{tensor.dtype.value} (`{st.dst.tensor}`)",
                                   f"declare `{st.dst.tensor}` as one of {ok}, or store to an f32 Workspace "
                                   "and convert on the vector unit", rule="cube.mmad")
            elif vt.dtype != tensor.dtype:
                raise self.err(st.value, f"storing a {vt.dtype.value} tile into {tensor.dtype.value} "
                               f"tensor `{st.dst.tensor}`",
                               f"cast it in compute: `cast({st.value.id}, {tensor.dtype.value})`", rule="gm.store")
            elif vt.dtype is DType.bool and st.value.id not in self._byte_masks():
                raise self.err(st.value, f"`{st.value.id}` is a comparison's bit mask (one bit per element); a bool "
                               f"tensor holds one byte per element (`{st.dst.tensor}`)",
                               f"store the mask as bytes: `cast(where({st.value.id}, 1.0, 0.0), bool)`",
                               rule="gm.store")
            if len(kept) != len(vt.shape) or tuple(kept) != tuple(vt.shape):
                have = " x ".join(expr_text(d) for d in vt.shape)
                want = " x ".join(expr_text(d) for d in kept) or "one element"
                raise self.err(st, f"tile `{st.value.id}` has shape [{have}] but `{gmref_text(st.dst)}` is [{want}]",
                               "store into a view with the tile's extent (e.g. index with the same range variable)",
                               rule="gm.store")
        elif isinstance(vt, ScalarType):
            if kept:
                raise self.err(st, f"`{st.value.id}` is a scalar but `{gmref_text(st.dst)}` is a view of many elements",
                               "index every axis with a scalar to store one element", rule="gm.store")
            if vt.dtype != tensor.dtype:
                raise self.err(st.value, f"storing a {vt.dtype.value} scalar into {tensor.dtype.value} "
                               f"tensor `{st.dst.tensor}`",
                               f"cast it: `cast({st.value.id}, {tensor.dtype.value})`", rule="gm.store")
        else:
            raise self.err(st.value, f"`{st.value.id}` is not a value", "store a tile or scalar", rule="gm.store")
        if st.accumulate and tensor.dtype not in (DType.f32, DType.f16, DType.i32):
            raise self.err(st, f"accumulating stores support f32, f16 and i32, not {tensor.dtype.value}",
                           "accumulate in f32 and cast afterwards", rule="gm.accumulate")
        prev = self.stores.get(tensor_name := st.dst.tensor)
        if prev is not None and prev[0] != st.accumulate:
            raise self.err(st, f"`{tensor_name}` gets both accumulating and plain stores (line {prev[1].line})",
                           "an output is either accumulated into (atomic add, starts at zero) or written",
                           rule="gm.accumulate")
        self.stores[tensor_name] = (st.accumulate, st.span)
        return replace(st, dst=dst, value=replace(st.value, type=vt))

    def _gmref(self, g: GmRef, write: bool, level: Level = Level.UB):
        """A typed GM view, its tensor's type and the extents of the axes it keeps (the tile's shape)."""
        tensor = self._gm_tensor(g, write)
        param = self.p.param(g.tensor)
        rank = len(tensor.shape)
        if g.index is None:
            if rank != 0:
                raise self.err(g, f"`{g.tensor}` has {rank} axes and needs an index per axis",
                               f"write e.g. {g.tensor}[{', '.join(['r', 'c'][-rank:] if rank <= 2 else ['i'] * rank)}]",
                               rule="gm.index")
            return g, tensor, []
        if len(g.index) != rank:
            raise self.err(g, f"`{g.tensor}` has {rank} axes {shape_text(param.groups)} but {len(g.index)} indices",
                           "give one index per axis (group dims in the declaration, e.g. ((B, M), N), to view them "
                           "as one)", rule="gm.index")
        kept, kept_axes, index = [], [], []
        for i, (ix, dim) in enumerate(zip(g.index, tensor.shape)):
            typed, length = self._index_axis(g, tensor, i, ix, dim, level)
            index.append(typed)
            if length is not None:
                kept.append(length)
                kept_axes.append(i)
        self._check_kept(g, tensor, kept, kept_axes, level)
        return replace(g, index=tuple(index)), tensor, [strip(k) for k in kept]

    def _gm_tensor(self, g: GmRef, write: bool) -> TensorType:
        """The GM tensor a load reads (an input, a parameter, a workspace after sync_all()) or a
        store writes (an output or a workspace)."""
        sym = self.lookup(g.tensor)
        if sym is None or sym.kind != "tensor":
            if sym is None and g.tensor not in self.kinds:
                close = difflib.get_close_matches(g.tensor, [p.name for p in self.p.tensors()], n=2)
                raise self.err(g, f"`{g.tensor}` is not a GM tensor parameter",
                               f"did you mean `{close[0]}`?" if close
                               else "load from and store to GM tensor parameters", rule="gm.tensors")
            raise self.err(g, f"`{g.tensor}` is not a GM tensor", "load from and store to GM tensor parameters",
                           rule="gm.tensors")
        tensor: TensorType = sym.type
        if write and tensor.role not in (TensorRole.output, TensorRole.workspace):
            raise self.err(g, f"`{g.tensor}` is an input; only Out[...] tensors are stored to "
                           "(and Workspace[...] scratch)",
                           f"declare the result as `y: Out[{tensor.dtype.value}, ...]` and store there",
                           rule="gm.tensors")
        if not write and tensor.role is TensorRole.output:
            raise self.err(g, f"`{g.tensor}` is an output; loads read inputs",
                           "load from a GM[...], Param[...] or Workspace[...] tensor", rule="gm.tensors")
        if not write and tensor.role is TensorRole.workspace and not self.synced:
            raise self.err(g, f"`{g.tensor}` is a workspace the cores write; loading it before sync_all() reads "
                           "whatever the other cores have stored so far",
                           "put `sync_all()` between the stores and this load", rule="loops.sync")
        return tensor

    def _index_axis(self, g: GmRef, tensor: TensorType, i: int, ix, dim: Expr, level: Level):
        """One axis of a GM view: (the typed index, the axis's extent in the tile, None when the
        index is a scalar and the axis is dropped)."""
        if isinstance(ix, IndexExpr):
            e = self._expr(ix.expr)
            if isinstance(e.type, RangeType):
                return replace(ix, expr=e), Attr(Name(e.id) if isinstance(e, Name) else e, "len")
            self.index_scalar(e, "an index")
            return replace(ix, expr=e), None
        if isinstance(ix, IndexSlice):
            return self._index_slice(g, tensor, i, ix, dim, level)
        var = self._expr(ix.var)
        if not isinstance(var.type, RangeType):
            raise self.err(ix.var, "windows() takes a range variable (from tiles or core_chunk)",
                           "write `x[r, windows(c, K, S)]` inside `for c in tiles(L, t.tile)`", rule="gm.index")
        k = self._expr(ix.k)
        s = self._expr(ix.stride)
        self.index_scalar(k, "a window size")
        self.index_scalar(s, "a window stride")
        return replace(ix, var=var, k=k, stride=s), windows_len(var, k, s)

    def _index_slice(self, g: GmRef, tensor: TensorType, i: int, ix: IndexSlice, dim: Expr, level: Level):
        """`lo:hi:step` along axis i: (the typed slice, its length, cdiv(hi - lo, step) with a step)."""
        rank = len(tensor.shape)
        lo = self._expr(ix.lo) if ix.lo is not None else None
        hi = self._expr(ix.hi) if ix.hi is not None else None
        step = self._expr(ix.step) if ix.step is not None else None
        for part in (lo, hi):
            if part is not None:
                self.index_scalar(part, "a slice bound")
        top = hi if hi is not None else dim
        length = top if lo is None or lo == Const(0, "int") else _difference(top, lo)
        if step is not None:
            self.index_scalar(step, "a slice step")
            if isinstance(step, Const) and int(step.value) < 1:
                raise self.err(ix.step, f"a slice step of {step.value}", "step forward: lo:hi:s with s >= 1 "
                               "(a flip is a scalar index counted from the end)", rule="gm.contiguous")
            if i == rank - 1 or all(d == ONE for d in tensor.shape[i + 1:]):
                raise self.err(ix.step, f"a step along the last axis of `{g.tensor}`: a tile's row is a "
                               "contiguous run in GM", "load the whole row and take() every s-th element "
                               "(take(xu, iota(n) * s)), or view the axes so the stepped one is not last",
                               rule="gm.contiguous")
            if level is not Level.UB:
                raise self.err(ix.step, "a stepped slice into L1", "the cube copies whole matrices: "
                               "load the rows into L1 with a unit step", rule="cube.levels")
            if step != Const(1, "int"):      # cdiv(length, step), in kernel arithmetic
                s = strip(step)
                up = Const(int(s.value) - 1, "int") if isinstance(s, Const) else Call("sub", (s, ONE))
                length = Call("floordiv", (Call("add", (length, up)), s))
        return replace(ix, lo=lo, hi=hi, step=step), length

    def _check_kept(self, g: GmRef, tensor: TensorType, kept: list, kept_axes: list, level: Level) -> None:
        """The axes a view keeps make a tile: at most two for an L1 matrix, one with windows(), and
        the last axis among them (a tile's rows are contiguous runs in GM)."""
        rank = len(tensor.shape)
        if level is Level.L1 and len(kept) > 2:
            raise self.err(g, f"`{gmref_text(g)}` keeps {len(kept)} axes; a cube tile in L1 is a matrix (2-D)",
                           "index the batch axes with scalars (a core_tiles range per axis)", rule="cube.levels")
        if len(kept) > 1 and any(isinstance(ix, IndexWindows) for ix in g.index):
            raise self.err(g, f"`{gmref_text(g)}` keeps {len(kept)} axes and reads windows()",
                           "windows() views one axis: index the others with scalars", rule="cube.levels")
        if kept:
            later = [d for d in tensor.shape[kept_axes[-1] + 1:] if d != ONE]
            if later:
                axis = kept_axes[-1]
                example = ", ".join("c" if j == axis else ":" if j > axis else "r" for j in range(rank))
                raise self.err(g, f"`{gmref_text(g)}` keeps axis {axis} but not the last axis, so its elements are "
                               f"{' * '.join(expr_text(d) for d in later)} apart in GM: "
                               "a tile's rows are contiguous runs",
                               "keep the last axis too (a 2-D tile of rows, e.g. "
                               f"{g.tensor}[{example}]), "
                               "or view the axes so the tiled one is last", rule="gm.contiguous")
        if level is Level.UB and len(kept) > 1 and strip(kept[-1]) == ONE and any(strip(k) != ONE for k in kept):
            self._check_dense_view(g, tensor, kept, kept_axes)

    def _check_dense_view(self, g: GmRef, tensor: TensorType, kept: list, kept_axes: list) -> None:
        """A tile whose last axis is 1 is one value per row, stored densely in UB, and one copy moves
        it: its values must be consecutive in GM. Each kept axis after the first must keep its whole
        dim, and an axis dropped between them must be of size 1; else the values lie apart in GM and
        one contiguous copy would read the wrong elements (a column `h[b, :, j:j + 1]`)."""
        for axis in range(kept_axes[0] + 1, len(tensor.shape)):
            dim = strip(tensor.shape[axis])
            whole = axis in kept_axes and strip(kept[kept_axes.index(axis)]) == dim
            if whole or dim == ONE:
                continue
            apart = " * ".join(expr_text(d) for d in tensor.shape[axis:] if strip(d) != ONE)
            raise self.err(g, f"`{gmref_text(g)}` is one value per row (a tile whose last axis is 1), but its values "
                              f"are {apart} apart in GM: a tile of one value per row is one contiguous run in GM",
                           "load one value at a time as a scalar (`v = load(" + g.tensor + "[..., i, j])` in a loop "
                           "over the rows i) and keep the tiles 1-D, or pass the tensor in a layout where these "
                           "values are consecutive and declare its last axis as 1 (a (B, S) column as "
                           "`GM[f32, (B, S, 1)]`, loaded as `" + g.tensor + "[b, :, :]`)", rule="gm.one-per-row")

    def index_scalar(self, e: Expr, what: str):
        t = e.type
        if not (isinstance(t, ScalarType) and t.dtype.is_int):
            raise self.err(e, f"{what} must be an integer scalar, not a {kind_text(t)}",
                           "use loop variables, dims, range fields (c.start) and integer arithmetic", rule="gm.index")

    def _for(self, st: For):
        if self.stage is not None:
            raise self.err(st, f"a loop inside `with {self.stage.value}:`",
                           "a stage is straight-line code: put the loop around the stages", rule="stage.kinds")
        it = st.iter
        outer_core = self.core_loop
        cap = None
        if isinstance(it, (CoreRows, CoreChunk)):
            if self.core_loop:
                raise self.err(it, "a core loop inside another core loop", "split the cores once, in the outer loop",
                               rule="loops.cores")
            a, b = (it.rows, it.total) if isinstance(it, CoreRows) else (it.size, it.total)
            # The split is kept in members named after the variable (partStart, rowsBegin): two core loops
            # may share a name only when they split the same work the same way.
            split = f"{'core_rows' if isinstance(it, CoreRows) else 'core_chunk'}({expr_text(a)}, {expr_text(b)})"
            seen = self.core_splits.setdefault(st.var, (split, st.span.line))
            if seen[0] != split:
                raise self.err(st, f"`{st.var}` already names the core split `{seen[0]}` of line {seen[1]}; this loop "
                               f"splits `{split}`", f"give this core loop a variable of its own (e.g. `{st.var}2`)",
                               rule="loops.cores")
            ta, tb = self._expr(a), self._expr(b)
            self.index_scalar(ta, "the per-core count")
            self.index_scalar(tb, "the total")
            it = replace(it, **({"rows": ta, "total": tb} if isinstance(it, CoreRows) else {"size": ta, "total": tb}))
            var_type = ScalarType(INDEX) if isinstance(it, CoreRows) else RangeType()
            cap = None if isinstance(it, CoreRows) else self._cap_expr(ta)
            self.core_loop = True
        elif isinstance(it, CoreTiles):
            if self.core_loop:
                raise self.err(it, "a core loop inside another core loop", "split the cores once, in the outer loop",
                               rule="loops.cores")
            exts = tuple(self._expr(x) for x in it.extents)
            steps = tuple(self._expr(x) for x in it.steps)
            for x in exts:
                self.index_scalar(x, "an extent of core_tiles()")
            for x in steps:
                self.index_scalar(x, "a step of core_tiles()")
            it = replace(it, extents=exts, steps=steps)
            var_type = RangeType()
            caps = [self._cap_expr(x) for x in steps]
            self.core_loop = True
        elif isinstance(it, Tiles):
            ext = self._expr(it.extent)
            if not isinstance(ext.type, RangeType):
                self.index_scalar(ext, "the extent of tiles()")
            step = self._expr(it.step)
            self.index_scalar(step, "the tile step")
            it = replace(it, extent=ext, step=step)
            var_type = RangeType()
            cap = self._cap_expr(step)
        else:
            parts = {k: self._expr(getattr(it, k)) for k in ("start", "stop", "step")}
            for v in parts.values():
                self.index_scalar(v, "a range() bound")
            it = replace(it, **parts)
            var_type = ScalarType(INDEX)
        if not isinstance(it, CoreTiles):
            caps = [cap]
        scope = {}
        for var, vcap in zip(st.vars, caps):
            existing = self.lookup(var)
            if existing is not None:
                raise self.err(st, f"loop variable `{var}` hides an existing name",
                               "pick a new name for the loop variable", rule="names.fixed")
            if var in self.kinds and _kind_key(self.kinds[var][0]) != _kind_key(var_type):
                raise self.err(st, f"`{var}` was a {kind_text(self.kinds[var][0])} and here is a "
                               f"{kind_text(var_type)}", "use a new name", rule="names.one-kind")
            self.kinds.setdefault(var, (var_type, st.span))
            scope[var] = _Sym("loop", var_type, st.span, vcap)
        self.scopes.append(scope)
        try:
            body = self._block(st.body)
        finally:
            self.scopes.pop()
            self.core_loop = outer_core
        return replace(st, iter=it, body=body)

    def _stage(self, st: Stage):
        if self.stage is not None:
            raise self.err(st, f"`with {st.kind.value}:` inside `with {self.stage.value}:`", "stages do not nest",
                           rule="stage.kinds")
        self.stage = st.kind
        try:
            body = self._block(st.body)
        finally:
            self.stage = None
        return replace(st, body=body)

    def _if(self, st: If):
        if self.stage is not None:
            raise self.err(st, f"`if` inside `with {self.stage.value}:`",
                           "branch around the stages, or select elements with where(mask, a, b)", rule="loops.if")
        cond = self._expr(st.cond)
        if not (isinstance(cond.type, ScalarType) and cond.type.dtype is DType.bool):
            raise self.err(st.cond, f"an `if` needs a scalar comparison, not a {kind_text(cond.type)}",
                           "compare scalars, e.g. `if r < B:`; select tile elements with where()", rule="loops.if")
        body = self._scoped(st.body)
        orelse = self._scoped(st.orelse) if st.orelse else ()
        return replace(st, cond=cond, body=body, orelse=orelse)

    # -- expressions -----------------------------------------------------------------------
    def _undefined(self, e: Name) -> DslError:
        if e.id in self.kinds:
            _, span = self.kinds[e.id]
            return self.err(e, f"`{e.id}` is not visible here",
                            f"it is assigned at line {span.line} inside a block that has ended; "
                            f"assign it before that block (e.g. `{e.id} = 0.0`) to keep it", rule="names.defined")
        if e.id in SOC_CONSTANTS:
            return self.err(e, f"`{e.id}` is a host constant",
                            "read it in the host function and pass what the kernel needs through Launch(...)",
                            rule="names.defined")
        close = difflib.get_close_matches(e.id, self.visible(), n=2)
        return self.err(e, f"`{e.id}` is not defined",
                        f"did you mean {' or '.join(f'`{c}`' for c in close)}?" if close else
                        "define it before use; kernel names are parameters, dims, loop variables and assignments",
                        rule="names.defined")

    def _expr(self, e: Expr) -> Expr:
        if isinstance(e, Const):
            dt = {"int": INDEX, "float": DType.f32, "bool": DType.bool}[e.kind]
            return replace(e, type=ScalarType(dt, weak=True))
        if isinstance(e, Name):
            sym = self.lookup(e.id)
            if sym is None:
                raise self._undefined(e)
            if sym.kind == "tensor":
                raise self.err(e, f"GM tensor `{e.id}` is read with load() in copyin",
                               f"write `with copyin: {e.id}u = load({e.id}[...])` and use the tile", rule="gm.tensors")
            if sym.kind == "tiling":
                raise self.err(e, f"`{e.id}` is the tiling struct",
                               f"read a field: {e.id}.{next(iter(self.launch_fields))}", rule="names.values")
            if isinstance(sym.type, TileType):
                if self.stage is not StageKind.compute:
                    raise self.err(e, f"tile `{e.id}` is used outside a compute stage",
                                   "read tiles in `with compute:` (copyout only stores named tiles)",
                                   rule="stage.kinds")
                info = self.tiles.get(e.id)
                if info:
                    info.used_in.add(StageKind.compute)
            return replace(e, type=sym.type)
        if isinstance(e, Attr):
            sym = self.lookup(e.obj.id)
            if sym is None:
                raise self._undefined(e.obj)
            if sym.kind == "tiling":
                if e.attr not in self.launch_fields:
                    raise self.err(e, f"`{e.attr}` is not a tiling field",
                                   "the host returns " + ", ".join(self.launch_fields) + "; add it to Launch(...)",
                                   rule="names.fields")
                return replace(e, obj=replace(e.obj, type=sym.type), type=self.launch_fields[e.attr])
            if isinstance(sym.type, RangeType):
                if e.attr not in RANGE_FIELDS:
                    raise self.err(e, f"a range has no field `{e.attr}`", "ranges have .start, .len and .index",
                                   rule="names.fields")
                return replace(e, obj=replace(e.obj, type=sym.type), type=ScalarType(INDEX))
            raise self.err(e, f"`{e.obj.id}` has no fields",
                           "only the tiling struct (t.tile) and ranges (c.start) have fields", rule="names.fields")
        if isinstance(e, DTypeRef):
            return replace(e, type=MetaType("dtype"))
        if isinstance(e, LevelRef):
            return replace(e, type=MetaType("level"))
        if isinstance(e, Str):
            return replace(e, type=MetaType("str"))
        if isinstance(e, Call):
            spec = OPS.get(e.op)
            if spec is None:
                raise self.err(e, f"`{e.op}` is not a kernel operation",
                               "host functions (cdiv, ub_elems, ...) run in @host; pass results via Launch",
                               rule="ops.known")
            args = tuple(self._expr(a) for a in e.args)
            e = replace(e, args=args)
            t = self._call_type(e, spec, args)
            touches_tile = isinstance(t, TileType) or any(isinstance(a.type, TileType) for a in args)
            if touches_tile and self.stage is not StageKind.compute and not (spec.stageless and self.stage is None):
                raise self.err(e, f"tile operation `{expr_text(e)}` outside a compute stage",
                               "put tile arithmetic in `with compute:`", rule="ops.known")
            return replace(e, type=t)
        raise self.err(e, f"unexpected expression {type(e).__name__}", rule="ops.known")

    # -- what the type rules (typerules.py) ask of the verifier -------------------------------------
    def operand(self, a: Expr, spec):
        """The type of `a`, an operand of `spec`: a scalar, or a tile at a kind its category takes."""
        t = a.type
        if isinstance(t, (ScalarType, TileType)):
            if tile_kind(t) == "cube":
                self.lowers(spec, t, a)
            return t
        raise self.err(a, f"`{expr_text(a)}` is a {kind_text(t)}, not an operand of `{spec.name}`",
                       "operands are scalars and tiles" + ("; a range's fields are c.start, c.len"
                                                           if isinstance(t, RangeType) else ""), rule="ops.lowered")

    def lowers(self, spec, t, node: Expr) -> None:
        """Refuse `node` (an operand of `spec`, or the call) when its tile kind is not one the op's
        category is lowered for (ops.LOWERED: the one place that says so)."""
        kinds = LOWERED.get(spec.category, frozenset())
        kind = tile_kind(t)
        if kind not in kinds:
            message, help = refusal(spec, t, kind, kinds, node)
            raise self.err(node, message, help, rule="ops.lowered")

    def need_dtype(self, e: Call, spec, dtype: DType):
        if dtype not in spec.dtypes:
            ok = ", ".join(sorted(d.value for d in spec.dtypes))
            target = "f32" if dtype.is_float or DType.f32 in spec.dtypes else sorted(d.value for d in spec.dtypes)[0]
            raise self.err(e, f"`{spec.name}` does not support {dtype.value} tiles on the vector unit "
                           f"(supported: {ok})",
                           f"cast first: `cast(x, {target})`", rule="ops.lowered")

    def tile_scalar(self, tile: TileType, s: ScalarType, node: Expr, op: str):
        if s.dtype is DType.bool or tile.dtype is DType.bool:
            raise self.err(node, f"`{op}` on bool values",
                           "bool tiles are masks for where(); compare or select instead", rule="ops.scalars")
        if tile.dtype.is_int and s.dtype.is_float:
            raise self.err(node, f"mixing a {s.dtype.value} scalar with a {tile.dtype.value} tile in `{op}`",
                           "cast one side: `cast(tile, f32)` or an integer scalar", rule="ops.dtypes")

    def broadcast(self, e: Call, tiles: list[TileType], mask: TileType | None = None) -> tuple[Expr, ...]:
        """The shape of an elementwise op's result by NumPy's broadcasting rules (axes aligned at
        the end, a size-1 or missing axis stretched); a where() mask is not stretched."""
        shape = tiles[0].shape
        for t in tiles[1:]:
            out = broadcast_shape(shape, t.shape)
            if out is None:
                a = " x ".join(expr_text(d) for d in shape)
                b = " x ".join(expr_text(d) for d in t.shape)
                raise self.err(e, f"tile shapes [{a}] and [{b}] do not broadcast in `{e.op}` (NumPy rules: the "
                               "last axes align, and each pair of sizes is equal or one of them is 1)",
                               "combine tiles loaded with the same ranges; keep a reduced axis with "
                               "reduce_max(x, axis=-1, keepdim=True), or load per-row values as `s[c, None]`",
                               rule="ops.broadcast")
            shape = out
        if mask is not None and broadcasts(mask.shape, shape):
            raise self.err(e.args[0], "where() stretches its mask: a bool mask has the shape of the result",
                           "compare at the result's shape (the comparison itself broadcasts: `xu > mu`)",
                           rule="ops.broadcast")
        return shape

    def is_byte_mask(self, e: Expr) -> bool:
        """A bool tile of one byte per element (loaded, or made by cast()), which Select cannot read as it is."""
        return is_byte_mask(e, self._byte_masks())

    def _call_type(self, e: Call, spec, args):
        """The call's type by its category's rule (typerules.TYPE_RULES), at a tile kind its category
        is lowered for (ops.LOWERED)."""
        if spec.category not in LOWERED:
            self.lowers(spec, e.type, e)
        rule = TYPE_RULES.get(spec.category)
        if rule is None:
            raise self.err(e, f"no typing rule for `{spec.name}`",
                           f"give category `{spec.category}` its typing rule (dsl/typerules.py TYPE_RULES)",
                           rule="ops.known")
        t = rule(self, e, spec, args)
        self.lowers(spec, principal(replace(e, type=t)), e)
        return t

    def _check_units(self, body) -> None:
        """The cube and the vector unit are separate cores (Atlas A2: AIC and AIV); between two
        sync_all()s a kernel uses one of them (scalars are on both)."""
        phase: dict[str, Span] = {}

        def visit(stmts):
            for s in stmts:
                if isinstance(s, SyncAll):
                    phase.clear()
                    continue
                unit = cube.unit_of(s)
                if unit is not None:
                    phase.setdefault(unit, s.span)
                    if len(phase) == 2:
                        other = "vector" if unit == "cube" else "cube"
                        raise self.err(s.span, f"this uses the {unit} unit, and line {phase[other].line} the "
                                       f"{other} unit, between the same sync_all()s; on Atlas A2 they are separate "
                                       "cores (AIC and AIV)",
                                       "store the cube's result to a Workspace, then `sync_all()`, then load it "
                                       "into UB for the vector work (or the other way round)", rule="cube.units")
                if isinstance(s, (For, Stage)):
                    visit(s.body)
                elif isinstance(s, If):
                    visit(s.body)
                    visit(s.orelse)
        visit(body)

    # -- capacities and the plan -------------------------------------------------------------
    def _cap_expr(self, e: Expr) -> Expr | None:
        """`e` with range lengths replaced by their static bounds; None if it depends on the loop.
        An expression of local scalars is bounded through their definitions (`_bound`)."""
        if any(isinstance(x, Name) and (sym := self.lookup(x.id)) is not None and sym.kind == "local"
               for x in walk_exprs(e)):
            return self._bound(e, True)
        if isinstance(e, Attr):
            sym = self.lookup(e.obj.id)
            if sym is None:
                return None
            if sym.kind == "tiling":
                return strip(e)
            if isinstance(sym.type, RangeType) and e.attr == "len":
                return sym.cap
            return None
        if isinstance(e, Name):
            sym = self.lookup(e.id)
            return strip(e) if sym is not None and sym.kind in ("dim", "param") else None
        if isinstance(e, Const):
            return strip(e)
        if isinstance(e, Call):
            parts = [self._cap_expr(a) for a in e.args]
            if any(p is None for p in parts):
                return None
            return Call(e.op, tuple(parts))
        return None

    def _bound(self, e: Expr, upper: bool, depth: int = 0) -> Expr | None:
        """A static upper (or lower) bound of the integer expression `e`, by interval arithmetic over
        the definitions of the local scalars it reads (each assigned once in the kernel): a window's
        rows inside the input, `min(k, H - h0) - max(0, -h0)`, are at most k. None: no bound."""
        if depth > 32:
            return None
        if isinstance(e, Const):
            return strip(e)
        if isinstance(e, Name):
            sym = self.lookup(e.id)
            if sym is not None and sym.kind in ("dim", "param"):
                return strip(e)
            if sym is not None and sym.kind == "local" and e.id in self.defs:
                return self._bound(self.defs[e.id], upper, depth + 1)
            return None
        if isinstance(e, Attr):
            sym = self.lookup(e.obj.id) if isinstance(e.obj, Name) else None
            if sym is not None and sym.kind == "tiling":
                return strip(e)
            if sym is not None and isinstance(sym.type, RangeType) and e.attr == "len":
                return sym.cap if upper else Const(0, "int")
            return None
        if not isinstance(e, Call):
            return None
        args = e.args
        if e.op in ("add", "sub", "neg"):
            flips = {"add": (False, False), "sub": (False, True), "neg": (True,)}[e.op]
            parts = [self._bound(a, upper != flip, depth + 1) for a, flip in zip(args, flips)]
            if any(p is None for p in parts):
                return None
            if e.op != "neg" and parts[1] == Const(0, "int"):
                return parts[0]                    # min(k, ...) - max(0, ...) <= k - 0 = k
            return _folded(e.op, parts)
        if e.op in ("min", "max"):
            parts = [self._bound(a, upper, depth + 1) for a in args]
            known = [p for p in parts if p is not None]
            if (e.op == "min") == upper:       # min(a, b) <= a: one known side bounds it
                return None if not known else known[0] if len(known) == 1 else _folded(e.op, known)
            return None if len(known) < len(parts) else _folded(e.op, parts)
        if e.op == "floordiv" and len(args) == 2 and self._size(args[1]) and args[1] != Const(0, "int"):
            b = self._bound(args[0], upper, depth + 1)     # rows of a stepped slice: (span + s - 1) // s
            return None if b is None else _folded("floordiv", [b, strip(args[1])])
        if e.op == "mul" and len(args) == 2:
            for c, other in (args, args[::-1]):
                if self._size(c):          # a rows x pitch footprint: the pitch is a size
                    b = self._bound(other, upper, depth + 1)
                    return None if b is None else _folded("mul", [strip(c), b])
        return None

    def _size(self, e: Expr) -> bool:
        """`e` is static and at least 0: constants, dims, tiling fields, and + * // align_up of them."""
        if isinstance(e, Const):
            return e.kind == "int" and int(e.value) >= 0
        if isinstance(e, Name):
            sym = self.lookup(e.id)
            return sym is not None and sym.kind == "dim"
        if isinstance(e, Attr):
            sym = self.lookup(e.obj.id) if isinstance(e.obj, Name) else None
            return sym is not None and sym.kind == "tiling"
        return isinstance(e, Call) and e.op in ("add", "mul", "floordiv", "align_up", "cdiv", "min", "max") and \
            all(self._size(a) for a in e.args)

    def _cap_shape(self, t) -> Expr | None:
        """Elements the tile takes in UB at most (rows x pitch, see tiles.py), from static bounds."""
        if not isinstance(t, TileType):
            return None
        return self._cap_expr(footprint(t))

    def _plan(self, body) -> UbPlan:
        once = loaded_once(stage_groups(body), set(self.tiles))
        by_l0 = {op.l0: op for op in self.operands.values()}
        masks = byte_masks(body, {n for n, i in self.tiles.items() if i.origin == "load" and i.dtype is DType.bool})
        compare = compares(body, masks)
        calc = {name: tuple(c for _, c in info.sites) for name, info in self.tiles.items()
                if info.origin == "compute" and info.level is Level.UB and StageKind.copyout not in info.used_in}
        padded = padded_rows(body, calc, compare, {n for n, _ in self.kinds.items()} - set(self.tiles))
        in_place = frozenset(n for n, _ in padded)
        scratch = self.scratch
        if in_place:       # the window ops reading a padded tile in place need no copy of it
            scratch = [replace(need, tiles=statement_slots(need.stmt, need.dtype, masks, in_place),
                               sizes=stmt_tile_sizes(need.stmt, self._cap_shape, in_place)) for need in scratch]
            scratch = [need for need in scratch if need.tiles]
        buffers = []
        for name, info in self.tiles.items():
            caps = tuple(c for _, c in info.sites)
            if info.level is Level.L1:
                op = self.operands[name]
                role, caps = op.l1_role, self._padded(info, op.l1_units)
            elif info.level in (Level.L0A, Level.L0B):
                op = by_l0[name]
                role, caps = ("A2" if info.level is Level.L0A else "B2"), self._padded(info, op.l0_units)
            elif info.level is Level.L0C:
                role, caps = "CO1", self._padded(info, cube.l0c_units())
            elif info.origin == "load":
                role = "VECIN"
            elif StageKind.copyout in info.used_in:
                role = "VECOUT"
            else:
                role = "VECCALC"
            window = next((call for n, call in padded if n == name), None)
            if window is not None:         # the padding around the row lives in the tile's buffer
                caps = (self._cap_shape(TileType(info.dtype, (padded_len(window),))),)
            buffers.append(UbBuffer(name, info.dtype, info.level, role, caps,
                                    info.defined_in, frozenset(info.used_in), tuple(s for s, _ in info.sites),
                                    once=role == "VECIN" and name in once, rows=tuple(info.rows)))
        return UbPlan(tuple(buffers), tuple(scratch), sync_all=syncs_all(self.p), staging=needs_staging(body),
                      scalar_outs=scalar_outputs(body), compare=compare, padded=padded,
                      operands=tuple(self.operands.values()))

    @staticmethod
    def _padded(info: _TileInfo, units: tuple[int, ...]) -> tuple:
        """Each site's elements at a cube level: its shape rounded up to whole fractals."""
        return tuple(None if any(d is None for d in dims) else cube.padded_elems(dims, units) for dims in info.dims)


# ----------------------------------------------------------------------------- type helpers


def _linear(e: Expr) -> dict | None:
    """e as {term: integer coefficient} over + - (term None: the constant; a product or another
    integer call is one term)."""
    if isinstance(e, Const) and e.kind == "int":
        return {None: int(e.value)}
    if isinstance(e, (Name, Attr)):
        return {strip(e): 1}
    if isinstance(e, Call) and e.op in ("add", "sub") and len(e.args) == 2:
        a, b = _linear(e.args[0]), _linear(e.args[1])
        if a is None or b is None:
            return None
        sign = 1 if e.op == "add" else -1
        out = dict(a)
        for k, v in b.items():
            out[k] = out.get(k, 0) + sign * v
        return {k: v for k, v in out.items() if v}
    if isinstance(e, Call) and e.op == "neg":
        a = _linear(e.args[0])
        return None if a is None else {k: -v for k, v in a.items()}
    if isinstance(e, Call) and e.op in ("mul", "floordiv", "mod", "min", "max"):
        return {strip(e): 1}        # an opaque term: `c.start * k + c.len * k - c.start * k` is `c.len * k`
    return None


def _folded(op: str, parts) -> Expr:
    """Call(op, parts), computed when every part is an integer constant."""
    if all(isinstance(p, Const) and p.kind == "int" for p in parts) and not (op == "floordiv" and parts[1].value == 0):
        return Const(SCALAR_MATH[op](*(int(p.value) for p in parts)), "int")
    return Call(op, tuple(parts))


def _single_defs(body) -> dict[str, Expr]:
    """Names assigned exactly once in the kernel body -> their value expression."""
    seen: dict[str, list[Expr]] = {}
    for st, _ in walk_stmts(body):
        if isinstance(st, Assign):
            seen.setdefault(st.target, []).append(st.value)
    return {name: values[0] for name, values in seen.items() if len(values) == 1}


def _difference(hi: Expr, lo: Expr) -> Expr:
    """hi - lo, simplified when it is a single term or a constant (a mirrored slice
    `x[N - c.start - c.len : N - c.start]` is `c.len` long, which bounds its tile)."""
    d = _linear(Call("sub", (hi, lo)))
    if d is not None:
        if not d:
            return Const(0, "int")
        if len(d) == 1:
            (k, v), = d.items()
            if k is None:
                return Const(v, "int")
            if v == 1:
                return k
        if all(k is not None and v in (1, -1) for k, v in d.items()):
            # `(h0 + j1) - (h0 + j0)` is `j1 - j0`: the common start cancels
            plus = [k for k, v in d.items() if v == 1]
            minus = [k for k, v in d.items() if v == -1]
            if plus:
                out = plus[0]
                for k in plus[1:]:
                    out = Call("add", (out, k))
                for k in minus:
                    out = Call("sub", (out, k))
                return out
    return Call("sub", (hi, lo))


def _kind_key(t):
    if isinstance(t, ScalarType):
        return ("scalar", t.dtype)
    if isinstance(t, TileType):
        return ("tile", t.dtype, t.level)
    return (type(t).__name__,)


__all__ = ["verify", "check_launch"]
