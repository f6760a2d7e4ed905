"""Registered ops (msopgen projects) on the op harness: OpDef, TilingFunc, tiling keys, workspaces,
the high-level APIs' host tiling, dynamic inputs and InitValue (kernels/ops/)."""
from __future__ import annotations
import pytest

import numpy as np

from ascendcraft_lab.backends.emulator.runner import run_op

from emulator_helpers import KERNELS

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

OPS = KERNELS / "ops"
RNG = np.random.default_rng(7)


def op(name: str, op_type: str, inputs, outputs, attrs=()):
    d = OPS / name
    return run_op([d / f"{name}_custom.cpp", d / f"{name}_custom_kernel.cpp"], op_type, inputs, outputs, attrs,
                  tiling_header=d / f"{name}_custom_tiling.h")


def test_the_tiling_key_the_host_sets_picks_the_kernels_branch():
    for n in (48 * 4096, 48 * 1000 + 7):  # key 1 (whole 32-B blocks per core), key 2 (a ragged share: DataCopyPad)
        x, y = RNG.standard_normal(n, dtype=np.float32), RNG.standard_normal(n, dtype=np.float32)
        r = op("axpby", "AxpbyCustom", [x, y], [("float32", (n,))], [0.5])
        assert r.status == "ok", r.summary()
        np.testing.assert_allclose(r.outputs[0], np.float32(0.5) * x + y, rtol=1e-6)


def test_a_tiling_sized_from_get_core_mem_size_fits_the_ub():
    n = 4 * 16384
    x = np.ones(n, np.float32)
    r = op("axpby", "AxpbyCustom", [x, x], [("float32", (n,))], [2.0])
    assert r.status == "ok" and not r.findings, r.summary()


def test_pad_and_unpad_with_their_host_tiling():
    x = np.arange(8 * 15, dtype=np.float32).reshape(8, 15)
    r = op("pad_rows", "PadRowsCustom", [x], [("float32", (8, 16)), ("float32", (8, 15))], [-1.0])
    assert r.status == "ok", r.summary()
    np.testing.assert_array_equal(r.outputs[0], np.hstack([x, np.full((8, 1), -1, np.float32)]))
    np.testing.assert_array_equal(r.outputs[1], x)


def test_a_dynamic_input_arrives_as_a_list_tensor_desc_and_init_value_clears_the_output():
    xs = [RNG.standard_normal(1024, dtype=np.float32) for _ in range(3)]
    r = op("sum_list", "SumListCustom", [xs], [("float32", (1024,))])
    assert r.status == "ok", r.summary()
    np.testing.assert_array_equal(r.outputs[0], xs[0] + xs[1] + xs[2])


def test_a_tiling_function_that_sets_no_block_dim_is_an_error(tmp_path):
    d = OPS / "axpby"
    host = tmp_path / "axpby_custom.cpp"
    host.write_text((d / "axpby_custom.cpp").read_text().replace("context->SetBlockDim(blockDim);", "(void)blockDim;"))
    (tmp_path / "axpby_custom_tiling.h").write_text((d / "axpby_custom_tiling.h").read_text())
    r = run_op([host, d / "axpby_custom_kernel.cpp"], "AxpbyCustom", [np.ones(64, np.float32)] * 2,
               [("float32", (64,))], [1.0], tiling_header=tmp_path / "axpby_custom_tiling.h")
    assert r.status == "error" and r.message == "AxpbyCustom's TilingFunc set no block dim (context->SetBlockDim)"


def _softmax_rows(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_softmax_with_its_host_tiling_writes_the_rows_and_their_max_and_sum_blocks():
    d = OPS / "softmax_rows"
    for dtype, ctype, tol in ((np.float32, "float", 1e-6), (np.float16, "half", 1e-3)):
        x = (RNG.standard_normal((32, 256)) * 3).astype(dtype)
        r = run_op([d / "softmax_rows_custom.cpp", d / "softmax_rows_custom_kernel.cpp"], "SoftmaxRowsCustom", [x],
                   [(x.dtype.name, x.shape), ("float32", (32, 8)), ("float32", (32, 8))],
                   tiling_header=d / "softmax_rows_custom_tiling.h", extra_flags=[f"-DDTYPE_X={ctype}"])
        assert r.status == "ok" and not r.notes, r.summary()
        xf = x.astype(np.float64)
        np.testing.assert_allclose(r.outputs[0].astype(np.float64), _softmax_rows(xf), atol=tol, rtol=tol)
        np.testing.assert_array_equal(r.outputs[1],
                                      np.repeat(x.astype(np.float32).max(axis=1, keepdims=True), 8, axis=1))
        sums = np.exp(xf - xf.max(axis=1, keepdims=True)).sum(axis=1, keepdims=True)
        np.testing.assert_allclose(r.outputs[2], np.repeat(sums, 8, axis=1), rtol=1e-5)


def test_rms_norm_with_its_host_tiling():
    x = RNG.standard_normal((16, 64)).astype(np.float32)
    gamma = RNG.standard_normal(64).astype(np.float32)
    r = op("rms_rows", "RmsRowsCustom", [x, gamma], [("float32", x.shape)], [1e-5])
    assert r.status == "ok", r.summary()
    xd = x.astype(np.float64)
    want = xd / np.sqrt((xd ** 2).mean(axis=1, keepdims=True) + 1e-5) * gamma
    np.testing.assert_allclose(r.outputs[0], want, rtol=1e-5, atol=1e-6)
