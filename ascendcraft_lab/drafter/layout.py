"""Which template a canonical graph fits, and how its tensors are laid out.

Every tensor of a supported graph lives in one of three spaces relative to a base shape S
(the shape the reductions and scans read, or the outputs' shape when there are none):

  full      shape S: streamed through UB tile by tile
  reduced   S with the reduced axes X removed (or kept as 1): one value per (lead, trail) index
  scalar    numbers: constants, scalars of get_inputs/get_init_inputs, input sizes, and math on them

The axes X must be adjacent, which splits S into lead (before X), X and trail (after X):

  map      no reduction or scan: the tensors are viewed flat and split into per-core chunks
  rows     trail is empty: a row is contiguous; reductions are sweeps along the row with a
           scalar accumulator, scans carry a scalar from tile to tile
  cols     trail is not empty: X is a middle axis; each (lead, trail-tile) keeps a running
           accumulator *tile* while the X index steps through contiguous [trail] slices
  windows  a rows graph whose only outputs are sum/max/min reductions of short rows: many whole
           rows per tile, one window reduction per row (what the expert reduce examples do)
  planes   the reduced axes end with a contiguous plane Q but are not one adjacent run (batch
           norm: N and H, W per channel), or a tensor varies along a reduced axis outside Q
           (group norm's per-channel weight within a group): each statistic group is a set of
           planes; see planes.py

Model parameters may also be broadcast (a leaf viewed with 1s, from the normalization rules):

  row      varies along exactly the reduced axes X (a layer norm's weight): a rows tile of it
           sits beside the row's tile
  plane    constant along Q but not a per-group value (group norm's weight): one number per plane

Without a reduction (a BatchNorm in eval mode: x * scale[c] + shift[c]) broadcast parameters
still decide the loops: constant along trailing axes Q, every plane of Q is its own group of
the planes template (one scalar scale and shift per plane); varying along a trailing run that
includes the last axis (BatchNorm1d on (N, C)), the cols template walks each column tile down
the axes before the run.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from .graph import Builder, Graph, Node, Unsupported

ELEMENTWISE = {"add", "sub", "mul", "div", "max", "min", "pow", "neg", "abs", "relu", "exp", "log", "sqrt",
               "rsqrt", "reciprocal", "sigmoid", "tanh", "where", "lt", "le", "gt", "ge", "eq", "ne", "cast",
               "floordiv"}
LEAVES = {"input", "param", "scalar", "const", "dim"}
WINDOW_MAX_ROW = 4096          # longest row the windows template takes (a tile holds whole rows)


@dataclass
class Layout:
    template: str                       # map | rows | cols | windows | planes
    base: tuple                         # S
    axes: tuple = ()                    # X (sorted, adjacent)
    space: dict = field(default_factory=dict)     # id(node) -> full | reduced | scalar
    nodes: list = field(default_factory=list)     # every node, operands first
    outputs: list = field(default_factory=list)
    reductions: list = field(default_factory=list)
    scans: list = field(default_factory=list)
    actual: dict = field(default_factory=dict)    # id(output node) -> its own shape when it is a view of S
    sym: tuple = ()                     # symbolic size of each axis of S when S splits an input axis

    @property
    def lead(self) -> tuple:
        return tuple(range(self.axes[0])) if self.axes else tuple(range(len(self.base)))

    @property
    def trail(self) -> tuple:
        return tuple(range(self.axes[-1] + 1, len(self.base))) if self.axes else ()

    def is_full(self, n: Node) -> bool:
        return self.space.get(id(n)) == "full"

    def is_reduced(self, n: Node) -> bool:
        return self.space.get(id(n)) == "reduced"

    def is_scalar(self, n: Node) -> bool:
        return self.space.get(id(n)) == "scalar"

    def is_row(self, n: Node) -> bool:
        return self.space.get(id(n)) == "row"

    def is_plane(self, n: Node) -> bool:
        return self.space.get(id(n)) == "plane"


def plan_layout(g: Graph) -> Layout:
    b = Builder()
    outputs = _prepare(b, g.outputs)
    nodes = Graph(outputs, [], [], [], [], {}, {}, "", False).nodes()
    priority = {"flip": 0, "slice": 1, "cat": 2, "shift": 3, "select": 4, "expand": 5, "full": 6}
    for n in sorted(nodes, key=lambda n: priority.get(n.op, 9)):
        if n.op == "slice":
            raise Unsupported(f"a slice [{n.attrs['start']}:{n.attrs['stop']}] along axis {n.attrs['axis']} (slices are "
                              "supported only in the exclusive-scan pattern cat([zeros, x[..., :-1]], dim) along the scan axis)")
        if n.op in ("flip",):
            raise Unsupported(f"`flip` along axes {n.attrs['axes']} outside a reverse scan")
        if n.op in ("slice", "cat", "shift", "select"):
            raise Unsupported(f"`{n.op}` (only the exclusive-scan pattern cat(zeros, x[..., :-1]) is supported)")
        if n.op == "full":
            raise Unsupported("a constant tensor used as a whole (zeros_like/ones_like as an output)")
        if n.op == "expand":
            raise Unsupported("an explicit expand/broadcast_to that reaches an output")
        if n.is_tensor and n.dtype not in ("float32", "float16", "bool"):
            raise Unsupported(f"{n.dtype} tensors (the drafter handles float32, float16 and bool)")
        if n.op == "floordiv" and n.is_tensor:
            raise Unsupported("floor division of tensors")
    reds = [n for n in nodes if n.op == "reduce"]
    scans = [n for n in nodes if n.op == "scan"]
    if reds or scans:
        bases = {tuple(n.attrs["in_shape"]) if n.op == "reduce" else tuple(n.shape) for n in reds + scans}
        if len(bases) > 1:
            raise Unsupported(f"reductions or scans over tensors of different shapes {sorted(bases)}")
        base = bases.pop()
        axes_sets = {tuple(n.attrs["axes"]) if n.op == "reduce" else (n.attrs["axis"],) for n in reds + scans}
        if len(axes_sets) > 1:
            raise Unsupported(f"reductions or scans along different axes {sorted(axes_sets)} in one kernel")
        axes = axes_sets.pop()
    else:
        shapes = {tuple(o.shape) for o in outputs}
        base = max(shapes, key=lambda s: (math.prod(s), len(s)))
        axes = ()
    actual = {}
    for i, o in enumerate(outputs):    # a view of S back to an output's own shape (group norm)
        if o.op == "reshape" and o.args[0].is_tensor and tuple(o.args[0].shape) == tuple(base) and axes:
            outputs[i] = o.args[0]
            actual[id(o.args[0])] = tuple(o.shape)
    if actual:
        nodes = Graph(outputs, [], [], [], [], {}, {}, "", False).nodes()
    lay = Layout("map", base, axes, nodes=nodes, outputs=outputs, reductions=reds, scans=scans, actual=actual)
    lay.sym = next((tuple(n.attrs["sym"]) for n in nodes if n.op in ("input", "param") and "sym" in n.attrs), ())
    _spaces(lay)
    adjacent = not axes or list(axes) == list(range(axes[0], axes[-1] + 1))
    if not axes and not scans and _column_parameters(lay):
        lay.template = "cols"
    elif any(lay.is_plane(n) for n in nodes) or not adjacent or lay.sym:
        from .planes import planes_fit
        why = planes_fit(lay)
        if why:
            raise Unsupported(why if adjacent else f"a reduction over the non-adjacent axes {axes} ({why})")
        lay.template = "planes"
    elif any(lay.is_row(n) for n in nodes) and (lay.trail or not axes):
        raise Unsupported("a parameter broadcast along the reduced axes of a reduction over a middle axis")
    elif not axes:
        lay.template = "map"
    elif lay.trail:
        lay.template = "cols"
    else:
        lay.template = "rows"
        if _windows_fit(lay):
            lay.template = "windows"
    if len({s.attrs["reverse"] for s in scans}) > 1:
        raise Unsupported("forward and reverse scans in one kernel")
    return lay


def _prepare(b: Builder, outputs):
    """Drop `expand` under elementwise ops (broadcasting does it) and `full` operands (constants);
    fold a view of a leaf (a parameter seen as (1, C, 1, 1), an input split as (N, G, C/G, H, W))
    into the leaf itself, which keeps its own shape in `actual`."""
    memo = {}

    def operand(a):
        if isinstance(a, Node) and a.op == "expand":
            return a.args[0]
        if isinstance(a, Node) and a.op == "full":
            return a.args[0]
        return a

    def go(n):
        if not isinstance(n, Node):
            return n
        if id(n) in memo:
            return memo[id(n)]
        args = tuple(go(a) for a in n.args)
        if n.op == "reshape" and args[0].op in ("input", "param") and ("sym" in n.attrs or "dims" in args[0].attrs):
            leaf = args[0]
            attrs = {**leaf.attrs, "actual": tuple(leaf.attrs.get("actual", leaf.shape))}
            if "sym" in n.attrs:
                attrs["sym"] = n.attrs["sym"]
            m = Node(leaf.op, (), attrs, tuple(n.shape), leaf.dtype, leaf.value, leaf.name)
            memo[id(n)] = m
            return m
        if n.op in ELEMENTWISE:
            args = tuple(operand(a) for a in args)
            m = b.ew(n.op, *args) if n.op != "cast" else b.cast(args[0], n.attrs["dtype"])
        elif any(x is not y for x, y in zip(args, n.args)):
            m = Node(n.op, args, dict(n.attrs), n.shape, n.dtype, n.value, n.name)
        else:
            m = n
        memo[id(n)] = m
        return m

    return [go(o) for o in outputs]


def _keepdim_shape(lay: Layout) -> tuple:
    return tuple(1 if i in lay.axes else d for i, d in enumerate(lay.base))


def _spaces(lay: Layout) -> None:
    S = lay.base
    kd = _keepdim_shape(lay)
    reduced_numel = math.prod(kd)
    for n in lay.nodes:
        if not n.is_tensor:
            lay.space[id(n)] = "scalar"
            continue
        if n.op in ("input", "param"):
            broadcast = _leaf_space(lay, n) if "actual" in n.attrs else None
            if broadcast:
                lay.space[id(n)] = broadcast
            elif tuple(n.shape) == tuple(S) or (not lay.axes and math.prod(n.shape) == math.prod(S)
                                                and math.prod(S) > 1 and _same_nontrivial(n.shape, S)):
                lay.space[id(n)] = "full"
            elif math.prod(n.shape) == 1:
                raise Unsupported(f"a one-element tensor input `{n.name}` (pass it as a number)")
            else:
                raise Unsupported(f"input `{n.name}` of shape {tuple(n.shape)} broadcast against {tuple(S)} "
                                  "(the drafter's layouts need inputs of one shape)")
            continue
        if n.op == "reduce":
            if lay.space.get(id(n.args[0])) != "full":
                raise Unsupported("a reduction of a value that is already reduced")
            lay.space[id(n)] = "reduced"
            continue
        if n.op == "scan":
            if lay.space.get(id(n.args[0])) != "full":
                raise Unsupported("a scan of a reduced value")
            lay.space[id(n)] = "full"
            continue
        if n.op == "reshape":
            inner = lay.space.get(id(n.args[0]))
            if inner == "reduced" and math.prod(n.shape) == reduced_numel:
                lay.space[id(n)] = "reduced"
            elif inner == "full" and (tuple(n.shape) == tuple(S) or not lay.axes):
                lay.space[id(n)] = "full"
            elif inner == "scalar":
                lay.space[id(n)] = "scalar"
            else:
                raise Unsupported(f"a reshape to {tuple(n.shape)} between reductions")
            continue
        spaces = {lay.space[id(a)] for a in n.args if isinstance(a, Node)}
        if spaces & {"row", "plane"}:
            # a broadcast parameter: with only per-group values and numbers it stays what it is (a
            # tile of the row, a number per plane); with anything that varies along the rest, full
            if spaces <= {"row", "scalar"}:
                lay.space[id(n)] = "row"
            elif spaces <= {"plane", "reduced", "scalar"}:
                lay.space[id(n)] = "plane"
            else:
                lay.space[id(n)] = "full"
            continue
        if "full" in spaces:
            if "reduced" in spaces:
                for a in n.args:
                    if isinstance(a, Node) and lay.space[id(a)] == "reduced" and not _broadcasts_as_keepdim(a.shape, kd, S):
                        raise Unsupported(f"a reduced value of shape {tuple(a.shape)} combined with shape {tuple(S)} "
                                          "(keep the reduced dims: keepdim=True)")
            if tuple(n.shape) != tuple(S) and lay.axes:
                raise Unsupported(f"an elementwise result of shape {tuple(n.shape)} beside {tuple(S)}")
            lay.space[id(n)] = "full"
        elif "reduced" in spaces:
            lay.space[id(n)] = "reduced"
        else:
            lay.space[id(n)] = "scalar"
    for o in lay.outputs:
        if lay.space.get(id(o)) == "scalar":
            raise Unsupported("an output that does not depend on any input tensor")
        if o.dtype == "bool":
            raise Unsupported("a bool output tensor")


def _leaf_space(lay: Layout, n: Node) -> str | None:
    """The space of a leaf seen through a broadcast view (its shape has 1s where it does not vary)."""
    S = tuple(lay.base)
    shape = tuple(n.shape)
    if len(shape) != len(S) or any(d not in (1, s) for d, s in zip(shape, S)):
        raise Unsupported(f"`{n.name}` of shape {tuple(n.attrs['actual'])} viewed as {shape} beside {S}")
    if shape == S:
        return "full"
    varies = {a for a, d in enumerate(shape) if d != 1}
    X = set(lay.axes)
    if varies and varies == set(range(len(S))) - X:
        return "reduced"                     # one value per statistics group (batch norm's weight)
    if varies == X and not (set(range(len(S))) - X) & varies:
        return "row"
    return "plane"


def _column_parameters(lay: Layout) -> bool:
    """An elementwise graph whose broadcast parameters all vary along one trailing run of axes,
    the last one included (a BatchNorm1d in eval mode on (N, C)): no contiguous plane holds a
    parameter constant, so the axes before the run act as the cols template's reduced axis with
    nothing to reduce. A column tile of each parameter (and the scale and shift made of them) is
    loaded once and reused all the way down the column; every copy stays contiguous. On success
    the layout takes those axes as X and the parameters become reduced-space values."""
    rank = len(lay.base)
    leaves = [n for n in lay.nodes if n.op in ("input", "param") and lay.is_plane(n)]
    varied = {tuple(a for a, d in enumerate(n.shape) if d != 1) for n in leaves}
    if len(varied) != 1:
        return False
    run = varied.pop()
    if not run or run[0] == 0 or run != tuple(range(run[0], rank)):
        return False
    lay.axes = tuple(range(run[0]))
    lay.space = {}
    _spaces(lay)
    return True


def _same_nontrivial(a, b) -> bool:
    return [d for d in a if d != 1] == [d for d in b if d != 1]


def _broadcasts_as_keepdim(shape, kd, S) -> bool:
    shape = (1,) * (len(kd) - len(shape)) + tuple(shape)
    if len(shape) != len(kd):
        return False
    return all(s == k or (s == 1 and k == 1) for s, k in zip(shape, kd))


def _windows_fit(lay: Layout) -> bool:
    """Short rows whose only results are sum/max/min reductions: whole rows per tile."""
    if lay.scans or any(lay.is_full(o) for o in lay.outputs):
        return False
    if any(r.attrs["kind"] not in ("sum", "max", "min") for r in lay.reductions):
        return False
    for r in lay.reductions:
        for n in _subgraph(r.args[0]):
            if lay.is_reduced(n):
                return False           # a reduction that reads another one needs the row twice
    row = math.prod(lay.base[i] for i in lay.axes)
    return len(lay.lead) > 0 and row <= WINDOW_MAX_ROW


def _subgraph(n: Node):
    seen, stack = set(), [n]
    while stack:
        x = stack.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        yield x
        stack.extend(a for a in x.args if isinstance(a, Node))
