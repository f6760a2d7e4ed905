"""Kernels written the way production serving stacks and agents write AscendC (vllm-ascend,
sgl-kernel-npu, agent outputs): each compiles and runs on the emulator unchanged. The kernels
under kernels/prod/ are our own, in those styles (never the public files)."""
from __future__ import annotations

import numpy as np
import pytest

from ascendcraft_lab.backends.emulator import runner
from ascendcraft_lab.backends.emulator.runner import Arg, pack_tiling

import emulator_helpers

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy


def run(name: str, block_dim: int, args, **kw) -> runner.Report:
    """Runs kernels/prod/NAME.cpp (entry and arity from its header line)."""
    return emulator_helpers.run(f"prod/{name}", block_dim, args, **kw)


def ok(report: runner.Report):
    assert report.status == "ok", report.summary()
    return report.outputs


def test_datacopypad_takes_brace_initialised_and_older_parameter_structs():
    rows, cols = 6, 37  # 148-B rows: not whole 32-B blocks
    x = np.random.default_rng(0).standard_normal((rows, cols)).astype(np.float32)
    tiling = pack_tiling([("uint32", rows), ("uint32", cols), ("float32", 1.5)])
    out = ok(run("pad_brace_init", 2, [Arg.input(x), Arg.output("float32", (rows, cols)), Arg.workspace(0),
                                       Arg.tiling(tiling)]))
    np.testing.assert_array_equal(out[1], x * np.float32(1.5))


def test_default_c0_size_aligns_rows_for_a_reduction():
    rows, cols = 5, 45  # padded to 48 floats (C0 = 32 B = 8 floats)
    x = np.random.default_rng(1).standard_normal((rows, cols)).astype(np.float32)
    out = ok(run("c0_aligned_rowsum", 3, [Arg.input(x), Arg.output("float32", rows), Arg.workspace(0),
                                          Arg.tiling(pack_tiling([("uint32", rows), ("uint32", cols)]))]))
    np.testing.assert_allclose(out[1], x.sum(axis=1), rtol=1e-5, atol=1e-5)


def test_cross_core_wait_with_its_pipe_defaulted_synchronises_all_vector_cores():
    blocks, slice_ = 4, 64
    x = np.arange(blocks * slice_, dtype=np.float32)
    out = ok(run("cross_core_default_pipe", blocks, [Arg.input(x), Arg.output("float32", x.size),
                                                     Arg.workspace(x.nbytes),
                                                     Arg.tiling(pack_tiling([("uint32", slice_)]))]))
    np.testing.assert_array_equal(out[1], np.roll(x, -slice_))


def test_cross_core_set_flag_still_needs_both_template_arguments(tmp_path):
    src = tmp_path / "k.cpp"  # the set's parameters have no defaults (API page)
    src.write_text('#include "kernel_operator.h"\n'
                   'extern "C" __global__ __aicore__ void k(GM_ADDR x) { (void)x; AscendC::CrossCoreSetFlag<0>(1); }\n')
    result = runner.compile_sources([src])
    assert not result.ok and "CrossCoreSetFlag" in result.stderr


def test_toolchain_names_at_global_scope_min_max_block_index_and_pad_tiling():
    rows, cols, per = 7, 13, 2  # 4 cores, the last with one row
    x = np.random.default_rng(2).standard_normal((rows, cols)).astype(np.float32)
    # the PadTiling fields as PadTilingFunc fills them (acemu/adv_tiling.h): height, width, valid width, type size, tmp
    tiling = pack_tiling([("uint32", rows), ("uint32", cols), ("uint32", per), ("int32", 7),
                          ("uint32", per), ("uint32", cols), ("uint32", cols), ("uint32", 4), ("uint32", 0)])
    out = ok(run("global_names", 4, [Arg.input(x), Arg.output("float32", (rows, 16)), Arg.workspace(0),
                                     Arg.tiling(tiling)]))
    np.testing.assert_array_equal(out[1][:, :cols], x)
    np.testing.assert_array_equal(out[1][:, cols:], np.float32(7))


def test_matmul_configurations_are_global_as_the_toolchain_gives_them(tmp_path):
    src = tmp_path / "k.cpp"  # no `using namespace AscendC`: CFG_MDL / CFG_NORM without a namespace
    src.write_text('#include "kernel_operator.h"\n#include "lib/matmul_intf.h"\n'
                   'using A = matmul::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, half>;\n'
                   'using C = matmul::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, float>;\n'
                   'matmul::Matmul<A, A, C, C, CFG_MDL> mdl;\nmatmul::Matmul<A, A, C, C, CFG_NORM> norm;\n')
    result = runner.compile_sources([src])
    assert result.ok, result.stderr


def test_unqualified_calls_with_explicit_template_arguments_find_the_api():
    rows, cols = 3, 128
    x = np.random.default_rng(3).standard_normal((rows, cols)).astype(np.float32)
    out = ok(run("unqualified_reduce", 2, [Arg.input(x), Arg.output("float32", (rows, cols)), Arg.workspace(0),
                                           Arg.tiling(pack_tiling([("uint32", rows), ("uint32", cols)]))]))
    shift = x.sum(axis=1, keepdims=True) / cols - x.max(axis=1, keepdims=True)
    np.testing.assert_allclose(out[1], x + shift, rtol=1e-5, atol=1e-5)


def test_a_kernels_own_global_names_do_not_collide_with_the_anchors(tmp_path):
    src = tmp_path / "k.cpp"  # its own Max / Add at global scope: a function, a function template
    src.write_text('#include "kernel_operator.h"\nusing namespace AscendC;\n'
                   '__aicore__ inline float Max(float a, float b) { return a < b ? b : a; }\n'
                   'template <typename T> __aicore__ inline T Add(T a, T b) { return a + b; }\n'
                   'extern "C" __global__ __aicore__ void k(GM_ADDR x) {\n'
                   '    LocalTensor<float> t; (void)x; (void)Max(1.0f, 2.0f); (void)Add<int>(1, 2);\n'
                   '    if (x == nullptr) Add<float>(t, t, t, 64);\n}\n')
    result = runner.compile_sources([src])
    assert result.ok, result.stderr


def test_kernels_include_the_toolchains_own_header_names():
    n = 128
    x = (np.arange(2 * n) / 8).astype(np.float16)
    out = ok(run("header_names", 2, [Arg.input(x), Arg.output("float32", 2 * n), Arg.workspace(0),
                                     Arg.tiling(pack_tiling([("uint32", n)]))]))
    np.testing.assert_array_equal(out[1], x.astype(np.float32) * 2)


def test_tbuf_free_tensor_releases_nothing_and_flags_a_foreign_tensor():
    n = 128
    x = np.linspace(-1, 1, n, dtype=np.float32)
    out = ok(run("tbuf_free", 1, [Arg.input(x), Arg.output("float32", n), Arg.workspace(0),
                                  Arg.tiling(pack_tiling([("uint32", n), ("uint32", 0)]))]))
    np.testing.assert_allclose(out[1], np.expm1(x), rtol=1e-5, atol=1e-6)
    report = run("tbuf_free", 1, [Arg.input(x), Arg.output("float32", n), Arg.workspace(0),
                                  Arg.tiling(pack_tiling([("uint32", n), ("uint32", 1)]))])
    line, kind = emulator_helpers.marked_line("prod/tbuf_free")
    assert [(f["kind"], f["line"]) for f in report.findings] == [(kind, line)], report.summary()


def test_vector_pipes_unordered_on_a_tbuf_are_a_pipe_hazard_at_each_line():
    n = 256
    x = np.arange(2 * n, dtype=np.float32)
    args = lambda mode: [Arg.input(x), Arg.output("float32", 2 * n), Arg.workspace(0),  # noqa: E731
                         Arg.tiling(pack_tiling([("uint32", n), ("uint32", mode)]))]
    report = run("bug_vector_pipe_race", 2, args(0))
    line, kind = emulator_helpers.marked_line("prod/bug_vector_pipe_race")
    found = [(f["kind"], f["line"]) for f in report.findings]
    # MTE2 -> V at the Muls, then V -> MTE3 at the copy out (the line after the sync block)
    assert found[0] == (kind, line), report.summary()
    assert len(found) == 2 and found[1][0] == kind and found[1][1] > line, report.summary()
    assert "MTE2_V" in report.findings[0]["message"] and "V_MTE3" in report.findings[1]["message"]
    np.testing.assert_array_equal(report.outputs[1], 3 * x)  # the emulator runs in program order
    for mode in (1, 2):  # flags, or barriers: ordered, nothing to report
        np.testing.assert_array_equal(ok(run("bug_vector_pipe_race", 2, args(mode)))[1], 3 * x)


@pytest.mark.parametrize("full", [True, False])
def test_high_level_sort_orders_scores_with_their_positions(full):
    n, blocks = 128, 2
    rng = np.random.default_rng(5)
    x = rng.permutation(np.arange(blocks * n, dtype=np.float32))
    x[3] = x[40]  # a tie in block 0: the lower position comes first
    tiling = pack_tiling([("uint32", n), ("uint32", int(full))])
    args = [Arg.input(x), Arg.output("float32", blocks * n), Arg.output("uint32", blocks * n), Arg.workspace(0)]
    out = ok(run("full_sort", blocks, args + [Arg.tiling(tiling)]))
    for b in range(blocks):
        xs = x[b * n:(b + 1) * n]
        groups = [np.arange(n)] if full else [np.arange(g, g + 32) for g in range(0, n, 32)]
        want = np.concatenate([g[np.argsort(-xs[g], kind="stable")] for g in groups])
        np.testing.assert_array_equal(out[2][b * n:(b + 1) * n], want)
        np.testing.assert_array_equal(out[1][b * n:(b + 1) * n], xs[want])


def test_pattern_reduce_sum_with_broadcast_normalises_rows():
    cores, rows, cols = 2, 6, 64
    x = np.random.default_rng(7).standard_normal((cores * rows, cols)).astype(np.float32)
    tiling = pack_tiling([("uint32", rows), ("uint32", cols), ("float32", 1e-6)])
    out = ok(run("pattern_rms_norm", cores, [Arg.input(x), Arg.output("float32", x.shape), Arg.workspace(0),
                                             Arg.tiling(tiling)]))
    want = x / np.sqrt((x.astype(np.float64) ** 2).mean(axis=1, keepdims=True) + 1e-6)
    np.testing.assert_allclose(out[1], want, rtol=1e-5, atol=1e-6)


def test_pattern_reduce_ra_and_ar_on_rows_padded_to_32_bytes():
    cores, rows, cols = 3, 5, 45  # rows of 180 B, laid out at 192 B
    x = np.random.default_rng(8).standard_normal((cores, rows, cols)).astype(np.float32)
    out = ok(run("pattern_col_reduce", cores, [Arg.input(x), Arg.output("float32", (cores, cols)),
                                               Arg.output("float32", (cores, rows)), Arg.workspace(0),
                                               Arg.tiling(pack_tiling([("uint32", rows), ("uint32", cols)]))]))
    np.testing.assert_array_equal(out[1], x.max(axis=1))
    np.testing.assert_allclose(out[2], x.sum(axis=2), rtol=1e-5, atol=1e-5)


PATTERN_KERNEL = """#include "kernel_operator.h"
extern "C" __global__ __aicore__ void k(GM_ADDR x) {{
    (void)x;
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::QuePosition::VECCALC> buf;
    pipe.InitBuffer(buf, 4096);
    AscendC::LocalTensor<{t}> all = buf.Get<{t}>();
    AscendC::Duplicate(all, ({t})1, 512);
    uint32_t shape[] = {{4, 64}};
    AscendC::{call};
}}
"""


@pytest.mark.parametrize("t, call, says", [
    ("half", "ReduceSum<half, AscendC::Pattern::Reduce::AR>(all[512], all, shape, true)", "float (ReduceSum)"),
    ("float", "ReduceSum<float, AscendC::Pattern::Reduce::ARA>(all[512], all, shape, true)", "ARA"),
])
def test_pattern_reduce_rejects_what_its_page_rules_out_at_compile_time(tmp_path, t, call, says):
    src = tmp_path / "k.cpp"
    src.write_text(PATTERN_KERNEL.format(t=t, call=call))
    result = runner.compile_sources([src])
    assert not result.ok and says in result.stderr


def test_pattern_reduce_with_overlapping_source_and_destination_is_api_misuse(tmp_path):
    src = tmp_path / "k.cpp"
    src.write_text(PATTERN_KERNEL.format(t="float", call="ReduceSum<float, AscendC::Pattern::Reduce::AR>(all[64], all, "
                                                         "shape, true)"))
    report = runner.run_kernel([src], "k", 1, [Arg.workspace(32)])
    assert report.status == "findings", report.summary()
    assert [f["kind"] for f in report.findings] == ["api-misuse"]
    assert "overlap" in report.findings[0]["message"]


def ib_chain(wait_event: int):
    n = 256
    x = np.random.default_rng(9).standard_normal(2 * n).astype(np.float32)
    y = np.random.default_rng(10).standard_normal(2 * n).astype(np.float32)
    report = run("ib_chain", 2, [Arg.input(x), Arg.input(y), Arg.output("float32", 2 * n), Arg.workspace(256),
                                 Arg.tiling(pack_tiling([("uint32", n), ("int32", wait_event)]))])
    return report, x, y, n


def test_ib_wait_orders_a_core_after_the_one_that_sets_its_flag():
    report, x, y, n = ib_chain(0)
    z = ok(report)[2]
    np.testing.assert_array_equal(z[:n], x[:n] + y[:n])
    np.testing.assert_array_equal(z[n:], (x[:n] + y[:n]) + y[n:])


def test_ib_wait_for_a_flag_nobody_sets_is_reported_not_hung():
    report, *_ = ib_chain(1)
    assert report.status == "findings", report.summary()
    assert {f["kind"] for f in report.findings} == {"cross-core-sync"}
    assert "IBWait" in report.findings[0]["message"]


def test_ib_wait_for_itself_and_a_short_workspace_are_api_misuse(tmp_path):
    src = tmp_path / "k.cpp"
    src.write_text('#include "kernel_operator.h"\nusing namespace AscendC;\n'
                   'extern "C" __global__ __aicore__ void k(GM_ADDR sync) {\n'
                   '    GlobalTensor<int32_t> g; g.SetGlobalBuffer((__gm__ int32_t*)sync, 16);\n'
                   '    TPipe pipe; TBuf<QuePosition::VECCALC> b; pipe.InitBuffer(b, 32);\n'
                   '    LocalTensor<int32_t> l = b.Get<int32_t>();\n'
                   '    if (GetBlockIdx() == 1) IBWait(g, l, 1, 0);\n'
                   '    if (GetBlockIdx() == 0) IBSet(g, l, 1, 3);\n}\n')
    report = runner.run_kernel([src], "k", 2, [Arg.workspace(64)])
    msgs = {f["api"]: f["message"] for f in report.findings if f["kind"] == "api-misuse"}
    assert set(msgs) == {"IBWait", "IBSet"}, report.summary()
    assert "waits for itself" in msgs["IBWait"] and "gmWorkspace bytes [224, 256)" in msgs["IBSet"]


COPY_KERNEL = """#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {{
    GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float*)x, 256);
    yg.SetGlobalBuffer((__gm__ float*)y, 128);
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQ;
    TQue<QuePosition::VECOUT, 1> outQ;
    pipe.InitBuffer(inQ, 1, 1024);
    pipe.InitBuffer(outQ, 1, 512);
    LocalTensor<float> a = inQ.AllocTensor<float>();
    DataCopy(a, xg, 256);
    inQ.EnQue(a);
    a = inQ.DeQue<float>();
    LocalTensor<float> b = outQ.AllocTensor<float>();
    {call};
    inQ.FreeTensor(a);
    outQ.EnQue(b);
    b = outQ.DeQue<float>();
    DataCopy(yg, b, 128);
    outQ.FreeTensor(b);
}}
"""


def test_copy_moves_every_other_block_with_its_repeat_parameters(tmp_path):
    src = tmp_path / "k.cpp"  # 2 repeats of 64 floats; the source's blocks 2 apart, its repeats 16 blocks apart
    src.write_text(COPY_KERNEL.format(call="Copy(b, a, 64, 2, {1, 2, 8, 16})"))
    x = np.arange(256, dtype=np.float32)
    report = runner.run_kernel([src], "k", 1, [Arg.input(x), Arg.output("float32", 128)])
    out = ok(report)[1]
    np.testing.assert_array_equal(out, x.reshape(2, 16, 8)[:, ::2, :].reshape(-1))


def test_copy_has_no_count_form_on_a2(tmp_path):
    src = tmp_path / "k.cpp"  # Copy(dst, src, count) is on the 950's page only
    src.write_text(COPY_KERNEL.format(call="Copy(b, a, 128)"))
    result = runner.compile_sources([src])
    assert not result.ok and "Copy" in result.stderr


SHIFT_KERNEL = """#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {{
    GlobalTensor<{t}> xg, yg;
    xg.SetGlobalBuffer((__gm__ {t}*)x, 128);
    yg.SetGlobalBuffer((__gm__ {t}*)y, 128);
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQ;
    TQue<QuePosition::VECOUT, 1> outQ;
    pipe.InitBuffer(inQ, 1, 128 * sizeof({t}));
    pipe.InitBuffer(outQ, 1, 128 * sizeof({t}));
    LocalTensor<{t}> a = inQ.AllocTensor<{t}>();
    DataCopy(a, xg, 128);
    inQ.EnQue(a);
    a = inQ.DeQue<{t}>();
    LocalTensor<{t}> b = outQ.AllocTensor<{t}>();
    {call};
    inQ.FreeTensor(a);
    outQ.EnQue(b);
    b = outQ.DeQue<{t}>();
    DataCopy(yg, b, 128);
    outQ.FreeTensor(b);
}}
"""

PATTERN = 0b1010101010101010  # the pages' example


@pytest.mark.parametrize("t, call, want", [
    ("uint16_t", "ShiftRight(b, a, (uint16_t)1, 128)", 0b0101010101010101),
    ("int16_t", "ShiftRight(b, a, (int16_t)1, 128)", 0b1101010101010101),
    ("int16_t", "ShiftRight(b, a, (int16_t)3, 128)", 0b1111010101010101),
    ("uint16_t", "ShiftLeft(b, a, (uint16_t)1, 128)", 0b0101010101010100),
    ("int16_t", "ShiftLeft(b, a, (int16_t)1, 128)", 0b1101010101010100),
    ("int16_t", "ShiftLeft(b, a, (int16_t)3, 128)", 0b1101010101010000),
    ("int16_t", "ShiftRight(b, a, (int16_t)2, 128, 1, {1, 1, 8, 8}, true)", 0b1110101010101011),  # bit 1 set: +1
])
def test_shifts_follow_the_pages_examples(tmp_path, t, call, want):
    src = tmp_path / "k.cpp"
    src.write_text(SHIFT_KERNEL.format(t=t, call=call))
    x = np.full(128, PATTERN, dtype=np.uint16).view(np.dtype(t.replace("_t", "")))
    out = ok(runner.run_kernel([src], "k", 1, [Arg.input(x), Arg.output(t.replace("_t", ""), 128)]))[1]
    np.testing.assert_array_equal(out.view(np.uint16), np.full(128, want, dtype=np.uint16))


def test_shifts_take_integers_only(tmp_path):
    src = tmp_path / "k.cpp"
    src.write_text(SHIFT_KERNEL.format(t="float", call="ShiftLeft(b, a, 1.0f, 128)"))
    result = runner.compile_sources([src])
    assert not result.ok and "ShiftLeft supports only" in result.stderr
