"""KernelIR: the typed program the parser builds, the verifier types and the passes lower.

Everything is a frozen dataclass. Every node has a `span` (source range in the DSL file) and
every expression a `type` once `verify` has run; both are left out of equality, so two parses
of differently formatted text compare equal.

    Program(host: HostFunc, kernel: Kernel, source, path)
    MultiProgram(kernels: (Program, ...), main: ProgramFunc(name, params, body: (LaunchStmt | For, ...)))
    HostFunc(name, params, body: (Assign, ...), launch: Launch(cores, fields))
    Kernel(name, params: (TensorParam | ScalarParam | TilingParam, ...), body: (Stmt, ...))
    Stmt  = Assign | Load | Store | For(var, iter, body) | Stage(kind, body) | If | Barrier | SyncAll
    Iter  = CoreRows(rows, total) | CoreChunk(size, total) | CoreTiles(extents, steps) | Tiles(extent, step)
            | Range(start, stop, step)
    Expr  = Const | Name | Attr | Call(op, args) | DTypeRef | LevelRef | Str   (Call.op names an entry of ops.OPS)
    GmRef(tensor, index: (IndexExpr | IndexSlice | IndexWindows, ...) | None)
    Type  = ScalarType(dtype) | TileType(dtype, shape, level) | RangeType | TensorType | TilingType
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field, fields, is_dataclass, replace
from typing import Iterator, Union

from .dtypes import FLOATS, INTS, DType  # noqa: F401  (re-exported: the IR's dtypes)
from .errors import NO_SPAN, Span

# ----------------------------------------------------------------------------- scalar kinds

# DType, FLOATS and INTS live in dtypes.py (every fact about a dtype); the IR re-exports them.
INDEX = DType.i32   # loop variables, dims, offsets and int tiling fields


class Level(enum.Enum):
    """Where a value lives. GM tensors are kernel params; tiles live in UB (vector) or L1/L0 (cube)."""

    GM = "GM"
    UB = "UB"
    L1 = "L1"
    L0A = "L0A"
    L0B = "L0B"
    L0C = "L0C"
    SCALAR = "scalar"


class StageKind(enum.Enum):
    copyin = "copyin"     # GM -> UB or L1 (MTE2); only loads
    split = "split"       # L1 -> L0A / L0B (MTE1); only loads of L1 tiles
    compute = "compute"   # vector and scalar work on UB tiles, or mmad on L0 tiles (the cube)
    copyout = "copyout"   # UB -> GM (MTE3) or L0C -> GM (Fixpipe); only stores


class TensorRole(enum.Enum):
    input = "GM"          # a reference input (read only)
    param = "Param"       # a Model parameter or buffer, bound by name (read only)
    output = "Out"        # a reference output (written by stores)
    workspace = "Workspace"   # GM scratch shared by the cores (starts at zero; not bound to the reference)


# ----------------------------------------------------------------------------- nodes


@dataclass(frozen=True)
class Node:
    span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)


@dataclass(frozen=True)
class Expr(Node):
    type: "Type | None" = field(default=None, compare=False, repr=False, kw_only=True)


@dataclass(frozen=True)
class Const(Expr):
    """A literal. `kind` keeps 1, 1.0 and True apart (Python calls them equal)."""

    value: Union[int, float, bool]
    kind: str = "float"   # "int" | "float" | "bool"

    @staticmethod
    def of(value, **kw) -> "Const":
        kind = "bool" if isinstance(value, bool) else "int" if isinstance(value, int) else "float"
        return Const(value, kind, **kw)


@dataclass(frozen=True)
class Name(Expr):
    id: str


@dataclass(frozen=True)
class Pack(Name):
    """`*S` in a tensor's shape: a dim pack, any number of the reference tensor's dims (none for a
    0-d tensor) viewed as one axis, whose size is their product. `*A[k]` covers exactly k dims, k
    an int scalar parameter read as PyTorch reads a `dim` (negative counts from the end). A pack
    is bound once, when a reference input set is bound to the kernel (`dsl.host.fold_shape`);
    everything after sees an ordinary dim named `S`."""

    count: Expr | None = None


@dataclass(frozen=True)
class Attr(Expr):
    """`t.tile` (a tiling field) or `c.start` / `c.len` / `c.index` (a range variable)."""

    obj: Name
    attr: str


@dataclass(frozen=True)
class Call(Expr):
    """An operation of the ops table (`ops.OPS[op]`), arguments in the table's parameter order."""

    op: str
    args: tuple[Expr, ...]


@dataclass(frozen=True)
class DTypeRef(Expr):
    """A dtype used as an argument (`cast(x, f16)`, `ub_elems(f32, ...)`)."""

    dtype: DType
    var: str | None = None      # the type variable it was written as (`cast(x, T)`), bound to `dtype`


@dataclass(frozen=True)
class LevelRef(Expr):
    """A memory level used as an argument (`zeros(m, n, L0C)`)."""

    level: Level


@dataclass(frozen=True)
class Str(Expr):
    """A string argument (`round="rint"`)."""

    value: str


# GM indexing: one entry per axis of the tensor's (view) shape.


@dataclass(frozen=True)
class IndexExpr(Node):
    """A scalar index (drops the axis) or a range variable (keeps `c.len` elements from `c.start`)."""

    expr: Expr


@dataclass(frozen=True)
class IndexSlice(Node):
    """`lo:hi`, `:` (both None), `lo:hi:step` (every step-th row from lo) — keeps the axis."""

    lo: Expr | None = None
    hi: Expr | None = None
    step: Expr | None = None


@dataclass(frozen=True)
class IndexWindows(Node):
    """`windows(c, k, s)`: the input elements covering the windows of output range `c`:
    from `c.start * s`, `(c.len - 1) * s + k` elements."""

    var: Expr
    k: Expr
    stride: Expr


Index = Union[IndexExpr, IndexSlice, IndexWindows]


@dataclass(frozen=True)
class GmRef(Node):
    """`x[i, c]` — a view of a GM tensor; `index` None means the whole tensor (rank 0)."""

    tensor: str
    index: tuple[Index, ...] | None = None


# statements


@dataclass(frozen=True)
class Stmt(Node):
    pass


@dataclass(frozen=True)
class Assign(Stmt):
    target: str
    value: Expr


@dataclass(frozen=True)
class Load(Stmt):
    """`xu = load(x[r, c])` — GM -> UB (or L1) in a copyin stage; `a0 = load(a1, L0A)` — an L1
    tile into L0A / L0B in a split stage (`src` then names the tile, `transpose` swaps its axes)."""

    target: str
    src: GmRef
    level: Level = Level.UB
    transpose: bool = False


@dataclass(frozen=True)
class Store(Stmt):
    """`store(y[r, c], yu)` — UB -> GM in a copyout stage; `accumulate` adds atomically
    (AscendC SetAtomicAdd); an accumulated output starts at zero."""

    dst: GmRef
    value: Name
    accumulate: bool = False


@dataclass(frozen=True)
class CoreRows(Node):
    """`core_rows(rows, total)`: rows [b*rows, min((b+1)*rows, total)) of core b."""

    rows: Expr
    total: Expr


@dataclass(frozen=True)
class CoreChunk(Node):
    """`core_chunk(size, total)`: this core's range [b*size, min((b+1)*size, total)) as one
    range value (the loop runs once, or not at all for an idle core)."""

    size: Expr
    total: Expr


@dataclass(frozen=True)
class CoreTiles(Node):
    """`core_tiles((M, N), (bm, bn))`: the blocks of an (M, N) grid in bm x bn tiles (the last of
    each axis may be short), handed to the cores round-robin: block q (row-major over the grid)
    belongs to core q % cores. One range variable per axis."""

    extents: tuple[Expr, ...]
    steps: tuple[Expr, ...]


@dataclass(frozen=True)
class Tiles(Node):
    """`tiles(extent, step)`: ranges of `step` elements over [0, extent) or over a range
    variable; the last may be short."""

    extent: Expr
    step: Expr


@dataclass(frozen=True)
class Range(Node):
    start: Expr
    stop: Expr
    step: Expr


Iter = Union[CoreRows, CoreChunk, CoreTiles, Tiles, Range]


@dataclass(frozen=True)
class For(Stmt):
    var: str
    iter: Iter
    body: tuple[Stmt, ...]
    rest: tuple[str, ...] = ()     # further loop variables (`for mi, ni in core_tiles(...)`)

    @property
    def vars(self) -> tuple[str, ...]:
        return (self.var,) + self.rest


@dataclass(frozen=True)
class Stage(Stmt):
    kind: StageKind
    body: tuple[Stmt, ...]


@dataclass(frozen=True)
class If(Stmt):
    cond: Expr
    body: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...] = ()


@dataclass(frozen=True)
class Barrier(Stmt):
    pass


@dataclass(frozen=True)
class SyncAll(Stmt):
    """`sync_all()`: every core waits until all cores of the launch reach it (AscendC SyncAll);
    GM written before it (stores, atomic adds) is visible to every core after it."""


# parameters and functions


@dataclass(frozen=True)
class TensorParam(Node):
    """A GM tensor. `groups` is its declared shape: one tuple of dims per axis of the kernel's
    view; a group of several dims (`((B, M), N)`) views contiguous axes as one."""

    name: str
    dtype: DType
    groups: tuple[tuple[Expr, ...], ...]
    role: TensorRole = TensorRole.input
    source: str | None = None      # Param: the Model's parameter/buffer name (default: `name`); Out: the
                                   # output whose valid rows this one-element i64 output counts
    dtype_var: str | None = None   # declared with a type variable (`GM[T, ...]`), bound to `dtype`

    @property
    def dims(self) -> tuple[Expr, ...]:
        """The reference tensor's dims (flattened groups)."""
        return tuple(d for g in self.groups for d in g)

    @property
    def shape(self) -> tuple[Expr, ...]:
        """The kernel's view shape (each group multiplied out)."""
        return tuple(g[0] if len(g) == 1 else _product(g) for g in self.groups)

    @property
    def rank(self) -> int:
        return len(self.groups)

    @property
    def packs(self) -> tuple["Pack", ...]:
        return tuple(d for d in self.dims if isinstance(d, Pack))

    @property
    def param_name(self) -> str:
        return self.source or self.name


def _product(dims: tuple[Expr, ...]) -> Expr:
    out = dims[0]
    for d in dims[1:]:
        out = Call("mul", (out, d))
    return out


@dataclass(frozen=True)
class ScalarParam(Node):
    name: str
    dtype: DType
    dtype_var: str | None = None


@dataclass(frozen=True)
class TilingParam(Node):
    name: str


Param = Union[TensorParam, ScalarParam, TilingParam]


@dataclass(frozen=True)
class LaunchField(Node):
    name: str
    value: Expr


@dataclass(frozen=True)
class Launch(Node):
    """`return Launch(cores, name=expr, ...)`: the block dim and the tiling struct fields."""

    cores: Expr
    fields: tuple[LaunchField, ...]

    def field_names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)


@dataclass(frozen=True)
class HostFunc(Node):
    name: str
    params: tuple[Param, ...]
    body: tuple[Assign, ...]
    launch: Launch
    # (DSL line, what the compiler counted) per fit_tile / fit_rows it solved from the UB plan
    fits: tuple[tuple[int, str], ...] = field(default=(), compare=False, kw_only=True)


@dataclass(frozen=True)
class Kernel(Node):
    name: str
    params: tuple[Param, ...]
    body: tuple[Stmt, ...]
    # name -> type of every local (tiles, scalars, loop variables); filled by `verify`.
    locals: tuple[tuple[str, "Type"], ...] = field(default=(), compare=False, repr=False)


@dataclass(frozen=True)
class Program(Node):
    host: HostFunc
    kernel: Kernel
    source: str = field(default="", compare=False, repr=False)
    path: str = field(default="<dsl>", compare=False, repr=False)
    verified: bool = field(default=False, compare=False, repr=False)
    plan: object = field(default=None, compare=False, repr=False)   # buffers.UbPlan, set by verify
    # `@kernel(T=(f32, f16))`: the kernel is generic over T; this program is the variant with the
    # type variables bound as in `binding` (dsl/generic.py instantiates the others).
    generics: tuple[tuple[str, tuple[DType, ...]], ...] = ()
    binding: tuple[tuple[str, DType], ...] = field(default=(), compare=False)

    @property
    def generic(self) -> bool:
        return bool(self.generics)

    @property
    def variant(self) -> str:
        """`f16` (`f16_i32` for two type variables) for a generic kernel's variant, "" otherwise."""
        return "_".join(d.value for _, d in self.binding) if self.generics else ""

    # -- parameter queries (kernel order is the binding order) --
    def tensors(self, role: TensorRole | None = None) -> list[TensorParam]:
        """GM tensors in kernel order; without `role`, those bound to the reference (inputs,
        parameters, outputs), which are the kernel's GM arguments. Workspaces live inside the
        launch's one `workspace` argument: ask for them by role (or `workspaces`)."""
        return [p for p in self.kernel.params if isinstance(p, TensorParam)
                and (p.role is role if role is not None else p.role is not TensorRole.workspace)]

    @property
    def inputs(self) -> list[TensorParam]:
        return self.tensors(TensorRole.input)

    @property
    def model_params(self) -> list[TensorParam]:
        return self.tensors(TensorRole.param)

    @property
    def outputs(self) -> list[TensorParam]:
        return self.tensors(TensorRole.output)

    @property
    def workspaces(self) -> list[TensorParam]:
        return self.tensors(TensorRole.workspace)

    @property
    def results(self) -> list[TensorParam]:
        """The outputs compared with what forward returns, in order: every output but row counts."""
        return [p for p in self.outputs if p.source is None]

    @property
    def row_counts(self) -> dict[str, TensorParam]:
        """Output name -> the output counting its valid leading rows (`n: Out[i64, (1,), "y"]`): `y` is
        declared at an upper bound and the kernel writes how many rows it filled (data-dependent
        sizes: nonzero)."""
        return {p.source: p for p in self.outputs if p.source is not None}

    @property
    def scalars(self) -> list[ScalarParam]:
        return [p for p in self.kernel.params if isinstance(p, ScalarParam)]

    @property
    def tiling_param(self) -> TilingParam | None:
        return next((p for p in self.kernel.params if isinstance(p, TilingParam)), None)

    def param(self, name: str) -> Param | None:
        return next((p for p in self.kernel.params if p.name == name), None)

    def local_type(self, name: str) -> "Type | None":
        return dict(self.kernel.locals).get(name)

    def dim_names(self) -> list[str]:
        """Symbolic dims bound by the tensor declarations, in first-seen order."""
        seen: dict[str, None] = {}
        scalar_names = {p.name for p in self.scalars}
        for t in self.tensors():
            for d in t.dims:
                for n in walk_exprs(d):
                    if isinstance(n, Name) and n.id not in scalar_names:
                        seen.setdefault(n.id, None)
        return list(seen)


# ----------------------------------------------------------------------------- programs of kernels


@dataclass(frozen=True)
class ArgView(Node):
    """A tensor argument of a launch: program tensor `tensor`, its leading axes indexed away by
    `index` (`x[s]`, int expressions of loop variables and dims), then reshaped to `view` when
    given (`x.view(S * B, I)`, a contiguous reshape with the same number of elements)."""

    tensor: str
    index: tuple[Expr, ...] = ()
    view: tuple[Expr, ...] | None = None


@dataclass(frozen=True)
class LaunchStmt(Stmt):
    """`name(arg, ...)` in a @program: one launch of the file's @kernel `name`; one argument per
    kernel parameter in order, the kernel's Tiling and own Workspaces left out."""

    kernel: str
    args: tuple[Union[ArgView, Expr], ...]


@dataclass(frozen=True)
class ProgramFunc(Node):
    """The @program function: the reference's tensors and scalars (GM, Param, Out, dtypes), the
    intermediates the host allocates in GM (Workspace, zeroed once before the first launch), and a
    body of launches and host `for ... in range(...)` loops."""

    name: str
    params: tuple[Param, ...]
    body: tuple[Stmt, ...]


@dataclass(frozen=True)
class MultiProgram(Node):
    """A DSL file of several kernels: each a Program of its own (host + kernel, the file's text as
    source, so spans are the file's lines) and the @program that launches them."""

    kernels: tuple[Program, ...]
    main: ProgramFunc
    source: str = field(default="", compare=False, repr=False)
    path: str = field(default="<dsl>", compare=False, repr=False)

    @property
    def name(self) -> str:
        return self.main.name

    def kernel(self, name: str) -> Program | None:
        return next((k for k in self.kernels if k.kernel.name == name), None)

    def tensor(self, name: str) -> TensorParam | None:
        return next((p for p in self.main.params if isinstance(p, TensorParam) and p.name == name), None)

    @property
    def interface(self) -> Program:
        """The program's parameters as one kernel's signature, so the reference binds to a program
        exactly as to a kernel (inputs, Params by name, outputs in order, scalars, dims)."""
        host = HostFunc(self.main.name, (), (), Launch(Const(1, "int"), ()), span=self.main.span)
        kernel = Kernel(self.main.name, self.main.params, (), span=self.main.span)
        return Program(host, kernel, self.source, self.path, span=self.span)


def launches(body: tuple[Stmt, ...]) -> Iterator[tuple[LaunchStmt, tuple[For, ...]]]:
    """Every launch of a program body with its enclosing host loops (outermost first)."""
    for s, parents in walk_stmts(body):
        if isinstance(s, LaunchStmt):
            yield s, tuple(p for p in parents if isinstance(p, For))


# ----------------------------------------------------------------------------- types


@dataclass(frozen=True)
class ScalarType:
    dtype: DType
    weak: bool = False    # an untyped literal: adopts the dtype of what it meets

    @property
    def level(self) -> Level:
        return Level.SCALAR

    def __str__(self) -> str:
        return f"{self.dtype.value} scalar"


@dataclass(frozen=True)
class TileType:
    dtype: DType
    shape: tuple[Expr, ...]
    level: Level = Level.UB

    def __str__(self) -> str:     # the dims in full: printer.type_text(t)
        return f"{self.dtype.value} tile of rank {len(self.shape)} in {self.level.value}"


@dataclass(frozen=True)
class RangeType:
    """A loop range value: `.start`, `.len`, `.index` (all INDEX scalars)."""

    def __str__(self) -> str:
        return "range"


@dataclass(frozen=True)
class TensorType:
    dtype: DType
    shape: tuple[Expr, ...]
    role: TensorRole

    @property
    def level(self) -> Level:
        return Level.GM

    def __str__(self) -> str:
        return f"GM tensor of {self.dtype.value}"


@dataclass(frozen=True)
class TilingType:
    fields: tuple[tuple[str, ScalarType], ...]

    def __str__(self) -> str:
        return "Tiling"


@dataclass(frozen=True)
class MetaType:
    """The type of a DTypeRef or Str argument."""

    what: str

    def __str__(self) -> str:
        return self.what


Type = Union[ScalarType, TileType, RangeType, TensorType, TilingType, MetaType]

RANGE_FIELDS = ("start", "len", "index")

# ----------------------------------------------------------------------------- traversal


def children(node) -> Iterator:
    """Direct child nodes of any IR node (dataclass fields that hold nodes or tuples of them)."""
    for f in fields(node):
        if f.name in ("span", "type", "locals"):
            continue
        v = getattr(node, f.name)
        if isinstance(v, Node):
            yield v
        elif isinstance(v, tuple):
            for item in v:
                if isinstance(item, Node):
                    yield item
                elif isinstance(item, tuple):   # TensorParam.groups
                    yield from (x for x in item if isinstance(x, Node))


def walk(node) -> Iterator:
    """Every node under `node` (pre-order, including it)."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(list(children(n))))


def walk_exprs(expr: Expr) -> Iterator[Expr]:
    return (n for n in walk(expr) if isinstance(n, Expr))


def walk_stmts(body: tuple[Stmt, ...]) -> Iterator[tuple[Stmt, tuple[Stmt, ...]]]:
    """Every statement with its enclosing statements (outermost first)."""
    def go(stmts, parents):
        for s in stmts:
            yield s, parents
            if isinstance(s, (For, Stage)):
                yield from go(s.body, parents + (s,))
            elif isinstance(s, If):
                yield from go(s.body, parents + (s,))
                yield from go(s.orelse, parents + (s,))
    yield from go(body, ())


def map_exprs(node, fn):
    """Rebuild `node` with `fn` applied bottom-up to every expression (used to attach types)."""
    if isinstance(node, tuple):
        return tuple(map_exprs(x, fn) for x in node)
    if not is_dataclass(node) or not isinstance(node, Node):
        return node
    changes = {}
    for f in fields(node):
        if f.name in ("span", "type", "locals"):
            continue
        v = getattr(node, f.name)
        nv = map_exprs(v, fn)
        if nv is not v:
            changes[f.name] = nv
    out = replace(node, **changes) if changes else node
    return fn(out) if isinstance(out, Expr) else out
