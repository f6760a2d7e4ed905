"""The kernel API that kernels others wrote need, one behaviour each (kernels under kernels/)."""
from __future__ import annotations

import numpy as np
import pytest

from ascendcraft_lab.backends.emulator import runner
from ascendcraft_lab.backends.emulator.runner import Arg, pack_tiling
from ascendcraft_lab.soc import get_soc

from emulator_helpers import KERNELS, marked_line, run

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy


def ok(report):
    assert report.status == "ok", report.summary()
    return report.outputs


def only_finding(name: str, report) -> dict:
    line, kind = marked_line(name)
    assert report.status == "findings", report.summary()
    assert [(f["kind"], f["line"]) for f in report.findings] == [(kind, line)], report.summary()
    return report.findings[0]


def test_gather_mask_keeps_the_pattern_bits_elements_and_counts_them():
    x = np.arange(64, dtype=np.float32)
    out = ok(run("gather_mask", 1, [Arg.input(x), Arg.output("float32", 32), Arg.output("float32", 8),
                                    Arg.output("int32", 2)]))
    np.testing.assert_array_equal(out[1], x[::2])
    np.testing.assert_array_equal(out[2][:3], [1, 2, 63])
    np.testing.assert_array_equal(out[3], [32, 3])


def test_broadcast_grows_a_column_and_a_row():
    x = np.arange(16, dtype=np.float32)
    out = ok(run("broadcast_rows", 1, [Arg.input(x), Arg.output("float32", (4, 16)), Arg.output("float32", (4, 16))]))
    np.testing.assert_array_equal(out[1], np.repeat(x[:4, None], 16, axis=1))
    np.testing.assert_array_equal(out[2], np.tile(x, (4, 1)))


def test_init_global_memory_sets_each_cores_slice_before_init_buffer():
    x = np.ones(4 * 256, np.float32)
    out = ok(run("fill_output", 4, [Arg.input(x), Arg.output("float32", 4 * 256)]))
    np.testing.assert_array_equal(out[1], np.repeat(np.arange(4, dtype=np.float32), 256) + 1)


def test_fill_after_init_buffer_is_api_misuse():
    only_finding("bug_fill_after_initbuffer", run("bug_fill_after_initbuffer", 1, [Arg.input(np.ones(64, np.float32)),
                                                                                    Arg.output("float32", 64)]))


def test_the_inplace_queue_api_fills_the_tensors_it_is_given():
    x = np.arange(256, dtype=np.float32)
    out = ok(run("inplace_queue", 1, [Arg.input(x), Arg.output("float32", 256)]))
    np.testing.assert_array_equal(out[1], 2 * x)


def test_a_mix_1_2_kernel_runs_one_cube_and_two_vector_cores_per_block():
    blocks = 3
    out = ok(run("mixed_ratio", blocks, [Arg.output("int32", (2 * blocks, 8)), Arg.output("int32", (blocks, 8))]))
    aiv = out[0][:, :5]
    # GetBlockIdx 0..2N-1 on the vector cores, GetSubBlockIdx 0/1, GetSubBlockNum 2, GetTaskRation 2, GetBlockNum N
    np.testing.assert_array_equal(aiv, [[i, i % 2, 2, 2, blocks] for i in range(2 * blocks)])
    np.testing.assert_array_equal(out[1][:, :2], [[b, 1] for b in range(blocks)])


def test_a_failed_assert_stops_the_kernel_with_its_message():
    report = run("assert_fails", 4, [Arg.output("float32", 8)])
    line = next(i for i, ln in enumerate((KERNELS / "assert_fails.cpp").read_text().splitlines(), 1) if "ASSERT(" in ln)
    assert report.status == "crash"
    # The file is named relative to the folder of the run's sources (as the binary embeds it).
    assert report.message.startswith(f"ASSERT(block != 2) failed in AIV block 2 at assert_fails.cpp:{line}: "
                                     "block 2 of 4 must not run"), report.message


def test_event_ids_beyond_7_are_api_misuse():
    f = only_finding("bug_event_id",
                     run("bug_event_id", 1, [Arg.input(np.ones(8, np.float32)), Arg.output("float32", 8)]))
    assert "event ID 8" in f["message"]


def test_a_half_reduce_sum_saturates_at_65504():
    x = np.zeros(16, np.float16)
    x[:4] = [60000, 60000, -30000, 100]
    out = ok(run("half_sum_saturates", 1, [Arg.input(x), Arg.output("float16", 16)]))
    # the page's 65504 - 29900 = 35604, each addition rounded to half (-29904, then 35584): not inf
    h = np.float16
    assert out[1][0] == h(h(65504) + h(h(-30000) + h(100)))


def test_cycle_counter_divceil_std_and_printf():
    report = run("system_utils", 2, [Arg.output("int32", 8)])
    out = ok(report)
    np.testing.assert_array_equal(out[0].reshape(2, 4)[:, :3], [[1, 4, 4], [1, 4, 4]])
    assert sorted(report.stdout.splitlines()) == ["block 0: 4 tiles", "block 1: 4 tiles"]


def test_copies_past_the_set_global_buffer_length_inside_the_allocation_are_notes_and_copied():
    x = np.arange(16, dtype=np.float32)
    report = run("gm_beyond_buffer", 1, [Arg.input(x), Arg.output("float32", 16)])
    np.testing.assert_array_equal(ok(report)[1], x)
    src = (KERNELS / "gm_beyond_buffer.cpp").read_text().splitlines()
    lines = [i for i, ln in enumerate(src, 1) if "NOTE: gm-beyond-buffer" in ln]
    assert sorted((n["kind"], n["line"]) for n in report.notes) == [("gm-beyond-buffer", ln) for ln in lines]


@pytest.mark.parametrize("case", ["aligned", "unaligned", "past-physical"])
def test_the_ub_limit_is_what_get_core_mem_size_reports(case):
    """A tiling that splits GetCoreMemSize(UB) among six buffers fits; one that splits it without
    rounding to 32 B lands in the runtime's reserve through InitBuffer's rounding (a note, as
    MultiKernelBench's own add example does on the NPU); past the physical UB is a finding."""
    soc = get_soc()
    usable = soc.ub_usable  # PlatformAscendC::GetCoreMemSize(UB) reports the same number
    per_buffer = {"aligned": usable // 6 // 32 * 32, "unaligned": usable // 6,
                  "past-physical": soc.ub_bytes // 6 + 32}[case]
    report = run("ub_from_platform", 1, [Arg.output("float32", 8), Arg.tiling(pack_tiling([("uint32", per_buffer)]))])
    if case == "past-physical":
        assert report.status == "findings", report.summary()
        only_finding("ub_from_platform", report)
        return
    assert report.status == "ok", report.summary()
    assert [n["kind"] for n in report.notes] == ([] if case == "aligned" else ["ub-reserved"])


# ---- rejected at compile time, as the real API does ----------------------------------------------


def _compile(tmp_path, body: str):
    src = tmp_path / "k.cpp"
    src.write_text('#include "kernel_operator.h"\nusing namespace AscendC;\n'
                   'extern "C" __global__ __aicore__ void k(GM_ADDR x)\n{\n' + body + "\n    (void)x;\n}\n")
    return runner.compile_sources([src])


def test_an_element_type_the_page_does_not_list_is_a_compile_error_naming_the_page(tmp_path):
    r = _compile(tmp_path, "    TPipe pipe;\n    TBuf<TPosition::VECCALC> b;\n    pipe.InitBuffer(b, 256);\n"
                           "    LocalTensor<int32_t> t = b.Get<int32_t>();\n    Exp(t, t, 64);")
    (err,) = r.errors
    assert err["line"] == 9 and "Exp supports only half, float on Atlas A2/A3 (API reference: Exp)" in err["message"]


def test_non_inplace_alloc_tensor_on_a_depth_0_queue_does_not_compile(tmp_path):
    r = _compile(tmp_path, "    TPipe pipe;\n    TQue<TPosition::VECIN, 0> q;\n    pipe.InitBuffer(q, 1, 256);\n"
                           "    LocalTensor<float> t = q.AllocTensor<float>();\n    q.FreeTensor(t);")
    assert not r.ok and "depth-0 queue takes the inplace form AllocTensor(tensor)" in r.errors[0]["message"]


def test_an_argument_no_overload_takes_says_so(tmp_path):
    r = _compile(tmp_path, "    TPipe pipe;\n    TBuf<TPosition::VECCALC> b;\n    pipe.InitBuffer(b, 256);\n"
                           "    LocalTensor<float> t = b.Get<float>();\n    Add(t, t, t, 64, t);")
    assert not r.ok and "no overload of this API takes an argument in that position" in r.errors[0]["message"]
    assert "const char" not in r.errors[0]["message"]


@pytest.mark.parametrize("src, dst, ok", [("half", "int8_t", True), ("int8_t", "float", False)])
def test_cast_pairs_int8_with_half_only_as_the_page_does(tmp_path, src, dst, ok):
    r = _compile(tmp_path, "    TPipe pipe;\n    TBuf<TPosition::VECCALC> b;\n    pipe.InitBuffer(b, 1024);\n"
                           f"    LocalTensor<{src}> s = b.Get<{src}>();\n"
                           f"    LocalTensor<{dst}> d = b.GetWithOffset<{dst}>(128, 512);\n"
                           "    Cast(d, s, RoundMode::CAST_RINT, 128);")
    assert r.ok == ok
    if not ok:
        assert "int8_t converts to and from half only (API page Cast)" in r.errors[0]["message"]


def test_sort32_mrgsort_and_extract_sort_a_row_largest_first_keeping_input_order_on_ties():
    x = np.random.default_rng(0).integers(-8, 8, 128).astype(np.float32)  # many ties
    out = ok(run("sort_merge", 1, [Arg.input(x), Arg.output("float32", 128), Arg.output("uint32", 128)]))
    order = np.argsort(-x, kind="stable")
    np.testing.assert_array_equal(out[2], order)
    np.testing.assert_array_equal(out[1], x[order])


def test_sort32_takes_only_the_score_types_its_page_lists(tmp_path):
    r = _compile(tmp_path, "    TPipe pipe;\n    TBuf<TPosition::VECCALC> b;\n    pipe.InitBuffer(b, 1024);\n"
                           "    LocalTensor<int32_t> t = b.Get<int32_t>();\n"
                           "    Sort32(t, t, t.ReinterpretCast<uint32_t>(), 1);")
    assert not r.ok
    assert "Sort32 supports only half, float on Atlas A2/A3 (API reference: Sort32)" in r.errors[0]["message"]
