"""The parser: Python syntax read with `ast`, never executed, into untyped KernelIR."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ascendcraft_lab.dsl import DslError, parse, print_program
from ascendcraft_lab.dsl.ir import (Assign, Call, Const, CoreRows, For, IndexWindows, Load, Range, ScalarParam, Stage,
                                    StageKind, Store, TensorParam, TensorRole, Tiles, TilingParam)
from ascendcraft_lab.examples import get_example

HEAD = "@host\ndef tiling(x: Tensor[f32, (B, N)]):\n    return Launch(B, tile=N)\n\n\n"


def kernel(body: str, params: str = "x: GM[f32, (B, N)], y: Out[f32, (B, N)], t: Tiling") -> str:
    return HEAD + f"@kernel\ndef k({params}):\n" + body


def test_gelu_example_parses_into_host_and_kernel():
    p = parse(get_example("gelu").dsl.read_text())
    assert p.host.name == "tiling" and p.kernel.name == "gelu"
    assert [f.name for f in p.host.launch.fields] == ["rows", "tile"]
    x, y, t = p.kernel.params
    assert isinstance(x, TensorParam) and x.role is TensorRole.input and x.dtype.value == "f32"
    assert isinstance(y, TensorParam) and y.role is TensorRole.output
    assert isinstance(t, TilingParam)
    outer = p.kernel.body[0]
    assert isinstance(outer, For) and isinstance(outer.iter, CoreRows)
    inner = outer.body[0]
    assert isinstance(inner.iter, Tiles)
    assert [s.kind for s in inner.body] == [StageKind.copyin, StageKind.compute, StageKind.copyout]
    assert isinstance(inner.body[0].body[0], Load) and isinstance(inner.body[2].body[0], Store)


def test_spans_point_at_the_source():
    text = kernel("    for r in core_rows(1, B):\n        with copyin:\n            xu = load(x[r, :])\n")
    p = parse(text)
    load = p.kernel.body[0].body[0].body[0]
    assert (load.span.line, load.span.col) == (10, 13)
    assert load.src.span.col == 23


def test_parsing_never_executes_the_text(tmp_path):
    marker = tmp_path / "executed"
    text = kernel(f"    v = open({str(marker)!r}, 'w')\n")
    with pytest.raises(DslError):
        parse(text)
    assert not marker.exists()


def test_augmented_assignment_is_sugar_for_the_plain_form():
    a = parse(kernel("    s = 0.0\n    s += 1.0\n"))
    b = parse(kernel("    s = 0.0\n    s = s + 1.0\n"))
    assert a == b


def test_one_line_and_block_stages_are_the_same_program():
    a = parse(kernel("    for r in core_rows(1, B):\n        with copyin:  xu = load(x[r, :])\n"))
    b = parse(kernel("    for r in core_rows(1, B):\n        with copyin:\n            xu = load(x[r, :])\n"))
    assert a == b


def test_range_defaults_are_filled_in_and_printed_back_short():
    p = parse(kernel("    for i in range(B):\n        s = i\n"))
    it = p.kernel.body[0].iter
    assert isinstance(it, Range) and it.start == Const(0, "int") and it.step == Const(1, "int")
    assert "for i in range(B):" in print_program(p)


def test_power_operator_and_pow_call_are_one_operation():
    a = parse(kernel("    v = 2.0 ** 3.0\n"))
    b = parse(kernel("    v = pow(2.0, 3.0)\n"))
    assert a == b and "v = pow(2.0, 3.0)" in print_program(a)


def test_negative_literals_are_folded():
    p = parse(kernel("    v = -1.5\n    w = -inf\n"))
    assert p.kernel.body[0].value == Const(-1.5, "float")
    assert print_program(p).count("-inf") == 1


def test_literal_kinds_stay_distinct():
    assert parse(kernel("    v = 1\n")) != parse(kernel("    v = 1.0\n"))


def test_optional_arguments_are_normalised():
    a = parse(kernel("    v = cast(s, f16)\n"))
    b = parse(kernel("    v = cast(s, f16, round=\"none\")\n"))
    assert a == b and "cast(s, f16)" in print_program(a)
    c = parse(kernel("    v = cast(s, f16, round=\"rint\")\n"))
    assert 'cast(s, f16, round="rint")' in print_program(c)


def test_windows_index_and_grouped_dims():
    p = parse(kernel("    for c in tiles(B, 4):\n        with copyin:\n            xu = load(x[windows(c, 4, 4)])\n",
                     "x: GM[f32, ((B, N),)], t: Tiling"))
    x = p.kernel.params[0]
    assert x.groups == ((x.dims[0], x.dims[1]),) and len(x.shape) == 1
    load = p.kernel.body[0].body[0].body[0]
    assert isinstance(load.src.index[0], IndexWindows)


def test_param_names_default_to_the_parameter():
    p = parse(kernel("    v = 0\n", 'w: Param[f32, (N,)], b: Param[f32, (N,), "ln.bias"]'))
    w, b = p.kernel.params
    assert w.param_name == "w" and b.param_name == "ln.bias"
    assert 'b: Param[f32, (N,), "ln.bias"]' in print_program(p)


def test_scalar_params_are_dtype_annotations():
    p = parse(kernel("    v = lr\n", "lr: f32, k: i32"))
    assert all(isinstance(q, ScalarParam) for q in p.kernel.params)


def test_unknown_operation_suggests_the_closest_one():
    with pytest.raises(DslError) as e:
        parse(kernel("    v = reduce_summ(s)\n"))
    assert "did you mean `reduce_sum`?" in e.value.help


def test_dsl_words_cannot_be_variable_names():
    with pytest.raises(DslError) as e:
        parse(kernel("    exp = 1.0\n"))
    assert "`exp` is a DSL word" in e.value.message


def test_null_bytes_and_deep_nesting_are_dsl_errors():
    with pytest.raises(DslError):
        parse("x = 1\x00\n")
    with pytest.raises(DslError):
        parse(kernel("    v = " + "(" * 300 + "1" + ")" * 300 + "\n"))


def test_elif_is_an_if_in_the_else_branch():
    a = parse(kernel("    if B > 1:\n        v = 1\n    elif B > 2:\n        v = 2\n    else:\n        v = 3\n"))
    text = print_program(a)
    assert "elif B > 2:" in text and parse(text) == a


def test_printer_wraps_long_signatures_one_parameter_per_line():
    text = print_program(parse(get_example("adam").dsl.read_text()))
    assert "def adam(\n    p: GM[f32, (N,)],\n" in text


def test_assignments_of_tiles_and_loads_are_distinct_statements():
    p = parse(kernel("    for r in core_rows(1, B):\n        with copyin:\n            xu = load(x[r, :])\n"
                     "        with compute:\n            yu = xu * 2.0\n"))
    stages = p.kernel.body[0].body
    assert isinstance(stages[0], Stage) and isinstance(stages[0].body[0], Load)
    assert isinstance(stages[1].body[0], Assign) and isinstance(stages[1].body[0].value, Call)


@pytest.mark.parametrize("line, expression", [
    (13, " + ".join(["xu"] * 39000)),              # beyond the tree builder's recursion room
    (13, "-" * 60000 + "xu"),                      # beyond the parser's own stack (a MemoryError)
], ids=["39000-terms", "60000-minus-signs"])
def test_an_expression_too_long_for_pythons_parser_names_its_line(line, expression):
    fixture = Path(__file__).resolve().parents[1] / "dsl_invalid" / "expression_of_3000_terms.dsl.py"
    text = fixture.read_text().replace(" + ".join(["xu"] * 3000), expression)
    with pytest.raises(DslError) as e:
        parse(text, "long.dsl.py")
    assert "too long or too deeply nested for Python's parser" in e.value.message and e.value.line == line
    assert "RecursionError" not in e.value.render() and "MemoryError" not in e.value.render()
    assert sys.getrecursionlimit() < 12000                # the room given to the parser is taken back
