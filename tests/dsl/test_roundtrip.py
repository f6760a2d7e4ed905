"""Round-trip: formatting is not meaning, and the printer's output is a fixed point."""
from __future__ import annotations

import math
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ascendcraft_lab.dsl import parse, print_program
from ascendcraft_lab.dsl.ir import Assign, Call, Const, Name, Str, walk
from ascendcraft_lab.examples import EXAMPLES

from dsl_helpers import reformat

TEXTS = {e.name: e.dsl.read_text() for e in EXAMPLES}


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_printing_a_parse_is_a_fixed_point(name):
    once = print_program(parse(TEXTS[name]))
    assert print_program(parse(once)) == once
    assert parse(once) == parse(TEXTS[name])


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_every_node_of_an_example_has_a_source_span(name):
    program = parse(TEXTS[name])
    lines = TEXTS[name].count("\n")
    for node in walk(program):
        assert 1 <= node.span.line <= node.span.end_line <= lines + 1, node


@pytest.mark.heavy
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(TEXTS)), seed=st.integers(0, 2**32 - 1))
def test_reformatted_example_parses_to_the_same_ir_and_text(name, seed):
    text = TEXTS[name]
    changed = reformat(text, random.Random(seed))
    assert parse(changed) == parse(text)
    assert print_program(parse(changed)) == print_program(parse(text))


# -- random expressions: the printer's parentheses must keep every tree intact ---------------

LEAVES = st.one_of(
    st.sampled_from(["a", "b", "xu", "yu", "m"]).map(Name),
    st.integers(0, 1000).map(lambda v: Const(v, "int")),
    st.floats(-1e6, 1e6, allow_nan=False).map(lambda v: Const(v, "float")),
    st.sampled_from([math.inf, -math.inf, 0.5, -2.25]).map(lambda v: Const(v, "float")),
)
BINARY = ["add", "sub", "mul", "div", "floordiv", "mod", "pow", "max", "min", "lt", "le", "gt", "ge", "eq", "ne"]
UNARY = ["exp", "abs", "sqrt", "tanh", "last"]


def _neg(e):
    # The parser folds `-<number>` into a negative literal, so neg(Const) is not a parsed tree.
    return Call("neg", (e,)) if not isinstance(e, Const) else Const(-e.value, e.kind)


EXPRS = st.recursive(
    LEAVES,
    lambda inner: st.one_of(
        st.tuples(st.sampled_from(BINARY), inner, inner).map(lambda t: Call(t[0], (t[1], t[2]))),
        st.tuples(st.sampled_from(UNARY), inner).map(lambda t: Call(t[0], (t[1],))),
        # a reduction with its optional arguments: the whole tile, or one axis (kept or not)
        st.tuples(inner, st.sampled_from([Str("all"), Const(1, "int"), Const(-1, "int")]), st.booleans()).map(
            lambda t: Call("reduce_sum", (t[0], t[1], Const(t[2] and not isinstance(t[1], Str), "bool")))),
        inner.map(_neg),
        st.tuples(inner, inner, inner).map(lambda t: Call("where", t)),
    ),
    max_leaves=12,
)

SHELL = """@host
def tiling(x: Tensor[f32, (N,)]):
    return Launch(1)


@kernel
def k(x: GM[f32, (N,)], y: Out[f32, (N,)]):
    v = 0
"""


@pytest.mark.heavy
@settings(max_examples=300, deadline=None)
@given(EXPRS)
def test_printed_expressions_parse_back_to_the_same_tree(expr):
    program = parse(SHELL)
    body = (Assign("v", expr),)
    kernel = program.kernel.__class__(program.kernel.name, program.kernel.params, body)
    program = program.__class__(program.host, kernel)
    text = print_program(program)
    again = parse(text)
    assert again.kernel.body[0].value == expr, text
    assert print_program(again) == text
