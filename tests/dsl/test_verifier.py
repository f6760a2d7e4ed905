"""The verifier: types, shapes, stage rules, the UB plan, and the launch against the SoC table."""
from __future__ import annotations

import pytest

from ascendcraft_lab.dsl import DslError, evaluate_host, parse, ub_buffers, verify
from ascendcraft_lab.dsl.host import ub_elems
from ascendcraft_lab.dsl.ir import (Call, DType, Level, MetaType, ScalarType, StageKind, TileType, TilingType,
                                    walk_exprs, walk_stmts, Assign, Load, Store)
from ascendcraft_lab.examples import EXAMPLES, get_example
from ascendcraft_lab.soc import SOCS, get_soc

HEAD = "@host\ndef tiling(x: Tensor[{dt}, (B, N)]):\n    return Launch(B, tile=N)\n\n\n"


def program(body: str, dt: str = "f32", params: str | None = None):
    params = params or f"x: GM[{dt}, (B, N)], y: Out[{dt}, (B, N)], t: Tiling"
    return parse(HEAD.format(dt=dt) + f"@kernel\ndef k({params}):\n" + body)


ROW = ("    for r in core_rows(1, B):\n        with copyin:\n            xu = load(x[r, :])\n"
       "        with compute:\n{compute}        with copyout:\n            store(y[r, :], yu)\n")


def row_kernel(compute: str, dt: str = "f32"):
    return program(ROW.format(compute="".join(f"            {line}\n" for line in compute.splitlines())), dt)


def typed_assign(p, name):
    for st, _ in walk_stmts(p.kernel.body):
        if isinstance(st, Assign) and st.target == name:
            return st
    raise KeyError(name)


@pytest.mark.parametrize("ex", EXAMPLES, ids=lambda e: e.name)
def test_after_verification_every_expression_has_a_type(ex):
    p = verify(parse(ex.dsl.read_text()))
    assert p.verified
    for st, _ in walk_stmts(p.kernel.body):
        for e in walk_exprs(st.value) if isinstance(st, Assign) else ():
            assert e.type is not None, e
    assert all(t is not None for _, t in p.kernel.locals)


def test_tiles_are_in_ub_and_scalars_on_the_scalar_unit():
    p = verify(parse(get_example("softmax").dsl.read_text()))
    assert p.local_type("xu") == TileType(DType.f32, p.local_type("xu").shape)
    assert p.local_type("xu").level is Level.UB
    assert p.local_type("m") == ScalarType(DType.f32) and p.local_type("m").level is Level.SCALAR
    assert isinstance(p.tiling_param and dict(p.kernel.locals).get("m"), ScalarType)


def test_a_literal_adopts_the_tile_dtype():
    p = verify(row_kernel("yu = 0.5 * xu + 1", dt="f16"))
    assert typed_assign(p, "yu").value.type.dtype is DType.f16


def test_a_scalar_variable_takes_a_definite_dtype():
    p = verify(program("    s = 0.0\n    n = 3\n    v = n / 2\n", params="x: GM[f32, (B, N)]"))
    assert p.local_type("s") == ScalarType(DType.f32)
    assert p.local_type("n") == ScalarType(DType.i32)
    assert p.local_type("v") == ScalarType(DType.f32)     # `/` of ints is a float


def test_reductions_give_scalars_of_the_tile_dtype():
    p = verify(row_kernel("s = reduce_sum(xu)\ni = argmax(xu)\nyu = xu - s", dt="f16"))
    assert p.local_type("s") == ScalarType(DType.f16)
    assert p.local_type("i") == ScalarType(DType.i32)


def test_comparisons_make_bool_masks_for_where():
    p = verify(row_kernel("yu = where(xu > 0.0, xu, 0.0)"))
    mask = typed_assign(p, "yu").value.args[0]
    assert mask.type.dtype is DType.bool and isinstance(mask.type, TileType)


def test_cast_changes_the_dtype_and_keeps_the_shape():
    p = verify(program("    for r in core_rows(1, B):\n        with copyin:\n            xu = load(x[r, :])\n"
                       "        with compute:\n            yu = cast(xu, f32)\n        with copyout:\n"
                       "            store(y[r, :], yu)\n", dt="f16", params="x: GM[f16, (B, N)], y: Out[f32, (B, N)]"))
    yu, xu = p.local_type("yu"), p.local_type("xu")
    assert yu.dtype is DType.f32 and xu.dtype is DType.f16 and yu.shape == xu.shape


def test_window_of_a_windows_load_has_the_range_length():
    p = verify(parse(get_example("avg_pool1d").dsl.read_text()))
    from ascendcraft_lab.dsl.printer import expr_text
    assert [expr_text(d) for d in p.local_type("xu").shape] == ["(c.len - 1) * s + k"]
    assert [expr_text(d) for d in p.local_type("yu").shape] == ["c.len"]


def test_ub_plan_names_each_buffer_its_queue_role_and_stages():
    plan = ub_buffers(verify(parse(get_example("gelu").dsl.read_text())))
    roles = {b.name: (b.role, b.defined_in, set(b.used_in), b.nbuf) for b in plan.buffers}
    assert roles == {
        "xu": ("VECIN", StageKind.copyin, {StageKind.compute}, 2),
        "inner": ("VECCALC", StageKind.compute, {StageKind.compute}, 1),
        "yu": ("VECOUT", StageKind.compute, {StageKind.copyout}, 2),
    }
    assert plan.scratch_tiles == 1     # (1.0 + tanh(inner)) while 0.5 * xu is held


def test_ub_plan_reuses_one_buffer_for_a_name_in_several_loops():
    plan = ub_buffers(verify(parse(get_example("softmax").dsl.read_text())))
    xu = plan.buffer("xu")
    assert xu.role == "VECIN" and len(xu.capacities) == 3
    assert plan.scratch_tiles == 2      # exp result + ReduceSum work tensor


def test_evaluate_host_gives_the_launch_fields():
    p = verify(parse(get_example("gelu").dsl.read_text()))
    tile = ub_elems(get_soc(), DType.f32, live=3)        # 6 tile-sized buffers in the UB for tiles
    assert evaluate_host(p, {"x": (16, 16384)}) == {"cores": 16, "rows": 1, "tile": tile}
    assert 7000 < tile < 16384 / 2
    assert evaluate_host(p, {"x": (50, 1003)}, soc="Ascend910B3") == {"cores": 25, "rows": 2, "tile": 1003}


def test_host_reads_only_the_soc_table():
    p = verify(parse(get_example("sgd").dsl.read_text()))
    for soc in SOCS.values():
        launch = evaluate_host(p, {"p": (1 << 20,)}, {"lr": 0.1, "momentum": 0.9}, soc)
        assert launch["cores"] <= soc.vector_cores
        assert launch["tile"] == min(ub_elems(soc, DType.f32, 5), launch["chunk"])


@pytest.mark.parametrize("soc", list(SOCS.values()), ids=lambda s: s.name)
@pytest.mark.parametrize("dtype", [DType.f32, DType.f16, DType.i8])
def test_ub_elems_is_the_largest_fitting_whole_number_of_vector_repeats(soc, dtype):
    per_repeat = soc.repeat_bytes // dtype.nbytes     # whole repeats are whole 32-byte blocks too
    for live in (1, 3, 7):
        n = ub_elems(soc, dtype, live, 2)
        assert n % per_repeat == 0 and n * dtype.nbytes % 32 == 0
        assert live * 2 * n * dtype.nbytes <= soc.ub_for_tiles < live * 2 * (n + per_repeat) * dtype.nbytes


def test_budget_is_checked_against_the_chosen_soc():
    p = parse(get_example("gelu").dsl.read_text())
    verify(p, "Ascend910B2", shapes={"x": (16, 16384)})
    verify(p, "Ascend310P", shapes={"x": (16, 16384)})     # larger UB, larger tiles: still fits


def test_kernel_reads_tiling_fields_with_their_host_types():
    p = verify(parse(get_example("adam").dsl.read_text()))
    reads = {e.attr: e for st, _ in walk_stmts(p.kernel.body) if isinstance(st, Assign)
             for e in walk_exprs(st.value) if getattr(e, "attr", None) in ("bc2_sqrt", "step_size")}
    assert reads["bc2_sqrt"].type == ScalarType(DType.f32)       # a float host value
    assert isinstance(reads["bc2_sqrt"].obj.type, TilingType)
    fields = dict(reads["step_size"].obj.type.fields)
    assert fields["chunk"] == ScalarType(DType.i32) and fields["cores"] == ScalarType(DType.i32)


def test_l1_tiles_cannot_feed_vector_operations():
    p = program("    for r in core_rows(1, B):\n        with copyin:\n            a = load(x[r:r + 1, :], L1)\n"
                "        with compute:\n            yu = a * 2.0\n"
                "        with copyout:\n            store(y[r, :], yu)\n")
    with pytest.raises(DslError) as e:
        verify(p)
    assert "vector operations work on UB tiles" in e.value.message


def test_the_typed_program_compares_equal_to_the_parsed_one():
    p = parse(get_example("layer_norm").dsl.read_text())
    assert verify(p) == p     # types live beside the tree, not in its equality


def test_dtype_names_are_meta_typed_arguments():
    p = verify(program("    for r in core_rows(1, B):\n        with copyin:\n            xu = load(x[r, :])\n"
                       "        with compute:\n            yu = cast(xu, f16)\n        with copyout:\n"
                       "            store(y[r, :], yu)\n", params="x: GM[f32, (B, N)], y: Out[f16, (B, N)]"))
    cast = typed_assign(p, "yu").value
    assert isinstance(cast, Call) and cast.args[1].type == MetaType("dtype")


def test_loads_and_stores_are_typed_with_the_tensor():
    p = verify(parse(get_example("gelu").dsl.read_text()))
    kinds = [type(st).__name__ for st, _ in walk_stmts(p.kernel.body) if isinstance(st, (Load, Store))]
    assert kinds == ["Load", "Store"]
    assert get_soc().ub_for_tiles == 188160 - 1024
