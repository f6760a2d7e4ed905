"""Hand-written AscendC kernels run on the emulator and compared with numpy."""
from __future__ import annotations
import pytest

import subprocess

import numpy as np

from ascendcraft_lab.backends.emulator import runner
from ascendcraft_lab.backends.emulator.runner import Arg, bf16_to_float32, float32_to_bf16, pack_tiling

from emulator_helpers import KERNELS, run

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

RNG = np.random.default_rng(2024)


def expect_ok(report):
    assert report.status == "ok", report.summary()
    return report.outputs


def test_add_double_buffered_over_8_cores():
    n = 8 * 4096
    x, y = RNG.standard_normal(n, dtype=np.float32), RNG.standard_normal(n, dtype=np.float32)
    out = expect_ok(run("add_double_buffer", 8, [Arg.input(x), Arg.input(y), Arg.output("float32", n), Arg.workspace(0),
                                                 Arg.tiling(pack_tiling([("uint32", n), ("uint32", 512)]))]))
    np.testing.assert_array_equal(out[2], x + y)


def test_add_with_unaligned_slices_uses_datacopypad():
    n = 4 * 250  # 1000 B per core: not a multiple of 32
    x, y = RNG.standard_normal(n, dtype=np.float32), RNG.standard_normal(n, dtype=np.float32)
    out = expect_ok(run("add_pad", 4, [Arg.input(x), Arg.input(y), Arg.output("float32", n),
                                       Arg.tiling(pack_tiling([("uint32", 250)]))]))
    np.testing.assert_array_equal(out[2], x + y)


def test_leaky_relu_from_maxs_mins_muls():
    n = 4 * 2048
    x = RNG.standard_normal(n, dtype=np.float32)
    tiling = pack_tiling([("uint32", 2048), ("uint32", 512), ("float", 0.1)])
    out = expect_ok(run("leaky_relu", 4, [Arg.input(x), Arg.output("float32", n), Arg.tiling(tiling)]))
    np.testing.assert_allclose(out[1], np.where(x > 0, x, np.float32(0.1) * x), rtol=1e-6, atol=1e-7)


def test_row_softmax_with_reduce_and_scalar_readback():
    rows, cols = 16, 1024
    x = RNG.standard_normal((rows, cols), dtype=np.float32) * 4
    out = expect_ok(run("softmax_row", 4, [Arg.input(x), Arg.output("float32", (rows, cols)),
                                           Arg.tiling(pack_tiling([("uint32", rows), ("uint32", cols)]))]))
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out[1], e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)


def test_layer_norm_with_tbuf_parameters():
    rows, cols = 8, 768
    x = RNG.standard_normal((rows, cols), dtype=np.float32) * 3 + 1
    g, b = RNG.standard_normal(cols, dtype=np.float32), RNG.standard_normal(cols, dtype=np.float32)
    tiling = pack_tiling([("uint32", rows), ("uint32", cols), ("float", 1e-5)])
    out = expect_ok(run("layernorm", 4, [Arg.input(x), Arg.input(g), Arg.input(b), Arg.output("float32", (rows, cols)),
                                         Arg.workspace(1024), Arg.tiling(tiling)]))
    mean = x.mean(axis=1, keepdims=True)
    ref = (x - mean) / np.sqrt(x.var(axis=1, keepdims=True) + 1e-5) * g + b
    np.testing.assert_allclose(out[3], ref, rtol=1e-4, atol=1e-4)


def test_fp16_fp32_cast_roundtrip_rounds_to_nearest_even():
    n = 2 * 4096
    x = (RNG.standard_normal(n) * 100).astype(np.float16)
    out = expect_ok(run("cast_f16", 2, [Arg.input(x), Arg.output("float16", n),
                                        Arg.tiling(pack_tiling([("uint32", 4096), ("uint32", 1024)]))]))
    ref = (x.astype(np.float32) * np.float32(2.5) + np.float32(1)).astype(np.float16)
    np.testing.assert_array_equal(out[1], ref)


def test_compare_and_select_tensor_and_scalar_modes():
    n = 2 * 1024
    x, y = RNG.standard_normal(n, dtype=np.float32), RNG.standard_normal(n, dtype=np.float32)
    out = expect_ok(run("compare_select", 2, [Arg.input(x), Arg.input(y), Arg.output("float32", n),
                                              Arg.output("float32", n), Arg.tiling(pack_tiling([("uint32", 1024)]))]))
    np.testing.assert_array_equal(out[2], np.where(x > y, x, np.float32(0.5) * y))
    np.testing.assert_array_equal(out[3], np.where(x >= 0, x, np.float32(-1)))


def test_whole_reduce_sum_and_max_per_repeat():
    rows = 4 * 16
    x = RNG.standard_normal((rows, 64), dtype=np.float32)
    out = expect_ok(run("whole_reduce", 4, [Arg.input(x), Arg.output("float32", rows), Arg.output("float32", rows),
                                            Arg.tiling(pack_tiling([("uint32", rows)]))]))
    np.testing.assert_allclose(out[1], x.sum(axis=1), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(out[2], x.max(axis=1))


def test_brcb_spreads_each_value_over_a_block_for_a_per_row_broadcast():
    x = RNG.standard_normal((16, 24), dtype=np.float32)
    s = RNG.standard_normal(16, dtype=np.float32)
    out = expect_ok(run("brcb_row_scale", 1, [Arg.input(x), Arg.input(s), Arg.output("float32", (16, 24)),
                                              Arg.workspace(0)]))
    np.testing.assert_array_equal(out[2], x * s[:, None])


def test_block_reduce_then_whole_reduce_row_sums():
    rows = 2 * 16
    x = RNG.standard_normal((rows, 512), dtype=np.float32)
    out = expect_ok(run("block_reduce", 2, [Arg.input(x), Arg.output("float32", rows),
                                            Arg.tiling(pack_tiling([("uint32", rows)]))]))
    np.testing.assert_allclose(out[1], x.sum(axis=1), rtol=1e-5, atol=1e-4)


def test_tail_core_takes_the_unaligned_remainder():
    n, cores = 10001, 8
    chunk = (n // cores + 7) // 8 * 8
    x = RNG.standard_normal(n, dtype=np.float32)
    out = expect_ok(run("tail_core", cores, [Arg.input(x), Arg.output("float32", n),
                                             Arg.tiling(pack_tiling([("uint32", n), ("uint32", chunk)]))]))
    np.testing.assert_allclose(out[1], x * np.float32(3) + np.float32(1), rtol=1e-6, atol=1e-6)


def test_atomic_add_sums_across_cores_deterministically():
    n, cores = 8 * 2048, 8
    x = RNG.standard_normal(n, dtype=np.float32)
    args = [Arg.input(x), Arg.output("float32", 8), Arg.tiling(pack_tiling([("uint32", n)]))]
    first = expect_ok(run("atomic_sum", cores, args))[1]
    second = expect_ok(run("atomic_sum", cores, args))[1]
    np.testing.assert_allclose(first[0], x.astype(np.float64).sum(), rtol=1e-4, atol=1e-3)
    assert first.tobytes() == second.tobytes()
    np.testing.assert_array_equal(first[1:], 0)


def test_gelu_tanh_formula():
    n = 4 * 4096
    x = RNG.standard_normal(n, dtype=np.float32) * 3
    out = expect_ok(run("gelu_tanh", 4, [Arg.input(x), Arg.output("float32", n),
                                         Arg.tiling(pack_tiling([("uint32", n), ("uint32", 1024)]))]))
    xd = x.astype(np.float64)
    ref = 0.5 * xd * (1 + np.tanh(np.sqrt(2 / np.pi) * (xd + 0.044715 * xd ** 3)))
    np.testing.assert_allclose(out[1], ref, rtol=1e-5, atol=1e-6)


def test_bfloat16_tensors_travel_as_uint16_bits():
    n = 2 * 1024
    xf, yf = RNG.standard_normal(n, dtype=np.float32), RNG.standard_normal(n, dtype=np.float32)
    x, y = float32_to_bf16(xf), float32_to_bf16(yf)
    out = expect_ok(run("bf16_add", 2, [Arg.input(x), Arg.input(y), Arg.output("bfloat16", n),
                                        Arg.tiling(pack_tiling([("uint32", n)]))]))
    assert out[2].dtype == np.uint16
    np.testing.assert_array_equal(out[2], float32_to_bf16(bf16_to_float32(x) + bf16_to_float32(y)))


def test_repeat_form_bit_mask_and_continuous_mask():
    x, y = RNG.standard_normal(256, dtype=np.float32), RNG.standard_normal(256, dtype=np.float32)
    out = expect_ok(run("repeat_mask", 1, [Arg.input(x), Arg.input(y), Arg.output("float32", 256),
                                           Arg.output("float32", 256)]))
    even = np.arange(256) % 2 == 0
    np.testing.assert_array_equal(out[2], np.where(even, x + y, np.float32(-1)))
    first_half = np.arange(256) % 64 < 32
    np.testing.assert_array_equal(out[3], np.where(first_half, x * np.float32(2), x))


def test_host_program_launches_with_aclrt_launch_kernel(tmp_path):
    host = tmp_path / "host.cpp"
    host.write_text(f'''
#include <cstdio>
#include <vector>
#include "{KERNELS / 'add_pad.cpp'}"
int main() {{
    const uint32_t per = 250, cores = 4, n = per * cores;
    std::vector<float> x(n), y(n), z(n, 0.0f);
    for (uint32_t i = 0; i < n; ++i) {{ x[i] = float(i); y[i] = 0.5f * float(i); }}
    AddPadTiling t{{per}};
    ACLRT_LAUNCH_KERNEL(add_pad)(cores, nullptr, x.data(), y.data(), z.data(), &t);
    for (uint32_t i = 0; i < n; ++i) if (z[i] != 1.5f * float(i)) {{ std::printf("bad %u\\n", i); return 1; }}
    std::printf("OK\\n");
    return 0;
}}
''')
    exe = tmp_path / "host"
    cmd = ["g++", *runner.BASE_FLAGS, "-isystem", str(runner.INCLUDE_DIR), str(host), str(runner._runtime_object()),
           "-o", str(exe)]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    r = subprocess.run([str(exe)], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0 and r.stdout.strip() == "OK", r.stdout + r.stderr


def _half_neighbours(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(nearest-even, below, above) float16 neighbours of float32 values."""
    h = x.astype(np.float16)
    hf = h.astype(np.float32)
    lo = np.where(hf <= x, h, np.nextafter(h, np.float16(-np.inf)))
    hi = np.where(hf >= x, h, np.nextafter(h, np.float16(np.inf)))
    return h, lo, hi


def test_cast_rounding_modes_to_half_and_int32():
    x = np.concatenate([RNG.standard_normal(200).astype(np.float32) * 50,
                        np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.0, -3.0], np.float32),
                        (np.arange(48, dtype=np.float32) - 24) / 4 + np.float32(1e-3)]).astype(np.float32)
    out = expect_ok(run("cast_modes", 1, [Arg.input(x), Arg.output("float16", (6, 256)),
                                          Arg.output("int32", (5, 256))]))
    h, lo, hi = _half_neighbours(x)
    exact = h.astype(np.float32) == x
    dl, dh = x - lo.astype(np.float32), hi.astype(np.float32) - x
    away = np.where(x > 0, hi, lo)
    round_half_away = np.where(exact, h, np.where(dl == dh, away, h))
    odd = np.where(exact, h, np.where(lo.view(np.uint16) & 1, lo, hi))
    expect_half = [h, np.where(exact, h, lo), np.where(exact, h, hi), np.where(exact, h, np.where(x > 0, lo, hi)),
                   round_half_away, odd]
    for m, ref in enumerate(expect_half):
        np.testing.assert_array_equal(out[1][m], ref, err_msg=f"half mode {m}")
    expect_int = [np.rint(x), np.floor(x), np.ceil(x), np.trunc(x), np.sign(x) * np.floor(np.abs(x) + 0.5)]
    for m, ref in enumerate(expect_int):
        np.testing.assert_array_equal(out[2][m], ref.astype(np.int32), err_msg=f"int mode {m}")


def test_reduce_max_min_with_index():
    x = RNG.standard_normal(1000).astype(np.float32)
    out = expect_ok(run("reduce_index", 1, [Arg.input(x), Arg.output("float32", 8), Arg.output("float32", 8)]))
    mx, mn = out[1], out[2]
    assert mx[0] == x.max() and mx[1:2].view(np.uint32)[0] == x.argmax()
    assert mn[0] == x.min() and mn[1:2].view(np.uint32)[0] == x.argmin()
