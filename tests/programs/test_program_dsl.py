"""Programs of kernels in the DSL: syntax, round trip, the verifier's rules, the interpreter."""
from __future__ import annotations

import numpy as np
import pytest

from ascendcraft_lab.dsl import DslError, parse
from ascendcraft_lab.dsl.ir import ArgView, For, LaunchStmt, MultiProgram, Program
from ascendcraft_lab.dsl.program import parse_any, print_multi
from ascendcraft_lab.dsl.program_check import bind_launches, verify_multi
from ascendcraft_lab.dsl.program_run import run_multi
from ascendcraft_lab.examples import PROGRAM_EXAMPLES

from .conftest import CHAIN, KERNELS, SCAN


def test_a_file_with_a_program_parses_into_its_kernels_and_launches():
    mp = parse_any(CHAIN, "chain.dsl.py")
    assert isinstance(mp, MultiProgram)
    assert [k.kernel.name for k in mp.kernels] == ["twice", "add"]
    assert [k.host.name for k in mp.kernels] == ["tiling", "add_tiling"]
    assert [s.kernel for s in mp.main.body] == ["twice", "add"]
    assert mp.main.body[1].args == (ArgView("h"), ArgView("x"), ArgView("y"))


def test_a_one_kernel_file_is_still_a_program_of_one_kernel():
    one = KERNELS.split("\n\n@host\ndef add_tiling")[0]
    assert isinstance(parse_any(one), Program)
    assert parse_any(one) == parse(one)


def test_a_host_loop_holds_launches_on_views():
    mp = parse_any(SCAN)
    loop = mp.main.body[0]
    assert isinstance(loop, For) and loop.var == "s"
    assert all(isinstance(s, LaunchStmt) for s in loop.body)
    assert loop.body[1].args[1].tensor == "x" and len(loop.body[1].args[1].index) == 1


@pytest.mark.parametrize("text", [CHAIN, SCAN] + [e.dsl.read_text() for e in PROGRAM_EXAMPLES],
                         ids=["chain", "scan"] + [e.name for e in PROGRAM_EXAMPLES])
def test_printing_a_program_is_a_fixed_point_of_parsing(text):
    mp = parse_any(text)
    printed = print_multi(mp)
    assert parse_any(printed) == mp
    assert print_multi(parse_any(printed)) == printed


# -- the verifier: each rule at its line, with what would be right ------------------------------

def _error(text: str) -> DslError:
    with pytest.raises(DslError) as info:
        verify_multi(parse_any(text, "p.dsl.py"))
    return info.value


def _line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_reading_an_intermediate_before_its_producer_names_the_producer():
    text = CHAIN.replace("    twice(x, h)\n    add(h, x, y)\n", "    add(h, x, y)\n    twice(x, h)\n")
    err = _error(text)
    assert err.line == _line_of(text, "add(h, x, y)")
    assert "before `twice`" in err.message and "launch `twice` first" in err.help


def test_a_cycle_between_two_launches_is_an_error_at_the_first_read():
    text = KERNELS + '''

@program
def loop(x: GM[f32, (B, N)], y: Out[f32, (B, N)], a: Workspace[f32, (B, N)], b: Workspace[f32, (B, N)]):
    add(b, x, a)
    add(a, x, b)
    twice(b, y)
'''
    err = _error(text)
    assert err.line == _line_of(text, "add(b, x, a)") and "a cycle" in err.message
    rendered = str(err)
    assert f"p.dsl.py:{err.line}:9" in rendered and "= help:" in rendered


def test_a_kernel_the_program_never_launches_is_an_error_at_its_definition():
    text = CHAIN.replace("    twice(x, h)\n    add(h, x, y)\n", "    add(x, x, y)\n").replace(
        ", h: Workspace[f32, (B, N)]", "")
    err = _error(text)
    assert err.line == _line_of(text, "def twice(") and "never launched" in err.message


def test_an_output_no_launch_writes_is_an_error_at_its_declaration():
    text = CHAIN.replace("y: Out[f32, (B, N)], h", "y: Out[f32, (B, N)], z: Out[f32, (B, N)], h")
    err = _error(text)
    assert err.line == _line_of(text, "@program") + 1 and "output `z` is never written" in err.message


def test_an_intermediate_written_but_never_read_is_an_error():
    text = CHAIN.replace("    add(h, x, y)\n", "    add(x, x, y)\n")
    err = _error(text)
    assert "`h` is written but never read" in err.message


def test_a_launch_with_the_wrong_number_of_arguments_says_the_signature():
    text = CHAIN.replace("add(h, x, y)", "add(h, y)")
    err = _error(text)
    assert err.line == _line_of(text, "add(h, y)")
    assert "takes 3 arguments (a, b, y)" in err.message and "add(a, b, y)" in err.help


def test_an_unknown_kernel_suggests_the_closest():
    text = CHAIN.replace("add(h, x, y)", "ad(h, x, y)")
    err = _error(text)
    assert "`ad` is not a kernel" in err.message and "`add`" in err.help


def test_a_dtype_that_differs_across_kernels_is_an_error_at_the_argument():
    text = CHAIN.replace("h: Workspace[f32, (B, N)]", "h: Workspace[f16, (B, N)]")
    err = _error(text)
    assert err.line == _line_of(text, "twice(x, h)") and "`h` is f16" in err.message and "as f32" in err.message


def test_dims_that_disagree_within_a_launch_are_an_error():
    text = CHAIN.replace("h: Workspace[f32, (B, N)]", "h: Workspace[f32, (N, B)]")
    err = _error(text)
    assert err.line == _line_of(text, "twice(x, h)") and "dim `B` of `twice`" in err.message


def test_writing_a_reference_input_is_an_error():
    text = CHAIN.replace("twice(x, h)", "twice(h, x)")
    err = _error(text)
    assert "writes its output `y` into `x`, a reference input" in err.message


def test_a_view_with_the_wrong_rank_says_how_to_fix_it():
    text = SCAN.replace("add(d, x[s],", "add(d, x,")
    err = _error(text)
    assert "has 2 dims but `x` has 3" in err.message and "x[s]" in err.help


def test_a_host_loop_over_anything_but_range_is_refused_by_the_parser():
    with pytest.raises(DslError) as info:
        parse_any(SCAN.replace("range(S)", "tiles(S, 2)"))
    assert "loops over `range(...)`" in info.value.message


def test_a_kernel_without_its_host_before_it_is_refused_at_its_definition():
    head = "@host\ndef add_tiling(a: Tensor[f32, (B, N)]):\n"
    start = CHAIN.index(head)
    text = CHAIN[:start] + CHAIN[CHAIN.index("@kernel\ndef add("):]
    with pytest.raises(DslError) as info:
        parse_any(text)
    assert "kernel `add` has no @host before it" in info.value.message
    assert info.value.line == _line_of(text, "def add(")


def test_each_launch_is_verified_for_its_own_shapes():
    mp = verify_multi(parse_any(CHAIN))
    bound = bind_launches(mp, {"x": (5, 300), "y": (5, 300)}, {}, "Ascend910B2")
    assert [b.shapes for b in bound.values()] == [{"x": (5, 300), "y": (5, 300)},
                                                  {"a": (5, 300), "b": (5, 300), "y": (5, 300)}]


# -- the interpreter --------------------------------------------------------------------------

def test_the_interpreter_runs_the_launches_in_order_through_the_intermediate():
    mp = verify_multi(parse_any(CHAIN))
    x = np.random.default_rng(0).standard_normal((7, 130)).astype(np.float32)
    out = run_multi(mp, {"x": x})
    np.testing.assert_allclose(out.outputs["y"], 3 * x, rtol=1e-6)
    assert [r.stmt.kernel for r in out.trace] == ["twice", "add"]
    np.testing.assert_allclose(out.trace[0].written["h"], 2 * x, rtol=1e-6)


def test_a_host_loop_carries_state_from_step_to_step_starting_at_zero():
    mp = verify_multi(parse_any(SCAN))
    x = np.random.default_rng(1).standard_normal((4, 3, 40)).astype(np.float32)
    out = run_multi(mp, {"x": x})
    acc, want = np.zeros((3, 40), np.float32), []
    for s in range(4):
        acc = 2 * acc + x[s]
        want.append(2 * acc)
    np.testing.assert_allclose(out.outputs["y"], np.stack(want), rtol=1e-5)
    assert len(out.trace) == 12 and out.trace[3].loops == {"s": 1}
    assert out.trace[3].where == "`twice` (line %d, s = 1)" % _line_of(SCAN, "twice(st[s % 2], d)")


def test_the_mlp_example_matches_numpy_on_the_interpreter():
    ex = next(e for e in PROGRAM_EXAMPLES if e.op == "mlp")
    mp = verify_multi(parse_any(ex.dsl.read_text()))
    rng = np.random.default_rng(2)
    m, k, h, n = 33, 40, 48, 24
    x, w1, b1 = (rng.standard_normal(s).astype(np.float32) for s in ((m, k), (h, k), (h,)))
    w2, b2 = rng.standard_normal((n, h)).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    out = run_multi(mp, {"x": x, "w1": w1, "b1": b1, "w2": w2, "b2": b2})
    z = x @ w1.T + b1
    a = 0.5 * z * (1 + np.tanh(0.7978845608 * (z + 0.044715 * z ** 3)))
    np.testing.assert_allclose(out.outputs["y"], a @ w2.T + b2, rtol=1e-4, atol=1e-4)


def test_reference_shapes_that_disagree_are_an_error_at_the_program_declaration():
    mp = verify_multi(parse_any(SCAN))
    with pytest.raises(DslError) as info:
        bind_launches(mp, {"x": (2, 3, 40), "y": (2, 3, 41)}, {}, "Ascend910B2")
    assert "dim `N` of `y` is 41" in info.value.message and info.value.line == _line_of(SCAN, "def scan(")


def test_an_index_past_its_axis_in_some_step_is_an_error_at_the_index():
    text = SCAN.replace("add(d, x[s], st[(s + 1) % 2])", "add(d, x[s + 1], st[(s + 1) % 2])")
    mp = verify_multi(parse_any(text))
    with pytest.raises(DslError) as info:
        bind_launches(mp, {"x": (3, 2, 40), "y": (3, 2, 40)}, {}, "Ascend910B2")
    assert "`s + 1` is 3 here, outside axis 0 of `x` (size 3)" in info.value.message
    assert info.value.line == _line_of(text, "x[s + 1]")
