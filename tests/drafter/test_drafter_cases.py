"""One draft for every case: a concrete draft generalized over the cases' dtypes and ranks."""
from __future__ import annotations

from ascendcraft_lab.drafter.cases import generalize
from ascendcraft_lab.dsl.parser import parse

MAP = '''\
@host
def tiling(x: Tensor[f32, ((B, M, N),)]):
    total = B * M * N
    chunk = align_up(cdiv(total, VECTOR_CORES), 8)
    tile = ub_elems(f32, live=2)
    return Launch(cdiv(total, chunk), chunk=chunk, tile=min(tile, chunk))


@kernel
def neg(x: GM[f32, ((B, M, N),)], y: Out[f32, ((B, M, N),)], t: Tiling):
    for part in core_chunk(t.chunk, B * M * N):
        for c in tiles(part, t.tile):
            with copyin:
                xu = load(x[c])
            with compute:
                yu = -xu
            with copyout:
                store(y[c], yu)
'''

ROW_SUM = '''\
@host
def tiling(x: Tensor[f32, (B, M, N)]):
    rows = B * M
    cores = min(VECTOR_CORES, rows)
    per_core = cdiv(rows, cores)
    cores = cdiv(rows, per_core)
    tile_rows = max(ub_elems(f32) // (N + 1), 1)
    return Launch(cores, per_core=per_core, tile_rows=min(tile_rows, per_core))


@kernel
def row_sum(x: GM[f32, ((B, M, N),)], y: Out[f32, OUT], t: Tiling):
    for part in core_chunk(t.per_core, B * M):
        for c in tiles(part, t.tile_rows):
            with copyin:
                xu = load(x[windows(c, N, N)])
            with compute:
                yu = window_sum(xu, N, N)
            with copyout:
                store(y[c], yu)
'''


def sig(dtype, rank, out=None):
    return {"inputs": [dtype], "ranks": [rank], "outputs": [out or dtype]}


def test_cases_of_float_and_integer_dtypes_make_the_kernel_generic_over_all_of_them_float32_first():
    text, notes = generalize(MAP, [sig("int32", 2), sig("float16", 1), sig("float32", 3), sig("bfloat16", 5)])
    program = parse(text, "kernel.dsl.py")
    assert [d.value for d in dict(program.generics)["T"]] == ["f32", "f16", "bf16", "i32"]
    assert "generic over T in (f32, f16, bf16, i32)" in notes


def test_cases_of_one_half_dtype_make_the_draft_traced_in_float32_generic_over_float32_and_that_dtype():
    text, _ = generalize(MAP, [sig("bfloat16", 3), sig("bfloat16", 2)])
    program = parse(text, "kernel.dsl.py")
    assert [d.value for d in dict(program.generics)["T"]] == ["f32", "bf16"]     # f32 first: the variant lowered
    assert {p.name: p.dtype_var for p in program.kernel.params if hasattr(p, "dtype_var")} == {"x": "T", "y": "T"}


def test_a_flattened_view_becomes_one_dim_pack_for_any_rank():
    text, _ = generalize(MAP, [sig("float32", 0), sig("float32", 5)])
    assert "x: GM[f32, (*S,)]" in text and "core_chunk(t.chunk, S)" in text


def test_a_windows_reduction_packs_the_rows_and_keeps_the_reduced_dim():
    text, notes = generalize(ROW_SUM.replace("OUT", "((B, M),)"), [sig("float32", 1), sig("float16", 4)])
    assert "x: GM[T, ((*S, N),)]" in text and "y: Out[T, (*S,)]" in text
    assert "core_chunk(t.per_core, S)" in text and "B * M" not in text
    assert "dims packed: `x: ((*S, N),)`, `y: (*S,)` (any rank)" in notes


def test_a_keepdim_reductions_trailing_one_stays_after_the_pack():
    text, _ = generalize(ROW_SUM.replace("OUT", "((B, M, 1),)"), [sig("float32", 2), sig("float32", 5)])
    assert "y: Out[f32, ((*S, 1),)]" in text


def test_a_bool_that_varies_between_cases_keeps_the_traced_dtypes():
    text, notes = generalize(MAP, [sig("float32", 3), sig("bool", 3, "float32")])
    assert "@kernel\n" in text
    assert any("the draft keeps the traced ones" in n for n in notes)
