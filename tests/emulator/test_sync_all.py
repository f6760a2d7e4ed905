"""SyncAll on the emulator: every block of the launch meets at the barrier, atomic adds made before
it are visible after it, and a block that never arrives (or a launch wider than the SoC) is a
finding instead of a hang."""
from __future__ import annotations

import numpy as np

from ascendcraft_lab.backends.emulator import runner
from ascendcraft_lab.backends.emulator.runner import Arg
from ascendcraft_lab.soc import get_soc

KERNEL = r"""
#include "kernel_operator.h"
using namespace AscendC;

// Every block adds (its index + 1) into one GM float, waits for the others, then copies the total.
// tiling: one uint32, 1 = block 0 returns before the barrier (a bug).
extern "C" __global__ __aicore__ void sync_sum(GM_ADDR out, GM_ADDR workspace, GM_ADDR tiling) {
    const bool skipBlock0 = *reinterpret_cast<const __gm__ uint32_t *>(tiling) == 1;
    GlobalTensor<float> total;
    total.SetGlobalBuffer((__gm__ float *)workspace, 1);
    GlobalTensor<float> outGm;
    outGm.SetGlobalBuffer((__gm__ float *)out, GetBlockNum());
    if (skipBlock0 && GetBlockIdx() == 0) {
        return;
    }
    SetAtomicAdd<float>();
    total.SetValue(0, static_cast<float>(GetBlockIdx() + 1));
    SetAtomicNone();
    SyncAll();
    DataCacheCleanAndInvalid<float, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>(total);
    outGm.SetValue(GetBlockIdx(), total.GetValue(0));
}
"""


def _run(tmp_path, blocks: int, skip_block0: bool = False) -> runner.Report:
    src = tmp_path / "sync_sum.cpp"
    src.write_text(KERNEL)
    tiling = runner.pack_tiling([("uint32", int(skip_block0))])
    return runner.run_kernel([src], "sync_sum", blocks, [Arg.output("float32", blocks), Arg.workspace(32), Arg.tiling(tiling)],
                             timeout=60)


def test_every_block_sees_the_sum_of_all_atomic_adds_after_sync_all(tmp_path):
    blocks = 12
    report = _run(tmp_path, blocks)
    assert report.status == "ok", report.summary()
    np.testing.assert_array_equal(report.outputs[0], np.full(blocks, blocks * (blocks + 1) / 2, np.float32))


def test_a_block_that_never_reaches_sync_all_is_a_finding_not_a_hang(tmp_path):
    report = _run(tmp_path, 6, skip_block0=True)
    assert report.status == "findings", report.summary()
    kinds = {f["kind"] for f in report.findings}
    assert kinds == {"sync-all-mismatch"}, report.summary()
    assert "ended without reaching it" in report.findings[0]["message"]


def test_sync_all_over_more_blocks_than_vector_cores_is_a_finding(tmp_path):
    blocks = get_soc().vector_cores + 2
    report = _run(tmp_path, blocks)
    assert any(f["kind"] == "sync-all-mismatch" and "vector cores" in f["message"] for f in report.findings), \
        report.summary()
    # the emulator still runs every block at once, so the values are right
    np.testing.assert_array_equal(report.outputs[0], np.full(blocks, blocks * (blocks + 1) / 2, np.float32))
