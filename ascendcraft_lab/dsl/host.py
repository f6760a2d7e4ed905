"""The host side of the DSL: SoC constants, host builtins (`cdiv`, `ub_elems`, ...) and
`evaluate_host`, which runs the `@host` tiling function on concrete shapes.

The host function is evaluated by this module's small evaluator (never `exec`): Python ints and
floats computed by `ops.SCALAR_MATH`, with a size guard so a hostile draft cannot build huge numbers.
"""
from __future__ import annotations

import math
from typing import Callable, Mapping

from ..soc import Soc, get_soc
from .cube import uses_cube
from .errors import DslError
from .ir import (Attr, Call, Const, DType, DTypeRef, Expr, Name, Pack, Program, ScalarParam, SyncAll, TensorParam,
                 walk_exprs, walk_stmts)
from .ops import HOST_BUILTINS, HOST_FITS, SCALAR_MATH
from .printer import expr_text

# SoC constants a host function may read, each with its doc (rendered into the reference).
SOC_CONSTANTS: dict[str, tuple[Callable[[Soc], int], str]] = {
    "VECTOR_CORES": (lambda s: s.vector_cores, "vector (AIV) cores of the SoC"),
    "CUBE_CORES": (lambda s: s.cube_cores, "cube (AIC) cores of the SoC"),
    "UB_BYTES": (lambda s: s.ub_for_tiles, "Unified Buffer bytes per vector core for the kernel's tiles (physical "
                 "minus the runtime's reserve and 1 KiB the lowering keeps for its staging buffers)"),
    "L1_BYTES": (lambda s: s.l1_bytes, "L1 buffer bytes"),
    "L0A_BYTES": (lambda s: s.l0a_bytes, "L0A bytes"),
    "L0B_BYTES": (lambda s: s.l0b_bytes, "L0B bytes"),
    "L0C_BYTES": (lambda s: s.l0c_bytes, "L0C bytes"),
    "BLOCK_BYTES": (lambda s: s.block_bytes, "alignment unit of UB addresses and DataCopy lengths (32)"),
    "REPEAT_BYTES": (lambda s: s.repeat_bytes, "bytes one vector repeat processes (256)"),
}



# Arithmetic a host expression may use (ops-table names).
HOST_OPS = ("add", "sub", "mul", "div", "floordiv", "mod", "neg")

_LIMIT = 1 << 62


# AscendC SyncAll, soft form (the one a kernel-launch project may use): per core of the launch it
# needs 32 bytes of GM flags, zero before the launch, and 32 bytes of UB work area.
SYNC_ALL_BYTES_PER_CORE = 32


def syncs_all(program: Program) -> bool:
    """The kernel calls sync_all(), which the lowering turns into SyncAll's soft form (with its
    GM flags and UB work area). In a kernel that uses the cube, sync_all() hands over between the
    cube and the vector cores by cross-core flags instead, which take no memory."""
    return any(isinstance(s, SyncAll) for s, _ in walk_stmts(program.kernel.body)) and not uses_cube(program)


def sync_all_ub_bytes(soc: Soc) -> int:
    """UB that SyncAll's work area takes in a kernel that syncs: 32 bytes for each core of the
    widest launch that may sync (one block per vector core; a wider launch hangs on SyncAll)."""
    return soc.vector_cores * SYNC_ALL_BYTES_PER_CORE


def needs_workspace(program: Program) -> bool:
    """The launch's `workspace` argument carries something: Workspace tensors, or SyncAll's flags."""
    return bool(program.workspaces) or syncs_all(program)


def ub_elems(soc: Soc, dtype: DType, live: int = 1, buffers: int = 2, reserve: int = 0) -> int:
    """Largest tile so that `live * buffers` tiles fit the usable UB less `reserve` bytes (SyncAll's
    work area in a kernel that syncs), in whole 256-byte repeats."""
    if live < 1 or buffers < 1:
        raise ValueError("ub_elems needs live >= 1 and buffers >= 1")
    elems = (soc.ub_for_tiles - reserve) // (live * buffers * dtype.nbytes)
    # Whole 256-byte vector repeats (so also whole 32-byte blocks): a full tile needs no
    # padding for copies, and none for Compare, which works on whole repeats.
    per_repeat = max(soc.repeat_bytes // dtype.nbytes, 1)
    return elems // per_repeat * per_repeat


class HostEvaluator:
    """Evaluates host (and other static) expressions over a name -> number environment."""

    def __init__(self, soc: Soc, env: Mapping[str, int | float], path: str = "<dsl>", source: str = "",
                 ub_reserve: int = 0, fit: int | None = None):
        self.soc = soc
        self.env = dict(env)
        self.path, self.source = path, source
        self.ub_reserve = ub_reserve      # UB bytes ub_elems leaves out (SyncAll's work area)
        self.fit = fit                    # what fit_tile / fit_rows give while the plan is probed

    def fail(self, node, msg, help=None) -> DslError:
        return DslError(msg, node.span, help, self.path, self.source, rule="host.expressions")

    def eval(self, e: Expr):
        v = self._eval(e)
        if isinstance(v, int) and not isinstance(v, bool) and abs(v) > _LIMIT:
            raise self.fail(e, f"host value {v} is too large", "keep tiling values within 64-bit integers")
        if isinstance(v, float) and math.isnan(v):
            raise self.fail(e, "host expression is not a number (NaN)", "check the divisions in the tiling function")
        return v

    def _eval(self, e: Expr):
        if isinstance(e, Const):
            return e.value
        if isinstance(e, Name):
            if e.id in self.env:
                return self.env[e.id]
            if e.id in SOC_CONSTANTS:
                return SOC_CONSTANTS[e.id][0](self.soc)
            raise self.fail(e, f"`{e.id}` has no value here", "use a dim of a declared tensor, a scalar param, "
                            "an earlier host variable or a SoC constant such as VECTOR_CORES")
        if isinstance(e, Attr):
            key = f"{e.obj.id}.{e.attr}"
            if key in self.env:
                return self.env[key]
            raise self.fail(e, f"`{key}` has no value here", "only tiling fields and dims are known before launch")
        if isinstance(e, DTypeRef):
            return e.dtype
        if isinstance(e, Call):
            args = [self.eval(a) for a in e.args]
            return self._call(e, args)
        raise self.fail(e, "this expression cannot be evaluated on the host", None)

    def _call(self, e: Call, a):
        op = e.op
        if op in HOST_FITS:
            if self.fit is None:     # the verifier replaces them by the ub_elems the plan solves
                raise self.fail(e, f"{op}() is solved from the kernel's UB plan, which needs the verified program",
                                "verify the program (dsl.verifier.verify) before running its host function")
            return self.fit
        try:
            if op == "ub_elems":
                return ub_elems(self.soc, a[0], int(a[1]), int(a[2]), self.ub_reserve)
            if op in HOST_OPS or op in HOST_BUILTINS and op in SCALAR_MATH:
                return SCALAR_MATH[op](*a)
        except ZeroDivisionError:
            raise self.fail(e, f"division by zero in `{op}`", "guard the divisor, e.g. max(x, 1)") from None
        except OverflowError:
            raise self.fail(e, f"`{op}` overflows", "keep tiling values within 64-bit numbers") from None
        except (ValueError, TypeError) as err:
            raise self.fail(e, f"`{op}` cannot take these values: {err}", None) from None
        # Comparisons and other kernel ops have no host meaning.
        raise self.fail(e, f"`{op}` is not available in the host function",
                        "host expressions use + - * / // %, " + ", ".join(HOST_BUILTINS))


def bind_dims(program: Program, shapes: Mapping[str, tuple[int, ...]]) -> dict[str, int]:
    """Bind symbolic dims from the concrete shapes of (some of) the kernel's tensors.

    Plain-name dims bind; literal and expression dims are checked once every name is known.
    Raises DslError at the declaration when a rank or a dim disagrees.
    """
    env: dict[str, int] = {}
    scalar_names = {p.name for p in program.scalars}
    for t in program.tensors():
        if t.name not in shapes:
            continue
        shape = leading_ones(t, tuple(int(s) for s in shapes[t.name]))
        dims = t.dims
        if len(shape) != len(dims):
            raise DslError(f"`{t.name}` is declared with {len(dims)} dims {_dims_text(dims)} but the reference "
                           f"tensor has {len(shape)}: {shape}", t.span,
                           f"declare {len(shape)} dims, e.g. ({', '.join(_letters(len(shape)))})",
                           program.path, program.source)
        for d, n in zip(dims, shape):
            if isinstance(d, Name) and d.id not in scalar_names:
                if d.id in env and env[d.id] != n:
                    raise DslError(f"dim `{d.id}` of `{t.name}` is {n} but another tensor binds it to {env[d.id]}",
                                   d.span or t.span, "use different dim names for sizes that can differ",
                                   program.path, program.source)
                env[d.id] = n
    return env


def leading_ones(t: TensorParam, shape: tuple[int, ...]) -> tuple[int, ...]:
    """`shape` read with leading 1s when `t` declares more dims and every extra leading one is the
    literal 1, as PyTorch broadcasts it: a 0-d `torch.tensor(3.14)` is the one element of a (1,)
    tensor. Failing that, with trailing 1s when the extra dims are literal 1s at the end: a view
    that adds size-1 axes (`bias.view(-1, 1, 1)`, unsqueeze) moves no element, so a (C,) bias may
    be declared (C, 1) to be one value per row. Any other shape as it is (a rank mismatch stays an
    error)."""
    missing = len(t.dims) - len(shape)
    if missing <= 0 or t.packs:
        return tuple(shape)

    def ones(dims) -> bool:
        return all(isinstance(d, Const) and d.value == 1 for d in dims)
    if ones(t.dims[:missing]):
        return (1,) * missing + tuple(shape)
    if ones(t.dims[len(t.dims) - missing:]):
        return tuple(shape) + (1,) * missing
    return tuple(shape)


def fold_shape(program: Program, t: TensorParam, shape: tuple[int, ...],
               scalars: Mapping[str, int | float]) -> tuple[int, ...]:
    """A reference tensor's shape seen through the declaration's dim packs: one size per declared
    dim, a pack `*S` the product of the dims it covers (1 when it covers none).

    `*A[k]` covers k dims, k an int scalar read as PyTorch reads a `dim` (k < 0 counts from the
    end: -1 is rank - 1); the one pack without a count covers the rest. A tensor with fewer dims
    than the declaration's plain dims is read with leading 1s (a 0-d tensor is one element), as
    PyTorch broadcasts it. A declaration without packs returns `shape` as it is."""
    dims = t.dims
    shape = tuple(int(n) for n in shape)
    if not any(isinstance(d, Pack) for d in dims):
        return shape

    def fail(msg, help):
        return DslError(msg, t.span, help, program.path, program.source)

    rank = len(shape)
    counts: list[int | None] = []
    for d in dims:
        if not isinstance(d, Pack):
            counts.append(1)
        elif d.count is None:
            counts.append(None)
        else:
            k = scalars.get(d.count.id)
            if not isinstance(k, int) or isinstance(k, bool):
                raise fail(f"dim pack `*{d.id}[{d.count.id}]` of `{t.name}` needs the int `{d.count.id}`, which is "
                           f"{k!r} here", f"declare `{d.count.id}` an int scalar bound to the reference's dim argument")
            n = max(rank, 1)
            if not -n <= k < n:
                raise fail(f"`{d.count.id}` is {k}, out of range for the {rank}-d `{t.name}` {list(shape)}",
                           f"a dim of a {rank}-d tensor is in [{-n}, {n - 1}]")
            counts.append(k + n if k < 0 else k)
    if None in counts:
        free = rank - sum(c for c in counts if c is not None)
        if free < 0:            # fewer dims than the declaration needs: leading 1s
            shape = (1,) * -free + shape
            free = 0
        counts = [free if c is None else c for c in counts]
    elif sum(counts) > rank:
        shape = (1,) * (sum(counts) - rank) + shape
    elif sum(counts) < rank:
        raise fail(f"`{t.name}` has {rank} dims {list(shape)} but its declaration covers {sum(counts)}",
                   "add a pack without a count, e.g. `*S`, to take the other dims")
    out, i = [], 0
    for c in counts:
        size = 1
        for n in shape[i:i + c]:
            size *= n
        out.append(size)
        i += c
    return tuple(out)


def check_dims(program: Program, env: Mapping[str, int | float], shapes: Mapping[str, tuple[int, ...]],
               soc: Soc) -> None:
    """Check literal and expression dims against the concrete shapes."""
    ev = HostEvaluator(soc, env, program.path, program.source)
    for t in program.tensors():
        if t.name not in shapes:
            continue
        for d, n in zip(t.dims, shapes[t.name]):
            if isinstance(d, Name):
                continue
            v = ev.eval(d)
            if v != n:
                raise DslError(f"dim `{expr_text(d)}` of `{t.name}` is {v} here but the reference tensor has {n}",
                               d.span or t.span, "declare the dim with a name so it binds from the reference",
                               program.path, program.source)


def output_shape(program: Program, t: TensorParam, env: Mapping[str, int | float], soc: Soc) -> tuple[int, ...]:
    """The concrete (reference) shape of a tensor whose dims are all known from `env`."""
    ev = HostEvaluator(soc, env, program.path, program.source)
    out = []
    for d in t.dims:
        v = ev.eval(d)
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise DslError(f"dim of `{t.name}` evaluates to {v!r}, not a size", d.span or t.span,
                           "dims are non-negative integers", program.path, program.source)
        out.append(v)
    return tuple(out)


WORKSPACE_ALIGN = 32   # bytes: each workspace tensor starts on a 32-byte block (a DataCopy unit)


def workspace_layout(program: Program, env: Mapping[str, int | float], soc: Soc,
                     cores: int) -> tuple[dict[str, int], int]:
    """Where each Workspace tensor lives in the launch's one `workspace` GM argument: its byte
    offset by name, and the total bytes (each tensor 32-byte aligned; 0 without workspaces).
    A kernel that syncs has SyncAll's flags last: 32 bytes for each of the launch's `cores`."""
    offsets, total = {}, 0
    for t in program.workspaces:
        n = 1
        for d in output_shape(program, t, env, soc):
            n *= d
        offsets[t.name] = total
        total += -(-n * t.dtype.nbytes // WORKSPACE_ALIGN) * WORKSPACE_ALIGN
    if syncs_all(program):
        total += cores * SYNC_ALL_BYTES_PER_CORE
    return offsets, total


def evaluate_host(program: Program, shapes: Mapping[str, tuple[int, ...]],
                  scalars: Mapping[str, int | float] | None = None,
                  soc: Soc | str | None = None) -> dict[str, int | float]:
    """Run the `@host` tiling function: `{"cores": n, <every Launch field>: value}`.

    `shapes` maps tensor param names to concrete shapes (reference shapes); `scalars` maps
    scalar param names to values. Checks the launch: 1 <= cores <= 65535.
    """
    soc = get_soc(soc) if not isinstance(soc, Soc) else soc
    env: dict[str, int | float] = dict(bind_dims(program, shapes))
    for p in program.scalars:
        if scalars and p.name in scalars:
            env[p.name] = scalars[p.name]
    ev = HostEvaluator(soc, env, program.path, program.source, sync_all_ub_bytes(soc) if syncs_all(program) else 0)
    host = program.host
    for p in host.params:
        if isinstance(p, ScalarParam) and p.name not in env:
            raise DslError(f"host parameter `{p.name}` has no value", p.span,
                           "pass the reference's scalars (get_inputs/get_init_inputs)", program.path, program.source)
    for st in host.body:
        ev.env[st.target] = ev.eval(st.value)
    cores = ev.eval(host.launch.cores)
    if not isinstance(cores, int) or isinstance(cores, bool) or not 1 <= cores <= 65535:
        raise DslError(f"Launch cores is {cores!r} but a launch needs 1..65535 blocks", host.launch.cores.span,
                       "use e.g. min(VECTOR_CORES, rows), which is at least 1 for a non-empty tensor",
                       program.path, program.source)
    result: dict[str, int | float] = {"cores": cores}
    for f in host.launch.fields:
        result[f.name] = ev.eval(f.value)
    return result


def host_names(program: Program) -> set[str]:
    """Names a host expression may use: dims of the host's tensor params, its scalar params."""
    names: set[str] = set()
    for p in program.host.params:
        if isinstance(p, TensorParam):
            for d in p.dims:
                names |= {n.id for n in walk_exprs(d) if isinstance(n, Name)}
        elif isinstance(p, ScalarParam):
            names.add(p.name)
    return names


def _dims_text(dims) -> str:
    return "(" + ", ".join(expr_text(d) for d in dims) + ("," if len(dims) == 1 else "") + ")"


def _letters(n: int) -> list[str]:
    return ["B", "C", "H", "W", "N"][-n:] if n <= 5 else [f"D{i}" for i in range(n)]


__all__ = ["SOC_CONSTANTS", "HOST_BUILTINS", "HOST_OPS", "ub_elems", "evaluate_host", "bind_dims", "HostEvaluator",
           "output_shape", "check_dims", "fold_shape", "host_names", "workspace_layout",
           "WORKSPACE_ALIGN", "SYNC_ALL_BYTES_PER_CORE",
           "syncs_all", "sync_all_ub_bytes", "needs_workspace"]
