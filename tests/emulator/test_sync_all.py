"""SyncAll on the emulator: every block of the launch meets at the barrier, atomic adds made before
it are visible after it, and a block that never arrives (or a launch wider than the SoC) is a
finding instead of a hang. Both forms: the hardware SyncAll() (op projects) and the soft
SyncAll(gmWorkspace, ubWorkspace) a kernel-launch project uses, whose documented preconditions
(GM flags of 32 B per core, zero at the first barrier; a UB work area of 32 B per core) are checked."""
from __future__ import annotations
import pytest

import numpy as np

from ascendcraft_lab.backends.emulator import runner
from ascendcraft_lab.backends.emulator.runner import Arg
from ascendcraft_lab.soc import get_soc

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

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
    return runner.run_kernel([src], "sync_sum", blocks,
                             [Arg.output("float32", blocks), Arg.workspace(32), Arg.tiling(tiling)], timeout=60)


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



# The soft form: the same sum, with SyncAll's GM flags after the float in the workspace and a UB
# work area from a TBuf. tiling: (GM flag bytes, UB work bytes, 1 = SyncAll twice, 1 = block 1
# writes into the flags between the barriers (a bug)).
SOFT_KERNEL = r"""
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void soft_sum(GM_ADDR out, GM_ADDR workspace, GM_ADDR tiling) {
    const __gm__ uint32_t *t = reinterpret_cast<const __gm__ uint32_t *>(tiling);
    const uint32_t flagBytes = t[0], workBytes = t[1], twice = t[2], clobber = t[3];
    GlobalTensor<float> total;
    total.SetGlobalBuffer((__gm__ float *)workspace, 1);
    GlobalTensor<int32_t> syncGm;
    syncGm.SetGlobalBuffer((__gm__ int32_t *)(workspace + 32), flagBytes / sizeof(int32_t));
    GlobalTensor<float> outGm;
    outGm.SetGlobalBuffer((__gm__ float *)out, GetBlockNum());
    TPipe pipe;
    TBuf<TPosition::VECCALC> workBuf;
    pipe.InitBuffer(workBuf, workBytes);
    LocalTensor<int32_t> work = workBuf.Get<int32_t>();
    SetAtomicAdd<float>();
    total.SetValue(0, static_cast<float>(GetBlockIdx() + 1));
    SetAtomicNone();
    SyncAll(syncGm, work);
    if (twice) {
        if (clobber && GetBlockIdx() == 1) {
            syncGm.SetValue(0, 7);
        }
        SyncAll(syncGm, work);
    }
    DataCacheCleanAndInvalid<float, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>(total);
    outGm.SetValue(GetBlockIdx(), total.GetValue(0));
}
"""


def _run_soft(tmp_path, blocks: int, flag_bytes: int | None = None, work_bytes: int | None = None,
              workspace: int | None = None, twice: bool = False, clobber: bool = False, dirty: bool = False):
    """Run soft_sum; `dirty` hands the kernel a workspace whose flag area is not zero."""
    src = tmp_path / "soft_sum.cpp"
    src.write_text(SOFT_KERNEL)
    flag_bytes = 32 * blocks if flag_bytes is None else flag_bytes
    work_bytes = 32 * blocks if work_bytes is None else work_bytes
    nbytes = 32 + flag_bytes if workspace is None else workspace
    tiling = runner.pack_tiling([("uint32", flag_bytes), ("uint32", work_bytes), ("uint32", int(twice)),
                                 ("uint32", int(clobber))])
    if dirty:   # an input-like workspace: the first float zero, the flags not
        ws = np.zeros(nbytes, np.uint8)
        ws[32 + 5] = 3
        ws_arg = Arg.inout(ws)
    else:
        ws_arg = Arg.workspace(nbytes)
    return runner.run_kernel([src], "soft_sum", blocks, [Arg.output("float32", blocks), ws_arg, Arg.tiling(tiling)],
                             timeout=60)


def test_the_soft_form_with_zeroed_flags_syncs_every_block(tmp_path):
    blocks = 8
    report = _run_soft(tmp_path, blocks, twice=True)
    assert report.status == "ok", report.summary()
    np.testing.assert_array_equal(report.outputs[0], np.full(blocks, blocks * (blocks + 1) / 2, np.float32))


def test_soft_flags_that_are_not_zero_at_the_first_barrier_are_a_finding(tmp_path):
    report = _run_soft(tmp_path, 4, dirty=True)
    found = [f for f in report.findings if f["kind"] == "sync-all-workspace"]
    assert found and "not zero at the first SyncAll" in found[0]["message"], report.summary()
    assert "byte 5 is 0x03" in found[0]["message"]


def test_a_gm_flag_area_smaller_than_32_bytes_per_core_is_a_finding(tmp_path):
    report = _run_soft(tmp_path, 6, flag_bytes=32 * 5)
    messages = [f["message"] for f in report.findings if f["kind"] == "sync-all-workspace"]
    wanted = "gmWorkspace has 160 B but the soft sync needs 32 B per core, 192 B for 6 blocks"
    assert any(wanted in m for m in messages), \
        report.summary()


def test_a_flag_area_past_the_end_of_the_workspace_is_a_finding(tmp_path):
    # The tensor claims 32 B per core, but the host allocated only half of that.
    report = _run_soft(tmp_path, 4, workspace=32 + 64)
    messages = [f["message"] for f in report.findings if f["kind"] == "sync-all-workspace"]
    wanted = "gmWorkspace has 64 B but the soft sync needs 32 B per core, 128 B for 4 blocks"
    assert any(wanted in m for m in messages), \
        report.summary()


def test_a_ub_work_area_smaller_than_32_bytes_per_core_is_a_finding(tmp_path):
    report = _run_soft(tmp_path, 4, work_bytes=64)
    messages = [f["message"] for f in report.findings if f["kind"] == "sync-all-workspace"]
    wanted = "ubWorkspace has 64 B but the soft sync needs 32 B per core, 128 B for 4 blocks"
    assert any(wanted in m for m in messages), \
        report.summary()


def test_kernel_data_written_into_the_flags_between_barriers_is_a_finding(tmp_path):
    report = _run_soft(tmp_path, 4, twice=True, clobber=True)
    messages = [f["message"] for f in report.findings if f["kind"] == "sync-all-workspace"]
    assert any("changed between barriers" in m for m in messages), report.summary()
