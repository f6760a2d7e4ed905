"""The lowering plan: the facts about a kernel that every pass, engine and checker shares.

From the verified KernelIR it derives, once: the C++ names (class, tiling struct, files),
the tiling fields (dims, Launch fields, scalar params) and which of them are provably
32-byte aligned, how each GM tensor is addressed (sliced per core or whole), and the UB
tiles the DSL names with the queue or buffer each needs. It computes no C++ text: that is
the engines' job; the checkers hold any engine's text against these facts.
"""
from __future__ import annotations

import functools
from math import gcd
import keyword
import re
from dataclasses import dataclass, field
from typing import Mapping

from ..dsl import ir
from ..dsl.buffers import ub_buffers
from ..dsl.host import HostEvaluator, bind_dims, evaluate_host
from ..dsl.parser import CPP_KEYWORDS
from ..dsl.printer import expr_text
from ..soc import DEFAULT_SOC, Soc, get_soc

# A DSL name that would collide in the generated C++: the language's keywords (one list, the
# parser's) and the names the generated code itself declares or calls.
CPP_RESERVED = CPP_KEYWORDS | {"half", "tiling", "pipe", "len", "min", "max"}


def cpp_name(name: str) -> str:
    """A DSL identifier as a C++ identifier (a C++ keyword gets a trailing underscore)."""
    return name + "_" if name in CPP_RESERVED or keyword.iskeyword(name) else name


def camel(name: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in re.split(r"_+", name) if p)


@dataclass(frozen=True)
class TilingField:
    name: str
    ctype: str            # int64_t or float
    doc: str
    dsl_line: int = 0
    aligned: int = 0      # the value is a multiple of this many elements (0: not provable)


@dataclass(frozen=True)
class UbTile:
    """A tile the DSL names, with where it must live."""
    name: str             # DSL name
    kind: str             # VECIN (loaded), VECOUT (stored), VECCALC (compute only); A1 / B1 / A2 / B2 / CO1 (cube)
    dtype: ir.DType
    dsl_line: int
    level: ir.Level = ir.Level.UB

    @property
    def member(self) -> str:
        return f"{self.name}Queue" if self.kind != "VECCALC" else f"{self.name}Buf"

    @property
    def declaration(self) -> str:
        if self.kind == "VECCALC":
            return f"TBuf<TPosition::VECCALC> {self.member};"
        return f"TQue<TPosition::{self.kind}, 1> {self.member};"


@dataclass(frozen=True)
class GmPlan:
    """How a GM tensor is addressed. `core_axis`: the view axis indexed by this core's rows or
    chunk, so the GlobalTensor covers only this core's slice (out-of-bounds becomes visible)."""
    param: ir.TensorParam
    core_var: str | None

    @property
    def member(self) -> str:
        return f"{self.param.name}Gm"


@dataclass
class Plan:
    program: ir.Program
    soc: Soc
    op: str
    cls: str
    tiling_struct: str
    entry: str
    kernel_path: str
    tiling_path: str
    host_path: str           # launch code (ACL)
    tiling_impl_path: str    # the tiling function (plain C++)
    torch_path: str
    cmake_path: str
    tiling_fields: list[TilingField]
    tiles: dict[str, UbTile]
    gm: dict[str, GmPlan]
    loop_vars: dict[str, ir.For] = field(default_factory=dict)

    @property
    def buffers(self) -> list[UbTile]:
        return list(self.tiles.values())

    def field(self, name: str) -> TilingField | None:
        return next((f for f in self.tiling_fields if f.name == name), None)

    def aligned_fields(self) -> dict[str, int]:
        return {f.name: f.aligned for f in self.tiling_fields if f.aligned}

    def tiling_values(self, options, dim_size: int = 1 << 16) -> dict[str, int | float]:
        """Every tiling field's value for the options' shapes (sample dims when none are given)."""
        shapes = (dict(options.shapes) if getattr(options, "shapes", None)
                  else default_shapes(self.program, self.soc, dim_size))
        scalars = dict(getattr(options, "scalars", {}) or {})
        for p in self.program.scalars:
            scalars.setdefault(p.name, 1 if p.dtype.is_int else 0.5)
        values = evaluate_host(self.program, shapes, scalars, self.soc)
        values.update(bind_dims(self.program, shapes))
        values.update(scalars)
        return values


def sample_dim(program: ir.Program, size: int = 1 << 16) -> int:
    """The value every named dim takes when no reference gives shapes: `size`, less for tensors of
    a rank whose element count would overflow int64 (a 4-D tensor of 65536^4 elements)."""
    rank = max((len(t.dims) for t in program.tensors()), default=1)
    return min(size, 2 ** (62 // max(rank, 1)))


def default_shapes(program: ir.Program, soc: Soc, size: int = 1 << 16) -> dict[str, tuple[int, ...]]:
    """Large shapes (every named dim = `sample_dim`) for evaluating buffer sizes when no reference is
    given: tiles then reach their UB-bound maximum, which is what the budget check needs."""
    size = sample_dim(program, size)
    env: dict = {d: size for d in program.dim_names()}
    env.update({p.name: (1 if p.dtype.is_int else 0.5) for p in program.scalars})
    ev = HostEvaluator(soc, env, program.path, program.source)
    return {t.name: tuple(int(ev.eval(d)) for d in t.dims) for t in program.tensors()}


@functools.lru_cache(maxsize=64)
def _plan_cached(program: ir.Program, source: str, path: str, soc_name: str) -> Plan:
    return build_plan(program, get_soc(soc_name))


def plan_for(program: ir.Program, options) -> Plan:
    # Program equality ignores spans: two drafts that differ only in layout are equal, but
    # their C++ quotes different DSL lines, so the source text is part of the key.
    return _plan_cached(program, program.source, program.path, getattr(options, "soc", None) or DEFAULT_SOC)


def build_plan(program: ir.Program, soc: Soc) -> Plan:
    k = program.kernel
    op = k.name
    c = camel(op)
    return Plan(
        program=program, soc=soc, op=op, cls=f"Kernel{c}", tiling_struct=f"{c}Tiling", entry=op,
        kernel_path=f"kernel/{op}_kernel.cpp", tiling_path=f"host/{op}_tiling.h", host_path=f"host/{op}_launch.cpp",
        tiling_impl_path=f"host/{op}_tiling.cpp",
        torch_path=f"torch/{op}_torch.cpp", cmake_path="CMakeLists.txt",
        tiling_fields=_tiling_fields(program, soc), tiles=_tiles(program), gm=_gm(program),
        loop_vars={v: s for s, _ in ir.walk_stmts(k.body) if isinstance(s, ir.For) for v in s.vars},
    )


def _sample_values(program: ir.Program, soc: Soc) -> dict[str, int | float]:
    shapes = default_shapes(program, soc)
    scalars = {p.name: (0.5 if p.dtype.is_float else 1) for p in program.scalars}
    try:
        return evaluate_host(program, shapes, scalars, soc)
    except Exception:
        return {}


def _tiling_fields(program: ir.Program, soc: Soc) -> list[TilingField]:
    fields: list[TilingField] = []
    for d in program.dim_names():
        fields.append(TilingField(d, "int64_t", f"size of dim {d}, bound from the inputs"))
    sample = _sample_values(program, soc)
    launch = program.host.launch
    host_vars = {a.target: a.value for a in program.host.body}
    for f in launch.fields:
        ctype = "float" if isinstance(sample.get(f.name), float) else "int64_t"
        value = f.value
        while isinstance(value, ir.Name) and value.id in host_vars:   # show what the name stands for
            value = host_vars[value.id]
        fields.append(TilingField(f.name, ctype, expr_text(value), f.span.line,
                                  _aligned_elems(f.value, host_vars, soc)))
    for p in program.scalars:
        fields.append(TilingField(p.name, "float" if p.dtype.is_float else "int64_t", f"scalar input `{p.name}`",
                                  p.span.line))
    return fields


def _aligned_elems(e: ir.Expr, host_vars: Mapping[str, ir.Expr], soc: Soc, depth: int = 0) -> int:
    """Elements the value of host expression `e` is provably a multiple of (0: unknown).

    ub_elems(dtype, ...) is a whole number of 256-byte repeats; align_up/align_down(a, m) are
    multiples of m; a product is a multiple of either factor's; min/max of multiples of m are
    multiples of m. Anything else (a dim, a division) proves nothing.
    """
    if depth > 32:
        return 0
    rec = lambda x: _aligned_elems(x, host_vars, soc, depth + 1)  # noqa: E731
    if isinstance(e, ir.Const) and e.kind == "int":
        return abs(int(e.value))
    if isinstance(e, ir.Name) and e.id in host_vars:
        return rec(host_vars[e.id])
    if isinstance(e, ir.Call):
        if e.op == "ub_elems" and isinstance(e.args[0], ir.DTypeRef):
            return max(soc.repeat_bytes // e.args[0].dtype.nbytes, 1)   # whole vector repeats
        if e.op in ("align_up", "align_down") and isinstance(e.args[1], ir.Const):
            return int(e.args[1].value)
        if e.op == "mul":
            a, b = rec(e.args[0]), rec(e.args[1])
            return a * b if a and b else max(a, b)
        if e.op in ("min", "max"):
            parts = [rec(a) for a in e.args]
            if all(parts):
                g = parts[0]
                for p in parts[1:]:
                    g = gcd(g, p)
                return g
    return 0


def _tiles(program: ir.Program) -> dict[str, UbTile]:
    """Named UB tiles with their roles, from the DSL's UB plan (one model for the verifier,
    the interpreter and the lowering: see dsl/buffers.py)."""
    return {b.name: UbTile(b.name, b.role, b.dtype, b.sites[0].line if b.sites else 0, b.level)
            for b in ub_buffers(program).buffers}


def _gm(program: ir.Program) -> dict[str, GmPlan]:
    """A tensor is sliced per core when every access indexes its first axis with the same
    core_rows variable (or the same core_chunk range). A Workspace never is: the cores share it,
    its GlobalTensor is the whole scratch (init's `_workspace_globals`), so its indices stay whole."""
    core_vars = {s.var for s, _ in ir.walk_stmts(program.kernel.body)
                 if isinstance(s, ir.For) and isinstance(s.iter, (ir.CoreRows, ir.CoreChunk))}
    tensors = program.tensors() + program.workspaces
    refs: dict[str, list[ir.GmRef]] = {t.name: [] for t in tensors}
    for s, _ in ir.walk_stmts(program.kernel.body):
        ref = s.src if isinstance(s, ir.Load) else s.dst if isinstance(s, ir.Store) else None
        if ref is not None and ref.tensor in refs:
            refs[ref.tensor].append(ref)
    plans = {}
    for t in tensors:
        first = set()
        for ref in refs[t.name]:
            idx0 = ref.index[0] if ref.index else None
            if isinstance(idx0, ir.IndexExpr) and isinstance(idx0.expr, ir.Name) and idx0.expr.id in core_vars:
                first.add(idx0.expr.id)
            else:
                first.add(None)
        var = next(iter(first)) if len(first) == 1 and None not in first and t in program.tensors() else None
        plans[t.name] = GmPlan(t, var)
    return plans
