"""The verifier of programs of kernels (the meaning of a @program; program.py owns its syntax).

`verify_multi` enforces PROGRAM_RULES (rendered into docs/dsl-reference.md), each a DslError at
its line and column that says what would be right. With concrete shapes (`bind_launches`), each
launch's kernel is verified for its shapes too (launch and UB budget).
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, replace
from typing import Iterator, Mapping

from .errors import DslError, Span
from .host import HostEvaluator, bind_dims
from .ir import (ArgView, Call, Expr, For, LaunchStmt, MultiProgram, Name, Pack, Program, ScalarParam, TensorParam,
                 TensorRole, TilingParam, launches, map_exprs, walk_exprs)
from .printer import expr_text
from .program import arg_text
from .verifier import verify

_WRITABLE = (TensorRole.output, TensorRole.workspace)

# What verify_multi checks, in the words the DSL reference gives them (one line each).
PROGRAM_RULES = (
    "every kernel is a valid kernel on its own (the one-kernel rules above); no dim packs, no type variables",
    "a launch names a @kernel of the file and passes one argument per parameter, in order, its Tiling and its "
    "own Workspaces left out",
    "a tensor parameter takes a tensor of the program (or a view of one), a scalar parameter a number, a "
    "program scalar or a dim (not a loop variable: it is fixed for the launch)",
    "an argument has the parameter's dtype and its number of dims; a kernel's dim names bind to the dims of "
    "the first argument that has them and must agree in every later argument",
    "an Out parameter writes into an Out or a Workspace of the program, never into an input or a Param",
    "in program order, an intermediate or output is read only after a launch wrote it, or inside a host loop "
    "that writes it (its first step reads zeros: recurrent state); reading what a later launch writes is an "
    "error, a cycle when that launch needs what this one writes",
    "every kernel is launched, every Out written, every Workspace written and read",
    "an index `x[i]` stays within its axis and a view `x.view(...)` keeps the number of elements "
    "(checked for the reference's shapes)",
)


def launch_params(kernel: Program) -> list:
    """A kernel's parameters a launch passes, in order: all but its Tiling and its own Workspaces."""
    return [p for p in kernel.kernel.params if not isinstance(p, TilingParam)
            and not (isinstance(p, TensorParam) and p.role is TensorRole.workspace)]


def verify_multi(mp: MultiProgram, soc=None) -> MultiProgram:
    """The program with every kernel verified (typed); raises DslError at the first wrong line."""
    kernels = tuple(_verify_kernel(k, soc) for k in mp.kernels)
    typed = replace(mp, kernels=kernels)
    _Check(typed).run()
    return typed


def _verify_kernel(k: Program, soc) -> Program:
    pack = next((d for p in k.tensors() for d in p.dims if isinstance(d, Pack)), None)
    if pack is not None:
        raise DslError(f"kernel `{k.kernel.name}` declares the dim pack `*{pack.id}`; a program binds plain dims",
                       pack.span, "declare each dim by name", k.path, k.source)
    return verify(k, soc)


@dataclass
class _Flow:
    """What the launches so far wrote (tensor -> the launch that first wrote it)."""

    written: dict
    read: set
    carried: set          # tensors written somewhere in an enclosing host loop


class _Check:
    def __init__(self, mp: MultiProgram):
        self.mp = mp
        self.params = {p.name: p for p in mp.main.params}
        self.launched: set[str] = set()

    def err(self, where, message: str, help: str | None = None) -> DslError:
        span = where if isinstance(where, Span) else where.span
        return DslError(message, span, help, self.mp.path, self.mp.source)

    def run(self) -> None:
        flow = _Flow({}, set(), set())
        self._body(self.mp.main.body, flow, loop_vars=())
        self._leftovers(flow)

    def _body(self, body, flow: _Flow, loop_vars: tuple[str, ...]) -> None:
        for st in body:
            if isinstance(st, For):
                self._loop(st, flow, loop_vars)
            else:
                self._launch(st, flow, loop_vars)

    def _loop(self, st: For, flow: _Flow, loop_vars) -> None:
        if st.var in self.params or st.var in loop_vars:
            raise self.err(st, f"loop variable `{st.var}` is already a name of the program", "rename it, e.g. `s`")
        for e in (st.iter.start, st.iter.stop, st.iter.step):
            self._names(e, loop_vars, "a host loop's bounds")
        writes = {a.tensor for s, _ in launches(st.body) for a, p in self._pairs(s) if _writes(p)}
        inner = _Flow(flow.written, flow.read, flow.carried | writes)
        self._body(st.body, inner, loop_vars + (st.var,))

    # -- one launch --------------------------------------------------------------------------
    def _launch(self, st: LaunchStmt, flow: _Flow, loop_vars) -> None:
        kernel = self._kernel(st)
        self.launched.add(kernel.kernel.name)
        dims: dict[str, str] = {}
        for arg, p in self._pairs(st):
            if isinstance(p, ScalarParam):
                self._scalar_arg(st, arg, p)
                continue
            if not isinstance(arg, ArgView):
                raise self.err(arg, f"`{p.name}` of `{st.kernel}` is a tensor: pass a tensor of the program",
                               f"pass one of {', '.join(self._tensors())}")
            self._tensor_arg(st, arg, p, loop_vars, dims)
        for arg, p in self._pairs(st):
            if isinstance(arg, ArgView) and not _writes(p):
                self._read(st, arg, flow)
        for arg, p in self._pairs(st):
            if isinstance(arg, ArgView) and _writes(p):
                flow.written.setdefault(arg.tensor, st)

    def _kernel(self, st: LaunchStmt) -> Program:
        k = self.mp.kernel(st.kernel)
        if k is None:
            names = [x.kernel.name for x in self.mp.kernels]
            close = difflib.get_close_matches(st.kernel, names, 1)
            raise self.err(st, f"`{st.kernel}` is not a kernel of this file",
                           f"did you mean `{close[0]}`?" if close else f"launch one of {', '.join(names)}")
        want = launch_params(k)
        if len(st.args) != len(want):
            sig = ", ".join(p.name for p in want)
            raise self.err(st, f"`{st.kernel}` takes {len(want)} arguments ({sig}) but this launch passes "
                           f"{len(st.args)}", f"pass one argument per parameter: {st.kernel}({sig})")
        return k

    def _pairs(self, st: LaunchStmt):
        k = self.mp.kernel(st.kernel)
        return list(zip(st.args, launch_params(k))) if k is not None else []

    def _tensors(self) -> list[str]:
        return [n for n, p in self.params.items() if isinstance(p, TensorParam)]

    def _scalar_arg(self, st: LaunchStmt, arg, p: ScalarParam) -> None:
        if isinstance(arg, ArgView):
            raise self.err(arg, f"`{p.name}` of `{st.kernel}` is a {p.dtype.value} scalar, not a tensor",
                           "pass a number, a scalar of the program or a dim")
        self._names(arg, (), f"`{p.name}` (scalar arguments do not change within a launch's loop)")

    def _names(self, e: Expr, loop_vars, what: str) -> None:
        dims = set(self.mp.interface.dim_names())
        known = dims | {n for n, p in self.params.items() if isinstance(p, ScalarParam)} | set(loop_vars)
        for n in walk_exprs(e):
            if isinstance(n, Name) and n.id not in known:
                raise self.err(n, f"`{n.id}` has no value in {what}",
                               f"use the program's dims and scalars ({', '.join(sorted(known)) or 'none'}) "
                               "and enclosing loop variables")
            if isinstance(n, Call) and n.op not in ("add", "sub", "mul", "floordiv", "mod", "min", "max"):
                raise self.err(n, f"`{n.op}` is not an index operation", "use + - * // % min max")

    def _tensor_arg(self, st: LaunchStmt, arg: ArgView, p: TensorParam, loop_vars, dims: dict) -> None:
        t = self.params.get(arg.tensor)
        if not isinstance(t, TensorParam):
            raise self.err(arg, f"`{arg.tensor}` is not a tensor of the program",
                           f"pass one of {', '.join(self._tensors())}")
        if len(arg.index) > t.rank:
            raise self.err(arg, f"`{arg.tensor}` has {t.rank} axes; `{len(arg.index)}` indices drop more",
                           f"index at most {t.rank} leading axes")
        for i in arg.index:
            self._names(i, loop_vars, f"the index of `{arg.tensor}`")
        for d in arg.view or ():
            self._names(d, (), f"the view of `{arg.tensor}`")
        if t.dtype is not p.dtype:
            raise self.err(arg, f"`{arg.tensor}` is {t.dtype.value} but `{st.kernel}` takes `{p.name}` as "
                           f"{p.dtype.value}", f"pass a {p.dtype.value} tensor, or declare `{p.name}` "
                           f"{t.dtype.value} in the kernel")
        if _writes(p) and t.role not in _WRITABLE:
            raise self.err(arg, f"`{st.kernel}` writes its output `{p.name}` into `{arg.tensor}`, a reference "
                           f"{'input' if t.role is TensorRole.input else 'parameter'}",
                           "pass an Out or a Workspace (intermediate) of the program")
        self._unify(st, arg, p, arg_dims(t, arg), dims)

    def _unify(self, st, arg: ArgView, p: TensorParam, shape: tuple[Expr, ...], dims: dict) -> None:
        want = p.dims
        if len(shape) != len(want):
            raise self.err(arg, f"`{p.name}` of `{st.kernel}` has {len(want)} dims but `{_arg_name(arg)}` has "
                           f"{len(shape)}: ({', '.join(expr_text(d) for d in shape)})",
                           f"pass a view with {len(want)} dims: index leading axes (x[s]) or reshape (x.view(...))")
        for d, got in zip(want, shape):
            text = expr_text(got)
            if isinstance(d, Name) and d.id not in dims:
                dims[d.id] = text
                continue
            expect = dims[d.id] if isinstance(d, Name) else _subst(d, dims)
            if expect is not None and expect != text:
                raise self.err(arg, f"dim `{expr_text(d)}` of `{st.kernel}` is `{expect}` from an earlier argument "
                               f"but `{_arg_name(arg)}` gives `{text}`",
                               f"pass tensors whose dims agree, as `{st.kernel}`'s declaration says")

    # -- data flow ----------------------------------------------------------------------------
    def _read(self, st: LaunchStmt, arg: ArgView, flow: _Flow) -> None:
        t = self.params[arg.tensor]
        flow.read.add(arg.tensor)
        if t.role not in _WRITABLE or arg.tensor in flow.written or arg.tensor in flow.carried:
            return
        later = self._later_writer(st, arg.tensor)
        if later is None:
            raise self.err(arg, f"`{st.kernel}` reads `{arg.tensor}`, which no launch writes",
                           f"launch a kernel that writes `{arg.tensor}` before this one")
        mine = {a.tensor for a, p in self._pairs(st) if isinstance(a, ArgView) and _writes(p)}
        needs = {a.tensor for a, p in self._pairs(later) if isinstance(a, ArgView) and not _writes(p)}
        if mine & needs:
            raise self.err(arg, f"a cycle: `{st.kernel}` reads `{arg.tensor}`, which `{later.kernel}` (line "
                           f"{later.span.line}) writes from `{sorted(mine & needs)[0]}`, which `{st.kernel}` writes",
                           "break the cycle: in a host loop the first step reads an intermediate's zeros")
        raise self.err(arg, f"`{st.kernel}` reads `{arg.tensor}` before `{later.kernel}` (line {later.span.line}) "
                       "writes it", f"launch `{later.kernel}` first")

    def _later_writer(self, st: LaunchStmt, tensor: str) -> LaunchStmt | None:
        seen = False
        for s, _ in launches(self.mp.main.body):
            if s is st:
                seen = True
            elif seen and any(isinstance(a, ArgView) and a.tensor == tensor and _writes(p) for a, p in self._pairs(s)):
                return s
        return None

    def _leftovers(self, flow: _Flow) -> None:
        for k in self.mp.kernels:
            if k.kernel.name not in self.launched:
                raise self.err(k.kernel, f"kernel `{k.kernel.name}` is never launched by `{self.mp.name}`",
                               "launch it in the @program, or delete it")
        for name, t in self.params.items():
            if not isinstance(t, TensorParam):
                continue
            if t.role is TensorRole.output and name not in flow.written:
                raise self.err(t, f"output `{name}` is never written", "pass it to a kernel's Out parameter")
            if t.role is TensorRole.workspace and name not in flow.written:
                raise self.err(t, f"intermediate `{name}` is never written", "pass it to a kernel's Out parameter, "
                               "or remove it")
            if t.role is TensorRole.workspace and name not in flow.read:
                raise self.err(t, f"intermediate `{name}` is written but never read",
                               "pass it to a later kernel, or make it an Out if the reference returns it")


def _writes(p) -> bool:
    return isinstance(p, TensorParam) and p.role is TensorRole.output


def _arg_name(arg: ArgView) -> str:
    return arg_text(arg)


def arg_dims(t: TensorParam, arg: ArgView) -> tuple[Expr, ...]:
    """The dims of a launch argument: the tensor's, without the indexed leading axes, or its view's."""
    return arg.view if arg.view is not None else t.dims[len(arg.index):]


def _subst(d: Expr, dims: Mapping[str, str]) -> str | None:
    """A kernel's dim expression in the program's dims, as text (None when a name is unbound)."""
    if any(isinstance(n, Name) and n.id not in dims for n in walk_exprs(d)):
        return None

    def text(name: str) -> str:
        return name if name.isidentifier() or name.isdigit() else f"({name})"
    return expr_text(map_exprs(d, lambda e: Name(text(dims[e.id])) if isinstance(e, Name) else e))


# ----------------------------------------------------------------------------- concrete shapes


@dataclass(frozen=True)
class BoundLaunch:
    """One launch for concrete shapes: the kernel verified for them and its arguments' shapes."""

    stmt: LaunchStmt
    kernel: Program                       # verified with these shapes (launch and UB budget checked)
    shapes: dict                          # kernel tensor param -> shape
    scalars: dict                         # kernel scalar param -> value


def program_env(mp: MultiProgram, shapes: Mapping[str, tuple[int, ...]], scalars: Mapping) -> dict:
    """The program's dims and scalars for the reference's shapes."""
    env = dict(bind_dims(mp.interface, shapes))
    env.update(scalars)
    return env


def bind_launches(mp: MultiProgram, shapes: Mapping[str, tuple[int, ...]], scalars: Mapping,
                  soc) -> dict[int, BoundLaunch]:
    """Every launch (by its line) verified for the program's concrete shapes; a kernel's launch or UB
    budget that fails for them is a DslError at the launch's line that quotes the kernel's message."""
    env = program_env(mp, shapes, scalars)
    out: dict[int, BoundLaunch] = {}
    cache: dict = {}
    for st, _ in launches(mp.main.body):
        k = mp.kernel(st.kernel)
        kshapes, kscalars = launch_shapes(mp, st, env, soc)
        key = (st.kernel, tuple(sorted(kshapes.items())), tuple(sorted(kscalars.items())))
        if key not in cache:
            try:
                cache[key] = verify(k, soc, shapes=kshapes, scalars=kscalars)
            except DslError as e:
                raise DslError(f"launch of `{st.kernel}` for shapes {kshapes}: {e.message} (kernel line "
                               f"{e.span.line if e.span else '?'})", st.span, e.help, mp.path, mp.source) from None
        out[id(st)] = BoundLaunch(st, cache[key], kshapes, kscalars)
    for st, loops in schedule(mp, env):        # every index of every step within its axis
        for arg in st.args:
            if isinstance(arg, ArgView) and arg.index:
                index_values(mp, arg, env, loops)
    return out


def launch_shapes(mp: MultiProgram, st: LaunchStmt, env: Mapping, soc) -> tuple[dict, dict]:
    """(kernel tensor param -> concrete shape, kernel scalar param -> value) of one launch."""
    ev = HostEvaluator(soc, env, mp.path, mp.source)
    shapes, scalars = {}, {}
    for arg, p in zip(st.args, launch_params(mp.kernel(st.kernel))):
        if isinstance(p, ScalarParam):
            scalars[p.name] = ev.eval(arg)
            continue
        t = mp.tensor(arg.tensor)
        full = [int(ev.eval(d)) for d in t.dims[len(arg.index):]]
        if arg.view is not None:
            view = [int(ev.eval(d)) for d in arg.view]
            if _count(view) != _count(full):
                raise DslError(f"`{_arg_name(arg)}` has {_count(view)} elements but `{arg.tensor}` "
                               f"{'without its indexed axes ' if arg.index else ''}has {_count(full)}", arg.span,
                               "a view keeps the number of elements", mp.path, mp.source)
            full = view
        shapes[p.name] = tuple(full)
    return shapes, scalars


def _count(shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def schedule(mp: MultiProgram, env: Mapping) -> Iterator[tuple[LaunchStmt, dict[str, int]]]:
    """Every launch in the order the host runs them, with the loop variables' values: the one
    meaning of a program's order (the interpreter and the emulator both walk it)."""
    soc_free = HostEvaluator(None, env, mp.path, mp.source)

    def go(body, loops: dict):
        for st in body:
            if isinstance(st, For):
                ev = HostEvaluator(soc_free.soc, {**env, **loops}, mp.path, mp.source)
                start, stop, step = (int(ev.eval(e)) for e in (st.iter.start, st.iter.stop, st.iter.step))
                if step <= 0:
                    raise DslError("a host loop's step must be positive", st.iter.span, "write range(start, stop)",
                                   mp.path, mp.source)
                for v in range(start, stop, step):
                    yield from go(st.body, {**loops, st.var: v})
            else:
                yield st, loops
    yield from go(mp.main.body, {})


def index_values(mp: MultiProgram, arg: ArgView, env: Mapping, loops: Mapping) -> tuple[int, ...]:
    """The concrete leading indices of a view (checked against the tensor's dims)."""
    ev = HostEvaluator(None, {**env, **loops}, mp.path, mp.source)
    t = mp.tensor(arg.tensor)
    out = []
    for i, e in enumerate(arg.index):
        v, n = int(ev.eval(e)), int(ev.eval(t.dims[i]))
        if not 0 <= v < n:
            raise DslError(f"`{expr_text(e)}` is {v} here, outside axis {i} of `{arg.tensor}` (size {n})", e.span,
                           "keep the index within the axis", mp.path, mp.source)
        out.append(v)
    return tuple(out)


__all__ = ["verify_multi", "launch_params", "bind_launches", "launch_shapes", "schedule", "index_values",
           "program_env", "BoundLaunch", "arg_dims"]
