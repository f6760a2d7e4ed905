"""How a canonical graph is laid out for the template that drafts it, and the checks each template
makes of the graph. The rule list (choice.py) decides which template that is, in its order of
precedence, asking the questions this module answers (`remaps`, `leftover`, `grouped` ...); the
templates and their layouts below are described in the words of the spaces.

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
  row_blocks  a rows graph of short rows whose results are full-shaped (softmax, a layer norm of
           64 features): a tile is a block of whole rows, every reduction one value per row
           broadcast back against them, one compute stage (blocks.py)
  planes   the reduced axes end with a contiguous plane Q but are not one adjacent run (batch
           norm: N and H, W per channel), or a tensor varies along a reduced axis outside Q
           (group norm's per-channel weight within a group): each statistic group is a set of
           planes; see planes.py
  pool     one max/avg pooling of an input over its last 1-3 axes X: an output row (the lead
           index and the outer output coordinates) combines the input rows of its window, then
           pools along the last axis

Model parameters may also be broadcast (a leaf viewed with 1s, from the normalization rules):

  row      varies along exactly the reduced axes X (a layer norm's weight): a rows tile of it
           sits beside the row's tile
  plane    constant along Q but not a per-group value (group norm's weight): one number per plane

Without a reduction (a BatchNorm in eval mode: x * scale[c] + shift[c]) broadcast parameters
still decide the loops: constant along trailing axes Q, every plane of Q is its own group of
the planes template (one scalar scale and shift per plane); varying along a trailing run that
includes the last axis (BatchNorm1d on (N, C)), the cols template walks each column tile down
the axes before the run.

Without a reduction, inputs smaller than the outputs' shape S that broadcast against it with
NumPy rules (a bias (N,), a per-row value (B, 1), a one-element tensor) take the bcast template
(broadcast.py): S viewed as rows x columns, each input loaded in its own shape as often as it
changes, the lowering stretching it with repeat strides.

Any other NumPy broadcast (a per-channel bias of a 4-D tensor, (A, 1, N) against (1, A, N), a
bool where() mask of shape (1, S, 1)), a slice of an input along any axis and a torch.cat that is
the whole output take the folded broadcast template (bcast_fold, broadcast.py): the output folded
into the fewest axes of one pattern per operand, a slice a load at an offset, each part of a cat a
loop nest of its own stored at its offset (torch.stack a cat of parts with a new axis of 1, a repeat
or tile a cat of copies), a flip of an outer axis a scalar index counted from the end.

A chain of pads (any mode), flips that include the last axis and rolls of one input, with
elementwise work before and after it, takes the remap template (remap.py): each output element
reads one input element (or a constant pad's value) through an index map per axis.

A loss reduces to one number, which no single core may compute alone. The templates of
`totals.py` split the work and let every core add its share into the output (an atomic add):

  total          every axis reduced at once (mean((p - t) ** 2)): the tensors are viewed flat and
                 split into per-core chunks, like map
  rows_total     per-row reductions, then a sum over the rows (mean(1 - cos(p_r, t_r))): cores
                 split the rows, a row's result joins the core's running sum
  windows_total  the same for short rows (cross entropy over 10 classes): many whole rows per tile

The per-row values of rows_total / windows_total live in a fourth space, `total` is the fifth:

  total    a sum over all rows of a reduced value, and scalar math on it (the loss itself)

Index tensors (int class targets) are reduced-space inputs read by `pick` (x[r, target[r]]).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from .graph import (COUNT, DATA, FILL, INDEX, MOVE, PERMUTE, PICK, POOL, REDUCE, REMAP, RESIZE, SCAN, SORT, SPLIT,
                    STRETCH, VIEW, Builder, Graph, Node, Unsupported)

WINDOW_MAX_ROW = 4096          # longest row the windows template takes (a tile holds whole rows)
BLOCK_MAX_ROW = 2040           # longest row the row_blocks template takes: its f32 pitch is a repeat stride
SHORT_ROW = 256                # rows_total below this: rows are batched into tiles (windows_total)
INDEX_DTYPES = ("int64", "int32")


@dataclass
class Layout:
    template: str                       # map | rows | cols | windows | planes | bcast | ...
    base: tuple                         # S
    axes: tuple = ()                    # X (sorted, adjacent)
    space: dict = field(default_factory=dict)     # id(node) -> full | reduced | scalar
    nodes: list = field(default_factory=list)     # every node, operands first
    outputs: list = field(default_factory=list)
    reductions: list = field(default_factory=list)
    scans: list = field(default_factory=list)
    actual: dict = field(default_factory=dict)    # id(output node) -> its own shape when it is a view of S
    sym: tuple = ()                     # symbolic size of each axis of S when S splits an input axis
    totals: list = field(default_factory=list)    # sums over all rows of reduced values (rows_total)
    kinds: dict = field(default_factory=dict)     # bcast: id(leaf) -> full | col | row | one
    picks: list = field(default_factory=list)     # class-index picks (a loss's x[r, target[r]])

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

    def is_total(self, n: Node) -> bool:
        return self.space.get(id(n)) == "total"


def nodes_of(outputs) -> list[Node]:
    """Every node the outputs read, operands first."""
    return Graph(outputs, [], [], [], [], {}, {}, "", False).nodes()


def prepare(g: Graph) -> list[Node]:
    """The graph's outputs as the layouts read them (see `_prepare`)."""
    return _prepare(Builder(), g.outputs)


# -- what the rule list (choice.py) asks before it picks a template ---------------------------------
def remaps(nodes: list) -> bool:
    """A pad, roll or repeat, or a flip that includes the last axis: an index map per axis (remap.py)."""
    return any(n.kind == REMAP or (n.info.moves and n.is_tensor and len(n.shape) - 1 in n.attrs["axes"])
               for n in nodes)


def moves_outside_reductions(nodes: list) -> bool:
    """Slices, cats or flips of inputs, and no reduction, scan or pick: loads and stores at offsets."""
    return any(n.info.form in ("window", "concat", "reverse") for n in nodes) and \
        not any(n.is_reduce or n.is_scan or n.is_pick for n in nodes)


def concat_layout(outputs: list) -> Layout | None:
    """A concatenation as the whole output, its parts slices or elementwise work of inputs: the folded
    broadcast template (broadcast.py), stores at offsets; None when it is not that."""
    viewed = _unsqueezed_leaves(outputs) or list(outputs)
    inner = [n for n in nodes_of(viewed) if n.info.form in ("window", "concat", "reverse")]
    if not all(n.info.form == "concat" and len(viewed) == 1 and n is viewed[0] for n in inner):
        return None
    base = max({tuple(o.shape) for o in viewed if o.is_tensor}, key=lambda s: (math.prod(s), len(s)), default=())
    fl = Layout("map", base, (), nodes=nodes_of(viewed), outputs=viewed)
    return fl if base and broadcast_fit(fl) else None


# the constructs the loop templates never read, in the order a refusal names them
_LEFTOVER_ORDER = {"reverse": 0, "window": 1, "concat": 2, "shift": 3, "select": 4}


INT_OUTPUTS = ("int8", "int32", "int64")      # dtypes an output may be converted to from f32 on its store


def leftover(nodes: list, outputs: list) -> str | None:
    """Why none of the loop templates (map, rows, cols, planes, windows, bcast, the loss templates) can
    take the graph, in one line: a view construct left over, a dtype they do not compute in, class
    indices computed in forward; None when nothing is left over."""
    indices = {id(n.args[1]) for n in nodes if n.is_pick}
    for n in nodes:
        if n.is_pick and (not n.args[1].is_input or n.args[1].dtype not in INDEX_DTYPES):
            return ("class indices that are computed in forward (the drafter reads int64/int32 index tensors straight "
                    "from the inputs)")

    def order(n):
        return _LEFTOVER_ORDER.get(n.info.form, 5) if n.kind == MOVE else \
            5 if n.kind == STRETCH else 6 if n.kind == FILL else 9
    for n in sorted(nodes, key=order):
        why = _left_over(n, outputs, indices)
        if why:
            return why
    return None


def _left_over(n: Node, outputs: list, indices: set) -> str | None:
    form = n.info.form if n.kind == MOVE else ""
    if form == "window":
        return (f"a slice [{n.attrs['start']}:{n.attrs['stop']}] along axis {n.attrs['axis']} (slices are supported "
                "only in the exclusive-scan pattern cat([zeros, x[..., :-1]], dim) along the scan axis)")
    if form == "reverse":
        return f"`flip` along axes {n.attrs['axes']} outside a reverse scan"
    if form:
        return f"`{n.op}` (only the exclusive-scan pattern cat(zeros, x[..., :-1]) is supported)"
    if n.kind == FILL:
        return "a constant tensor used as a whole (zeros_like/ones_like as an output)"
    if n.kind == STRETCH:
        return "an explicit expand/broadcast_to that reaches an output"
    # an integer result (an int8 quantization, .long(), .to(torch.int32)) leaves as a cast at an output:
    # computed in f32, converted (truncating, as torch converts) on the store
    int_out = n.is_cast and n.dtype in INT_OUTPUTS and any(n is o for o in outputs) and \
        n.args[0].dtype in ("float32", "float16")
    if n.is_tensor and n.dtype not in ("float32", "float16", "bool") and id(n) not in indices and not int_out:
        return (f"{n.dtype} tensors (the drafter handles float32, float16 and bool, and int class indices read by "
                "cross_entropy/nll_loss)")
    if n.info.infix == "//" and n.is_tensor:
        return "floor division of tensors"
    return None


def loop_layout(nodes: list, outputs: list) -> Layout:
    """The layout the loop templates share, before spaces: the base shape S the reductions and scans
    read (the outputs' shape when there are none), the reduced axes X, the totals (sums over all rows of
    per-row values), an output that is a view of S; raises Unsupported for reductions or scans of
    different shapes or axes, and for a pick whose per-row results are not summed."""
    if any(n.is_reduce for n in nodes):
        aligned = _aligned_leaves(outputs)
        if aligned is not None:             # a weight (N,) of inputs beside rows (..., N): a leaf seen with 1s
            outputs = aligned
            nodes = nodes_of(outputs)
    reds = [n for n in nodes if n.is_reduce]
    scans = [n for n in nodes if n.is_scan]
    picks = [n for n in nodes if n.is_pick]
    reds, totals, row_ops = _split_totals(reds, picks)
    base, axes = _base_axes(nodes, outputs, row_ops, scans)
    if picks and not totals:
        raise Unsupported("a class-index pick whose per-row results are not summed over the rows (the drafter "
                          "drafts the mean or the sum of cross_entropy/nll_loss)")
    actual = {}
    for i, o in enumerate(outputs):    # a view of S back to an output's own shape (group norm)
        if o.is_view and o.args[0].is_tensor and tuple(o.args[0].shape) == tuple(base) and axes:
            outputs[i] = o.args[0]
            actual[id(o.args[0])] = tuple(o.shape)
    if actual:
        nodes = nodes_of(outputs)
    lay = Layout("map", base, axes, nodes=nodes, outputs=outputs, reductions=reds, scans=scans, actual=actual,
                 totals=totals)
    lay.sym = next((tuple(n.attrs["sym"]) for n in nodes if n.is_data and "sym" in n.attrs), ())
    lay.picks = picks
    return lay


def _split_totals(reds: list, picks: list) -> tuple[list, list, list]:
    """(row reductions, totals, (shape, axes) each row reduction and pick reads): a sum over the rows
    of per-row results (mean(1 - cos(p_r, t_r))) is a total: its input is smaller than the row
    reductions' (or the picks') input, and it reads their results."""
    row_ops = [(tuple(n.attrs["in_shape"]), tuple(n.attrs["axes"])) for n in reds] + \
        [(tuple(n.args[0].shape), (n.attrs["axis"],)) for n in picks]
    if len({shape for shape, _ in row_ops}) <= 1:
        return reds, [], row_ops
    big = max((shape for shape, _ in row_ops), key=lambda sh: (math.prod(sh), len(sh)))
    totals = [r for r in reds if tuple(r.attrs["in_shape"]) != big and _reads_reduced(r.args[0])]
    reds = [r for r in reds if not any(r is t for t in totals)]
    row_ops = [(sh, ax) for sh, ax in row_ops if sh == big] + \
        [(tuple(r.attrs["in_shape"]), tuple(r.attrs["axes"])) for r in reds if tuple(r.attrs["in_shape"]) != big]
    return reds, totals, row_ops


def _base_axes(nodes: list, outputs: list, row_ops: list, scans: list) -> tuple[tuple, tuple]:
    """The base shape S and the reduced (or scanned) axes X."""
    if row_ops or scans:
        bases = {sh for sh, _ in row_ops} | {tuple(n.shape) for n in scans}
        if len(bases) > 1:
            raise Unsupported(f"reductions or scans over tensors of different shapes {sorted(bases)}")
        axes_sets = {ax for _, ax in row_ops} | {(n.attrs["axis"],) for n in scans}
        if len(axes_sets) > 1:
            raise Unsupported(f"reductions or scans along different axes {sorted(axes_sets)} in one kernel")
        return bases.pop(), axes_sets.pop()
    shapes = {tuple(o.shape) for o in outputs}
    base = max(shapes, key=lambda s: (math.prod(s), len(s)))
    # an input with one value per row (shape (..., 1) beside (..., N), x * scale[..., None]):
    # the layout is the rows of the last axis, and that input is read once per row
    # unless another input broadcasts otherwise (a bias (N,) beside it: the broadcast templates)
    row_shape = tuple(base[:-1]) + (1,)
    leaves = [n for n in nodes if n.is_data and n.is_tensor]
    if len(base) >= 2 and base[-1] > 1 and any(n.is_input and tuple(n.shape) == row_shape for n in leaves) \
            and all(tuple(n.shape) in (tuple(base), row_shape) or "actual" in n.attrs for n in leaves):
        return base, (len(base) - 1,)
    return base, ()


def elementwise_only(lay: Layout) -> bool:
    """No reduced axis, scan or pick: the graph is elementwise work on the outputs' shape."""
    return not lay.axes and not lay.scans and not lay.picks


def broadcast_layout(lay: Layout) -> Layout | None:
    """Elementwise work whose inputs broadcast against the outputs' shape: the bcast or bcast_fold
    template (broadcast.py); None when every input has the full shape."""
    folded = _unsqueezed_leaves(lay.outputs)
    if folded is not None:            # a leaf seen through a view that adds 1s (bias.view(1, -1, 1, 1))
        fl = Layout("map", lay.base, lay.axes, nodes=nodes_of(folded), outputs=folded, actual=lay.actual)
        if broadcast_fit(fl):
            return fl
    return lay if broadcast_fit(lay) else None


def with_spaces(lay: Layout) -> Layout:
    """`lay` with the space of every node (full, reduced, scalar, row, plane, total); see `_spaces`."""
    _spaces(lay)
    return lay


def adjacent(lay: Layout) -> bool:
    axes = lay.axes
    return not axes or list(axes) == list(range(axes[0], axes[-1] + 1))


def grouped(lay: Layout) -> bool:
    """A reduction the planes template groups: a parameter constant along a plane, reduced axes that
    are not one run, or an axis split into groups (group norm)."""
    return any(lay.is_plane(n) for n in lay.nodes) or not adjacent(lay) or bool(lay.sym)


def short_rows(lay: Layout) -> bool:
    """Rows of a loss short enough to batch many per tile (windows_total)."""
    return math.prod(lay.base[i] for i in lay.axes) < SHORT_ROW


def totals_layout(lay: Layout, template: str) -> Layout:
    _check_totals(lay)
    return finish(lay, template)


def planes_layout(lay: Layout) -> Layout:
    why = planes_fit(lay)
    if why:
        raise Unsupported(why if adjacent(lay) else f"a reduction over the non-adjacent axes {lay.axes} ({why})")
    return finish(lay, "planes")


def finish(lay: Layout, template: str) -> Layout:
    """`lay` as `template`; a forward and a reverse scan in one kernel is refused whatever the template."""
    lay.template = template
    if len({s.attrs["reverse"] for s in lay.scans}) > 1:
        raise Unsupported("forward and reverse scans in one kernel")
    return lay


BROADCAST_KINDS = ("full", "col", "row", "one")


def broadcast_kind(shape, base) -> str | None:
    """How a leaf of `shape` broadcasts against `base` (NumPy rules: aligned at the last axis,
    missing axes are 1): full | col (one value per column: a bias (N,) against (B, N)) | row (one
    value per row: (B, 1)) | one (a single value) | None (it does not broadcast so)."""
    shape, base = tuple(shape), tuple(base)
    if len(shape) > len(base):
        return None
    a = (1,) * (len(base) - len(shape)) + shape
    if any(d not in (1, b) for d, b in zip(a, base)):
        return None
    if a == base:
        return "full"
    if all(d == 1 for d in a):
        return "one"
    if all(d == 1 for d in a[:-1]):
        return "col"
    if a[-1] == 1 and a[:-1] == base[:-1]:
        return "row"
    return "other"


def broadcast_fit(lay: Layout, rows: bool = False) -> bool:
    """An elementwise graph whose inputs broadcast against the outputs' shape S (some are smaller
    than S, none is a view made by the rules): the broadcast template (broadcast.py). Sets the
    spaces (every tensor is a tile, `lay.kinds` says how each leaf is loaded); False when every
    input has the full shape (unless `rows`: a phase whose tensors a product reads or writes as rows x
    columns, which the flat map template would pack into one axis: drafter/phases.py); Unsupported for
    a broadcast the template cannot load."""
    S = tuple(lay.base)
    leaves = [n for n in lay.nodes if n.is_data]
    kinds = {id(n): broadcast_kind(n.shape, S) for n in leaves if "actual" not in n.attrs}
    viewed = [n for n in leaves if n.attrs.get("unsqueezed")]
    if all(k == "full" for k in kinds.values()) and not viewed and not (rows and len(S) > 1):
        return False
    simple = not viewed and all(k is not None and k != "other" for k in kinds.values()) and \
        not any("actual" in n.attrs for n in leaves) and any(k == "full" for k in kinds.values()) and \
        (len(S) > 1 or all(k in ("full", "one", "col") for k in kinds.values()))
    if not simple:
        return _fold_fit(lay, leaves)
    for n in leaves:
        k = kinds.get(id(n))
        if k is None and "actual" in n.attrs:
            raise Unsupported(f"`{n.name}` viewed as {tuple(n.shape)} beside a broadcast input (the broadcast "
                              "template reads its inputs in their own shapes)")
        if k is None:
            raise Unsupported(f"input `{n.name}` of shape {tuple(n.shape)} does not broadcast against {S}")
        if k == "other":
            raise Unsupported(f"input `{n.name}` of shape {tuple(n.shape)} broadcast against {S} (the broadcast "
                              "template takes per-column vectors (N,), per-row values (..., 1) and one-element "
                              "tensors)")
        if k == "col" and len(S) == 1:
            kinds[id(n)] = "full"
    if len(S) == 1 and any(k not in ("full", "one") for k in kinds.values()):
        raise Unsupported(f"a broadcast against a 1-D shape {S}")
    if not any(k == "full" for k in kinds.values()):
        raise Unsupported(f"no input of the outputs' full shape {S} (the broadcast template reads the sizes from one)")
    for o in lay.outputs:
        if not o.is_tensor or tuple(o.shape) != S:
            raise Unsupported(f"an output of shape {tuple(o.shape) if o.is_tensor else ()} beside {S} in a broadcast")
    for n in lay.nodes:
        if n.is_view and n.is_tensor:
            raise Unsupported(f"a reshape to {tuple(n.shape)} in a broadcast")
        lay.space[id(n)] = "full" if n.is_tensor else "scalar"
    lay.kinds = kinds
    lay.template = "bcast"
    return True


MOVED_DTYPES = ("int32", "int16")     # integer tensors a pure copy moves as they are (a UB copy is Muls by 1)


def moves_only(lay: Layout) -> bool:
    """The graph only moves data (slices, cats, stacks, repeats, flips of inputs): no arithmetic, so
    integer tensors pass through unchanged."""
    return all(n.is_input or n.is_view or (n.kind == MOVE and n.info.form != "shift") for n in lay.nodes)


def _windows_alike(a: Node, b: Node) -> bool:
    """Two slices of one input along one axis, of one length, and no other view: parts read side by side
    (SwiGLU's halves), each the input loaded at its own offset."""
    wa, wb = a.attrs.get("window"), b.attrs.get("window")
    if not wa or not wb or wa[0] != wb[0] or wa[2] - wa[1] != wb[2] - wb[1]:
        return False
    return all(x.attrs.get(k) == y.attrs.get(k) for x, y in ((a, b), (b, a)) for k in ("flipped",)) and \
        a.attrs.get("part_of", (None,))[0] == b.attrs.get("part_of", (None,))[0]


def _fold_fit(lay: Layout, leaves: list) -> bool:
    """Any other NumPy broadcast of the leaves against S (a per-channel value of a 4-D tensor, two
    operands stretched along different axes): the folded broadcast template (broadcast.py), or one
    line naming what it cannot load."""
    S = tuple(lay.base)
    rank = len(S)
    aligned = []
    part_of = _part_shapes(lay)
    for n in leaves:
        if not n.is_tensor or len(n.shape) > rank:
            raise Unsupported(f"input `{n.name}` of shape {tuple(n.shape)} does not broadcast against {S}")
        a = (1,) * (rank - len(n.shape)) + tuple(n.shape)
        P = part_of.get(id(n), S)
        if any(d not in (1, s) for d, s in zip(a, P)):
            raise Unsupported(f"input `{n.name}` of shape {tuple(n.attrs.get('actual', n.shape))} does not broadcast "
                              f"against {S}")
        own_axes(n, rank)
        if n.dtype == "bool":
            _check_mask(lay, n, a, S)
        elif n.dtype not in ("float32", "float16") and not (moves_only(lay) and n.dtype in MOVED_DTYPES):
            raise Unsupported(f"a {n.dtype} input `{n.name}` in a broadcast")
        aligned.append(a)
    seen: dict = {}
    for n in leaves:
        key = (n.op, n.attrs.get("index"), n.attrs.get("name"))
        if key in seen and seen[key] is not n and not _windows_alike(seen[key], n):
            raise Unsupported(f"`{n.name}` read through two different slices or views (a slice of an input is "
                              "that input loaded at an offset: one slice per input, or parts of one length "
                              "along one axis)")
        seen[key] = n
    cuts = {rank - len(n.shape) + n.attrs["window"][0] for n in leaves if "window" in n.attrs}
    cuts |= {rank - len(n.shape) + n.attrs["flipped"] for n in leaves if "flipped" in n.attrs}
    if part_of:
        cat = lay.outputs[0]
        cuts.add(cat.attrs["axis"])
        if cat.attrs["axis"] == rank - 1 and all(p.shape[-1] == 1 for p in cat.args):
            raise Unsupported("a `cat` or stack along the last axis of one-element parts (an interleave: each "
                              "element its own store; stack along an earlier axis)")
    groups = fold_axes(S, aligned, cuts)
    if len(groups) < 2:
        raise Unsupported(f"a broadcast against {S} that folds to one axis without an input of that shape")
    flipped = {rank - len(n.shape) + n.attrs["flipped"] for n in leaves if "flipped" in n.attrs}
    if flipped & set(groups[-1]) or (flipped and all(flipped & set(g) for g in groups[:-1])):
        raise Unsupported("a `flip` along the last axis or the only axis before it (a flip is read backwards "
                          "with scalar GM offsets along an outer axis; within a row it needs a Gather)")
    for o in lay.outputs:
        if not o.is_tensor or tuple(o.shape) != S:
            raise Unsupported(f"an output of shape {tuple(o.shape) if o.is_tensor else ()} beside {S} in a broadcast")
    for n in lay.nodes:
        if n.is_view and n.is_tensor:
            raise Unsupported(f"a reshape to {tuple(n.shape)} in a broadcast")
        if n.info.form == "concat" and (len(lay.outputs) != 1 or n is not lay.outputs[0] or
                              any(not p.is_tensor or len(p.shape) != rank for p in n.args)):
            raise Unsupported("a `cat` that is not the whole output (a concatenation is stores at offsets)")
        lay.space[id(n)] = "full" if n.is_tensor else "scalar"
    lay.template = "bcast_fold"
    return True


def _part_shapes(lay: Layout) -> dict:
    """id(leaf) -> the shape of the part of a concatenated output that reads it (none: no cat)."""
    out = lay.outputs[0] if len(lay.outputs) == 1 else None
    if out is None or out.info.form != "concat":
        return {}
    found: dict = {}
    for p in out.args:
        for x in subgraph(p):
            if x.is_data:
                if id(x) in found and found[id(x)] != tuple(p.shape):
                    raise Unsupported(f"`{x.name}` read by two parts of a `cat` of different lengths")
                found[id(x)] = tuple(p.shape)
    return found


def fold_axes(base, shapes, cuts=()) -> list[list[int]]:
    """The output shape `base` folded into the fewest axes along which every operand keeps one
    pattern (NumPy rule: each operand, aligned at the last axis, is either the full size or 1 along
    each axis): adjacent axes of one pattern merge into a group; size-1 axes of base join the group
    before them (or the first). An axis in `cuts` (an operand read at an offset along it: a slice)
    is a group of its own. Returns the groups of base's axes, in order."""
    rank = len(base)

    def pattern(a):
        return tuple(s[a] != 1 for s in shapes), (a if a in cuts else -1)
    groups: list[list[int]] = []
    for a in range(rank):
        if base[a] == 1:
            continue
        if groups and pattern(groups[-1][-1]) == pattern(a):
            groups[-1].append(a)
        else:
            groups.append([a])
    if not groups:
        return [list(range(rank))]
    for a in range(rank):                  # the 1s keep their place, in a neighbouring group
        if base[a] == 1:
            g = next((g for g in groups if g[0] > a), None)
            g = groups[-1] if g is None else g
            prev = next((h for h in reversed(groups) if h[-1] < a), None)
            (prev if prev is not None else g).append(a)
    for g in groups:
        g.sort()
    return groups


def own_axes(n: Node, rank: int) -> list[int | None]:
    """The axis of the output shape each axis of leaf n's own tensor lies along (None: a size-1 axis
    of its own): aligned at the last axis, or through a view that only adds or drops 1s."""
    actual = tuple(n.attrs.get("actual", n.shape))
    viewed = (1,) * (rank - len(n.shape)) + tuple(n.shape)
    if "window" in n.attrs:                 # a slice of the leaf: its own axes, one of them longer
        off = rank - len(actual)
        return [None if d == 1 and viewed[off + i] == 1 else off + i for i, d in enumerate(actual)]
    if "actual" not in n.attrs:
        off = rank - len(actual)
        return [None if d == 1 else off + i for i, d in enumerate(actual)]
    mapped = [a for a, d in enumerate(viewed) if d != 1]
    if [d for d in actual if d != 1] != [viewed[a] for a in mapped]:
        raise Unsupported(f"`{n.name}` of shape {actual} viewed as {tuple(n.shape)} (a view that moves elements)")
    it = iter(mapped)
    return [None if d == 1 else next(it) for d in actual]


def _check_mask(lay: Layout, mask: Node, aligned: tuple, S: tuple) -> None:
    """A bool input beside a broadcast: one where() mask, read only as a mask, constant along the last
    axis and along some other axis it is broadcast over (the folded template's rows)."""
    uses = [n for n in lay.nodes if any(a is mask for a in n.args)]
    what = f"a bool mask `{mask.name}` of shape {tuple(mask.shape)} broadcast against {S}"
    if any(not n.info.mask_first or n.args[0] is not mask or any(a is mask for a in n.args[1:]) for n in uses):
        raise Unsupported(f"{what} used other than as a where() mask")
    if sum(1 for n in lay.nodes if n.is_data and n.dtype == "bool") > 1:
        raise Unsupported(f"{what} beside another bool mask (the template branches on one)")
    if aligned[-1] != 1 or not any(d == 1 and s != 1 for d, s in zip(aligned[:-1], S[:-1])):
        raise Unsupported(f"{what} (a stretched mask must be constant along the last axis and along one more: "
                          "the kernel branches on it per tile)")


def _unsqueezed_leaves(outputs):
    """The outputs with every view of an input or parameter that only adds or drops size-1 axes
    (`bias.view(1, -1, 1, 1)`, `s.unsqueeze(-1)`) replaced by the leaf itself, which keeps its own
    shape in `actual`; None when there is no such view."""
    memo: dict = {}
    views: dict = {}
    found = []

    def go(n):
        if not isinstance(n, Node):
            return n
        if id(n) in memo:
            return memo[id(n)]
        args = tuple(go(a) for a in n.args)
        leaf = args[0] if args and isinstance(args[0], Node) and args[0].is_data \
            and "actual" not in args[0].attrs else None
        if n.is_view and leaf is not None and _same_nontrivial(n.shape, leaf.shape):
            key = (id(leaf), tuple(n.shape))      # one view of a leaf read twice (a stack of x and x * y)
            if key not in views:
                views[key] = Node(leaf.op, (), {**leaf.attrs, "actual": tuple(leaf.shape), "unsqueezed": True},
                                  tuple(n.shape), leaf.dtype, leaf.value, leaf.name)
            m = views[key]
            found.append(m)
        elif n.info.form == "reverse" and leaf is not None and len(n.attrs["axes"]) == 1:
            # x.flip(d): the input itself, its index along d reversed (a scalar GM offset counted from the end)
            m = Node(leaf.op, (), {**leaf.attrs, "actual": tuple(leaf.shape), "unsqueezed": True,
                                   "flipped": n.attrs["axes"][0]}, tuple(n.shape), leaf.dtype, leaf.value, leaf.name)
            found.append(m)
        elif n.info.form == "window" and leaf is not None and n.shape[n.attrs["axis"]] > 0:
            # x[..., a:b, ...] / narrow: the input itself, read at an offset along the axis
            window = (n.attrs["axis"], n.attrs["start"], n.attrs["stop"])
            extra = {"part_of": (n.attrs["how"], n.attrs["part"])} if "how" in n.attrs else {}
            m = Node(leaf.op, (), {**leaf.attrs, "actual": tuple(leaf.shape), "unsqueezed": True, "window": window,
                                   **extra}, tuple(n.shape), leaf.dtype, leaf.value, leaf.name)
            found.append(m)
        elif any(x is not y for x, y in zip(args, n.args)):
            m = Node(n.op, args, dict(n.attrs), n.shape, n.dtype, n.value, n.name)
        else:
            m = n
        memo[id(n)] = m
        return m
    out = [go(o) for o in outputs]
    return out if found else None


def _aligned_leaves(outputs):
    """The outputs with every input or parameter of fewer axes than the elementwise op that reads it
    (a weight or bias (N,) passed as an input beside rows (..., N): `s * rsqrt(ms + eps) * weight`)
    replaced by the leaf seen with NumPy's leading 1s, its own shape kept in `actual`, as a module's
    parameter view is: the layouts then place it by the axes it varies along (a row beside a row
    reduction, a number per plane). None when there is no such leaf."""
    memo: dict = {}
    views: dict = {}

    def go(n):
        if not isinstance(n, Node):
            return n
        if id(n) in memo:
            return memo[id(n)]
        args = tuple(go(a) for a in n.args)
        if n.is_elementwise and n.is_tensor:
            rank = len(n.shape)
            out = []
            for a in args:
                if isinstance(a, Node) and a.is_data and a.is_tensor and "actual" not in a.attrs \
                        and 0 < len(a.shape) < rank and math.prod(a.shape) > 1:
                    key = (id(a), rank)
                    if key not in views:
                        views[key] = Node(a.op, (), {**a.attrs, "actual": tuple(a.shape)},
                                          (1,) * (rank - len(a.shape)) + tuple(a.shape), a.dtype, a.value, a.name)
                    a = views[key]
                out.append(a)
            args = tuple(out)
        m = n if all(x is y for x, y in zip(args, n.args)) else Node(n.op, args, dict(n.attrs), n.shape, n.dtype,
                                                                       n.value, n.name)
        memo[id(n)] = m
        return m
    out = [go(o) for o in outputs]
    return out if views else None


def _prepare(b: Builder, outputs):
    """Drop `expand` under elementwise ops (broadcasting does it) and `full` operands (constants);
    fold a view of a leaf (a parameter seen as (1, C, 1, 1), an input split as (N, G, C/G, H, W))
    into the leaf itself, which keeps its own shape in `actual`."""
    memo = {}

    def operand(a):
        if isinstance(a, Node) and a.kind in (STRETCH, FILL):     # broadcasting stretches, a fill is its value
            return a.args[0]
        return a

    def go(n):
        if not isinstance(n, Node):
            return n
        if id(n) in memo:
            return memo[id(n)]
        args = tuple(go(a) for a in n.args)
        if n.is_view and args[0].is_data and ("sym" in n.attrs or "dims" in args[0].attrs):
            leaf = args[0]
            attrs = {**leaf.attrs, "actual": tuple(leaf.attrs.get("actual", leaf.shape))}
            if "sym" in n.attrs:
                attrs["sym"] = n.attrs["sym"]
            m = Node(leaf.op, (), attrs, tuple(n.shape), leaf.dtype, leaf.value, leaf.name)
            memo[id(n)] = m
            return m
        if n.is_elementwise:
            dropped = tuple(operand(a) for a in args)
            m = b.ew(n.op, *dropped) if not n.is_cast else b.cast(dropped[0], n.attrs["dtype"])
            if m.is_tensor and n.is_tensor and tuple(m.shape) != tuple(n.shape) and m.op == n.op:
                # a stretch that alone makes an axis (x.expand(4, N) * 2): the operation keeps the stretched
                # shape, its operands broadcast against it as inputs smaller than the output do
                m = Node(m.op, m.args, dict(m.attrs), tuple(n.shape), m.dtype, m.value, m.name)
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
    """The space of every node (full, reduced, scalar, row, plane, total: the module docstring), by
    kind; Unsupported for a node that has none in this layout."""
    for n in lay.nodes:
        space = _space_of(lay, n) if n.is_tensor else "scalar"
        lay.space[id(n)] = space
    for o in lay.outputs:
        if lay.space.get(id(o)) == "scalar":
            raise Unsupported("an output that does not depend on any input tensor")


def _space_of(lay: Layout, n: Node) -> str:
    rule = _SPACE_RULES.get(n.kind)
    return rule(lay, n) if rule is not None else _combined_space(lay, n)


def _data_space(lay: Layout, n: Node) -> str:
    S = tuple(lay.base)
    broadcast = _leaf_space(lay, n) if "actual" in n.attrs else None
    if broadcast:
        return broadcast
    if tuple(n.shape) == S or (not lay.axes and math.prod(n.shape) == math.prod(S) and math.prod(S) > 1
                               and _same_nontrivial(n.shape, S)):
        return "full"
    if lay.axes and lay.lead and not lay.trail and tuple(n.shape) in (_keepdim_shape(lay), _lead_shape(lay)):
        return "reduced"          # one value per row (class indices, per-row weights)
    if math.prod(n.shape) == 1:
        raise Unsupported(f"a one-element tensor input `{n.name}` (pass it as a number)")
    raise Unsupported(f"input `{n.name}` of shape {tuple(n.shape)} broadcast against {S} "
                      "(the drafter's layouts need inputs of one shape)")


def _reduce_space(lay: Layout, n: Node) -> str:
    if any(n is t for t in lay.totals):
        return "total"
    if lay.space.get(id(n.args[0])) != "full":
        raise Unsupported("a reduction of a value that is already reduced")
    return "reduced"


def _pick_space(lay: Layout, n: Node) -> str:
    if lay.space.get(id(n.args[0])) != "full" or lay.space.get(id(n.args[1])) != "reduced":
        raise Unsupported("a class-index pick of a value that is not a full row")
    return "reduced"


def _scan_space(lay: Layout, n: Node) -> str:
    if lay.space.get(id(n.args[0])) != "full":
        raise Unsupported("a scan of a reduced value")
    return "full"


def _view_space(lay: Layout, n: Node) -> str:
    inner = lay.space.get(id(n.args[0]))
    if inner == "reduced" and math.prod(n.shape) == math.prod(_keepdim_shape(lay)):
        return "reduced"
    if inner == "full" and (tuple(n.shape) == tuple(lay.base) or not lay.axes):
        return "full"
    if inner == "scalar":
        return "scalar"
    raise Unsupported(f"a reshape to {tuple(n.shape)} between reductions")


def _combined_space(lay: Layout, n: Node) -> str:
    """The space of elementwise work: the widest of its operands'."""
    S, kd = tuple(lay.base), _keepdim_shape(lay)
    spaces = {lay.space[id(a)] for a in n.args if isinstance(a, Node)}
    if "total" in spaces:
        if spaces - {"total", "scalar"}:
            raise Unsupported("a sum over all rows combined again with per-row or per-element values")
        return "total"
    if spaces & {"row", "plane"}:
        # a broadcast parameter: with only per-group values and numbers it stays what it is (a
        # tile of the row, a number per plane); with anything that varies along the rest, full
        if spaces <= {"row", "scalar"}:
            return "row"
        return "plane" if spaces <= {"plane", "reduced", "scalar"} else "full"
    if "full" in spaces:
        for a in n.args if "reduced" in spaces else ():
            if isinstance(a, Node) and lay.space[id(a)] == "reduced" and not _broadcasts_as_keepdim(a.shape, kd, S):
                raise Unsupported(f"a reduced value of shape {tuple(a.shape)} combined with shape {S} "
                                  "(keep the reduced dims: keepdim=True)")
        if tuple(n.shape) != S and lay.axes:
            raise Unsupported(f"an elementwise result of shape {tuple(n.shape)} beside {S}")
        return "full"
    return "reduced" if "reduced" in spaces else "scalar"


# the space of a node by its kind (elementwise work and anything else: `_combined_space`)
_SPACE_RULES = {DATA: _data_space, REDUCE: _reduce_space, PICK: _pick_space, SCAN: _scan_space, VIEW: _view_space}


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


def _lead_shape(lay: Layout) -> tuple:
    return tuple(lay.base[i] for i in lay.lead)


def _reads_reduced(n: Node) -> bool:
    """n depends on a reduction or a pick: a reduction of it reduces per-row values again."""
    return any(x.is_reduce or x.is_pick for x in subgraph(n))


def _check_totals(lay: Layout) -> None:
    """A total sums a per-row value over every row; the outputs are linear in the totals."""
    if lay.trail or not lay.lead:
        raise Unsupported("a reduction of a value that is already reduced (other than a sum over all rows of "
                          "per-row results of the last axes)")
    lead = _lead_shape(lay)
    for t in lay.totals:
        inner = t.args[0]
        if lay.space.get(id(inner)) != "reduced" or tuple(t.attrs["axes"]) != tuple(range(len(t.attrs["in_shape"]))):
            raise Unsupported("a partial reduction of per-row results (only a sum or mean over all rows is supported)")
        if tuple(d for d in t.attrs["in_shape"] if d != 1) != tuple(d for d in lead if d != 1):
            raise Unsupported(f"a reduction over {tuple(t.attrs['in_shape'])} beside rows {lead}")
        if t.attrs["kind"] != "sum":
            raise Unsupported(f"a {t.attrs['kind']} over all rows of per-row results (each core adds its part "
                              "to the output: only sums and means combine)")
    if lay.scans:
        raise Unsupported("a scan in a loss over rows")
    for o in lay.outputs:
        if not lay.is_total(o):
            raise Unsupported("per-row outputs beside a sum over all rows")
        if linear_scale(lay, o) is None:
            raise Unsupported("a loss that is not a sum or mean of per-row values times a constant "
                              "(each core adds its part into the output)")


def linear_scale(lay: Layout, o: Node):
    """(r, c) such that o == r * c, with r a sum (a total, or a sum of the whole tensor) and c a
    scalar-space node (a constant when 1); None when o is not linear in one sum."""
    b = Builder()
    sym = o.info.infix or o.info.prefix
    if o.is_reduce and o.attrs["kind"] == "sum":
        return o, b.const(1.0)
    if o.is_view:
        return linear_scale(lay, o.args[0])
    if o.info.prefix == "-":
        inner = linear_scale(lay, o.args[0])
        return None if inner is None else (inner[0], b.ew(o.op, inner[1]))
    if sym in ("*", "/") and len(o.args) == 2:
        a, k = o.args
        if sym == "*" and lay.is_scalar(a):
            a, k = k, a
        if lay.is_scalar(k):
            inner = linear_scale(lay, a)
            return None if inner is None else (inner[0], b.ew(o.op, inner[1], k))
    return None


def total_fit(lay: Layout) -> bool:
    """Every axis reduced at once by sums, the outputs linear in them: cores can split the tensor."""
    if lay.lead or lay.scans or any(lay.is_full(o) for o in lay.outputs):
        return False
    if any(r.attrs["kind"] != "sum" or _reads_reduced(r.args[0]) for r in lay.reductions):
        return False
    return all(linear_scale(lay, o) is not None for o in lay.outputs)


def column_parameters(lay: Layout) -> bool:
    """An elementwise graph whose broadcast parameters all vary along one trailing run of axes,
    the last one included (a BatchNorm1d in eval mode on (N, C)): no contiguous plane holds a
    parameter constant, so the axes before the run act as the cols template's reduced axis with
    nothing to reduce. A column tile of each parameter (and the scale and shift made of them) is
    loaded once and reused all the way down the column; every copy stays contiguous."""
    return not lay.axes and not lay.scans and _column_run(lay) is not None


def _column_run(lay: Layout) -> tuple | None:
    rank = len(lay.base)
    leaves = [n for n in lay.nodes if n.is_data and lay.is_plane(n)]
    varied = {tuple(a for a, d in enumerate(n.shape) if d != 1) for n in leaves}
    if len(varied) != 1:
        return None
    run = varied.pop()
    if not run or run[0] == 0 or run != tuple(range(run[0], rank)):
        return None
    return run


def columns_layout(lay: Layout) -> Layout:
    """`lay` (column_parameters) as the cols template: the axes before the parameters' run are X, and
    the parameters become reduced-space values."""
    lay.axes = tuple(range(_column_run(lay)[0]))
    lay.space = {}
    _spaces(lay)
    return finish(lay, "cols")


def _same_nontrivial(a, b) -> bool:
    return [d for d in a if d != 1] == [d for d in b if d != 1]


def _broadcasts_as_keepdim(shape, kd, S) -> bool:
    shape = (1,) * (len(kd) - len(shape)) + tuple(shape)
    if len(shape) != len(kd):
        return False
    return all(s == k or (s == 1 and k == 1) for s, k in zip(shape, kd))


def windows_fit(lay: Layout) -> bool:
    """Short rows whose only results are sum/max/min reductions: whole rows per tile."""
    if lay.scans or any(lay.is_full(o) for o in lay.outputs):
        return False
    if any(r.attrs["kind"] not in ("sum", "max", "min") for r in lay.reductions):
        return False
    for r in lay.reductions:
        for n in subgraph(r.args[0]):
            if lay.is_reduced(n):
                return False           # a reduction that reads another one needs the row twice
    if any(lay.is_row(n) for n in lay.nodes):
        return False                   # a parameter along the row (a bias before a row sum): one tile per row
    row = math.prod(lay.base[i] for i in lay.axes)
    return len(lay.lead) > 0 and row <= WINDOW_MAX_ROW


def row_blocks_fit(lay: Layout) -> bool:
    """Rows short enough to hold whole, many per tile, whose results are all full-shaped (softmax,
    a layer norm over a short last axis): every reduction a per-row sum/max/min, no scan, no
    per-row input (blocks.py)."""
    if lay.scans or not lay.lead or not lay.reductions or not all(lay.is_full(o) for o in lay.outputs):
        return False
    if any(r.attrs["kind"] not in ("sum", "max", "min") for r in lay.reductions):
        return False
    if any(n.is_input and lay.is_reduced(n) for n in lay.nodes):
        return False
    return math.prod(lay.base[i] for i in lay.axes) <= BLOCK_MAX_ROW


def subgraph(n: Node):
    """Every node n reads, n included, each once."""
    seen, stack = set(), [n]
    while stack:
        x = stack.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        yield x
        stack.extend(a for a in x.args if isinstance(a, Node))


def pool_layout(nodes: list, outputs: list) -> Layout:
    """The pool template drafts exactly one pooling of an input tensor."""
    pools = [n for n in nodes if n.kind == POOL]
    pool = pools[0]
    x = pool.args[0]
    if len(pools) > 1 or len(outputs) != 1 or outputs[0] is not pool or not x.is_input:
        raise Unsupported("pooling combined with other operations (the pool template drafts one max/avg pooling "
                          "of an input tensor as the whole forward)")
    if x.dtype not in ("float32", "float16"):
        raise Unsupported(f"pooling of a {x.dtype} tensor (the pool template handles float32 and float16)")
    dims = len(pool.attrs["kernel"])
    rank = len(x.shape)
    lay = Layout("pool", tuple(x.shape), tuple(range(rank - dims, rank)), nodes=nodes, outputs=outputs)
    lay.space = {id(x): "full", id(pool): "full"}
    return lay


def index_layout(nodes: list, outputs: list) -> Layout:
    """The index template drafts one argmax/argmin, gather, index_select/embedding,
    index_add or scatter_add of Model inputs or parameters as the whole forward (see index.py); its base is
    the shape read."""
    picked = [n for n in nodes if n.kind == INDEX]
    n = picked[0]
    what = n.info.what.format(**n.attrs)
    if len(picked) > 1 or len(outputs) != 1 or outputs[0] is not n:
        raise Unsupported(f"`{what}` combined with other operations (the index template drafts one "
                          f"argmax/argmin, gather or index_select/embedding as the whole forward)")
    x = n.args[0]
    if not x.is_data:
        raise Unsupported(f"`{what}` of a value computed in forward (the index template reads a Model input "
                          "or parameter)")
    if x.dtype not in ("float32", "float16"):
        raise Unsupported(f"`{what}` of a {x.dtype} tensor (the index template reads float32 and float16)")
    if len(n.args) > 1 and (not n.args[1].is_input or n.args[1].dtype not in INDEX_DTYPES):
        raise Unsupported(f"indices of `{what}` computed in forward (the index template reads int64/int32 index "
                          "tensors straight from the inputs)")
    if n.info.writes and (not n.args[2].is_input or n.args[2].dtype != x.dtype):
        raise Unsupported(f"a `{what}` source computed in forward or of another dtype (the index template writes "
                          "an input of the tensor's dtype)")
    lay = Layout("index", tuple(x.shape), (n.attrs["axis"],), nodes=nodes, outputs=outputs)
    lay.space = {id(a): "full" for a in (n, *n.args)}
    return lay


def permute_layout(nodes: list, outputs: list) -> Layout:
    """The permute template drafts one permute of an input as the whole forward (see views.py); its
    base is the input's shape."""
    moved = [n for n in nodes if n.kind == PERMUTE]
    n = moved[0]
    what = f"`permute`{tuple(n.attrs['order'])}" if n.info.form == "order" else "`permute` (a transpose)"
    inputs = [m for m in nodes if m.is_data and m.is_tensor]
    if len(moved) > 1 or len(outputs) != 1 or len(inputs) != 1 or not inputs[0].is_input or \
            any(m.is_tensor and not (m.is_elementwise or m.is_input or m.kind == PERMUTE) for m in nodes):
        raise Unsupported(f"{what} combined with other operations (the permute template drafts one permute, "
                          "transpose or movedim of a Model input, with elementwise work on it before and after)")
    x = inputs[0]
    before = {id(m) for m in subgraph(n.args[0])}
    for m in nodes:
        if m.is_tensor and not m.is_input and m is not n:
            want = tuple(x.shape) if id(m) in before else tuple(outputs[0].shape)
            if tuple(m.shape) != want:
                raise Unsupported(f"{what} with a `{m.op}` of shape {tuple(m.shape)} beside it (elementwise work of "
                                  "the input's or the result's shape)")
    if (n.args[0] is not x or outputs[0] is not n) and x.dtype not in ("float32", "float16"):
        raise Unsupported(f"{what} with elementwise work on a {x.dtype} tensor (vector arithmetic here takes float32 "
                          "and float16)")
    lay = Layout("permute", tuple(x.shape), (), nodes=nodes, outputs=outputs)
    lay.space = {id(m): "full" if m.is_tensor else "scalar" for m in nodes}
    return lay


def split_layout(nodes: list, outputs: list) -> Layout:
    """The split template drafts the parts of one input along one axis, every part an output (see
    views.py); its base is the input's shape."""
    parts = [n for n in nodes if n.kind == SPLIT]
    x = parts[0].args[0]
    if any(o.kind != SPLIT for o in outputs) or len({id(p.args[0]) for p in parts}) > 1 \
            or len({(p.attrs["axis"], p.attrs["how"]) for p in parts}) > 1:
        raise Unsupported("a `split` whose parts are not the outputs, as they are (the split template drafts "
                          "forward returning the parts of one input: split, chunk, tensor_split, unbind)")
    if not x.is_input:
        raise Unsupported("a `split` of a value computed in forward (the split template reads a Model input)")
    if parts[0].attrs["squeeze"] and parts[0].attrs["axis"] == len(x.shape) - 1:
        raise Unsupported("a `split` (unbind) along the last axis: each output is a column, one element of every "
                          "row, a gather rather than a copy of runs")
    lay = Layout("split", tuple(x.shape), (parts[0].attrs["axis"],), nodes=nodes, outputs=outputs)
    lay.space = {id(n): "full" for n in (x, *parts)}
    return lay


SORT_DTYPES = ("float32", "float16", "bfloat16")


def sort_layout(nodes: list, outputs: list) -> Layout:
    """The sort template drafts one sort / argsort / topk / kthvalue / msort of a Model input as the
    whole forward (its values, its indices or both; see sort.py); its base is the input's shape."""
    sorts = [n for n in nodes if n.kind == SORT]
    n = sorts[0]
    what = n.attrs["what"]
    x = n.args[0]
    key = {k: v for k, v in n.attrs.items() if k != "part"}
    if any(m.args[0] is not x or {k: v for k, v in m.attrs.items() if k != "part"} != key for m in sorts) or \
            any(o.kind != SORT for o in outputs) or len(outputs) > 2:
        raise Unsupported(f"`{what}` combined with other operations (the sort template drafts one sort, argsort, "
                          "topk or kthvalue of an input as the whole forward: its values, its indices or both)")
    if not x.is_input:
        raise Unsupported(f"`{what}` of a value computed in forward (the sort template reads a Model input)")
    if x.dtype not in SORT_DTYPES:
        raise Unsupported(f"`{what}` of a {x.dtype} tensor: Sort32 sorts half and float scores only (API page "
                          "Sort32); the sort template reads float32, float16 and bfloat16")
    if not x.shape:
        raise Unsupported(f"`{what}` of a 0-d tensor (the sort template sorts rows)")
    axis = n.attrs["axis"]
    if axis != len(x.shape) - 1:
        raise Unsupported(f"`{what}` along dim {axis}, not the last of {len(x.shape)}: the sort template sorts "
                          "rows held whole in UB (move the axis last, e.g. x.transpose, in the reference)")
    lay = Layout("sort", tuple(x.shape), (axis,), nodes=nodes, outputs=outputs)
    lay.space = {id(a): "full" for a in (*sorts, x)}
    for a in n.args[1:]:
        lay.space[id(a)] = "scalar"
    return lay


def datadep_layout(nodes: list, outputs: list) -> Layout:
    """One histc, repeat_interleave or nonzero of a Model input as the whole forward (datadep.py):
    the template is the op; the base is the input's shape."""
    counted = [n for n in nodes if n.kind == COUNT]
    n = counted[0]
    what = n.info.what
    if len(counted) > 1 or len(outputs) != 1 or outputs[0] is not n:
        raise Unsupported(f"{what} combined with other operations (the {n.op} template drafts one {what} of an "
                          "input as the whole forward)")
    x = n.args[0]
    if any(not a.is_input for a in n.args if a.is_tensor):
        raise Unsupported(f"{what} of a value computed in forward (the {n.op} template reads Model inputs)")
    lay = Layout(n.op, tuple(x.shape), (), nodes=nodes, outputs=outputs)
    lay.space = {id(a): "full" for a in (n, *n.args) if a.is_tensor}
    return lay


def remap_layout(nodes: list, outputs: list) -> Layout:
    """The remap template drafts a chain of pads, flips and rolls of one input, with elementwise work
    before and after it, as the whole forward (see remap.py); its base is the output's shape."""
    if len(outputs) != 1 or not outputs[0].is_tensor:
        raise Unsupported("a pad, flip or roll beside other outputs (the remap template drafts one output)")
    for n in nodes:
        if n.is_tensor and not (n.is_elementwise or n.is_leaf or n.info.moves or n.is_view):
            raise Unsupported(f"a `{n.op}` beside a pad, flip or roll (the remap template moves the elements of one "
                              "input, with elementwise work before and after)")
        if n.is_view and n.is_tensor and not (
                n.args[0].is_input and any(m.info.form == "repeat" and m.args[0] is n for m in nodes)):
            raise Unsupported(f"a reshape to {tuple(n.shape)} beside a pad, flip or roll")   # (not a repeat's new axes)
    check_remap(outputs[0])
    lay = Layout("remap", tuple(outputs[0].shape), (), nodes=nodes, outputs=outputs)
    lay.space = {id(n): "full" if n.is_tensor else "scalar" for n in nodes}
    return lay


REMAP_MOVED = ("float32", "float16", "bfloat16", "int32", "int16")   # the dtypes Gather moves (2 and 4 bytes)
REMAP_ARITH = ("float32", "float16")                                 # the dtypes with vector arithmetic and Select


def touches(m: Node, a: int) -> bool:
    """Does the pad, roll, repeat or flip m move elements along axis a?"""
    return a in m.attrs[m.info.moves]


def chain_of(out: Node) -> tuple[list[Node], list[Node], Node, Node]:
    """(post, maps, pre, x): the output computed by elementwise nodes `post` from the last of the
    remap nodes `maps` (in order from the input), whose first reads `pre`, elementwise work on the one
    input x. Raises Unsupported naming what does not fit."""
    found = [n for n in subgraph(out) if n.info.moves]
    if not found:
        raise Unsupported("internal: no remap node")
    last = next(n for n in found if not any(m is not n and _reads(m, n) for m in found))
    maps = [last]
    while maps[0].args[0].info.moves:
        maps.insert(0, maps[0].args[0])
    if len(maps) != len(found):
        raise Unsupported("two pads, flips or rolls with other work between them (the remap template composes "
                          "a chain of them applied one after another)")
    pre = maps[0].args[0]
    if pre.is_view and pre.args[0].is_input and \
            tuple(pre.shape) == (1,) * (len(pre.shape) - len(pre.args[0].shape)) + tuple(pre.args[0].shape):
        pre = pre.args[0]            # a repeat that adds leading axes: the input seen with 1s in front
    inputs = {id(n): n for n in subgraph(out) if n.is_data and n.is_tensor}
    if len(inputs) != 1:
        raise Unsupported("a pad, flip or roll beside another tensor input (the remap template reads one input)")
    x = next(iter(inputs.values()))
    if not x.is_input:
        raise Unsupported("a pad, flip or roll of a Model parameter (the remap template reads a Model input)")
    for n in subgraph(pre):
        if n.is_tensor and tuple(n.shape) != tuple(x.shape) and not n.is_input:
            raise Unsupported(f"a `{n.op}` of shape {tuple(n.shape)} before a pad, flip or roll of {tuple(x.shape)}")
    post = [n for n in subgraph(out) if n.is_tensor and _reads(n, last) and n is not last]
    for n in post:
        if tuple(n.shape) != tuple(out.shape):
            raise Unsupported(f"a `{n.op}` of shape {tuple(n.shape)} after a pad, flip or roll (elementwise work on "
                              "the result only)")
    return post, maps, pre, x


def _reads(n: Node, m: Node) -> bool:
    return any(x is m for x in subgraph(n))


def check_remap(out: Node) -> None:
    """Refuse, in one line, what the remap template cannot draft (called by the layout)."""
    post, maps, pre, x = chain_of(out)
    last = len(x.shape) - 1
    along_last = any(touches(m, last) for m in maps)
    constant = any(m.attrs.get("mode") == "constant" for m in maps)      # a constant pad
    if x.dtype not in REMAP_MOVED:
        raise Unsupported(f"a pad, flip or roll of a {x.dtype} tensor along its last axis (the Gather that reorders a "
                          "row moves 2- and 4-byte elements)" if along_last else
                          f"a pad, flip or roll of a {x.dtype} tensor")
    if (post or pre is not x or constant) and x.dtype not in REMAP_ARITH:
        what = "a constant pad" if constant else "elementwise work"
        raise Unsupported(f"{what} of a {x.dtype} tensor in the remap template (Select and vector arithmetic take "
                          "float32 and float16 here)")


INTERLEAVED = ("float32", "float16", "bfloat16", "int16", "int32")


def interleaved(outputs: list) -> bool:
    """The one output is a cat along its last axis of one-element parts (torch.stack(..., dim=-1))."""
    o = outputs[0] if len(outputs) == 1 else None
    return o is not None and o.info.form == "concat" and len(o.shape) >= 2 and o.attrs["axis"] == len(o.shape) - 1 and \
        all(p.shape[-1] == 1 for p in o.args) and len(o.args) > 1


def interleave_layout(nodes: list, outputs: list) -> Layout:
    """torch.stack along a new last axis (see remap.InterleaveWriter): each part elementwise work on
    inputs of the parts' shape, viewed with a last axis of 1."""
    out = outputs[0]
    inner = tuple(out.shape[:-1])
    viewed = inner + (1,)
    for p in out.args:
        q = p.args[0] if p.is_view else p
        if tuple(q.shape) not in (inner, viewed):
            raise Unsupported("a `cat` along the last axis of one-element parts that are not stacked tensors (an "
                              "interleave of slices)")
        nodes_q = [n for n in subgraph(q) if n.is_tensor and not (n.is_view and n.args[0].is_input
                                                                and tuple(n.args[0].shape) == inner)]
        for n in nodes_q:                         # (an input viewed with the new axis of 1 is that input)
            if not (n.is_elementwise or n.is_input or n.is_view):
                raise Unsupported(f"a `{n.op}` in a part of a stack along the last axis (the interleave template "
                                  f"stacks elementwise work on inputs of the parts' shape {inner})")
        for n in nodes_q:
            if tuple(n.shape) not in (inner, viewed):
                raise Unsupported(f"`{n.name or n.op}` of shape {tuple(n.shape)} in a part of a stack along the last "
                                  f"axis (the interleave template stacks elementwise work on inputs of the parts' "
                                  f"shape {inner})")
    if out.dtype not in INTERLEAVED:
        raise Unsupported(f"a stack of {out.dtype} tensors along the last axis (the Gather that interleaves them moves "
                          "2- and 4-byte elements)")
    if out.dtype in ("bfloat16", "int16", "int32") and any(
            n.is_tensor and not (n.is_input or n.is_view or n.info.form == "concat") for n in nodes):
        raise Unsupported(f"elementwise work on {out.dtype} tensors stacked along the last axis")
    lay = Layout("interleave_last", tuple(out.shape), (), nodes=nodes, outputs=outputs)
    lay.space = {id(n): "full" if n.is_tensor else "scalar" for n in nodes}
    return lay


def resize_layout(nodes: list, outputs: list) -> Layout:
    """The resize template drafts one F.interpolate of a float32 input as the whole forward (see
    resize.py); its base is the input's shape, its axes the spatial ones."""
    resized = [n for n in nodes if n.kind == RESIZE and n.info.what]      # an affine_grid is read by its sample
    n = resized[0]
    what = n.info.what
    if len(resized) > 1 or len(outputs) != 1 or outputs[0] is not n:
        raise Unsupported(f"{what} combined with other operations (the resize template drafts one "
                          "interpolation or grid_sample of an input as the whole forward)")
    x = n.args[0]
    if not x.is_input:
        raise Unsupported(f"{what} of a value computed in forward (the resize template reads a Model input)")
    if x.dtype != "float32":
        raise Unsupported(f"{what} of a {x.dtype} tensor (the resize template reads float32)")
    if n.info.form == "sample":
        grid = n.args[1]
        by_theta = grid.info.form == "grid" and grid.args[0].is_input and grid.args[0].dtype == "float32"
        if not by_theta and not (grid.is_input and grid.dtype == "float32"):
            raise Unsupported("F.grid_sample by a grid computed in forward other than F.affine_grid of an input "
                              "theta (the gridsample templates read a float32 grid or theta input)")
        lay = Layout("gridsample" if by_theta else "gridinput", tuple(x.shape), (2, 3), nodes=nodes, outputs=outputs)
        lay.space = {id(x): "full", id(n): "full"}
        return lay
    lay = Layout("resize", tuple(x.shape), tuple(range(2, len(x.shape))), nodes=nodes, outputs=outputs)
    lay.space = {id(x): "full", id(n): "full"}
    return lay


def split_axes(lay: Layout) -> tuple[tuple, tuple, tuple, tuple] | str:
    """(L, R, K, Q) axis tuples of the base, or why the base does not split so: the planes
    template's view of a grouped reduction (kept, reduced, kept axes before a contiguous plane
    of trailing reduced axes; see planes.py)."""
    S, X = tuple(lay.base), set(lay.axes)
    rank = len(S)
    # the plane: trailing reduced axes along which no per-plane parameter varies
    varied = {a for n in lay.nodes if n.is_data and lay.is_plane(n)
              for a, d in enumerate(n.shape) if d != 1}
    if not lay.reductions:
        # nothing to reduce (a BatchNorm in eval mode): every plane is a group of its own
        q0 = rank
        while q0 - 1 >= 0 and q0 - 1 not in varied:
            q0 -= 1
        if q0 == rank:
            return "a parameter that varies along the last axis of a tensor it is broadcast against"
        return tuple(range(q0)), (), (), tuple(range(q0, rank))
    if rank - 1 not in X or rank - 1 in varied:
        return "the reduced axes do not include the last axis (a contiguous plane)"
    q0 = rank - 1
    actual = actual_input_shape(lay) or S
    while q0 - 1 >= 0 and q0 - 1 in X and q0 - 1 not in varied and _trailing_of(S[q0 - 1:], actual):
        q0 -= 1           # a plane is trailing axes of the input itself (not an axis a group split made)
    runs: list[tuple[bool, list[int]]] = []
    for a in range(q0):
        red = a in X
        if runs and runs[-1][0] == red:
            runs[-1][1].append(a)
        else:
            runs.append((red, [a]))
    kinds = [red for red, _ in runs]
    if kinds not in ([], [False], [True], [False, True], [True, False], [False, True, False]):
        return "the kept and reduced axes before the plane alternate more than kept, reduced, kept"
    L = tuple(runs[0][1]) if runs and not runs[0][0] else ()
    R = next((tuple(ax) for red, ax in runs if red), ())
    K = tuple(runs[-1][1]) if len(runs) > 1 and not runs[-1][0] else ()
    return L, R, K, tuple(range(q0, rank))


def _trailing_of(axes: tuple, shape: tuple) -> bool:
    return len(axes) <= len(shape) and tuple(shape[len(shape) - len(axes):]) == tuple(axes)


def planes_fit(lay: Layout) -> str:
    """'' when the planes template can write the layout, else a one-line reason."""
    if lay.scans:
        return "scans in the planes template"
    split = split_axes(lay)
    if isinstance(split, str):
        return split
    if any(lay.is_row(n) for n in lay.nodes):
        return "a parameter that varies within the plane of a grouped reduction"
    if any(not lay.is_full(o) and (lay.sym or not lay.is_reduced(o)) for o in lay.outputs):
        return "a reduced output of a grouped reduction"
    actual = actual_input_shape(lay)
    if actual is None:
        return "full tensors of different shapes"
    Q = split[3]
    qn = len(Q)
    if tuple(actual[len(actual) - qn:]) != tuple(lay.base[Q[0]:]):
        return "the plane axes are not trailing axes of the input"
    if any(tuple(s) != tuple(actual) for s in lay.actual.values()):
        return "an output of another shape than the input"
    return ""


def actual_input_shape(lay: Layout) -> tuple | None:
    shapes = {tuple(n.attrs.get("actual", n.shape)) for n in lay.nodes if n.is_data and lay.is_full(n)}
    return shapes.pop() if len(shapes) == 1 else (tuple(lay.base) if not shapes else None)
