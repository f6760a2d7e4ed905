"""The cube in the DSL: GM -> L1 -> L0A / L0B -> mmad -> L0C -> GM, its meaning on the interpreter
and its plan (buffers at every cube level, in whole fractals)."""
from __future__ import annotations

import numpy as np
import pytest

from ascendcraft_lab.dsl import DslError, parse, verify
from ascendcraft_lab.dsl.buffers import ub_buffers
from ascendcraft_lab.dsl.interp import run
from ascendcraft_lab.dsl.ir import Level
from ascendcraft_lab.dsl.printer import print_program
from ascendcraft_lab.dsl.ops import to_bf16
from ascendcraft_lab.soc import get_soc

RNG = np.random.default_rng(7)


def matmul_text(dtype="f32", ta=False, tb=False, out="f32", base=(64, 64, 32)) -> str:
    """C = op(A) @ op(B) over this core's blocks, K in slices (A [K, M] when ta, B [N, K] when tb)."""
    a_shape = "(K, M)" if ta else "(M, K)"
    b_shape = "(N, K)" if tb else "(K, N)"
    a_ix = "ki, mi" if ta else "mi, ki"
    b_ix = "ni, ki" if tb else "ki, ni"
    return f"""@host
def tiling(a: Tensor[{dtype}, {a_shape}], b: Tensor[{dtype}, {b_shape}]):
    blocks = cdiv(M, {base[0]}) * cdiv(N, {base[1]})
    return Launch(min(CUBE_CORES, blocks), base_m={base[0]}, base_n={base[1]}, base_k={base[2]})


@kernel
def mm(a: GM[{dtype}, {a_shape}], b: GM[{dtype}, {b_shape}], c: Out[{out}, (M, N)], t: Tiling):
    for mi, ni in core_tiles((M, N), (t.base_m, t.base_n)):
        acc = zeros(mi.len, ni.len, L0C)
        for ki in tiles(K, t.base_k):
            with copyin:
                a1 = load(a[{a_ix}], L1)
                b1 = load(b[{b_ix}], L1)
            with split:
                a0 = load(a1, L0A{", transpose=True" if ta else ""})
                b0 = load(b1, L0B{", transpose=True" if tb else ""})
            with compute:
                acc = mmad(a0, b0, acc)
        with copyout:
            store(c[mi, ni], acc)
"""


def values(shape, dtype):
    x = RNG.standard_normal(shape).astype(np.float32)
    return x.astype(np.float16) if dtype == "f16" else to_bf16(x) if dtype == "bf16" else x


def test_a_cube_kernel_prints_to_a_fixed_point():
    text = print_program(parse(matmul_text(ta=True, tb=True)))
    assert print_program(parse(text)) == text
    assert "for mi, ni in core_tiles((M, N), (t.base_m, t.base_n)):" in text
    assert "a0 = load(a1, L0A, transpose=True)" in text and "acc = mmad(a0, b0, acc)" in text


@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_the_interpreter_multiplies_in_f32_whatever_the_layout(dtype, ta, tb):
    m, n, k = 100, 70, 90           # no axis a multiple of its base tile: short last blocks and K slices
    a = values((k, m) if ta else (m, k), dtype)
    b = values((n, k) if tb else (k, n), dtype)
    out = run(verify(parse(matmul_text(dtype, ta, tb))), {"a": a, "b": b})
    fa, fb = a.astype(np.float64), b.astype(np.float64)
    ref = (fa.T if ta else fa) @ (fb.T if tb else fb)
    np.testing.assert_allclose(out["c"], ref, rtol=1e-5, atol=1e-5)
    assert out.unwritten == {"c": 0}


def test_core_tiles_hands_every_block_to_exactly_one_core_round_robin():
    text = matmul_text(base=(16, 16, 16)).replace("min(CUBE_CORES, blocks)", "3")
    a, b = values((40, 8), "f32"), values((8, 50), "f32")     # 3 x 4 blocks over 3 cores
    out = run(verify(parse(text)), {"a": a, "b": b})
    np.testing.assert_allclose(out["c"], a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)
    assert out.launch["cores"] == 3 and out.unwritten == {"c": 0}


def test_batched_blocks_walk_a_three_axis_grid():
    text = """@host
def tiling(a: Tensor[f32, (B, M, K)], b: Tensor[f32, (B, K, N)]):
    return Launch(min(CUBE_CORES, B * cdiv(M, 32) * cdiv(N, 32)), base_m=32, base_n=32)


@kernel
def bmm(a: GM[f32, (B, M, K)], b: GM[f32, (B, K, N)], c: Out[f32, (B, M, N)], t: Tiling):
    for bi, mi, ni in core_tiles((B, M, N), (1, t.base_m, t.base_n)):
        with copyin:
            a1 = load(a[bi.start, mi, :], L1)
            b1 = load(b[bi.start, :, ni], L1)
        with split:
            a0 = load(a1, L0A)
            b0 = load(b1, L0B)
        with compute:
            acc = mmad(a0, b0)
        with copyout:
            store(c[bi.start, mi, ni], acc)
"""
    a, b = values((3, 40, 24), "f32"), values((3, 24, 50), "f32")
    out = run(verify(parse(text)), {"a": a, "b": b})
    np.testing.assert_allclose(out["c"], a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)


def test_fixpipe_stores_the_f32_accumulator_as_f16():
    a, b = values((48, 64), "f16"), values((64, 40), "f16")
    out = run(verify(parse(matmul_text("f16", out="f16"))), {"a": a, "b": b})
    assert out["c"].dtype == np.float16
    ref = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32).astype(np.float16)
    np.testing.assert_array_equal(out["c"], ref)


def test_the_plan_counts_each_cube_level_in_whole_fractals():
    plan = ub_buffers(verify(parse(matmul_text("f32", base=(128, 128, 64)))))
    roles = {b.name: (b.role, b.level, b.nbuf) for b in plan.buffers}
    assert roles == {"a1": ("A1", Level.L1, 2), "b1": ("B1", Level.L1, 2), "a0": ("A2", Level.L0A, 2),
                     "b0": ("B2", Level.L0B, 2), "acc": ("CO1", Level.L0C, 1)}
    use = plan.usage({"M": 1000, "N": 1000, "K": 1000, "t.base_m": 128, "t.base_n": 128, "t.base_k": 64}, get_soc())
    assert use.total(Level.L0A) == 2 * 128 * 64 * 4 == 64 * 1024       # L0A full: the base tile the SoC allows
    assert use.total(Level.L0C) == 128 * 128 * 4
    assert use.total(Level.UB) == 0


def test_short_tiles_take_whole_fractals_at_every_level():
    # f32 B [K, N] is transposed by LoadDataWithTranspose in 16 x 16 squares: its K rounds up to 16
    plan = ub_buffers(verify(parse(matmul_text("f32", base=(16, 16, 8)))))
    use = plan.usage({"M": 5, "N": 5, "K": 5, "t.base_m": 16, "t.base_n": 16, "t.base_k": 8}, get_soc())
    nbytes = {b.name: n for b, _, n in use.items}
    assert nbytes == {"a1": 16 * 8 * 4, "a0": 512, "b1": 16 * 16 * 4, "b0": 16 * 16 * 4, "acc": 16 * 16 * 4}


def test_an_l0b_overflow_names_the_tile_and_the_sizes():
    text = matmul_text("f16", base=(128, 512, 64))
    with pytest.raises(DslError) as e:
        verify(parse(text, "mm.dsl.py"), shapes={"a": (1024, 1024), "b": (1024, 1024)})
    msg = e.value.message
    assert "tile `b0`" in msg and "128 KiB" in msg and "over the 64 KiB of L0B" in msg
    assert text.splitlines()[e.value.line - 1].strip() == "b0 = load(b1, L0B)" and "base_k or base_n" in e.value.help


def test_int8_products_accumulate_in_i32():
    text = matmul_text("i8", tb=True, base=(32, 32, 64)).replace("acc = zeros(mi.len, ni.len, L0C)",
                                                                "acc = zeros(mi.len, ni.len, L0C, dtype=i32)")
    text = text.replace("c: Out[f32, (M, N)]", "c: Out[i32, (M, N)]")
    a = RNG.integers(-128, 128, (40, 96)).astype(np.int8)
    b = RNG.integers(-128, 128, (50, 96)).astype(np.int8)          # B as [N, K]: i8 fractals move as they are
    out = run(verify(parse(text)), {"a": a, "b": b})
    np.testing.assert_array_equal(out["c"], a.astype(np.int32) @ b.T.astype(np.int32))


def test_an_i8_b_moved_as_k_by_n_is_refused_saying_to_give_it_as_n_by_k():
    with pytest.raises(DslError) as e:
        verify(parse(matmul_text("i8", base=(32, 32, 64), out="i32")))
    assert e.value.rule == "cube.i8-layout" and "transpose=True" in e.value.help


def test_an_i8_sum_in_an_f32_accumulator_is_refused():
    with pytest.raises(DslError) as e:
        verify(parse(matmul_text("i8", tb=True, base=(32, 32, 64), out="i32")))
    assert "i8 products accumulate in i32" in e.value.message and "dtype=i32" in e.value.help
