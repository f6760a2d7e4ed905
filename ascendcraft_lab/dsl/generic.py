"""Dtype-generic kernels: `@kernel(T=(f32, f16, bf16))`, one DSL source for every dtype of the cases.

A kernel declares type variables in its decorator and writes `T` wherever a dtype goes
(`GM[T, ...]`, `Tensor[T, ...]`, `cast(x, T)`, `ub_elems(T, ...)`). Each binding of the
variables is a *variant*: an ordinary program, parsed with T bound (`parse(text, dtypes=...)`),
verified, lowered and compiled like any other. An input set picks its variant by the dtypes of
its tensors (`binding_for`); the C++ project holds one kernel per variant and dispatches on the
input dtype in the launch code (`passes/variants.py`).

The compute type is chosen per statement, as AscendC requires (`promote`):

- f16 and bf16 tiles are computed in f32: bf16 because the vector unit has no bf16
  arithmetic (Cast is its one bf16 instruction), f16 because a chain of f16 instructions
  rounds at every step while PyTorch computes half types in float and rounds once. A tile
  loaded from a half-type tensor is cast to f32 (Cast, CAST_NONE) at the start of the compute
  stage that first reads it; a result stored into a half-type tensor is cast back (CAST_RINT,
  round to nearest even as PyTorch rounds) at the end of the compute stage that makes it.
  A statement that only applies `cast` keeps its operands as they are (an explicit cast is
  the author's choice).
- int8 tiles are computed in f16: the vector unit has no int8 arithmetic, and the Cast page
  pairs int8 with half only (int8 -> half exactly, CAST_NONE; half -> int8 by a RoundMode,
  saturating). The result is cast back with CAST_RINT (the values are whole numbers already).
  An f16 result outside [-128, 127] would saturate in that Cast (the page: overflow saturates by
  default; no Cast keeps the low 8 bits) where PyTorch's int8 arithmetic wraps. So an int8 variant
  serves the operations whose result is one of their operands' values (`INT8_EXACT`: relu, max,
  min, clamp, where, comparisons, reductions by max/min, gathers) as they are, and sums,
  differences and negations (`INT8_WRAP`) by wrapping them arithmetically: a statement of those
  on int8 values is a whole number of at most 2048 in magnitude (exact in f16), and
  `r - 256 * floor((r + 128) / 256)` (Adds, Muls by 2^-8, Cast CAST_FLOOR, Muls, Sub: every step
  exact) is r modulo 256 in [-128, 127], PyTorch's wrapped int8 (sums and negations commute with
  the wrap, so one wrap per statement serves a chain). An order operation of such a sum in the
  same statement (relu(x + y)) would see it unwrapped, and a product of two int8 values is not
  exact in f16: both are a DslError of that variant, and so one failing line per int8 case.
- int64 tiles compute in their own type too, but Compare has no int64 form: a test against zero
  (`x != 0`, torch.nonzero's) is `cast(x, f32) != 0.0`, exact since the cast maps zero, and only
  zero, to zero.
- f32 and the other integer types compute in their own type; an operation the vector unit does not
  offer for that type (the ops table lists each operation's tile dtypes) is a verifier error
  of that variant, reported as the failure of the input sets that need it.
- bool tensors are byte masks (one uint8 per element): comparisons make them, `where`
  reads them (it compares the bytes with 0 first).
"""
from __future__ import annotations

import itertools
from dataclasses import replace
from typing import Mapping, Sequence

from .errors import DslError
from .ir import (Assign, Call, Const, DType, DTypeRef, Expr, For, If, Load, Name, Program, ScalarParam, Stage,
                 StageKind, Store, Str, TensorRole, map_exprs, walk, walk_stmts)
from .ops import OPS_LIST
from .parser import parse

# A half-type tensor's values are computed in f32, an int8 tensor's in f16 (see the module docstring).
COMPUTE_TYPE = {DType.f16: DType.f32, DType.bf16: DType.f32, DType.i8: DType.f16}
# The operations whose result is one of their operands' values (or a mask, or an index), so that
# int8 values computed in f16 come back to int8 exactly (see the module docstring): rows `int8="exact"`.
INT8_EXACT = frozenset(op.name for op in OPS_LIST if op.int8 == "exact")
# The operations an int8 variant wraps as PyTorch does (see the module docstring): a ring's sums,
# at most INT8_WRAP_TERMS int8 terms per statement so the f16 value stays exact (rows `int8="wrap"`).
INT8_WRAP = frozenset(op.name for op in OPS_LIST if op.int8 == "wrap")
INT8_WRAP_TERMS = 16
CASTS = frozenset(op.name for op in OPS_LIST if op.category == "cast")


class VariantMismatch(ValueError):
    """An input set no variant of the kernel serves: `str()` is one line naming the dtype."""


def variants(program: Program) -> list[dict[str, DType]]:
    """Every binding of the kernel's type variables, in declaration order ([{}] for a plain kernel)."""
    if not program.generics:
        return [{}]
    names = [v for v, _ in program.generics]
    return [dict(zip(names, combo)) for combo in itertools.product(*(ds for _, ds in program.generics))]


def variant_name(binding: Mapping[str, DType]) -> str:
    return "_".join(d.value for d in binding.values())


def instantiate(program: Program, binding: Mapping[str, DType] | None = None) -> Program:
    """The variant of a generic program for `binding` (default: the first dtype of each
    variable), with its compute types chosen (`promote`). A plain program comes back as it is."""
    if not program.generics:
        return program
    binding = {**dict(program.binding), **dict(binding or {})}
    variant = parse(program.source, program.path, binding) if binding != dict(program.binding) else program
    return promote(integer_scalars(variant))


def integer_scalars(program: Program) -> Program:
    """In a variant whose type variables are all integers, the f32 scalar parameters as i32: PyTorch
    gives an integer tensor integer scalars (`torch.add(x, y, alpha=2)` on int32 is int32; a float
    alpha it refuses), and a float scalar with an int tile is an error. A case that passes a
    fractional value then fails its binding in one line (`declared i32`)."""
    if not program.binding or not all(d.is_int for _, d in program.binding):
        return program

    def retype(p):
        return replace(p, dtype=DType.i32) if isinstance(p, ScalarParam) and p.dtype is DType.f32 else p
    if not any(isinstance(p, ScalarParam) and p.dtype is DType.f32 for p in program.kernel.params):
        return program
    return replace(program, kernel=replace(program.kernel, params=tuple(retype(p) for p in program.kernel.params)),
                   host=replace(program.host, params=tuple(retype(p) for p in program.host.params)))


def binding_for(program: Program, dtypes: Sequence[str], what: str = "the input set") -> dict[str, DType]:
    """The variant that serves tensors of these torch dtypes (the reference's tensor inputs, in
    order, then its Model parameters' dtypes), or VariantMismatch in one line."""
    if not program.generics:
        return {}
    choices = dict(program.generics)
    binding: dict[str, DType] = {}
    tensors = program.inputs + program.model_params
    for p, name in zip(tensors, dtypes):
        if p.dtype_var is None:
            continue
        d = DType.from_torch(name)
        allowed = choices[p.dtype_var]
        if d is None or d not in allowed:
            raise VariantMismatch(f"{what} has a {name} `{p.name}`, a dtype this kernel does not serve "
                                  f"({p.dtype_var} is one of {', '.join(c.torch_name for c in allowed)})")
        if binding.setdefault(p.dtype_var, d) is not d:
            raise VariantMismatch(f"{what} has a {name} `{p.name}` but a {binding[p.dtype_var].torch_name} tensor "
                                  f"before it, and both are declared {p.dtype_var}")
    for v, ds in program.generics:
        binding.setdefault(v, ds[0])
    return binding


# ----------------------------------------------------------------------------- compute types
def _promotable(program: Program) -> bool:
    return any(d in COMPUTE_TYPE for _, d in program.binding)


def promote(program: Program) -> Program:
    """Compute the half-type tiles of a variant in f32 and the int8 tiles in f16 (the module docstring's rule)."""
    program = _int64_zero_tests(program)
    if not _promotable(program):
        return program
    low = {p.name: p.dtype for p in program.tensors() if p.dtype_var is not None and p.dtype in COMPUTE_TYPE}
    low.update({p.name: p.dtype for p in program.tensors(TensorRole.workspace)
                if p.dtype_var is not None and p.dtype in COMPUTE_TYPE})
    if not low:
        return program
    taken = {n.id for n in walk(program.kernel) if isinstance(n, Name)}
    taken |= {s.target for s, _ in walk_stmts(program.kernel.body) if isinstance(s, (Assign, Load))}
    rw = _Promoter(low, taken, program)
    body = rw.block(program.kernel.body)
    return replace(program, kernel=replace(program.kernel, body=body))


class _Promoter:
    def __init__(self, low: dict[str, DType], taken: set[str], program: Program):
        self.low = low                       # narrow GM tensors (half types, int8) -> dtype
        self.taken = set(taken)
        self.program = program
        self.half: dict[str, DType] = {}     # tiles loaded from a narrow tensor -> its dtype
        self.wide: set[str] = set()          # names computed in the compute type from narrow values
        self.casts: dict[str, str] = {}      # loaded narrow tile -> its wide copy's name (in this compute stage)
        self.back: dict[str, str] = {}       # wide result -> its cast back to the stored tensor's dtype
        self.pending: list = []              # the casts to the compute type the current statement needs first
        self.wrap = False                    # the current statement is an int8 sum to wrap modulo 256

    def fresh(self, base: str) -> str:
        name, i = base, 1
        while name in self.taken:
            name, i = f"{base}{i}", i + 1
        self.taken.add(name)
        return name

    def block(self, stmts) -> tuple:
        out = []
        for i, st in enumerate(stmts):
            if isinstance(st, Stage) and st.kind is StageKind.compute:
                out.append(self.compute(st, stmts[i + 1:]))
            elif isinstance(st, Stage) and st.kind is StageKind.copyin:
                for ld in st.body:
                    if isinstance(ld, Load) and ld.src.tensor in self.low:
                        self.half[ld.target] = self.low[ld.src.tensor]
                        self.casts.pop(ld.target, None)
                out.append(st)
            elif isinstance(st, Stage) and st.kind is StageKind.copyout:
                out.append(self.copyout(st))
            elif isinstance(st, For):
                out.append(replace(st, body=self.block(st.body)))
            elif isinstance(st, If):
                out.append(replace(st, body=self.block(st.body), orelse=self.block(st.orelse)))
            elif isinstance(st, Assign):
                out.append(self.assign(st, None))
            else:
                out.append(st)
        return tuple(out)

    def compute(self, stage: Stage, after) -> Stage:
        body: list = []
        self.casts = {}                     # a stage's wide copies of its loaded tiles
        for st in stage.body:
            if isinstance(st, Assign):
                new = self.assign(st, body)
                body.extend(self.pending)
                self.pending = []
                if self.wrap:
                    body += self._wrapped(new)
                    self.wrap = False
                else:
                    body.append(new)
            else:
                body.append(st)
        # results stored into a half-type tensor: cast back at the end of this stage
        for store in _stores_after(after):
            dtype = self.low.get(store.dst.tensor)
            v = store.value.id
            if dtype is not None and v in self.wide and any(isinstance(s, Assign) and s.target == v for s in body) \
                    and v not in self.back:
                name = self.fresh(f"{v}_{dtype.value}")
                self.back[v] = name
                body.append(Assign(name, Call("cast", (Name(v), DTypeRef(dtype), Str("rint"))), span=store.span))
        return replace(stage, body=tuple(body))

    def assign(self, st: Assign, body) -> Assign:
        value = st.value
        explicit = isinstance(value, Call) and value.op in CASTS
        uses_half = any(isinstance(n, Name) and n.id in self.half for n in walk(value))
        uses_wide = any(isinstance(n, Name) and n.id in self.wide for n in walk(value))
        if explicit and not uses_wide:
            self.wide.discard(st.target)
            return st
        if (uses_half or uses_wide) and DType.i8 in self.low.values():
            self._check_int8(st)
        if uses_half and body is not None:
            value = map_exprs(value, self._widen)
        if uses_half or uses_wide:
            self.wide.add(st.target)
        else:
            self.wide.discard(st.target)
        self.back.pop(st.target, None)
        return replace(st, value=value) if value is not st.value else st

    def _check_int8(self, st: Assign) -> None:
        """Refuse what an int8 variant cannot compute exactly; mark a sum to wrap (`INT8_WRAP`)."""
        def refuse(op: str, why: str):
            raise DslError(f"int8 `{op}` is not served: int8 values are computed in f16 (the vector unit has no "
                           f"int8 arithmetic) and cast back saturating, where PyTorch's int8 `{op}` wraps{why}",
                           st.span, "int8 variants serve " + ", ".join(sorted((INT8_EXACT | INT8_WRAP) - CASTS))
                           + " (sums wrapped modulo 256), an order operation of a sum in a statement of its own",
                           self.program.path, self.program.source)
        sums = [n for n in walk(st.value) if isinstance(n, Call) and n.op in INT8_WRAP]
        for n in walk(st.value):
            if isinstance(n, Call) and n.op not in INT8_EXACT | INT8_WRAP:
                refuse(n.op, "")
            if isinstance(n, Call) and n.op not in INT8_WRAP and n.op not in CASTS and \
                    any(isinstance(m, Call) and m.op in INT8_WRAP for a in n.args for m in walk(a)):
                refuse(sums[0].op, f" (here `{n.op}` reads the sum before it is wrapped: give the sum a statement "
                                   f"of its own)")
        if sums and isinstance(st.value, Call) and st.value.op in INT8_WRAP:
            big = [n.value for n in walk(st.value) if isinstance(n, Const) and abs(float(n.value)) > 1024]
            if len(sums) >= INT8_WRAP_TERMS or big:
                refuse(sums[0].op, f" (a chain of {len(sums) + 1} terms may leave f16's exact whole numbers)" if not big
                       else f" (the literal {big[0]:g} leaves f16's exact whole numbers: "
                            "at most 1024 beside int8 values)")
            self.wrap = True

    def _wrapped(self, st: Assign) -> list:
        """`st` as its sum r, then its target = r - 256 * floor((r + 128) / 256): r modulo 256 in [-128, 127]."""
        raw = self.fresh(f"{st.target}_sum")
        r = Name(raw, span=st.span)
        q = Call("floor", (Call("mul", (Call("add", (r, Const(128.0, "float"))), Const(0.00390625, "float"))),))
        wrapped = Call("sub", (r, Call("mul", (q, Const(256.0, "float")))))
        self.wide.add(raw)
        return [replace(st, target=raw), replace(st, value=wrapped)]

    def _widen(self, e: Expr) -> Expr:
        if isinstance(e, Name) and e.id in self.half:
            if e.id not in self.casts:
                wide = COMPUTE_TYPE[self.half[e.id]]
                name = self.fresh(f"{e.id}_{wide.value}")
                self.casts[e.id] = name
                self.pending.append(Assign(name, Call("cast", (Name(e.id), DTypeRef(wide), Str("none"))), span=e.span))
            return Name(self.casts[e.id], span=e.span)
        return e

    def copyout(self, stage: Stage) -> Stage:
        body = []
        for st in stage.body:
            if isinstance(st, Store) and st.value.id in self.back and st.dst.tensor in self.low:
                st = replace(st, value=replace(st.value, id=self.back[st.value.id]))
            elif isinstance(st, Store) and st.value.id in self.wide and st.dst.tensor in self.low:
                wide = COMPUTE_TYPE[self.low[st.dst.tensor]].value
                narrow = self.low[st.dst.tensor].value
                raise DslError(f"`{st.value.id}` is computed in {wide} from {narrow} values, but no "
                               f"compute stage just before this store makes it, so there is no place to cast it back",
                               st.span, "assign it in the compute stage right before this copyout",
                               self.program.path, self.program.source)
            body.append(st)
        return replace(stage, body=tuple(body))


def _int64_zero_tests(program: Program) -> Program:
    """In an int64 variant, `x == 0` / `x != 0` of a tile loaded from a T tensor as `cast(x, f32) == 0.0`:
    Compare has no int64 form, and the cast keeps zero and only zero at zero (torch.nonzero of an int64
    tensor). Any other int64 arithmetic stays as it is (and fails its variant where the unit lacks it)."""
    wide = {p.name for p in program.tensors() if p.dtype_var is not None and p.dtype is DType.i64}
    if not wide:
        return program
    tiles = {s.target for s, _ in walk_stmts(program.kernel.body) if isinstance(s, Load) and s.src.tensor in wide}

    def zero(e) -> bool:
        return isinstance(e, Const) and not isinstance(e.value, bool) and e.value == 0

    def rewrite(e: Expr) -> Expr:
        if isinstance(e, Call) and e.op in ("eq", "ne") and len(e.args) == 2:
            a, b = e.args
            if isinstance(b, Name) and b.id in tiles and zero(a):
                a, b = b, a
            if isinstance(a, Name) and a.id in tiles and zero(b):
                cast = Call("cast", (a, DTypeRef(DType.f32), Str("none")), span=e.span)
                return replace(e, args=(cast, Const(0.0, "float", span=b.span)))
        return e
    return replace(program, kernel=replace(program.kernel, body=map_exprs(program.kernel.body, rewrite)))


def _stores_after(stmts) -> list[Store]:
    """The stores of the copyout stages that follow a compute stage in the same block."""
    out = []
    for st in stmts:
        if isinstance(st, Stage) and st.kind is StageKind.copyout:
            out += [s for s in st.body if isinstance(s, Store)]
        elif isinstance(st, Stage) and st.kind is StageKind.compute:
            break
    return out
