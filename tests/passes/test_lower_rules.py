"""The lowering rules cover exactly what the verifier accepts: LOWER_RULES (passes/vector.py) and
CUBE_RULES (passes/cube.py) register a function for every (category, tile kind) that
dsl.ops.LOWERED names, and for no other; and every elementwise op the verifier accepts at a tile
kind and dtype lowers without an error, while a dtype outside its row is refused."""
from __future__ import annotations

import re

import pytest

from ascendcraft_lab.dsl import DslError, parse, verify
from ascendcraft_lab.dsl.ir import DType
from ascendcraft_lab.dsl.ops import LOWERED, OPS_LIST
from ascendcraft_lab.engines.rule import render
from ascendcraft_lab.passes.cube import CUBE_RULES
from ascendcraft_lab.passes.manager import LowerOptions
from ascendcraft_lab.passes.vector import LOWER_RULES


def test_every_lowered_category_and_kind_has_a_lowering_function_and_no_other():
    registered = {cat: set(kinds) for cat, kinds in {**LOWER_RULES, **CUBE_RULES}.items()}
    assert not set(LOWER_RULES) & set(CUBE_RULES)
    assert registered == {cat: set(kinds) for cat, kinds in LOWERED.items()}
    assert all(callable(fn) for kinds in {**LOWER_RULES, **CUBE_RULES}.values() for fn in kinds.values())


KERNEL = """@host
def tiling(x: Tensor[{dt}, (B, N)]):
    return Launch(1, rows=B, tile=N)


@kernel
def k(x: GM[{dt}, (B, N)], z: GM[{dt}, (B, N)], m: GM[bool, (B, N)], y: Out[{out}, (B, N)], t: Tiling):
    for rb in tiles(B, t.rows):
        for c in tiles(N, t.tile):
            with copyin:
{loads}
            with compute:
                yu = {expr}
            with copyout:
                store(y[{rows}, c], yu)
"""


def kernel(dt: DType, out: str, kind: str, expr: str) -> str:
    rows = "rb" if kind == "rows" else "rb.start"
    loads = "\n".join(f"                {n}u = load({n}[{rows}, c])" for n in "xzm" if re.search(rf"\b{n}u\b", expr))
    return KERNEL.format(dt=dt.value, out=out, rows=rows, loads=loads, expr=expr)


# Each elementwise category's forms: (expression, output dtype: None for the operands' own).
FORMS = {
    "binary": [("{op}(xu, zu)", None), ("{op}(xu, 2)", None), ("{op}(2, xu)", None)],
    # a comparison's bit mask is read by a Select (a bool tensor holds bytes: cast(where(m, 1.0, 0.0), bool))
    "compare": [("where({op}(xu, zu), 1.0, 0.0)", "f32"), ("where({op}(xu, 2), 1.0, 0.0)", "f32"),
                ("where({op}(2, xu), 1.0, 0.0)", "f32")],
    "unary": [("{op}(xu)", None)],
    "clamp": [("clamp(xu, 0, 2)", None)],
    "select": [("where(xu > zu, xu, zu)", None), ("where(xu > zu, xu, 2)", None), ("where(xu > zu, 2, zu)", None)],
    "cast": [("cast(xu, {to})", "{to}")],
}
ELEMENTWISE = [op for op in OPS_LIST if op.category in FORMS]
VECTOR_DTYPES = (DType.f16, DType.bf16, DType.f32, DType.i16, DType.i32)


def _cases():
    """Every op and operand form at every vector dtype in a 1-D tile; tiles of rows (the same rules,
    with a row pitch) at a 4-byte float and a 4-byte int."""
    for op in ELEMENTWISE:
        for expr, out in FORMS[op.category]:
            for dt in VECTOR_DTYPES:
                for kind in ("tile", "rows") if dt in (DType.f32, DType.i32) else ("tile",):
                    call = expr.removeprefix("where(").split(")")[0] + ")" if op.category == "compare" else expr
                    form = call.split("(")[1][:-1]
                    yield pytest.param(op, expr, out, dt, kind, id=f"{op.name}-{form}-{dt.value}-{kind}")


@pytest.mark.parametrize("op, expr, out, dt, kind", list(_cases()))
def test_an_elementwise_op_lowers_wherever_the_verifier_accepts_it(op, expr, out, dt, kind):
    to = "f32" if dt is not DType.f32 else "i32"
    expr = expr.format(op=op.name, to=to)
    if dt is DType.bf16:            # no comparison of bf16 tiles: select by a loaded mask
        expr = expr.replace("xu > zu", "mu")
    text = kernel(dt, (out or dt.value).format(to=to), kind, expr)
    try:
        program = verify(parse(text, "k.dsl.py"))
    except DslError as e:
        # the refusals expected here: a dtype outside the row, an operand order the row has no API for
        assert dt not in op.dtypes or "no AscendC instruction" in e.message, e.render()
        return
    assert op.category == "cast" or dt in op.dtypes
    cpp = "".join(t for name, t in render(program, LowerOptions(), 4).files.items() if name.endswith("_kernel.cpp"))
    assert "yu" in cpp or "Yu" in cpp, sorted(render(program, LowerOptions(), 4).files)
