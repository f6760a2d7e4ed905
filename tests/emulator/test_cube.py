"""The cube unit: hand-written matmul kernels in the canonical basic-API styles, each checked
against numpy, and run without a single sanitizer finding."""
from __future__ import annotations

import numpy as np
import pytest

from ascendcraft_lab.backends.emulator import runner
from ascendcraft_lab.backends.emulator.runner import Arg, bf16_to_float32, float32_to_bf16, pack_tiling

from emulator_helpers import KERNELS, marked_line, run

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

RNG = np.random.default_rng(19)


def expect_ok(report):
    assert report.status == "ok", report.summary()
    return report.outputs


def tiling(*fields):
    return Arg.tiling(pack_tiling([("float" if isinstance(f, float) else "uint32", f) for f in fields]))


def halves(*shape):
    return RNG.standard_normal(shape).astype(np.float16)


def f32(x):
    return np.asarray(x, dtype=np.float32)


@pytest.mark.parametrize("dtype", ["half", "bfloat16"])
def test_queued_matmul_with_everything_in_l1(dtype):
    m, n, k = 64, 96, 128
    if dtype == "half":
        a, b = halves(m, k), halves(k, n)
        fa, fb = f32(a), f32(b)
    else:
        a, b = float32_to_bf16(RNG.standard_normal((m, k))), float32_to_bf16(RNG.standard_normal((k, n)))
        fa, fb = bf16_to_float32(a), bf16_to_float32(b)
    out = expect_ok(run("mm_basic", 1, [Arg.input(a), Arg.input(b), Arg.output("float32", (m, n)),
                                        tiling(m, n, k, int(dtype != "half"))]))
    np.testing.assert_allclose(out[2], fa.astype(np.float64) @ fb, rtol=1e-5, atol=1e-4)


def test_double_buffered_k_slices_accumulate_in_l0c_and_leave_as_half():
    m, n, k, base_k = 32, 64, 256, 64
    a, b = halves(m, k), halves(k, n)
    out = expect_ok(run("mm_double_buffer", 1, [Arg.input(a), Arg.input(b), Arg.output("float16", (m, n)),
                                                tiling(m, n, k, base_k)]))
    ref = (f32(a).astype(np.float64) @ f32(b)).astype(np.float32).astype(np.float16)
    np.testing.assert_allclose(out[2].astype(np.float32), ref.astype(np.float32), rtol=2e-3, atol=2e-3)


def test_bias_from_the_bias_table_is_added_to_every_row():
    m, n, k = 32, 256, 64
    a, b, bias = halves(m, k), halves(k, n), RNG.standard_normal(n).astype(np.float32)
    out = expect_ok(run("mm_bias", 1, [Arg.input(a), Arg.input(b), Arg.input(bias), Arg.output("float32", (m, n)),
                                       tiling(m, n, k)]))
    np.testing.assert_allclose(out[3], f32(a).astype(np.float64) @ f32(b) + bias, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_transposed_b_loads_without_a_transpose(dtype):
    m, n, k = 48, 32, 64
    a = RNG.standard_normal((m, k)).astype(dtype)
    bt = RNG.standard_normal((n, k)).astype(dtype)
    out = expect_ok(run("mm_transb", 1, [Arg.input(a), Arg.input(bt), Arg.output("float32", (m, n)),
                                         tiling(m, n, k, 2 if dtype == "float32" else 0)]))
    # float inputs: products and sums in float (HF32 mode off), as the cube does by default
    np.testing.assert_allclose(out[2], f32(a).astype(np.float64) @ f32(bt).T, rtol=1e-5, atol=1e-4)


def test_tiles_over_cores_with_hand_written_flags_and_short_edge_tiles():
    m, n, k = 80, 112, 96  # baseM = baseN = 32: the last tile row and column are 16 wide
    a, b = halves(m, k), halves(k, n)
    out = expect_ok(run("mm_multicore", 4, [Arg.input(a), Arg.input(b), Arg.output("float32", (m, n)),
                                            tiling(m, n, k, 32, 32, 32)]))
    np.testing.assert_allclose(out[2], f32(a).astype(np.float64) @ f32(b), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("shape", [(30, 50, 70), (1, 17, 5), (33, 16, 16)])
def test_shapes_that_are_not_whole_fractals(shape):
    m, n, k = shape
    a, b = halves(m, k), halves(k, n)
    out = expect_ok(run("mm_tail", 1, [Arg.input(a), Arg.input(b), Arg.output("float32", (m, n)), tiling(m, n, k)]))
    np.testing.assert_allclose(out[2], f32(a).astype(np.float64) @ f32(b), rtol=1e-5, atol=1e-4)


def test_int8_sums_leave_as_int32_and_dequantised_half():
    m, n, k = 32, 64, 96
    a = RNG.integers(-128, 128, (m, k), dtype=np.int8)
    b = RNG.integers(-128, 128, (k, n), dtype=np.int8)
    scale = 0.0625  # exact in the 10-bit mantissa the cube keeps of a quantisation scale
    out = expect_ok(run("mm_int8", 1, [Arg.input(a), Arg.input(b), Arg.output("int32", (m, n)),
                                       Arg.output("float16", (m, n)), tiling(m, n, k, scale)]))
    ref = a.astype(np.int32) @ b.astype(np.int32)
    np.testing.assert_array_equal(out[2], ref)
    np.testing.assert_array_equal(out[3], (ref.astype(np.float32) * np.float32(scale)).astype(np.float16))


def tiny_args():
    return [Arg.input(halves(32, 32)), Arg.input(halves(32, 32)), Arg.output("float32", (32, 32))]


def test_the_bug_kernels_shared_matmul_is_clean_when_done_right():
    args = tiny_args()
    out = expect_ok(run("mm_flags_ok", 1, args))
    np.testing.assert_allclose(out[2], f32(args[0].data).astype(np.float64) @ f32(args[1].data), rtol=1e-5, atol=1e-4)


CUBE_BUGS = ["bug_l1_overflow", "bug_l0_overflow", "bug_unaligned_fractal", "bug_uninit_l0c", "bug_pipe_hazard",
             "bug_pipe_war", "bug_wait_unset", "bug_wrong_position", "bug_cube_param"]


@pytest.mark.parametrize("name", CUBE_BUGS)
def test_cube_bug_reports_its_finding_at_the_call_site(name):
    line, kind = marked_line(name)
    report = run(name, 1, tiny_args())
    assert report.status == "findings", report.summary()
    found = {(f["kind"], f["file"], f["line"]) for f in report.findings}
    assert found == {(kind, str(KERNELS / f"{name}.cpp"), line)}, report.summary()
    assert 2 in report.outputs  # the kernel ran to the end despite the finding


def test_mmad_rejects_a_type_pair_the_cube_does_not_have(tmp_path):
    src = tmp_path / "bad_mmad.cpp"
    src.write_text(
        '#include "kernel_operator.h"\n'
        "using namespace AscendC;\n"
        "void f(LocalTensor<float> c, LocalTensor<half> a, LocalTensor<float> b) "
        "{ Mmad(c, a, b, MmadParams(16, 16, 16)); }\n")
    result = runner.compile_sources([src])
    assert not result.ok
    assert any("Mmad" in d["message"] and "table 4" in d["message"] for d in result.errors), result.stderr


def test_a_wrong_layout_computes_with_the_blocks_where_the_hardware_finds_them():
    args = tiny_args()
    a, b = f32(args[0].data), f32(args[1].data)
    out = expect_ok(run("mm_nz_as_zz", 1, args))
    # L1 holds A's 16 x 16 blocks column by column (Nz); Mmad takes them row by row (ZZ): block (i, j)
    # of what it multiplies is the block stored at position 2 * i + j of the Nz order, A's (j, i).
    blocks = {(i, j): a[16 * i:16 * i + 16, 16 * j:16 * j + 16] for i in range(2) for j in range(2)}
    seen = np.block([[blocks[(j, i)] for j in range(2)] for i in range(2)])
    np.testing.assert_allclose(out[2], seen.astype(np.float64) @ b, rtol=1e-5, atol=1e-4)
    assert not np.allclose(out[2], a @ b, atol=1e-2)


def test_fixpipe_keeps_nz_converts_to_bf16_with_relu_quantises_int8_and_splits_nd_matrices():
    a, b = halves(32, 32), halves(32, 32)
    out = expect_ok(run("mm_fixpipe_modes", 1, [Arg.input(a), Arg.input(b), Arg.output("float32", 32 * 32),
                                                Arg.output("bfloat16", (32, 32)), Arg.output("int8", (32, 32)),
                                                Arg.output("float32", (32, 32))]))
    c = (f32(a).astype(np.float64) @ f32(b)).astype(np.float32)
    nz = np.concatenate([c[:, 0:16].ravel(), c[:, 16:32].ravel()])  # column groups of 16, each row-major
    np.testing.assert_allclose(out[2], nz, rtol=1e-5, atol=1e-4)
    # (the sums may differ from numpy's in the last float bit, so a rounding step may differ by one)
    np.testing.assert_allclose(bf16_to_float32(out[3]), np.maximum(c, 0), rtol=2 ** -8, atol=1e-6)
    assert np.all(np.abs(out[4].astype(np.int32) - np.clip(np.rint(c * 16), -128, 127)) <= 1)
    assert np.abs(c * 16).max() > 127  # the saturation was exercised
    np.testing.assert_allclose(out[5], c, rtol=1e-5, atol=1e-4)
