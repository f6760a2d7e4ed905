"""The drafter's graph: a traced forward pass rewritten into a few canonical operations.

`build_graph(traced)` reads the JSON graph the child process returns (torch.fx nodes: function,
method and module calls with their arguments and recorded shapes) and rebuilds it with the
operations the templates understand:

  leaves       input (a tensor of get_inputs), param (a Model parameter/buffer), scalar (a
               number of get_inputs, or of get_init_inputs when a traced constant is exactly
               that number), const, dim (a size of an input, kept symbolic)
  elementwise  the DSL's own operations (add sub mul div max min pow neg abs relu exp log
               sqrt rsqrt reciprocal sigmoid tanh where lt le gt ge eq ne cast), on tensors
               or scalars, with numpy broadcasting
  reduce       sum / max / min / prod over a set of axes (mean is sum * 1/n)
  scan         cumsum / cumprod along one axis, forward or reverse
  pool         max / avg pooling over the last 1-3 axes (per-axis kernel, stride, padding,
               dilation; ceil mode; avg counts the padding, PyTorch's count_include_pad)
  reshape      the same elements in another shape
  pick         x[r, index[r]]: one element per row named by an int index tensor (cross entropy)
  argreduce    the int64 index of the first max / min along one axis (argmax, argmin, max(x, dim)[1])
  gather       x[..., index[..., j]] along the last axis (torch.gather, take_along_dim, index_select
               along the last axis, where one index row serves every row)
  take_rows    table[index] along one axis, whole slices after it (index_select, nn.Embedding, x[idx])
  index_add    x with alpha * source[i] added into row index[i] along the first axis (Tensor.index_add)
  scatter_add  x with source[i, j] added at index[i, j] along one axis of a 2-D tensor
  index_copy   x with row index[i] replaced by source[i] along the first axis (Tensor.index_copy,
               x[index] = value); a repeated index keeps the last write, as PyTorch's loop on one thread
  scatter      x with source[i, j] written at index[i, j] along the last axis of a 2-D tensor (the last
               write of a repeated index wins, as on one thread)

Every torch function, Tensor method and nn module maps through one rule in `RULES` to these
(an activation becomes its formula: F.elu is relu(x) + alpha * (exp(min(x, 0)) - 1)), so the
many ways of writing one computation meet in one graph: `F.gelu(x, approximate="tanh")`,
`nn.GELU("tanh")` and the explicit `0.5 * x * (1 + tanh(...))` give the same nodes, and
`x.sum(dim=1)` and `torch.sum(x, 1)` the same reduce. A pattern no rule covers raises
`Unsupported` with a one-line reason naming the operation.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

FLOAT_DTYPES = ("float32", "float16", "bfloat16")


class Unsupported(Exception):
    """The drafter cannot express the reference; `str()` is one line naming what and why."""


@dataclass(eq=False)
class Node:
    op: str
    args: tuple = ()
    attrs: dict = field(default_factory=dict)
    shape: tuple | None = None          # None: a scalar
    dtype: str = "float32"              # torch dtype name for tensors; "float" | "int" | "bool" for scalars
    value: object = None                # the traced value of a scalar (for folding and checks)
    name: str = ""                      # the fx node name (for messages)

    @property
    def is_tensor(self) -> bool:
        return self.shape is not None

    @property
    def info(self) -> "OpInfo":
        return op_info(self.op)

    @property
    def kind(self) -> str:
        """What the node is to a template (DATA, NUMBER, ELEMENTWISE, REDUCE ...: see OPS)."""
        return op_info(self.op).kind

    @property
    def is_const(self) -> bool:
        return self.op == "const"

    @property
    def is_data(self) -> bool:
        """An input or a parameter: data the kernel reads (from GM when it is a tensor)."""
        return self.kind == DATA

    @property
    def is_input(self) -> bool:
        """An input of get_inputs() (not a Model parameter)."""
        return self.op == "input"

    @property
    def is_param(self) -> bool:
        """A Model parameter or buffer."""
        return self.op == "param"

    @property
    def is_number_input(self) -> bool:
        """A number of get_inputs / get_init_inputs (a kernel scalar)."""
        return self.op == "scalar"

    @property
    def is_dim(self) -> bool:
        """A size of a tensor (symbolic: a dim of the draft's views)."""
        return self.op == "dim"

    @property
    def is_leaf(self) -> bool:
        return self.kind in LEAF_KINDS

    @property
    def is_elementwise(self) -> bool:
        return self.kind == ELEMENTWISE

    @property
    def is_reduce(self) -> bool:
        return self.kind == REDUCE

    @property
    def is_scan(self) -> bool:
        return self.kind == SCAN

    @property
    def is_pick(self) -> bool:
        return self.kind == PICK

    @property
    def is_view(self) -> bool:
        """A reshape: the same elements in another shape."""
        return self.kind == VIEW

    @property
    def is_cast(self) -> bool:
        return self.op == "cast"

    @property
    def is_compare(self) -> bool:
        return self.info.compare

    def __repr__(self) -> str:   # short, for messages and debugging
        if self.op == "const":
            return repr(self.value)
        return f"{self.op}({', '.join(map(repr, self.args))})" if self.args else f"{self.op}[{self.attrs}]"


def argument_name(names: list, src: str, i: int) -> str:
    """A number's name in a kernel: its argument's name (forward's or __init__'s), else `<src><i>`."""
    return names[i] if i < len(names) and names[i] else f"{src}{i}"


def is_number(d: dict) -> bool:
    """A traced input description that is a number (a kernel scalar), not a tensor or a sequence."""
    return d.get("kind") == "scalar" and d.get("type") in ("float", "int", "bool")


@dataclass
class Graph:
    outputs: list[Node]
    inputs: list[dict]                 # the traced get_inputs() descriptions
    init_inputs: list[dict]
    init_names: list
    input_names: list[str]             # forward's parameter names, per get_inputs() position
    parameters: dict
    buffers: dict
    method: str
    training: bool
    notes: list[str] = field(default_factory=list)
    lines: dict = field(default_factory=dict)      # call name (matmul, triu, ...) -> first reference line

    def numbers(self):
        """(src, index, name, description) of every number of get_inputs(), then of get_init_inputs():
        the order and the names in which kernels declare their scalar parameters."""
        for src, items, names in (("input", self.inputs, self.input_names), ("init", self.init_inputs,
                                                                            self.init_names)):
            for i, d in enumerate(items):
                if is_number(d):
                    yield src, i, argument_name(names, src, i), d

    def nodes(self) -> list[Node]:
        """All nodes reachable from the outputs, operands first."""
        seen: dict[int, Node] = {}

        def visit(n):
            if id(n) in seen:
                return
            for a in n.args:
                if isinstance(a, Node):
                    visit(a)
            seen[id(n)] = n
        for o in self.outputs:
            visit(o)
        return list(seen.values())


# -- shapes and dtypes ---------------------------------------------------------------------------
def broadcast(*shapes):
    shapes = [s for s in shapes if s is not None]
    if not shapes:
        return None
    rank = max(len(s) for s in shapes)
    out = []
    for i in range(rank):
        dims = {s[len(s) - rank + i] for s in shapes if len(s) - rank + i >= 0} - {1}
        if len(dims) > 1:
            raise Unsupported(f"shapes {' and '.join(str(tuple(s)) for s in shapes)} do not broadcast")
        out.append(dims.pop() if dims else 1)
    return tuple(out)


def result_dtype(*nodes) -> str:
    tensors = [n.dtype for n in nodes if isinstance(n, Node) and n.is_tensor]
    floats = [d for d in tensors if d in FLOAT_DTYPES]
    if floats:
        return "float32" if "float32" in floats else floats[0]
    if tensors:
        scal = [n for n in nodes if isinstance(n, Node) and not n.is_tensor and n.dtype == "float"]
        if scal or any(isinstance(n, float) for n in nodes):
            return "float32"
        return tensors[0]
    if any((isinstance(n, Node) and n.dtype == "float") or isinstance(n, float) for n in nodes):
        return "float"
    return "int"


# -- the canonical ops: one row per op, what templates ask about a node --------------------------
# A template asks a node's kind (`Node.kind`, `Node.is_data` ...) and the facts of its op's row,
# never its op name: an op is added here once, and the layouts, templates and writers follow.
DATA = "data"                # input (a tensor or number of get_inputs) or param (a Model parameter / buffer)
NUMBER = "number"            # scalar (a number of get_inputs / get_init_inputs), const, dim (an input size)
ELEMENTWISE = "elementwise"  # the DSL's own arithmetic, numpy broadcasting
REDUCE = "reduce"            # sum / max / min / prod over a set of axes
SCAN = "scan"                # cumsum / cumprod along one axis
PICK = "pick"                # x[r, index[r]]: a loss's class-index pick
POOL = "pool"                # max / avg pooling over the last 1-3 axes
VIEW = "view"                # the same elements seen in another shape (reshape)
STRETCH = "stretch"          # a tensor broadcast to a larger shape (expand, broadcast_to)
FILL = "fill"                # a constant tensor (zeros, ones, full)
MOVE = "move"                # elements moved by offsets: slice, cat, flip, shift, select
REMAP = "remap"              # elements moved by an index map per axis: pad, roll, tile
PERMUTE = "permute"          # axes reordered: permute, transpose
SPLIT = "split"              # the parts of one tensor along an axis
INDEX = "index"              # reads or writes by an index tensor: argmax, gather, index_select, scatter ...
SORT = "sort"                # sort / argsort / topk / kthvalue along the last axis
COUNT = "count"              # data-dependent sizes: histc, repeat_interleave, nonzero
RESIZE = "resize"            # interpolation and grid sampling
CUBE = "cube"                # a matrix product and what only the cube templates read (diag, triu, tril)
CONV = "conv"                # a convolution (1-3 spatial axes, grouped, transposed): im2col + the cube
LEAF_KINDS = (DATA, NUMBER)


@dataclass(frozen=True)
class OpInfo:
    """What the drafter knows of one canonical op."""
    kind: str
    arity: int = 2              # ELEMENTWISE: operands
    fold: object = None         # the Python function that folds constant operands (None: never folded)
    infix: str = ""             # DSL infix symbol (`a + b`); compares too
    prec: int = 9               # precedence of its DSL text (9: an atom or a call)
    tight_right: bool = False   # a right operand of its own precedence needs parentheses (a - (b - c))
    commutative: bool = False   # operands are ordered canonically (0.5 * x and x * 0.5 are one node)
    compare: bool = False       # its result is bool
    floating: bool = False      # its result is a float even of integer operands (so is a host field of it)
    host: str = ""              # its host-function form ({0}, {1}: the operands); "" when the host lacks it
    prefix: str = ""            # DSL prefix symbol (`-a`)
    call: bool = False          # DSL text `op(a, ...)` in a kernel
    mask_first: bool = False    # its first operand is a bool mask, read as it is (where)
    what: str = ""              # the user's name for it in messages (an index op: index_select ...)
    form: str = ""              # INDEX: how the index template moves data (take, copy, add, scatter, put, set);
                                # CUBE: product, diagonal (diag(v)), mask (triu, tril); PERMUTE: order, swap;
                                # MOVE: window (slice), concat (cat, stack), shift, select, reverse (flip);
                                # REMAP: pad, roll, repeat; RESIZE: interpolate, sample (grid_sample), grid
    slices: bool = False        # INDEX: an index names whole slices along its axis (index_select, index_add ...)
    elements: bool = False      # INDEX: an index names single elements along its axis (gather, scatter ...)
    moves: str = ""             # pad, roll, tile, flip: the attribute keyed by the axes it moves elements
                                # along (the remap template's index map per axis expresses it)
    writes: bool = False        # INDEX: the result is its first operand with a source written in


def _ew(**kw) -> OpInfo:
    return OpInfo(ELEMENTWISE, **kw)


def _cmp(sym: str, fold) -> OpInfo:
    return _ew(fold=fold, infix=sym, prec=2, compare=True, commutative=sym in ("==", "!="))


def _unary(fold=None, **kw) -> OpInfo:
    return _ew(arity=1, fold=fold, call=True, **kw)


OPS: dict[str, OpInfo] = {
    **{op: OpInfo(DATA) for op in ("input", "param")},
    **{op: OpInfo(NUMBER) for op in ("scalar", "const", "dim")},
    "add": _ew(fold=lambda a, b: a + b, infix="+", prec=4, commutative=True, host="({0} + {1})"),
    "sub": _ew(fold=lambda a, b: a - b, infix="-", prec=4, tight_right=True, host="({0} - {1})"),
    "mul": _ew(fold=lambda a, b: a * b, infix="*", prec=5, commutative=True, host="({0} * {1})"),
    "div": _ew(fold=lambda a, b: a / b, infix="/", prec=5, tight_right=True, floating=True, host="({0} / {1})"),
    "floordiv": _ew(infix="//", prec=5, tight_right=True, host="({0} // {1})"),
    "max": _ew(fold=max, call=True, commutative=True, host="max({0}, {1})"),
    "min": _ew(fold=min, call=True, commutative=True, host="min({0}, {1})"),
    "pow": _ew(fold=lambda a, b: a ** b, call=True, floating=True, host="pow({0}, {1})"),
    "neg": _ew(arity=1, fold=lambda a: -a, prefix="-", prec=6, host="(-{0})"),
    "where": _ew(arity=3, call=True, mask_first=True),
    "cast": _ew(arity=1),
    "lt": _cmp("<", lambda a, b: a < b), "le": _cmp("<=", lambda a, b: a <= b),
    "gt": _cmp(">", lambda a, b: a > b), "ge": _cmp(">=", lambda a, b: a >= b),
    "eq": _cmp("==", lambda a, b: a == b), "ne": _cmp("!=", lambda a, b: a != b),
    "abs": _unary(abs), "relu": _unary(lambda a: max(a, 0)),
    "exp": _unary(math.exp, floating=True, host=f"pow({math.e!r}, {{0}})"),
    "log": _unary(math.log, floating=True), "sqrt": _unary(math.sqrt, floating=True, host="pow({0}, 0.5)"),
    "rsqrt": _unary(lambda a: 1 / math.sqrt(a), floating=True, host="pow({0}, -0.5)"),
    "reciprocal": _unary(lambda a: 1 / a, floating=True, host="(1.0 / {0})"),
    "sigmoid": _unary(lambda a: 1 / (1 + math.exp(-a)), floating=True), "tanh": _unary(math.tanh, floating=True),
    "rint": _unary(round), "floor": _unary(math.floor), "ceil": _unary(math.ceil), "trunc": _unary(math.trunc),
    "reduce": OpInfo(REDUCE), "scan": OpInfo(SCAN), "pick": OpInfo(PICK), "pool": OpInfo(POOL),
    "reshape": OpInfo(VIEW), "expand": OpInfo(STRETCH), "full": OpInfo(FILL),
    "slice": OpInfo(MOVE, form="window"), "cat": OpInfo(MOVE, form="concat"), "shift": OpInfo(MOVE, form="shift"),
    "select": OpInfo(MOVE, form="select"),
    # along an outer axis: read from the end; along the last: remapped
    "flip": OpInfo(MOVE, form="reverse", moves="axes"),
    "pad": OpInfo(REMAP, form="pad", moves="pads"), "roll": OpInfo(REMAP, form="roll", moves="shifts"),
    "tile": OpInfo(REMAP, form="repeat", moves="reps"),
    "permute": OpInfo(PERMUTE, form="order"), "transpose": OpInfo(PERMUTE, form="swap"),   # swap: the last two axes
    "split": OpInfo(SPLIT),
    "argreduce": OpInfo(INDEX, what="arg{kind}", form="arg"),
    "gather": OpInfo(INDEX, what="gather", form="take", elements=True),
    "take_rows": OpInfo(INDEX, what="index_select", form="copy", slices=True),
    "index_add": OpInfo(INDEX, what="index_add", form="add", slices=True, writes=True),
    "index_copy": OpInfo(INDEX, what="index_copy", form="put", slices=True, writes=True),
    "scatter_add": OpInfo(INDEX, what="scatter_add", form="scatter", elements=True, writes=True),
    "scatter": OpInfo(INDEX, what="scatter", form="set", elements=True, writes=True),
    "sort": OpInfo(SORT),
    "histc": OpInfo(COUNT, what="torch.histc"), "interleave": OpInfo(COUNT, what="repeat_interleave"),
    "nonzero": OpInfo(COUNT, what="torch.nonzero / masked_select"),
    "resize": OpInfo(RESIZE, form="interpolate", what="F.interpolate"),
    "grid_sample": OpInfo(RESIZE, form="sample", what="F.grid_sample"), "affine_grid": OpInfo(RESIZE, form="grid"),
    "matmul": OpInfo(CUBE, form="product"), "diag": OpInfo(CUBE, form="diagonal"),
    **{op: OpInfo(CUBE, form="mask") for op in ("triu", "tril")},      # a product's result masked to a triangle
    "conv": OpInfo(CONV),
}


def op_info(op: str) -> OpInfo:
    """The row of `op`; an op without one is a drafter bug (a rule made a node no template knows)."""
    try:
        return OPS[op]
    except KeyError:
        raise Unsupported(f"internal: `{op}` is not a canonical op") from None


def clamp_of(n: "Node") -> "tuple[Node, Node, Node] | None":
    """(x, lo, hi) when n is min(max(x, lo), hi), a clamp as the rules build it; else None."""
    inner = n.args[0] if n.op == "min" and len(n.args) == 2 else None
    if isinstance(inner, Node) and inner.op == "max" and isinstance(n.args[1], Node) \
            and isinstance(inner.args[1], Node):
        return inner.args[0], inner.args[1], n.args[1]
    return None


def inverse_of(n: "Node") -> "Node | None":
    """x when n is 1 / x (reciprocal(x), or a division of the constant 1); else None."""
    if n.op == "reciprocal":
        return n.args[0]
    if n.op == "div" and n.args[0].is_const and n.args[0].value == 1:
        return n.args[1]
    return None


def _fold(op: str, n: int):
    """The folding function of `op` applied to `n` operands, or None."""
    info = op_info(op)
    return info.fold if info.arity == n else None


def ops_of(kind: str) -> tuple[str, ...]:
    """The ops of one kind, in table order."""
    return tuple(op for op, info in OPS.items() if info.kind == kind)


# -- the builder: canonical nodes with folding ----------------------------------------------------
def structure_key(n, memo: dict | None = None) -> str:
    """A deterministic text of a node's structure (leaves by what they are, not by name)."""
    if not isinstance(n, Node):
        return repr(n)
    memo = {} if memo is None else memo
    if id(n) in memo:
        return memo[id(n)]
    if n.op == "const":
        k = f"const:{n.value!r}"
    elif n.op in ("input", "scalar"):
        k = f"{n.op}:{n.attrs.get('source', '')}:{n.attrs.get('index')}"
    elif n.op == "param":
        k = f"param:{n.attrs['name']}"
    elif n.op == "dim":
        k = f"dim:{structure_key(n.attrs['of'], memo)}:{n.attrs['axis']}"
    else:
        attrs = ",".join(f"{a}={v}" for a, v in sorted(n.attrs.items()) if a not in ("of", "in_shape"))
        k = f"{n.op}[{attrs}](" + ",".join(structure_key(a, memo) for a in n.args) + ")"
    memo[id(n)] = k
    return k


class Builder:
    """Makes canonical nodes: folds constants, drops identities, orders the operands of
    commutative operations (tensors, then scalars, then constants; ties by structure) so that
    `0.5 * x` and `x * 0.5` are one node, and infers shapes and dtypes."""

    def __init__(self):
        self._keys: dict = {}
        self.init_inputs: list = []        # get_init_inputs() descriptions (rules that name a number)
        self.init_names: list = []
        self.tensors: dict = {}            # the Model's parameters and buffers by name
        self.notes: list[str] = []         # assumptions a rule made (shown with the draft)
        self.parts_are_outputs = True      # forward returns the parts of a split (else a part is a slice)

    def _order(self, args: tuple) -> tuple:
        def rank(a: Node):
            k = structure_key(a, self._keys)
            return (0 if a.is_tensor else 2 if a.is_const else 1, len(k), k)
        return tuple(sorted(args, key=rank))

    def const(self, v) -> Node:
        if isinstance(v, Node):
            return v
        dtype = "bool" if isinstance(v, bool) else "int" if isinstance(v, int) else "float"
        return Node("const", value=v, dtype=dtype)

    def ew(self, op: str, *args) -> Node:
        args = tuple(self.const(a) for a in args)
        if all(a.is_const for a in args):
            fn = _fold(op, len(args))
            if fn is not None:
                try:
                    return self.const(fn(*(a.value for a in args)))
                except (ValueError, ZeroDivisionError, OverflowError):
                    pass
        info = op_info(op)
        if info.commutative:
            args = self._order(args)
        simplified = self._identity(op, args)
        if simplified is not None:
            return simplified
        shape = broadcast(*(a.shape for a in args if a.is_tensor))
        if info.compare:
            dtype = "bool"
        elif op == "where":
            dtype = result_dtype(args[1], args[2])
            if shape is not None and dtype == "float":     # where(mask, 1.0, 0.0): torch's default float dtype
                dtype = "float32"
        else:
            dtype = result_dtype(*args)
            if info.floating and dtype in ("int", "bool"):
                dtype = "float"
        node = Node(op, args, shape=shape, dtype=dtype)
        if shape is None and all(a.value is not None for a in args):
            fn = _fold(op, len(args))
            if fn is not None:
                try:
                    node.value = fn(*(a.value for a in args))
                except (ValueError, ZeroDivisionError, OverflowError, TypeError):
                    pass
        return node

    @staticmethod
    def _identity(op, args):
        def is_c(a, v):
            return a.is_const and not isinstance(a.value, bool) and a.value == v
        if op == "mul":
            if is_c(args[0], 1) and args[1].is_tensor:
                return args[1]
            if is_c(args[1], 1) and (args[0].is_tensor or not args[1].is_tensor):
                return args[0]
        if op in ("add", "sub") and is_c(args[1], 0):
            return args[0]
        if op == "add" and is_c(args[0], 0):
            return args[1]
        if op == "div" and is_c(args[1], 1):
            return args[0]
        if op == "pow" and is_c(args[1], 1):
            return args[0]
        return None

    # elementwise helpers used by the activation rules
    def add(self, a, b): return self.ew("add", a, b)
    def sub(self, a, b): return self.ew("sub", a, b)
    def mul(self, a, b): return self.ew("mul", a, b)
    def div(self, a, b): return self.ew("div", a, b)
    def maximum(self, a, b): return self.ew("max", a, b)
    def minimum(self, a, b): return self.ew("min", a, b)

    def clamp(self, x, lo=None, hi=None):
        if lo is not None:
            x = self.maximum(x, lo)
        if hi is not None:
            x = self.minimum(x, hi)
        return x

    def cast(self, x: Node, dtype: str) -> Node:
        if not x.is_tensor:
            if x.is_const:
                return self.const(float(x.value) if dtype in FLOAT_DTYPES else x.value)
            return x
        if x.dtype == dtype:
            return x
        return Node("cast", (x,), {"dtype": dtype}, x.shape, dtype)

    def reduce(self, kind: str, x: Node, axes, keepdim: bool) -> Node:
        if not x.is_tensor:
            raise Unsupported(f"`{kind}` of a scalar")
        rank = len(x.shape)
        if axes is None or (isinstance(axes, (list, tuple)) and len(axes) == 0):
            axes = tuple(range(rank))
        axes = tuple(sorted({norm_axis(a, rank) for a in (axes if isinstance(axes, (list, tuple)) else [axes])}))
        shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape)) if keepdim else \
            tuple(d for i, d in enumerate(x.shape) if i not in axes)
        dtype = x.dtype if x.dtype in FLOAT_DTYPES else "float32"
        return Node("reduce", (x,), {"kind": kind, "axes": axes, "keepdim": keepdim, "in_shape": x.shape},
                    shape, dtype)

    def mean(self, x: Node, axes, keepdim: bool) -> Node:
        s = self.reduce("sum", x, axes, keepdim)
        n = self.count(x, s.attrs["axes"])
        return self.div(s, n)

    def count(self, x: Node, axes) -> Node:
        """The number of elements over `axes` of tensor x, symbolic when the sizes are input dims."""
        out = self.const(1)
        for a in axes:
            out = self.ew("mul", out, self.dim_of(x, a))
        return out

    def dim_of(self, x: Node, axis: int) -> Node:
        size = x.shape[axis]
        return Node("dim", (), {"of": x, "axis": axis}, None, "int", size)

    def scan(self, kind: str, x: Node, axis: int, reverse: bool = False) -> Node:
        if not x.is_tensor:
            raise Unsupported(f"`{kind}` of a scalar")
        axis = norm_axis(axis, len(x.shape))
        dtype = x.dtype if x.dtype in FLOAT_DTYPES else "float32"
        return Node("scan", (x,), {"kind": kind, "axis": axis, "reverse": reverse}, x.shape, dtype)

    def pool(self, kind: str, x: Node, dims: int, kernel, stride, padding, dilation, ceil_mode: bool) -> Node:
        """Max or avg pooling of the last `dims` axes, one (k, s, p, d) per axis; the output size
        follows PyTorch (a ceil-mode window must start inside the input or its left padding)."""
        if not x.is_tensor or len(x.shape) not in (dims + 1, dims + 2):
            what = f"rank-{len(x.shape)} tensor" if x.is_tensor else "scalar"
            raise Unsupported(f"{kind} pooling over {dims} axes of a {what} (it takes a rank-{dims + 1} or "
                              f"rank-{dims + 2} tensor)")
        if x.dtype not in FLOAT_DTYPES:
            raise Unsupported(f"{kind} pooling of a {x.dtype} tensor")
        out = []
        for size, k, s, p, d in zip(x.shape[-dims:], kernel, stride, padding, dilation):
            span = d * (k - 1) + 1
            n = (size + 2 * p - span + ((s - 1) if ceil_mode else 0)) // s + 1
            if ceil_mode and (n - 1) * s >= size + p:
                n -= 1
            out.append(n)
        attrs = {"kind": kind, "kernel": tuple(kernel), "stride": tuple(stride), "padding": tuple(padding),
                 "dilation": tuple(dilation), "ceil_mode": bool(ceil_mode)}
        return Node("pool", (x,), attrs, tuple(x.shape[:-dims]) + tuple(out), x.dtype)

    def reshape(self, x: Node, shape) -> Node:
        shape = tuple(int(d) for d in shape)
        if not x.is_tensor:
            if math.prod(shape) == 1:
                return Node("reshape", (x,), {}, shape, "float32" if x.dtype == "float" else x.dtype)
            raise Unsupported("reshaping a scalar to a larger tensor")
        if math.prod(shape) != math.prod(x.shape):
            raise Unsupported(f"a reshape from {tuple(x.shape)} to {shape} changes the element count")
        if shape == tuple(x.shape):
            return x
        if x.op == "reshape":
            x = x.args[0]
            if tuple(x.shape) == shape:
                return x
        return Node("reshape", (x,), {}, shape, x.dtype)

    def pick(self, x: Node, index: Node, axis: int) -> Node:
        """x[r, index[r]]: along `axis`, the element each index names (the target logit of a row)."""
        if not (x.is_tensor and index.is_tensor):
            raise Unsupported("a class-index pick of a scalar")
        axis = norm_axis(axis, len(x.shape))
        shape = tuple(d for i, d in enumerate(x.shape) if i != axis)
        if tuple(index.shape) != shape:
            raise Unsupported(f"class indices of shape {tuple(index.shape)} for values of shape {tuple(x.shape)} "
                              f"(one index per row: {shape})")
        return Node("pick", (x, index), {"axis": axis}, shape, x.dtype)

    def argreduce(self, kind: str, x: Node, axis, keepdim: bool) -> Node:
        """The int64 index of the first largest (`max`) or smallest (`min`) element along `axis`."""
        if not x.is_tensor:
            raise Unsupported(f"`arg{kind}` of a scalar")
        if axis is None:
            raise Unsupported(f"`arg{kind}` over all elements (without `dim`; the drafter takes the index along one "
                              "axis)")
        axis = norm_axis(axis, len(x.shape))
        shape = tuple(1 if i == axis else d for i, d in enumerate(x.shape)) if keepdim else \
            tuple(d for i, d in enumerate(x.shape) if i != axis)
        return Node("argreduce", (x,), {"kind": kind, "axis": axis, "keepdim": bool(keepdim)}, shape, "int64")

    def gather(self, x: Node, index: Node, axis, shared: bool = False) -> Node:
        """out[..., j] = x[..., index[..., j]] along `axis` (the last one); `shared`: one index row
        for every row (index_select along the last axis)."""
        if not (x.is_tensor and index.is_tensor):
            raise Unsupported("a gather of or by a scalar")
        axis = norm_axis(axis, len(x.shape))
        if shared:
            shape = tuple(x.shape[:axis]) + (index.shape[0],) + tuple(x.shape[axis + 1:])
        else:
            if len(index.shape) != len(x.shape):
                raise Unsupported(f"a gather by indices of rank {len(index.shape)} from a rank-{len(x.shape)} tensor")
            shape = tuple(index.shape)
        return Node("gather", (x, index), {"axis": axis, "shared": shared}, shape, x.dtype)

    def sort(self, x: Node, axis, descending: bool, k: "int | Node" = 0, kth: bool = False, keepdim: bool = False,
             what: str = "sort") -> tuple[Node, Node]:
        """(values, int64 indices) of a stable sort along `axis` (descending: largest first); k > 0:
        only the first k (topk); `kth`: only the k-th (kthvalue: the axis dropped unless keepdim)."""
        if not x.is_tensor:
            raise Unsupported(f"`{what}` of a scalar")
        count = k if isinstance(k, Node) else None      # k read by the kernel (a scalar input)
        k = int(count.value) if count is not None else k
        rank = len(x.shape)
        axis = norm_axis(axis, rank) if rank else 0
        if k and not (rank and 0 < k <= x.shape[axis]) and not (not rank and k == 1):
            raise Unsupported(f"`{what}` with k = {k} of {x.shape[axis] if rank else 1} elements")
        attrs = {"axis": axis, "descending": bool(descending), "k": int(k), "kth": kth, "keepdim": keepdim,
                 "what": what}
        if kth:
            shape = tuple(1 if i == axis else d for i, d in enumerate(x.shape)) if keepdim else \
                tuple(d for i, d in enumerate(x.shape) if i != axis)
        else:
            shape = tuple(k if (k and i == axis) else d for i, d in enumerate(x.shape))
        args = (x,) if count is None else (x, count)
        return (Node("sort", args, {**attrs, "part": "values"}, shape, x.dtype),
                Node("sort", args, {**attrs, "part": "indices"}, shape, "int64"))

    def take_rows(self, x: Node, index: Node, axis) -> Node:
        """x[..., index, ...] along `axis`: the slice after the axis named by every index, in the
        index's own shape (index_select with a 1-D index, nn.Embedding with any)."""
        if not (x.is_tensor and index.is_tensor):
            raise Unsupported("an index_select of or by a scalar")
        axis = norm_axis(axis, len(x.shape))
        shape = tuple(x.shape[:axis]) + tuple(index.shape) + tuple(x.shape[axis + 1:])
        return Node("take_rows", (x, index), {"axis": axis}, shape, x.dtype)

    def index_add(self, x: Node, index: Node, source: Node, alpha) -> Node:
        """x with alpha * source[i] added into slice index[i] along the first axis (repeats add up)."""
        return Node("index_add", (x, index, source), {"axis": 0, "alpha": alpha}, x.shape, x.dtype)

    def scatter_add(self, x: Node, index: Node, source: Node, axis: int) -> Node:
        """x with source[i, j] added at index[i, j] along `axis` of a 2-D tensor (repeats add up)."""
        return Node("scatter_add", (x, index, source), {"axis": axis}, x.shape, x.dtype)

    def index_copy(self, x: Node, index: Node, source: Node) -> Node:
        """x with slice index[i] along the first axis replaced by source[i] (the last i wins a repeat)."""
        return Node("index_copy", (x, index, source), {"axis": 0}, x.shape, x.dtype)

    def scatter(self, x: Node, index: Node, source: Node, axis: int) -> Node:
        """x with source[i, j] written at index[i, j] along `axis` of a 2-D tensor (the last j wins a repeat)."""
        return Node("scatter", (x, index, source), {"axis": axis}, x.shape, x.dtype)

    def full(self, value, shape, dtype="float32") -> Node:
        return Node("full", (self.const(value),), {}, tuple(shape), dtype)


def norm_axis(a, rank: int) -> int:
    if isinstance(a, Node):
        if a.value is None:
            raise Unsupported("an axis that is not a constant")
        a = a.value
    a = int(a)
    if not -rank <= a < max(rank, 1):
        raise Unsupported(f"axis {a} is out of range for a rank-{rank} tensor")
    return a % max(rank, 1)


# -- activations and friends as formulas ---------------------------------------------------------
SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
# Abramowitz & Stegun 7.1.26: erfc(z) ~ poly(t) exp(-z^2), t = 1 / (1 + p z), z >= 0, |error| <= 1.5e-7.
AS_P = 0.3275911
AS_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)


def erfc_pos(b: Builder, z: Node) -> Node:
    """erfc(z) for z >= 0, as a polynomial times exp(-z^2) (A&S 7.1.26): vector ops only."""
    t = b.ew("reciprocal", b.add(b.mul(z, AS_P), 1.0))
    poly = b.const(AS_A[4])
    for a in reversed(AS_A[:4]):
        poly = b.add(b.mul(poly, t), a)
    poly = b.mul(poly, t)
    return b.mul(poly, b.ew("exp", b.ew("neg", b.mul(z, z))))


def gelu(b: Builder, x: Node, approximate: str = "none") -> Node:
    if approximate == "tanh":
        inner = b.mul(b.add(x, b.mul(b.mul(b.mul(x, x), x), 0.044715)), SQRT_2_OVER_PI)
        return b.mul(b.mul(x, 0.5), b.add(b.ew("tanh", inner), 1.0))
    # exact: x * Phi(x) = relu(x) - |x| * erfc(|x| / sqrt 2) / 2 (no cancellation for x < 0)
    ax = b.ew("abs", x)
    q = b.mul(erfc_pos(b, b.mul(ax, 1.0 / math.sqrt(2.0))), 0.5)
    return b.sub(b.ew("relu", x), b.mul(ax, q))


def erf(b: Builder, x: Node) -> Node:
    e = erfc_pos(b, b.ew("abs", x))              # erfc(|x|)
    return b.ew("where", b.ew("lt", x, 0.0), b.sub(e, 1.0), b.sub(1.0, e))


def elu(b: Builder, x, alpha=1.0, scale=1.0, input_scale=1.0) -> Node:
    # relu(x) + alpha * (exp(min(x, 0)) - 1): both branches without a select; exp never overflows.
    xs = b.mul(x, input_scale)
    neg = b.mul(b.sub(b.ew("exp", b.minimum(xs, 0.0)), 1.0), alpha)
    out = b.add(b.ew("relu", x), neg)
    return b.mul(out, scale)


SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def softplus(b: Builder, x, beta=1.0, threshold=20.0) -> Node:
    bx = b.mul(x, beta)
    # log(1 + exp(bx)) = relu(bx) + log(1 + exp(-|bx|)): never overflows
    soft = b.div(b.add(b.ew("relu", bx), b.ew("log", b.add(b.ew("exp", b.ew("neg", b.ew("abs", bx))), 1.0))), beta)
    if threshold is None or (isinstance(threshold, (int, float)) and math.isinf(threshold)):
        return soft
    return b.ew("where", b.ew("gt", bx, threshold), x, soft)


def leaky_relu(b: Builder, x, slope=0.01) -> Node:
    if isinstance(slope, (int, float)) and 0.0 <= slope <= 1.0:
        return b.maximum(x, b.mul(x, slope))          # max(x, a x) = leaky_relu for 0 <= a <= 1
    return b.ew("where", b.ew("gt", x, 0.0), x, b.mul(x, slope))


def hardsigmoid(b: Builder, x) -> Node:
    return b.clamp(b.add(b.div(x, 6.0), 0.5), 0.0, 1.0)


def gelu_derivative(b: Builder, x: Node, approximate: str = "none") -> Node:
    """d gelu(x) / dx, the factor aten.gelu_backward multiplies the gradient by."""
    if approximate == "tanh":
        # gelu = 0.5 x (1 + t), t = tanh(u), u = k (x + c x^3): 0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3 c x^2)
        x2 = b.mul(x, x)
        t = b.ew("tanh", b.mul(b.add(x, b.mul(b.mul(x2, x), 0.044715)), SQRT_2_OVER_PI))
        du = b.mul(b.add(b.mul(x2, 3.0 * 0.044715), 1.0), SQRT_2_OVER_PI)
        return b.add(b.mul(b.add(t, 1.0), 0.5), b.mul(b.mul(b.mul(x, 0.5), b.sub(1.0, b.mul(t, t))), du))
    # Phi(x) + x phi(x); Phi from erfc(|x| / sqrt 2) on the side of x that does not cancel
    q = b.mul(erfc_pos(b, b.mul(b.ew("abs", x), 1.0 / math.sqrt(2.0))), 0.5)
    cdf = b.ew("where", b.ew("lt", x, 0.0), q, b.sub(1.0, q))
    pdf = b.mul(b.ew("exp", b.mul(b.mul(x, x), -0.5)), 1.0 / math.sqrt(2.0 * math.pi))
    return b.add(cdf, b.mul(x, pdf))


def elu_derivative(b: Builder, x, alpha=1.0, scale=1.0, input_scale=1.0, is_result=False) -> Node:
    """d elu / dx as aten.elu_backward: of the input x, or (is_result) of the output y = elu(x)."""
    if is_result:      # y <= 0: input_scale (y + alpha scale)
        neg = b.mul(b.add(x, b.mul(alpha, scale)), input_scale)
    else:              # x <= 0: input_scale alpha scale exp(input_scale x); exp of min(., 0) never overflows
        neg = b.mul(b.ew("exp", b.minimum(b.mul(x, input_scale), 0.0)), b.mul(b.mul(alpha, scale), input_scale))
    return b.ew("where", b.ew("gt", x, 0.0), b.const(scale), neg)


def softplus_derivative(b: Builder, x, beta=1.0, threshold=20.0) -> Node:
    """d softplus / dx = sigmoid(beta x), 1 past the threshold (where softplus is x)."""
    bx = b.mul(x, beta)
    return b.ew("where", b.ew("gt", bx, threshold), 1.0, b.ew("sigmoid", bx))


def softmax_parts(b: Builder, x: Node, dim) -> tuple[Node, Node, Node]:
    m = b.reduce("max", x, [dim], True)
    e = b.ew("exp", b.sub(x, m))
    s = b.reduce("sum", e, [dim], True)
    return m, e, s


def softmax(b: Builder, x: Node, dim) -> Node:
    _, e, s = softmax_parts(b, x, dim)
    return b.div(e, s)


def log_softmax(b: Builder, x: Node, dim) -> Node:
    m, _, s = softmax_parts(b, x, dim)
    return b.sub(b.sub(x, m), b.ew("log", s))


def logsumexp(b: Builder, x: Node, dim, keepdim=False) -> Node:
    m = b.reduce("max", x, dim, True)
    s = b.reduce("sum", b.ew("exp", b.sub(x, m)), dim, True)
    out = b.add(m, b.ew("log", s))
    if not keepdim:
        out = b.reshape(out, [d for i, d in enumerate(out.shape) if i not in m.attrs["axes"]])
    return out


def norm(b: Builder, x: Node, p=2, dim=None, keepdim=False) -> Node:
    if p in (2, 2.0, "fro", None):
        return b.ew("sqrt", b.reduce("sum", b.mul(x, x), dim, keepdim))
    if p in (1, 1.0):
        return b.reduce("sum", b.ew("abs", x), dim, keepdim)
    if isinstance(p, (int, float)) and math.isinf(p):
        return b.reduce("max" if p > 0 else "min", b.ew("abs", x), dim, keepdim)
    raise Unsupported(f"norm with p={p!r}")


def power(b: Builder, x: Node, e) -> Node:
    """x ** e with the cheap forms for the common exponents (the DSL keeps pow for the rest)."""
    if isinstance(e, Node) and e.is_const:
        e = e.value
    if isinstance(e, (int, float)) and not isinstance(e, bool) and isinstance(x, Node) and x.is_tensor:
        if e == 0:
            return b.full(1.0, x.shape, x.dtype)
        if e == 1:
            return x
        if e == 2:
            return b.mul(x, x)
        if e == 3:
            return b.mul(b.mul(x, x), x)
        if e == 0.5:
            return b.ew("sqrt", x)
        if e == -0.5:
            return b.ew("rsqrt", x)
        if e == -1:
            return b.ew("reciprocal", x)
        if float(e).is_integer() and 4 <= abs(e) <= 64:
            k, base, acc = int(abs(e)), x, None
            while k:
                if k & 1:
                    acc = base if acc is None else b.mul(acc, base)
                k >>= 1
                if k:
                    base = b.mul(base, base)
            return acc if e > 0 else b.ew("reciprocal", acc)
    if isinstance(x, (int, float)) and not isinstance(x, bool) and isinstance(e, Node) and e.is_tensor:
        if x <= 0:
            raise Unsupported(f"{x} ** tensor with a non-positive base")
        return b.ew("exp", b.mul(e, math.log(x)))
    if isinstance(x, Node) and x.is_tensor and isinstance(e, Node) and e.is_tensor:
        return b.ew("exp", b.mul(e, b.ew("log", x)))
    return b.ew("pow", x, e)
