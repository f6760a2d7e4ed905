"""The host's named decisions: `cores, per_core = core_split(B)` and tiles the compiler fits to the
UB plan (`fit_tile(dtype)`, `fit_rows(dtype, cols)`); the hand-counted spelling keeps working."""
from __future__ import annotations

import pytest

from ascendcraft_lab.dsl import parse, verify
from ascendcraft_lab.dsl.buffers import check_budget
from ascendcraft_lab.dsl.host import evaluate_host
from ascendcraft_lab.dsl.printer import expr_text
from ascendcraft_lab.engines.rule import render
from ascendcraft_lab.passes.plan import plan_for
from ascendcraft_lab.passes.spec import LowerOptions
from ascendcraft_lab.soc import get_soc

KERNEL = '''
@kernel
def gelu(x: GM[f32, (B, N)], y: Out[f32, (B, N)], t: Tiling):
    for r in core_rows(t.rows, B):
        for c in tiles(N, t.tile):
            with copyin:
                xu = load(x[r, c])
            with compute:
                inner = (xu + 0.044715 * xu * xu * xu) * 0.7978845608028654
                yu = 0.5 * xu * (1.0 + tanh(inner))
            with copyout:
                store(y[r, c], yu)
'''

HAND = '''
@host
def tiling(x: Tensor[f32, (B, N)]):
    cores = min(VECTOR_CORES, B)
    rows = cdiv(B, cores)
    cores = cdiv(B, rows)
    tile = ub_elems(f32, live=3)       # xu, yu double-buffered, inner, one scratch slot: 6 copies
    return Launch(cores, rows=rows, tile=min(tile, N))
''' + KERNEL

NAMED = '''
@host
def tiling(x: Tensor[f32, (B, N)]):
    cores, rows = core_split(B)
    tile = fit_tile(f32)
    return Launch(cores, rows=rows, tile=min(tile, N))
''' + KERNEL


@pytest.mark.parametrize("B", [1, 7, 48, 49, 1000])
def test_core_split_launches_as_the_three_line_split(B):
    hand, named = verify(parse(HAND, "hand.dsl.py")), verify(parse(NAMED, "named.dsl.py"))
    want = evaluate_host(hand, {"x": (B, 4096)})
    got = evaluate_host(named, {"x": (B, 4096)})
    assert (got["cores"], got["rows"]) == (want["cores"], want["rows"])
    assert got["cores"] * got["rows"] >= B > (got["cores"] - 1) * got["rows"]      # no idle core


def test_fit_tile_counts_the_copies_the_author_counted_by_hand():
    named = verify(parse(NAMED, "named.dsl.py"))
    tile = next(st for st in named.host.body if st.target == "tile")
    assert expr_text(tile.value) == "ub_elems(f32, live=6, buffers=1)"
    assert "xu x2, inner, yu x2, scratch" in named.host.fits[0][1]
    for soc in ("Ascend910B2", "Ascend310P"):
        hand = evaluate_host(verify(parse(HAND, "hand.dsl.py")), {"x": (8, 1 << 20)}, soc=soc)
        assert evaluate_host(named, {"x": (8, 1 << 20)}, soc=soc)["tile"] == hand["tile"]


def test_fit_tile_grows_with_the_plan_when_a_tile_is_added():
    more = NAMED.replace("yu = 0.5 * xu * (1.0 + tanh(inner))",
                         "zu = xu * 2.0\n                yu = 0.5 * zu * (1.0 + tanh(inner))")
    typed = verify(parse(more, "more.dsl.py"))
    assert "live=7" in expr_text(next(st for st in typed.host.body if st.target == "tile").value)


def test_the_fitted_tile_fits_the_ub_and_nearly_fills_it():
    typed = verify(parse(NAMED, "named.dsl.py"))
    soc = get_soc("Ascend910B2")
    launch = evaluate_host(typed, {"x": (4, 1 << 20)}, soc=soc)
    env = {"B": 4, "N": 1 << 20, **{f"t.{k}": v for k, v in launch.items()}}
    used = check_budget(typed, env, soc).total()
    assert soc.ub_usable - 6 * 256 * 4 < used + soc.ub_headroom + 1024 <= soc.ub_usable


ROWS = '''
@host
def tiling(x: Tensor[f32, (B, N)]):
    cores, per_core = core_split(B)
    cols = min(align_up(N, 8), 2040)
    tile_rows = fit_rows(f32, cols)
    return Launch(cores, per_core=per_core, cols=cols, tile_rows=min(tile_rows, per_core))


@kernel
def bias_add(x: GM[f32, (B, N)], b: GM[f32, (N,)], y: Out[f32, (B, N)], t: Tiling):
    for part in core_chunk(t.per_core, B):
        for k in tiles(N, t.cols):
            with copyin:
                bu = load(b[k])
            for c in tiles(part, t.tile_rows):
                with copyin:
                    xu = load(x[c, k])
                with compute:
                    yu = xu + bu
                with copyout:
                    store(y[c, k], yu)
'''


@pytest.mark.parametrize("N", [8, 100, 2040, 5000])
def test_fit_rows_counts_row_copies_and_the_bias_row_and_fits(N):
    typed = verify(parse(ROWS, "rows.dsl.py"))
    rows = next(st for st in typed.host.body if st.target == "tile_rows")
    assert expr_text(rows.value) == "max(ub_elems(f32, live=5, buffers=1) // cols, 1)"      # cols: whole blocks
    verify(typed, shapes={"x": (4096, N), "b": (N,)})      # the budget check holds


def test_the_tiling_cpp_says_what_the_compiler_counted():
    typed = verify(parse(NAMED, "named.dsl.py"))
    bundle = render(typed, LowerOptions(), 4)
    cpp = bundle.files[plan_for(typed, LowerOptions()).tiling_impl_path]
    assert "auto rows = CeilDiv(B, std::min<int64_t>(VECTOR_CORES, B));" in cpp
    assert "auto cores = CeilDiv(B, rows);" in cpp
    line = next(x for x in cpp.splitlines() if "UbElems(" in x and "auto tile" in x)
    assert "fit_tile: 6 tile-sized UB copies counted from the plan (xu x2, inner, yu x2, scratch)" in line


def test_fit_rows_pads_a_column_count_that_may_not_be_whole_blocks():
    typed = verify(parse(ROWS.replace("cols = min(align_up(N, 8), 2040)", "cols = min(N, 2040)"), "rows.dsl.py"))
    rows = next(st for st in typed.host.body if st.target == "tile_rows")
    assert expr_text(rows.value) == "max(ub_elems(f32, live=5, buffers=1) // align_up(cols, 8), 1)"
