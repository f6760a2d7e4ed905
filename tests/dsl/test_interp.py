"""The interpreter: every core, every tile, the kernel's dtypes, and the UB budget at run time."""
from __future__ import annotations

import numpy as np
import pytest

from ascendcraft_lab.dsl import DslError, parse, verify
from ascendcraft_lab.dsl.interp import run
from ascendcraft_lab.dsl.ops import to_bf16

ROWS = """@host
def tiling(x: Tensor[{dt}, (B, N)]):
    cores = min(VECTOR_CORES, B)
    rows = cdiv(B, cores)
    return Launch(cores, rows=rows, tile=min({tile}, N))


@kernel
def k(x: GM[{dt}, (B, N)], y: Out[{odt}, (B, N)], t: Tiling):
    for r in core_rows(t.rows, {total}):
        for c in tiles(N, t.tile):
            with copyin:
                xu = load(x[r, c])
            with compute:
{compute}
            with copyout:
                store(y[r, c], yu)
"""


def rows_kernel(compute: str, dt="f32", odt=None, tile=64, total="B"):
    body = "\n".join(f"                {line}" for line in compute.splitlines())
    return verify(parse(ROWS.format(dt=dt, odt=odt or dt, tile=tile, total=total, compute=body)))


def test_f16_math_stays_in_f16():
    p = rows_kernel("yu = xu * 3.1 + xu * xu", dt="f16")
    x = np.random.default_rng(0).standard_normal((4, 100)).astype(np.float16) * 30
    y = run(p, {"x": x})["y"]
    assert y.dtype == np.float16
    f16 = np.float16
    assert np.array_equal(y, x * f16(3.1) + x * x)
    assert not np.array_equal(y, (x.astype(np.float32) * 3.1 + x.astype(np.float32) ** 2).astype(np.float16))


def test_every_core_runs_its_own_rows():
    p = rows_kernel("yu = xu * 0.0 + r")
    x = np.ones((50, 10), np.float32)
    out = run(p, {"x": x})
    assert out.launch["cores"] == 48 and out.launch["rows"] == 2
    assert np.array_equal(out["y"][:, 0], np.arange(50, dtype=np.float32))
    assert out.unwritten == {"y": 0}


def test_elements_never_stored_are_reported():
    p = rows_kernel("yu = xu * 1.0", total="B - 1")
    out = run(p, {"x": np.ones((5, 70), np.float32)})
    assert out.unwritten == {"y": 70}


def test_last_tile_is_short():
    p = rows_kernel("yu = xu * 0.0 + c.len", tile=64)
    y = run(p, {"x": np.zeros((1, 150), np.float32)})["y"][0]
    assert list(y[[0, 63, 64, 127, 128, 149]]) == [64, 64, 64, 64, 22, 22]


ACC = """@host
def tiling(x: Tensor[f32, (N,)]):
    chunk = align_up(cdiv(N, VECTOR_CORES), 8)
    return Launch(cdiv(N, chunk), chunk=chunk)


@kernel
def total(x: GM[f32, (N,)], s: Out[f32, ()], t: Tiling):
    for part in core_chunk(t.chunk, N):
        with copyin:
            xu = load(x[part])
        with compute:
            v = reduce_sum(xu)
        with copyout:
            store(s, v, accumulate=True)
"""


def test_accumulating_stores_add_the_share_of_every_core_from_zero():
    x = np.random.default_rng(1).random(10_007).astype(np.float32)
    out = run(verify(parse(ACC)), {"x": x})
    assert out.launch["cores"] > 40
    assert out["s"].shape == () and abs(float(out["s"]) - float(x.sum(dtype=np.float64))) < 1e-2


def test_ub_budget_is_enforced_at_run_time_for_sizes_known_only_then():
    text = """@host
def tiling(x: Tensor[f32, (B, N)]):
    return Launch(1)


@kernel
def grow(x: GM[f32, (B, N)], y: Out[f32, (B, N)], t: Tiling):
    for r in range(B):
        with copyin:
            xu = load(x[r, 0:(r + 1) * 6000])
        with compute:
            yu = xu * 2.0
        with copyout:
            store(y[r, 0:(r + 1) * 6000], yu)
"""
    p = verify(parse(text))
    run(p, {"x": np.zeros((1, 60000), np.float32)})                # 6000 floats: fits
    with pytest.raises(DslError) as e:
        run(p, {"x": np.zeros((10, 60000), np.float32)})           # row 2: 4 x 70 KiB does not
    assert e.value.message.startswith("at run time, tile `")
    assert "of UB usable on Ascend910B2" in e.value.message and e.value.line in (10, 12)


def test_runaway_loops_stop_with_a_dsl_error():
    text = """@host
def tiling(x: Tensor[f32, (N,)]):
    return Launch(1)


@kernel
def spin(x: GM[f32, (N,)], y: Out[f32, (N,)], t: Tiling):
    s = 0
    for i in range(N * 1000000000):
        s = s + 1
"""
    p = parse(text)
    with pytest.raises(DslError) as e:
        verify(p)      # y is never stored
    with pytest.raises(DslError) as e:
        stages = ("    with copyin:\n        xu = load(x[:])\n"
                  "    with compute:\n        yu = xu * 1.0\n    with copyout:\n        store(y[:], yu)\n")
        run(verify(parse(text.replace("        s = s + 1\n", "        s = s + 1\n" + stages))),
            {"x": np.zeros(8, np.float32)}, max_iterations=1000)
    assert "loop iterations" in e.value.message     # the budget, not the N * 1e9 iterations, ended it


def test_scan_carries_across_tiles():
    text = ROWS.format(dt="f32", odt="f32", tile=100, total="B",
                       compute="                yu = cumsum(xu, init=carry)\n                carry = last(yu)")
    text = text.replace("        for c in tiles(N, t.tile):", "        carry = 0.0\n        for c in tiles(N, t.tile):")
    p = verify(parse(text))
    x = np.random.default_rng(2).standard_normal((3, 1005)).astype(np.float32)
    y = run(p, {"x": x})["y"]
    np.testing.assert_allclose(y, np.cumsum(x.astype(np.float64), axis=1), rtol=1e-5, atol=1e-4)


def test_overlapping_windows_match_numpy():
    text = """@host
def tiling(x: Tensor[f32, (B, L)], k: i32, s: i32):
    return Launch(1, tile=7)


@kernel
def pool(x: GM[f32, (B, L)], k: i32, s: i32, y: Out[f32, (B, (L - k) // s + 1)], t: Tiling):
    for r in range(B):
        for c in tiles((L - k) // s + 1, t.tile):
            with copyin:
                xu = load(x[r, windows(c, k, s)])
            with compute:
                yu = window_max(xu, k, s)
            with copyout:
                store(y[r, c], yu)
"""
    x = np.random.default_rng(3).standard_normal((2, 101)).astype(np.float32)
    y = run(verify(parse(text)), {"x": x, "k": 5, "s": 2})["y"]
    want = np.stack([[row[i * 2:i * 2 + 5].max() for i in range((101 - 5) // 2 + 1)] for row in x])
    assert np.array_equal(y, want)


def test_bf16_inputs_are_rounded_and_cast_to_f32():
    p = rows_kernel("yu = cast(xu, f32) * 2.0", dt="bf16", odt="f32")
    x = np.array([[1.0 + 2 ** -10, 3.14159]], np.float32)
    y = run(p, {"x": x})["y"]
    assert np.array_equal(y, to_bf16(x) * 2)


def test_integer_index_math_on_grouped_views():
    text = """@host
def tiling(x: Tensor[f32, (B, M, N)]):
    return Launch(1)


@kernel
def rows(x: GM[f32, ((B, M), N)], y: Out[f32, (B, M, N)], t: Tiling):
    for r in range(B * M):
        with copyin:
            xu = load(x[r, :])
        with compute:
            yu = xu + r // M * 100 + r % M
        with copyout:
            store(y[r // M, r % M, :], yu)
"""
    x = np.zeros((2, 3, 4), np.float32)
    y = run(verify(parse(text)), {"x": x})["y"]
    assert np.array_equal(y[:, :, 0], [[0, 1, 2], [100, 101, 102]])


def test_inputs_are_taken_in_the_declared_dtype():
    p = rows_kernel("yu = xu * 2.0")
    y = run(p, {"x": np.ones((2, 3), np.float64)})["y"]
    assert y.dtype == np.float32 and np.all(y == 2)


def test_gm_accesses_are_bounds_checked():
    p = rows_kernel("yu = xu * 1.0", total="B + 1", tile=64)
    with pytest.raises(DslError) as e:
        run(p, {"x": np.ones((49, 5), np.float32)})   # 48 cores x 2 rows: the last core reaches row 49
    assert "index 49 is outside axis 0 of `x` (size 49)" in e.value.message


WINDOW_ROWS = """@host
def tiling(x: Tensor[f32, (B, H, W)]):
    cores, per_core = core_split(B)
    return Launch(cores, rows=per_core)


@kernel
def k(x: GM[f32, (B, H, W)], y: Out[f32, (B, W)], t: Tiling):
    for r in core_rows(t.rows, B):
        j0 = max(0, 1 - r)
        j1 = {hi}
        with copyin:
            xw = load(x[r, j0:j1:{step}, :])
        with compute:
            yu = reduce_{kind}(xw, axis=0)
        with copyout:
            store(y[r, :], yu)
"""


@pytest.mark.parametrize("kind, step", [("sum", 1), ("max", 2), ("min", 3), ("prod", 1)])
def test_a_stepped_slice_of_rows_folds_like_numpy(kind, step):
    p = verify(parse(WINDOW_ROWS.format(hi="H", step=step, kind=kind)))
    x = np.random.default_rng(3).standard_normal((5, 7, 11)).astype(np.float32)
    y = run(p, {"x": x})["y"]
    want = np.stack([getattr(x[r, max(0, 1 - r):7:step], kind)(axis=0) for r in range(5)])
    np.testing.assert_allclose(y, want, rtol=1e-6)
    # the tile's rows are bounded through the scalars' definitions: (min(H, H) - 0 + step - 1) // step
    xw = next(b for b in p.plan.buffers if b.name == "xw")
    assert all(c is not None for c in xw.capacities)


def test_a_stepped_slice_is_bounds_checked_on_the_rows_it_reads():
    # hi = H + 1 is past the axis; only the rows read count: row 0 reads rows 1, 3, 5, 7 (7 is outside),
    # row 1 would read 0, 2, 4, 6 (inside)
    p = verify(parse(WINDOW_ROWS.format(hi="H + 1", step=2, kind="max")))
    with pytest.raises(DslError) as e:
        run(p, {"x": np.ones((2, 7, 4), np.float32)})
    assert "slice with step 2: rows [1, 8) is outside axis 1" in e.value.message, e.value.message
    # one row of 8: it reads rows 1, 3, 5, 7 though the slice ends at 9
    assert run(p, {"x": np.ones((1, 8, 4), np.float32)})["y"].shape == (1, 4)


def test_a_store_of_the_wrong_length_is_a_dsl_error():
    text = ROWS.format(dt="f32", odt="f32", tile=8, total="B", compute="                yu = xu * 1.0")
    text = text.replace("store(y[r, c], yu)", "store(y[r, 0:8], yu)")
    with pytest.raises(DslError):
        run(verify(parse(text)), {"x": np.ones((1, 12), np.float32)})


def test_a_cast_to_the_same_float_type_rounds_to_whole_numbers_by_its_mode():
    """The Cast page: float -> float rounds src by round_mode (0.5: rint 0, floor 0, ceil 1, round 1, trunc 0)."""
    x = np.array([[0.5, -0.5, 1.5, -2.5, 2.7]], np.float32)
    expected = {"rint": [0, -0, 2, -2, 3], "floor": [0, -1, 1, -3, 2], "ceil": [1, -0, 2, -2, 3],
                "round": [1, -1, 2, -3, 3], "trunc": [0, -0, 1, -2, 2], "none": [0.5, -0.5, 1.5, -2.5, 2.7]}
    for mode, want in expected.items():
        y = run(rows_kernel(f'yu = cast(xu, f32, round="{mode}")'), {"x": x})["y"]
        assert np.array_equal(y, np.array([want], np.float32)), mode


def test_rint_floor_ceil_trunc_are_the_rounding_ops():
    x = np.array([[0.5, 1.5, -0.5, -1.7]], np.float32)
    y = run(rows_kernel("yu = rint(xu) + 10.0 * floor(xu) + 100.0 * ceil(xu) + 1000.0 * trunc(xu)"), {"x": x})["y"]
    assert np.array_equal(y, np.rint(x) + 10 * np.floor(x) + 100 * np.ceil(x) + 1000 * np.trunc(x))


def test_a_tile_power_means_what_the_vector_unit_computes():
    """x ** k for a literal whole k in 1..8 is k - 1 multiplications (any sign of x); any other power is
    exp(k ln x) on the vector unit (Ln, Muls, Exp), nan for x < 0 even where k is whole. The interpreter
    means the same, so a draft the lowering gets wrong fails on the interpreter too (PyTorch's (-2) ** 9
    is -512)."""
    x = np.array([[-2.0, 0.5, 3.0]], np.float32)
    small = run(rows_kernel("yu = xu ** 3"), {"x": x})["y"]
    assert np.allclose(small, x ** 3)
    large = run(rows_kernel("yu = xu ** 9"), {"x": x})["y"]
    assert np.isnan(large[0, 0]) and np.allclose(large[0, 1:], x[0, 1:] ** 9, rtol=1e-5)
    half = run(rows_kernel("yu = xu ** 2.5"), {"x": x})["y"]
    assert np.isnan(half[0, 0]) and np.allclose(half[0, 1:], x[0, 1:] ** 2.5, rtol=1e-5)
