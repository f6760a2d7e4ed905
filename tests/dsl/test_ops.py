"""The operations table: one row per DSL operation, read by parser, verifier, interpreter and docs."""
from __future__ import annotations

import re

import numpy as np
import pytest

from ascendcraft_lab.dsl import OPS, DslError, parse, verify
from ascendcraft_lab.dsl.interp import _pow_by_logs, run
from ascendcraft_lab.dsl.ops import OPS_LIST

CATEGORIES = {"binary", "intbinary", "compare", "unary", "select", "clamp", "reduce", "scan", "window", "cast",
              "element", "repeat", "gather", "take", "transpose", "iota", "sort", "cube"}


@pytest.mark.parametrize("op", OPS_LIST, ids=lambda o: o.name)
def test_every_operation_has_meaning_doc_and_mapping(op):
    assert op.category in CATEGORIES
    assert callable(op.numpy) and op.doc and op.ascendc
    assert op.arity >= 1 and op.example
    assert op.category == "intbinary" or op.dtypes, "tile dtypes the vector unit supports"


KERNEL = """@host
def tiling(x: Tensor[f32, (N,)]):
    return Launch(1)


@kernel
def k(x: GM[f32, (N,)], z: GM[f32, (N,)], y: Out[{odt}, (N,)]):
    with copyin:
        xu = load(x[:])
        zu = load(z[:])
    with compute:
        yu = {expr}
    with copyout:
        store(y[:], yu)
"""


def kernel_text(expr: str, odt: str = "f32") -> str:
    """KERNEL computing `expr`; x and z are loaded only when `expr` reads them (a load never read
    is an error)."""
    text = KERNEL.format(expr=expr, odt=odt)
    for tile in ("xu", "zu"):
        if not re.search(rf"\b{tile}\b", expr):
            text = text.replace(f"        {tile} = load({tile[0]}[:])\n", "")
    return text


def interpret(expr: str, x, z, odt="f32"):
    p = verify(parse(kernel_text(expr, odt)))
    return run(p, {"x": x, "z": z})["y"]


RNG = np.random.default_rng(7)
X = (RNG.random(64).astype(np.float32) + 0.5)
Z = (RNG.standard_normal(64).astype(np.float32))


@pytest.mark.parametrize("op", [o for o in OPS_LIST if o.category == "unary"], ids=lambda o: o.name)
def test_unary_operations_run_their_numpy_meaning(op):
    text = "-xu" if op.symbol else f"{op.name}(xu)"
    assert np.array_equal(interpret(text, X, Z), op.numpy(X))


@pytest.mark.parametrize("op", [o for o in OPS_LIST if o.category in ("binary", "compare")], ids=lambda o: o.name)
def test_binary_operations_run_their_numpy_meaning_on_tiles_and_scalars(op):
    odt = "bool" if op.category == "compare" else "f32"
    form = (lambda a, b: f"{a} {op.symbol} {b}") if op.symbol and not op.call_spelling else \
        (lambda a, b: f"{op.name}({a}, {b})")
    if odt == "bool":        # a comparison's bit mask is stored as a bool tensor's bytes
        form = (lambda f: lambda a, b: f"cast(where({f(a, b)}, 1.0, 0.0), bool)")(form)
    if op.api:
        assert np.array_equal(interpret(form("xu", "zu"), X, Z, odt), op.numpy(X, Z))
    else:       # no AscendC instruction of two tiles (pow): the verifier refuses what cannot be lowered
        with pytest.raises(DslError, match="tile .* tile has no AscendC instruction"):
            interpret(form("xu", "zu"), X, Z, odt)
    # a tile's power other than a small literal one is exp(k ln x) on the vector unit, and so in the interpreter
    meaning = _pow_by_logs if op.powers else op.numpy
    assert np.array_equal(interpret(form("xu", "0.75"), X, Z, odt), meaning(X, np.float32(0.75)))


def test_select_clamp_scan_window_reduce_and_cast():
    assert np.array_equal(interpret("where(zu > 0.0, xu, zu)", X, Z), np.where(Z > 0, X, Z))
    assert np.array_equal(interpret("clamp(zu, -0.5, 0.5)", X, Z), np.clip(Z, -0.5, 0.5))
    np.testing.assert_allclose(interpret("cumsum(zu, init=1.0)", X, Z), 1 + np.cumsum(Z), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(interpret("xu * 0.0 + reduce_sum(zu)", X, Z), np.full(64, Z.sum()), rtol=1e-5)
    assert np.array_equal(interpret("cast(zu * 10.0, i32, round=\"floor\")", X, Z, "i32"),
                          np.floor(Z * 10).astype(np.int32))
    assert np.array_equal(interpret("cast(zu * 10.0, i32)", X, Z, "i32"), np.trunc(Z * 10).astype(np.int32))
    p = verify(parse(kernel_text("window_avg(xu, 4, 4)").replace("y: Out[f32, (N,)]",
                                                                                   "y: Out[f32, ((N - 4) // 4 + 1,)]")))
    assert np.allclose(run(p, {"x": X, "z": Z})["y"], X.reshape(16, 4).mean(axis=1))


def test_every_operation_is_spelled_in_the_dsl():
    for op in OPS_LIST:
        args = ", ".join(["xu"] + ["2" if p.kind == "int" else "f16" if p.kind == "dtype"
                                   else '"rint"' if p.kind == "round" else "L0C" if p.kind == "level" else "1.0"
                                   for p in op.params[1:] if p.default is None])
        text = kernel_text(f"{op.name}({args})")
        assert parse(text).kernel.body[1].body[0].value.op == op.name
    assert set(OPS) == {o.name for o in OPS_LIST}
