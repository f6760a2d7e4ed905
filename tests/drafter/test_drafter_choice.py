"""The drafter's rule list (drafter/choice.py), on small canonical graphs built in this process.

No reference runs and nothing compiles: each graph is made of graph.Node / graph.Builder nodes as
the rules (rules.py) would make them. Every rule has a graph its matcher accepts and that no rule
above it takes; `choose` returns that rule; the order of `RULES` is the precedence the drafter
guide documents.
"""
import re
from pathlib import Path

import pytest

from ascendcraft_lab.drafter import choice
from ascendcraft_lab.drafter.choice import RULES, Canon, candidates, choose
from ascendcraft_lab.drafter.graph import Builder, Graph, Node, Unsupported, softmax

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "drafter-and-bench.md"


def inp(i: int, shape, dtype="float32") -> Node:
    return Node("input", (), {"index": i}, tuple(shape), dtype, name=f"x{i}")


def param(name: str, shape, actual) -> Node:
    """A Model parameter seen with 1s where it does not vary (as the layouts' preparation leaves it)."""
    return Node("param", (), {"name": name, "actual": tuple(actual)}, tuple(shape), "float32", name=name)


def graph(outputs, *inputs) -> Graph:
    descs = [{"kind": "tensor", "shape": list(n.shape), "dtype": n.dtype} for n in inputs]
    return Graph(list(outputs), descs, [], [], [n.name for n in inputs], {}, {}, "fx", False)


def _cube():
    a, b = inp(0, (16, 32)), inp(1, (32, 8))
    return graph([Node("matmul", (a, b), {}, (16, 8))], a, b)


def _conv():
    from ascendcraft_lab.drafter.conv import conv_node
    x = inp(0, (2, 3, 8, 8))
    w = Node("param", (), {"name": "conv.weight"}, (4, 3, 3, 3), "float32")
    return graph([conv_node(x, w, None, 2, 1, 1, 1, 1)], x)


def _pool():
    x = inp(0, (2, 4, 16))
    return graph([Builder().pool("max", x, 1, (2,), (2,), (0,), (1,), False)], x)


def _permute():
    x = inp(0, (8, 16))
    return graph([Node("permute", (x,), {"order": (1, 0)}, (16, 8))], x)


def _split():
    x = inp(0, (8, 16))
    return graph([Node("split", (x,), {"axis": 0, "how": 4, "squeeze": False}, (4, 16))], x)


def _resize():
    x = inp(0, (1, 2, 8, 8))
    return graph([Node("resize", (x,), {"mode": "nearest"}, (1, 2, 16, 16))], x)


def _sort():
    x = inp(0, (4, 32))
    return graph([Builder().sort(x, -1, False)[0]], x)


def _count():
    x = inp(0, (64,))
    return graph([Node("histc", (x,), {}, (10,))], x)


def _index():
    x, idx = inp(0, (4, 32)), inp(1, (4, 3), "int64")
    return graph([Builder().gather(x, idx, -1)], x, idx)


def _interleave():
    b = Builder()
    x0, x1 = inp(0, (4, 8)), inp(1, (4, 8))
    parts = (b.reshape(x0, (4, 8, 1)), b.reshape(x1, (4, 8, 1)))
    return graph([Node("cat", parts, {"axis": 2}, (4, 8, 2))], x0, x1)


def _remap():
    x = inp(0, (4, 8))
    return graph([Node("pad", (x,), {"pads": {1: (1, 1)}, "mode": "constant", "value": 0.0}, (4, 10))], x)


def _concat():
    x0, x1 = inp(0, (4, 8)), inp(1, (2, 8))
    return graph([Node("cat", (x0, x1), {"axis": 0}, (6, 8))], x0, x1)


def _leftover():
    x = inp(0, (4, 8), "int32")
    return graph([Builder().ew("add", x, 1)], x)


def _bcast():
    x, bias = inp(0, (4, 8)), inp(1, (8,))
    return graph([Builder().ew("add", x, bias)], x, bias)


def _loss(n: int):
    """mean over rows of sum(x * x) along a row of n: a total of per-row values."""
    b = Builder()
    x = inp(0, (6, n))
    per_row = b.reduce("sum", b.mul(x, x), [1], False)
    return graph([b.div(b.reduce("sum", per_row, None, False), 6.0)], x)


def _column_params():
    """x * w + s with w, s varying along the last axis (BatchNorm1d in eval mode on (N, C))."""
    b = Builder()
    x, w, s = inp(0, (8, 4)), param("w", (1, 4), (4,)), param("s", (1, 4), (4,))
    return graph([b.add(b.mul(x, w), s)], x)


def _planes():
    """x minus its mean over N, H, W per channel (a batch norm's centring)."""
    b = Builder()
    x = inp(0, (2, 3, 4, 4))
    return graph([b.sub(x, b.mean(x, [0, 2, 3], True))], x)


def _row_param():
    """A reduction over a middle axis, then a parameter that varies along it."""
    b = Builder()
    x, w = inp(0, (2, 5, 8)), param("w", (1, 5, 1), (5,))
    return graph([b.mul(b.sub(x, b.reduce("max", x, [1], True)), w)], x)


def _map():
    b = Builder()
    x = inp(0, (4, 8))
    return graph([b.add(b.mul(x, 2.0), 1.0)], x)


def _cols():
    x = inp(0, (2, 5, 8))
    return graph([Builder().reduce("sum", x, [1], False)], x)


def _windows():
    x = inp(0, (16, 32))
    return graph([Builder().reduce("max", x, [1], False)], x)


def _softmax(n: int):
    x = inp(0, (4, n))
    return graph([softmax(Builder(), x, -1)], x)


def _total():
    x = inp(0, (4, 8))
    return graph([Builder().reduce("sum", x, None, False)], x)


# the template names of each rule -> a graph it must take (refusal rules: their line)
CASES = {
    choice.CUBE_T: _cube, choice.CONV_T: _conv, choice.POOL_T: _pool, choice.PERMUTE_T: _permute,
    choice.SPLIT_T: _split,
    choice.RESIZE_T: _resize, choice.SORT_T: _sort, choice.COUNT_T: _count, choice.INDEX_T: _index,
    choice.INTERLEAVE_T: _interleave, choice.REMAP_T: _remap, choice.CONCAT_T: _concat, choice.LEFTOVER: _leftover,
    choice.BCAST_T: _bcast, choice.WINDOWS_TOTAL_T: lambda: _loss(10), choice.ROWS_TOTAL_T: lambda: _loss(1000),
    choice.COLUMNS_T: _column_params, choice.PLANES_T: _planes, choice.ROW_PARAM: _row_param, choice.MAP_T: _map,
    choice.COLS_T: _cols, choice.WINDOWS_T: _windows, choice.ROW_BLOCKS_T: lambda: _softmax(64),
    choice.TOTAL_T: _total, choice.ROWS_T: lambda: _softmax(4096),
}
REFUSALS = {choice.LEFTOVER: "int32 tensors", choice.ROW_PARAM: "a parameter broadcast along the reduced axes"}


def test_every_rule_has_a_case_and_a_reason():
    assert [r.template for r in RULES if r.template not in CASES] == []
    assert all(len(r.why) > 40 for r in RULES)


def first_taker(g: Graph):
    """The first rule whose matcher accepts `g` and whose template takes it (or refuses it) rather than passing."""
    c = Canon(g)
    for rule in RULES:
        if rule.matches(c):
            try:
                if rule.template.plan(c) is not None:
                    return rule
            except Unsupported:
                return rule
    return None


@pytest.mark.parametrize("rule", RULES, ids=[r.template.names[0] if r.template.names else "refusal" for r in RULES])
def test_the_rule_takes_its_graph(rule):
    """Its matcher accepts the graph, no rule above it takes the graph, and choose() gives its template."""
    g = CASES[rule.template]()
    assert rule.matches(Canon(g))
    assert first_taker(g) is rule
    assert rule in candidates(g)
    if rule.template in REFUSALS:
        with pytest.raises(Unsupported, match=re.escape(REFUSALS[rule.template])):
            choose(g)
        return
    chosen, lay = choose(g)
    assert chosen is rule
    assert lay.template in rule.template.names or (rule.template is choice.CUBE_T and lay.template == "cube")


def test_a_rule_that_passes_leaves_the_graph_to_the_next():
    """A cat that is not the whole output: the concat rule matches and passes, the leftover rule refuses."""
    x0, x1 = inp(0, (4, 8)), inp(1, (2, 8))
    g = graph([Builder().ew("exp", Node("cat", (x0, x1), {"axis": 0}, (6, 8)))], x0, x1)
    concat = next(r for r in RULES if r.template is choice.CONCAT_T)
    assert concat.matches(Canon(g)) and concat.template.plan(Canon(g)) is None
    with pytest.raises(Unsupported, match=r"`cat` \(only the exclusive-scan pattern"):
        choose(g)


def test_the_template_pattern_names_the_subgraph_it_takes():
    g = _bcast()
    nodes = Canon(g).nodes
    assert choice.BCAST_T.subgraph(nodes) == nodes            # the whole graph: inputs and the add
    assert choice.POOL_T.subgraph(nodes) == [n for n in nodes if n.is_data]
    assert choice.BCAST_T.cost(choose(g)[1], "Ascend910B2") is None      # no estimate plugged in yet


def _documented_order() -> list[tuple[str, ...]]:
    """The precedence table of the drafter guide: one row per rule, its templates in the last column."""
    text = GUIDE.read_text()
    table = text.split("<!-- precedence: drafter/choice.py RULES -->", 1)[1].split("\n\n", 1)[0]
    rows = [line.strip() for line in table.strip().splitlines() if line.strip().startswith("|")][2:]
    out = []
    for row in rows:
        cell = row.strip("|").split("|")[-1]
        out.append(tuple(re.findall(r"`(\w+)`", cell)))
    return out


def test_the_order_is_the_documented_precedence():
    assert _documented_order() == [r.template.names for r in RULES]


def test_every_op_the_rules_make_has_a_row():
    """graph.OPS knows every op a rule or a layout makes (a node without a row is a drafter bug)."""
    from ascendcraft_lab.drafter.graph import OPS
    src = "".join(p.read_text() for p in (Path(choice.__file__).parent).glob("*.py"))
    made = set(re.findall(r'Node\("(\w+)"', src)) | set(re.findall(r'\.ew\("(\w+)"', src))
    assert made - set(OPS) == set()
