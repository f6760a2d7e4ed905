"""argsort(): its meaning on the interpreter (stable, descending, top-k, the Sort32 limit) and
what the verifier refuses."""
from __future__ import annotations

import numpy as np
import pytest

from ascendcraft_lab.dsl import DslError
from ascendcraft_lab.dsl.interp import run
from ascendcraft_lab.dsl.ops import OPS
from ascendcraft_lab.dsl.parser import parse
from ascendcraft_lab.dsl.verifier import verify

KERNEL = """
@host
def tiling(x: Tensor[DT, (B, N)], k: i32):
    return Launch(B, rows=1)


@kernel
def ranks(x: GM[DT, (B, N)], k: i32, y: Out[i32, (B, K)], t: Tiling):
    for r in core_rows(t.rows, B):
        with copyin:
            xu = load(x[r, :])
        with compute:
            at = CALL
        with copyout:
            store(y[r, :], at)
"""


def program(call: str, dtype: str = "f32", out: str = "N"):
    return verify(parse(KERNEL.replace("CALL", call).replace("DT", dtype).replace("K)", out + ")"), "k.dsl.py"))


def test_argsort_keeps_equal_values_in_input_order_both_ways():
    x = np.array([[2, 1, 2, 0, 1, 2, 0, 1]], np.float16)
    up = run(program("argsort(xu)", "f16"), {"x": x, "k": 0})["y"]
    down = run(program("argsort(xu, descending=True)", "f16"), {"x": x, "k": 0})["y"]
    np.testing.assert_array_equal(up, [[3, 6, 1, 4, 7, 0, 2, 5]])
    np.testing.assert_array_equal(down, [[0, 2, 5, 1, 4, 7, 3, 6]])


def test_argsort_with_k_keeps_the_first_k_positions():
    x = np.random.default_rng(1).standard_normal((3, 100)).astype(np.float32)
    y = run(program("argsort(xu, descending=True, k=k)", out="k"), {"x": x, "k": 5})["y"]
    np.testing.assert_array_equal(y, np.argsort(-x, axis=1, kind="stable")[:, :5])


def test_argsort_of_more_than_one_sort32_call_sorts_is_refused_in_one_line():
    # on Ascend910B the UB plan refuses such a row first (scratch of 6 padded rows); the limit is Sort32's
    with pytest.raises(ValueError, match="one Sort32 call sorts at most 8128"):
        OPS["argsort"].numpy(np.zeros(8129, np.float32))
    assert len(OPS["argsort"].numpy(np.zeros(8064, np.float16))) == 8064


@pytest.mark.parametrize("call, dtype, message", [
    ("argsort(xu)", "i32", "`argsort` does not support i32 tiles"),
    ("argsort(xu, k=1.5)", "f32", "argsort\\(\\)'s k must be an integer scalar"),
    ("argsort(xu, descending=1)", "f32", "`descending` is True or False"),
])
def test_argsort_is_refused_with_one_message(call, dtype, message):
    with pytest.raises(DslError, match=message):
        program(call, dtype)
