"""Phases of one kernel: a graph no single template takes, covered by several (issue 32, part a).

A forward such as `softmax(x @ W^T + b)`, an MLP (two products, an activation between) or attention
(QK^T, a masked scaled softmax, PV) is cut into *segments*, each a subgraph one existing template
drafts on its own:

  cube      one matrix product (its operands read from GM as they lie or transposed), with the
            elementwise work on its result that the `epilogue` template takes (a bias, an activation,
            a scale), when the cover fuses it there
  vector    the rest between two products: elementwise work, row reductions, norms, softmax, logsumexp
            (the loop templates of choice.RULES: map, rows, row_blocks, windows, bcast ...)

A value one segment makes and a later one reads lives in a GM Workspace between them; compose.py
writes the segments' drafts as the phases of one kernel, `sync_all()` between them.

Where the elementwise work between a product and a reduction goes is a choice: into the product's
epilogue (the cube phase writes the finished value) or into the next vector phase's prologue (the
product goes to GM as it is and the reduction's sweeps recompute the elementwise work). Both are
covers; `covers` lists them and the caller picks by the estimate (`Cover.traffic`, GM bytes moved:
the perf model's unit of a phase that streams, see draft.py).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from .graph import CUBE, PERMUTE, Graph, Node, Unsupported


@dataclass
class Segment:
    """A subgraph one template drafts: `unit` cube or vector; `nodes` the computed nodes it takes
    (operands first); `reads` the values of earlier segments it loads; `writes` what it stores
    (values later segments read, and the graph's outputs)."""
    unit: str
    nodes: list[Node]
    reads: list[Node] = field(default_factory=list)
    writes: list[Node] = field(default_factory=list)


@dataclass
class Cover:
    """Segments in the order their phases run; `fused`: the elementwise work after a product went
    into its epilogue (else into the next vector phase's prologue)."""
    segments: list[Segment]
    fused: bool

    def summary(self) -> list[dict]:
        """Per phase what the estimate reads (perf/phases.py): its unit, the GM bytes it moves (a cube
        phase with an epilogue also writes and reads back its product), its products' multiply-adds."""
        out = []
        for s in self.segments:
            moved = sum(_bytes(n) for n in s.reads) + sum(_bytes(n) for n in s.writes)
            products = [n for n in s.nodes if is_product(n)]
            if products and any(n.is_elementwise for n in s.nodes):
                moved += 2 * sum(_bytes(n) for n in products)
            macs = sum(math.prod(n.shape) * n.args[0].shape[-1] for n in products)
            out.append({"unit": s.unit, "bytes": moved, "macs": macs,
                        "dtype": products[0].dtype if products else "float32"})
        return out

    @property
    def epilogues(self) -> bool:
        """Some product's segment holds elementwise work on its result."""
        return any(s.unit == "cube" and any(n.is_elementwise for n in s.nodes) for s in self.segments)

    @property
    def traffic(self) -> int:
        """GM bytes the phases move (`summary`): the ranking when no estimate is given."""
        return sum(p["bytes"] for p in self.summary())


def _bytes(n: Node) -> int:
    return math.prod(n.shape) * (2 if n.dtype in ("float16", "bfloat16") else 4)


def is_product(n: Node) -> bool:
    return n.kind == CUBE and n.info.form == "product"


def needs_phases(g: Graph) -> bool:
    """More than one product, or a product whose result feeds anything but elementwise work (a reduction,
    another product), or a product of a computed operand: what no single template takes."""
    nodes = g.nodes()
    products = [n for n in nodes if is_product(n)]
    if not products:
        return False
    if len(products) > 1:
        return True
    p = products[0]
    users = _users(nodes)
    if any(isinstance(a, Node) and a.kind == CUBE for a in p.args):
        return False            # diag(v) @ B is a scaling; a triu-masked operand is refused by the cube template
    if any(not _operand_leaf(a) for a in p.args):
        return True
    stack, seen = [p], set()
    while stack:
        n = stack.pop()
        for u in users.get(id(n), []):
            if id(u) in seen:
                continue
            seen.add(id(u))
            if not (u.is_elementwise or u.is_view or (u.kind == CUBE and u.info.form == "mask")):
                return True
            stack.append(u)
    return False


def covers(g: Graph) -> list[Cover]:
    """The covers of `g` by segments: with the elementwise work after each product fused into its
    epilogue, and without (the two differ only when a product's result goes on to a vector phase)."""
    out = [Cover(partition(g, fuse=True), True)]
    plain = Cover(partition(g, fuse=False), False)
    if [len(s.nodes) for s in plain.segments] != [len(s.nodes) for s in out[0].segments]:
        out.append(plain)
    return out


def _users(nodes: list[Node]) -> dict[int, list[Node]]:
    users: dict[int, list[Node]] = {}
    for n in nodes:
        for a in n.args:
            if isinstance(a, Node):
                users.setdefault(id(a), []).append(n)
    return users


def _operand_leaf(x: Node) -> bool:
    """An operand the cube reads from GM as it lies: data, its transpose, a vector viewed as a column."""
    if x.kind == PERMUTE and x.info.form == "swap":
        x = x.args[0]
    return x.is_data or (x.is_view and x.args[0].is_data)


def _computed(n) -> bool:
    """Work of the forward: not a leaf, nor a view of leaves (a weight seen as (1, N): each segment that
    reads it views it itself)."""
    return isinstance(n, Node) and not n.is_leaf and not _static(n)


def _static(n: Node) -> bool:
    """A view of leaves, or number math (1 / sqrt(d) of a size): no work of a phase of its own."""
    return (n.is_view or not n.is_tensor) and all(not isinstance(a, Node) or a.is_leaf or _static(a) for a in n.args)


def partition(g: Graph, fuse: bool) -> list[Segment]:
    """Segments of `g` in a valid order (see the module docstring). Every product is a cube segment,
    with its operands' transposes; with `fuse`, the chain of elementwise work that only it feeds joins
    it (its epilogue). Every other computed node joins the vector segment of its stage: one after the
    last segment it reads (a product's stage starts after its operands' stages)."""
    nodes = g.nodes()
    users = _users(nodes)
    outputs = {id(o) for o in g.outputs}
    owner: dict[int, int] = {}                  # id(node) -> segment index
    segs: list[Segment] = []
    stage: dict[int, int] = {}                  # segment index -> stage
    vector_at: dict[int, int] = {}              # stage -> its vector segment
    for n in nodes:
        if not _computed(n) or id(n) in owner:
            continue
        if is_product(n):
            _cube_segment(n, segs, owner, stage, users, outputs, fuse)
            continue
        if _is_glue(n, users):
            continue                            # an operand transpose: taken with its product
        st = max((stage[owner[id(a)]] + (segs[owner[id(a)]].unit == "cube")
                  for a in _computed_args(n) if id(a) in owner), default=0)
        if st not in vector_at:
            vector_at[st] = len(segs)
            segs.append(Segment("vector", []))
            stage[len(segs) - 1] = st
        owner[id(n)] = vector_at[st]
        segs[vector_at[st]].nodes.append(n)
    segs, owner, stage = _components(segs, owner, stage)
    order = sorted(range(len(segs)), key=lambda i: (stage[i], segs[i].unit == "cube", i))
    segs = [segs[i] for i in order]
    owner = {k: order.index(v) for k, v in owner.items()}
    _boundaries(segs, owner, outputs, g)
    return segs


def _components(segs: list[Segment], owner: dict, stage: dict) -> tuple[list[Segment], dict, dict]:
    """Each vector segment split into its connected parts (two cats of a KV cache are two phases: a
    template takes one pattern at a time)."""
    out, new_owner, new_stage = [], {}, {}
    for i, seg in enumerate(segs):
        parts = [seg.nodes] if seg.unit == "cube" else _connected(seg.nodes)
        for part in parts:
            new_stage[len(out)] = stage[i]
            for n in part:
                new_owner[id(n)] = len(out)
            out.append(Segment(seg.unit, part))
    return out, {k: new_owner.get(k, v) for k, v in owner.items()}, new_stage


def _connected(nodes: list[Node]) -> list[list[Node]]:
    root = {id(n): id(n) for n in nodes}

    def find(x):
        while root[x] != x:
            root[x] = root[root[x]]
            x = root[x]
        return x
    for n in nodes:
        for a in _computed_args(n):
            if id(a) in root:
                root[find(id(a))] = find(id(n))
    groups: dict[int, list[Node]] = {}
    for n in nodes:
        groups.setdefault(find(id(n)), []).append(n)
    return list(groups.values())


def _computed_args(n: Node) -> list[Node]:
    return [a for a in n.args if _computed(a)]


def _is_glue(n: Node, users) -> bool:
    """A transpose whose only readers are products: the cube reads its operand transposed."""
    return n.kind == PERMUTE and n.info.form == "swap" and all(is_product(u) for u in users.get(id(n), []))


def _cube_segment(p: Node, segs, owner, stage, users, outputs, fuse: bool) -> None:
    seg = Segment("cube", [])
    i = len(segs)
    segs.append(seg)
    for a in p.args:
        if isinstance(a, Node) and a.kind == PERMUTE and a.info.form == "swap" and _is_glue(a, users):
            owner[id(a)] = i
            seg.nodes.append(a)
    seg.nodes.append(p)
    owner[id(p)] = i
    before = [owner[id(x)] for a in seg.nodes for x in _computed_args(a) if id(x) in owner and owner[id(x)] != i]
    stage[i] = max((stage[j] for j in before), default=-1) + 1
    top = p
    while fuse and id(top) not in outputs:
        nxt = users.get(id(top), [])
        if len(nxt) != 1 or not nxt[0].is_elementwise or id(nxt[0]) in owner:
            break
        u = nxt[0]
        if any(_computed(a) and a is not top and not _viewed_leaf(a) for a in u.args):
            break
        for a in u.args:
            if _computed(a) and a is not top:
                owner[id(a)] = i
                seg.nodes.append(a)
        owner[id(u)] = i
        seg.nodes.append(u)
        top = u


def _viewed_leaf(a: Node) -> bool:
    return a.is_view and a.args[0].is_data


def _boundaries(segs: list[Segment], owner: dict, outputs: set, g: Graph) -> None:
    for i, s in enumerate(segs):
        for n in s.nodes:
            for a in _computed_args(n):
                j = owner.get(id(a))
                if j is not None and j != i and all(a is not r for r in s.reads):
                    if j > i:
                        raise Unsupported("internal: a phase reads a value a later phase makes")
                    s.reads.append(a)
                    if all(a is not w for w in segs[j].writes):
                        segs[j].writes.append(a)
    for o in g.outputs:
        if id(o) not in owner:
            raise Unsupported("an output that is an input or a constant beside matrix products")
        s = segs[owner[id(o)]]
        if any(o is w for w in s.writes):
            raise Unsupported(f"`{o.op}`: a value that is both an output and read by a later phase")
        s.writes.append(o)
    for s in segs:
        if s.unit == "cube" and len(s.writes) > 1:
            raise Unsupported("a matrix product's value read by two later phases and its epilogue (one store)")


@dataclass
class Piece:
    """A segment as a graph of its own: `graph` (its inputs renumbered: the forward's tensors it reads,
    then the earlier segments' values, as input leaves), and per input / output what it is in the
    whole graph: ("input", index) | ("value", node) for inputs, ("value", node) | ("output", k) for outputs."""
    segment: Segment
    graph: Graph
    ins: list[tuple]
    outs: list[tuple]


def piece(g: Graph, seg: Segment) -> Piece:
    """The segment's subgraph (see Piece); its nodes are copies, `g` is unchanged."""
    memo: dict[int, Node] = {}
    ins: list[tuple] = []
    descs: list[dict] = []
    names: list[str] = []

    def leaf(n: Node, key: tuple, name: str) -> Node:
        i = len(ins)
        ins.append(key)
        descs.append({"kind": "tensor", "shape": list(n.shape), "dtype": n.dtype})
        names.append(name)
        return Node("input", (), {"index": i}, tuple(n.shape), n.dtype, name=name)

    reads = {id(r) for r in seg.reads}

    def copy(n):
        if not isinstance(n, Node):
            return n
        if id(n) in memo:
            return memo[id(n)]
        if id(n) in reads:
            out = leaf(n, ("value", n), f"h{len(ins)}")
        elif n.is_input:
            i = n.attrs["index"]
            out = leaf(n, ("input", i), f"{g.input_names[i] if i < len(g.input_names) else i}_in")
        elif n.is_dim and isinstance(n.attrs.get("of"), Node):
            out = Node("dim", (), {**n.attrs, "of": copy(n.attrs["of"])}, None, n.dtype, n.value, n.name)
        elif not n.args:
            out = n
        else:
            out = Node(n.op, tuple(copy(a) for a in n.args), dict(n.attrs), n.shape, n.dtype, n.value, n.name)
        memo[id(n)] = out
        return out
    # inputs are numbered in the order of the forward's tensors first (as a template declares them)
    for n in sorted(_leaves(seg), key=lambda x: x.attrs["index"]):
        copy(n)
    for r in seg.reads:
        copy(r)
    outputs = [copy(o) for o in seg.writes]
    outs = [("output", g.outputs.index(o)) if any(o is x for x in g.outputs) else ("value", o) for o in seg.writes]
    sub = Graph(outputs, descs, g.init_inputs, g.init_names, names, g.parameters, g.buffers, g.method, g.training,
                [], dict(g.lines))
    return Piece(seg, sub, ins, outs)


def _leaves(seg: Segment) -> list[Node]:
    """The forward's input tensors the segment reads directly."""
    out: dict[int, Node] = {}
    reads = {id(r) for r in seg.reads}

    def walk(n):
        if not isinstance(n, Node) or id(n) in reads:
            return
        if n.is_input and n.is_tensor:
            out[id(n)] = n
        if n.is_dim and isinstance(n.attrs.get("of"), Node):
            walk(n.attrs["of"])
        if any(n is m for m in seg.nodes) or (isinstance(n, Node) and _static(n)):
            for a in n.args:
                walk(a)
    for n in seg.nodes:
        walk(n)
    return list(out.values())
