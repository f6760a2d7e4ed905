"""The sanitizer: each buggy kernel reports the right kind at the right line, and the run goes on;
crashes and endless loops end as a status, not as an exception in the caller."""
from __future__ import annotations

import numpy as np
import pytest

from ascendcraft_lab.backends.emulator import runner
from ascendcraft_lab.backends.emulator.runner import Arg

from emulator_helpers import KERNELS, marked_line, run

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

BUGGY = {
    # kernel: (block_dim, input elements, output elements)
    "bug_ub_overflow": (1, 12800, 12800),
    "bug_unaligned_datacopy": (1, 25, 25),
    "bug_unaligned_ub": (1, 64, 64),
    "bug_queue_misuse": (1, 64, 64),
    "bug_gm_oob": (1, 1000, 1000),
    "bug_uninit": (1, 64, 64),
    "bug_gm_race": (4, 4 * 256, 256),
    "bug_repeat_overflow": (1, 300 * 64, 300 * 64),
}


@pytest.mark.parametrize("name", sorted(BUGGY))
def test_buggy_kernel_reports_its_finding_at_the_call_site(name):
    blocks, n_in, n_out = BUGGY[name]
    line, kind = marked_line(name)
    x = np.arange(n_in, dtype=np.float32)
    report = run(name, blocks, [Arg.input(x), Arg.output("float32", n_out)])
    assert report.status == "findings", report.summary()
    hits = [f for f in report.findings if f["kind"] == kind]
    assert hits, report.summary()
    assert {(f["file"], f["line"]) for f in hits} == {(str(KERNELS / f"{name}.cpp"), line)}, report.summary()
    assert {f["kind"] for f in report.findings} == {kind}, report.summary()
    assert all(0 <= f["block"] < blocks and f["message"] and f["api"] for f in hits)
    assert 1 in report.outputs  # the kernel ran to the end despite the finding


def test_unaligned_datacopy_rounds_down_like_the_hardware():
    x = np.arange(1, 26, dtype=np.float32)
    report = run("bug_unaligned_datacopy", 1, [Arg.input(x), Arg.output("float32", 25)])
    (finding,) = report.findings
    assert "100 bytes is not a multiple of 32 B; the hardware copies 96 B" in finding["message"]
    np.testing.assert_array_equal(report.outputs[1][:24], 2 * x[:24])
    assert report.outputs[1][24] == 0  # the 25th float never reached UB


def test_gm_race_names_both_cores():
    x = np.ones(4 * 256, dtype=np.float32)
    report = run("bug_gm_race", 4, [Arg.input(x), Arg.output("float32", 256)])
    (finding,) = report.findings
    assert finding["count"] == 3 and sorted(finding["blocks"]) == [1, 2, 3]
    assert "block 0 also wrote" in finding["message"] or "also wrote" in finding["message"]


def test_repeat_overflow_runs_the_truncated_repeat_count():
    n = 300 * 64
    x = np.ones(n, dtype=np.float32)
    report = run("bug_repeat_overflow", 1, [Arg.input(x), Arg.output("float32", n)])
    y = report.outputs[1]
    assert (y[: 44 * 64] == 2).all() and (y[44 * 64:] == 0).all()  # 300 & 0xff = 44 repeats


def test_null_dereference_reports_crash_and_caller_carries_on():
    report = run("bug_null_deref", 4, [Arg.input(np.zeros(8, np.float32)), Arg.output("float32", 8)])
    assert report.status == "crash"
    assert "SIGSEGV" in report.message and "block 1" in report.message
    assert "GetValue" in report.message  # the last AscendC call before the crash


def test_endless_loop_reports_timeout():
    report = run("bug_infinite_loop", 1, [Arg.input(np.full(8, 5, np.uint32)), Arg.output("float32", 8)], timeout=3)
    assert report.status == "timeout"
    assert "did not finish within 3 s" in report.message
    # It calls no AscendC API while it loops: an endless loop, not a slow emulation.
    assert "0 of 1 blocks had finished" in report.message
    assert "block 0 (before its first AscendC call) has made no AscendC call" in report.message
    assert "endless loop" in report.message
    assert report.progress["blocks_total"] == 1 and report.progress["blocks_done"] == 0


def test_a_stopped_run_says_how_far_it_got():
    # Block 0 ends at once, the others keep calling Duplicate: blocks done, where the others are, the pace.
    rounds = np.full(8, 4_000_000_000, np.uint32)
    report = run("slow_blocks", 4, [Arg.input(rounds), Arg.output("float32", 8)], timeout=6)
    assert report.status == "timeout"
    assert "did not finish within 6 s" in report.message
    assert "1 of 4 blocks had finished" in report.message, report.message
    line = next(i for i, text in enumerate((KERNELS / "slow_blocks.cpp").read_text().splitlines(), start=1)
                if "the call the progress report names" in text)
    assert f"at Duplicate (slow_blocks.cpp:{line})" in report.message
    assert "the emulation is slow for this size, not stuck" in report.message
    running = report.progress["running"]
    assert running and all(r["api"] == "Duplicate" and r["line"] == line and r["calls"] > 0 for r in running)
    assert {r["block"] for r in running} <= {1, 2, 3}


def test_compile_error_is_a_status_with_parsed_diagnostics(tmp_path):
    src = tmp_path / "broken.cpp"
    src.write_text('#include "kernel_operator.h"\nusing namespace AscendC;\n'
                   'extern "C" __global__ __aicore__ void broken(GM_ADDR x) {\n'
                   '    LocalTensor<float> t = undefined_thing;\n}\n')
    report = runner.run_kernel([src], "broken", 1, [Arg.input(np.zeros(8, np.float32))])
    assert report.status == "compile-error"
    err = next(d for d in report.diagnostics if d["severity"] == "error")
    assert err["file"] == str(src) and err["line"] == 4 and "undefined_thing" in err["message"]


def test_missing_entry_is_explained(tmp_path):
    src = tmp_path / "k.cpp"
    src.write_text('#include "kernel_operator.h"\n'
                   'extern "C" __global__ __aicore__ void real_name(GM_ADDR x) { (void)x; }\n')
    report = runner.run_kernel([src], "other_name", 1, [Arg.workspace(32)])
    assert report.status == "compile-error"
    assert "kernel entry 'other_name' not found" in report.message


def test_warm_run_reuses_the_cached_binary():
    x = np.zeros(64, np.float32)
    report = run("bug_uninit", 1, [Arg.input(x), Arg.output("float32", 64)])
    assert report.timings["cached"] is True
    assert report.timings["compile_s"] < 0.5


def test_pack_tiling_uses_natural_alignment():
    data = runner.pack_tiling([("uint8", 1), ("uint32", 2), ("float", 0.5), ("int64", -3)])
    assert len(data) == 24
    assert data[:1] == b"\x01" and data[4:8] == (2).to_bytes(4, "little")
    assert np.frombuffer(data[8:12], np.float32)[0] == 0.5
    assert int.from_bytes(data[16:24], "little", signed=True) == -3


def test_setglobalbuffer_beyond_the_host_allocation_is_reported_at_the_access(tmp_path):
    src = tmp_path / "too_long.cpp"
    src.write_text('''#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void too_long(GM_ADDR x, GM_ADDR y)
{
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, 2048);
    yGm.SetGlobalBuffer((__gm__ float *)y, 8);
    yGm.SetValue(0, xGm.GetValue(2000));
}
''')
    report = runner.run_kernel([src], "too_long", 1, [Arg.input(np.ones(1024, np.float32)), Arg.output("float32", 8)])
    assert report.status == "findings"
    lines = sorted((f["line"], f["api"]) for f in report.findings if f["kind"] == "gm-out-of-bounds")
    # the NPU does not check SetGlobalBuffer's length: only the access outside the allocation is a bug
    assert lines == [(8, "GetValue")], report.summary()
    assert report.outputs[1][0] == 0  # the out-of-range read returned 0 instead of touching other memory


def test_double_free_and_leaked_tensor_are_queue_misuse(tmp_path):
    src = tmp_path / "leaky_queue.cpp"
    src.write_text('''#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void leaky_queue(GM_ADDR x)
{
    TPipe pipe;
    TQue<TPosition::VECIN, 1> que;
    pipe.InitBuffer(que, 2, 256);
    LocalTensor<float> a = que.AllocTensor<float>();
    LocalTensor<float> b = que.AllocTensor<float>();
    que.FreeTensor(a);
    que.FreeTensor(a);
    (void)b;
    (void)x;
}
''')
    report = runner.run_kernel([src], "leaky_queue", 2, [Arg.workspace(32)])
    found = sorted((f["line"], f["api"], f["count"]) for f in report.findings if f["kind"] == "queue-misuse")
    assert found == [(9, "AllocTensor", 2), (11, "FreeTensor", 2)], report.summary()
    leak = next(f for f in report.findings if f["line"] == 9)
    assert "never freed" in leak["message"]
