"""The ops table's rules: every category has a typing, an evaluation and a lowering entry, and a
category the lowering passes do not take is refused by the verifier, in one clear message."""
from __future__ import annotations

import numpy as np
import pytest

from ascendcraft_lab.dsl import DslError, parse, verify
from ascendcraft_lab.dsl import dtypes, ir
from ascendcraft_lab.dsl.host import HOST_OPS, HostEvaluator
from ascendcraft_lab.dsl.interp import EVAL_RULES
from ascendcraft_lab.dsl.ops import HOST_BUILTINS, LOWERED, OPS, OPS_LIST, REDUCTIONS, SCALAR_MATH, OpSpec, fold
from ascendcraft_lab.dsl.typerules import TYPE_RULES
from ascendcraft_lab.soc import get_soc

CATEGORIES = {op.category for op in OPS_LIST}


def test_every_category_has_a_typing_rule_an_evaluation_rule_and_lowered_kinds():
    assert set(TYPE_RULES) == CATEGORIES
    assert set(EVAL_RULES) == CATEGORIES
    assert set(LOWERED) == CATEGORIES
    assert all(LOWERED[c] <= {"scalar", "tile", "rows", "cube"} and LOWERED[c] for c in CATEGORIES)


def test_row_fields_name_what_exists():
    for op in OPS_LIST:
        assert not op.reduction or op.reduction in REDUCTIONS, op.name
        assert not op.accumulator or op.accumulator in [p.name for p in op.params], op.name
        assert op.int8 in ("", "exact", "wrap"), op.name
        assert not op.row_api or op.category == "reduce", op.name
    for red in REDUCTIONS.values():
        assert OPS[red.combine].category == "binary" and OPS[red.combine].api


KERNEL = """@host
def tiling(x: Tensor[f32, (B, N)]):
    return Launch(1, tile=N)


@kernel
def k(x: GM[f32, (B, N)], y: Out[f32, (B, N)], t: Tiling):
    for r in range(B):
        for c in tiles(N, t.tile):
            with copyin:
                xu = load(x[r, c])
            with compute:
                yu = blend(xu, xu)
            with copyout:
                store(y[r, c], yu)
"""


@pytest.fixture
def blend(monkeypatch):
    """A new category, `blend`, whose one op has a typing rule but (so far) no lowering."""
    spec = OpSpec("blend", "blend", (OPS["add"].params), np.add, "a new operation", api="Blend")
    monkeypatch.setitem(OPS, "blend", spec)
    monkeypatch.setitem(TYPE_RULES, "blend", TYPE_RULES["binary"])
    return spec


def test_a_category_without_a_lowering_rule_is_refused_by_the_verifier(blend):
    with pytest.raises(DslError) as info:
        verify(parse(KERNEL, "k.dsl.py"))
    err = info.value
    assert "`blend` is an operation of category `blend`, which no lowering rule takes" in err.message
    assert err.line == 13 and "LOWER_RULES" in err.help and "LOWERED" in err.help


def test_a_category_lowered_for_fewer_kinds_is_refused_at_the_others(blend, monkeypatch):
    monkeypatch.setitem(LOWERED, "blend", frozenset({"rows"}))
    with pytest.raises(DslError) as info:
        verify(parse(KERNEL, "k.dsl.py"))
    assert "`blend` is not lowered for 1-D tiles (category `blend` is lowered for tiles of rows)" in info.value.message
    monkeypatch.setitem(LOWERED, "blend", frozenset({"tile"}))
    verify(parse(KERNEL, "k.dsl.py"))


def test_a_category_without_a_typing_rule_says_so(blend, monkeypatch):
    monkeypatch.setitem(LOWERED, "blend", frozenset({"tile"}))
    monkeypatch.delitem(TYPE_RULES, "blend")
    with pytest.raises(DslError) as info:
        verify(parse(KERNEL, "k.dsl.py"))
    assert "no typing rule for `blend`" in info.value.message and "TYPE_RULES" in info.value.help


# -- one integer evaluator -------------------------------------------------------------------------


def test_the_host_evaluator_computes_with_scalar_math():
    ev = HostEvaluator(get_soc(None), {"a": 7, "b": 2})
    for op in HOST_OPS + tuple(n for n in HOST_BUILTINS if n in SCALAR_MATH):
        args = (ir.Name("a"),) if op == "neg" else (ir.Name("a"), ir.Name("b"))
        assert ev.eval(ir.Call(op, args)) == SCALAR_MATH[op](*((7,) if op == "neg" else (7, 2))), op
    assert fold("floordiv", ir.Const(7, "int"), ir.Const(2, "int")) == ir.Const(3, "int")
    assert fold("floordiv", ir.Const(7, "int"), ir.Const(0, "int")) == ir.Call("floordiv", (ir.Const(7, "int"),
                                                                                          ir.Const(0, "int")))


# -- one dtypes table ------------------------------------------------------------------------------


def test_every_dtype_fact_comes_from_the_dtypes_table():
    assert ir.DType is dtypes.DType and ir.FLOATS is dtypes.FLOATS
    for d in dtypes.DType:
        assert d.np.itemsize == (4 if d is dtypes.DType.bf16 else d.nbytes)
        assert dtypes.CPP_SIZES[d.cpp] == d.nbytes and dtypes.TORCH_NBYTES[d.torch_name] == d.nbytes
        assert dtypes.DType.from_torch(d.torch_name) is d and dtypes.DSL_NAMES[d.torch_name] == d.value
        assert d.aten and d.is_float + d.is_int + (d is dtypes.DType.bool) == 1
    assert dtypes.wider(dtypes.DType.f16, dtypes.DType.f32) is dtypes.DType.f32
    assert dtypes.wider(dtypes.DType.i32, dtypes.DType.i8) is dtypes.DType.i32
    assert dtypes.wider(dtypes.DType.bool, dtypes.DType.u8) is dtypes.DType.u8
