"""Cross-core flags on the emulator (API pages CrossCoreSetFlag / CrossCoreWaitFlag): a cube core and
its two vector cores hand over by flag counters (mode 2 both ways), GM written before a set is
seen after the matching wait, and a wait nothing can release any more is a cross-core-sync finding
instead of a hang. Many rounds of ping-pong are the regression test of the deadlock detector: a core
that a set has released but that has not woken yet is not "blocked"."""
from __future__ import annotations
import pytest

import numpy as np

from ascendcraft_lab.backends.emulator import runner
from ascendcraft_lab.backends.emulator.runner import Arg

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

KERNEL = r"""
#include "kernel_operator.h"
using namespace AscendC;

// tiling: rounds, then 1 = the vector cores wait once more for a flag nobody sets (a bug).
// Each round the cube core writes the round number to GM and sets flag 1 (mode 2: its two vector
// cores); each vector core waits for it, adds the number and sets flag 2 (mode 2: once both have,
// their cube core), which the cube core waits for before the next round.
extern "C" __global__ __aicore__ void ping_pong(GM_ADDR out, GM_ADDR box, GM_ADDR tiling) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    const __gm__ uint32_t *t = reinterpret_cast<const __gm__ uint32_t *>(tiling);
    const uint32_t rounds = t[0];
    const bool extraWait = t[1] == 1;
    if ASCEND_IS_AIC {
        GlobalTensor<int32_t> boxGm;
        boxGm.SetGlobalBuffer((__gm__ int32_t *)box + 8 * GetBlockIdx(), 8);
        for (uint32_t r = 1; r <= rounds; ++r) {
            boxGm.SetValue(0, int32_t(r));
            CrossCoreSetFlag<2, PIPE_FIX>(1);
            CrossCoreWaitFlag(2);
        }
        return;
    }
    if ASCEND_IS_AIV {
        GlobalTensor<int32_t> boxGm;
        boxGm.SetGlobalBuffer((__gm__ int32_t *)box + 8 * (GetBlockIdx() / GetTaskRation()), 8);
        GlobalTensor<int32_t> outGm;
        outGm.SetGlobalBuffer((__gm__ int32_t *)out, GetBlockNum() * GetTaskRation());
        int32_t sum = 0;
        for (uint32_t r = 1; r <= rounds; ++r) {
            CrossCoreWaitFlag(1);
            sum += boxGm.GetValue(0);
            CrossCoreSetFlag<2, PIPE_MTE3>(2);
        }
        if (extraWait) {
            CrossCoreWaitFlag(3);
        }
        outGm.SetValue(GetBlockIdx(), sum);
    }
}
"""


def _run(tmp_path, blocks: int, rounds: int, extra_wait: bool = False) -> runner.Report:
    src = tmp_path / "ping_pong.cpp"
    src.write_text(KERNEL)
    tiling = runner.pack_tiling([("uint32", rounds), ("uint32", int(extra_wait))])
    return runner.run_kernel([src], "ping_pong", blocks,
                             [Arg.output("int32", 2 * blocks), Arg.workspace(32 * blocks), Arg.tiling(tiling)],
                             timeout=120)


def test_cube_and_vector_cores_hand_over_round_after_round_by_flags(tmp_path):
    blocks, rounds = 3, 300
    report = _run(tmp_path, blocks, rounds)
    assert report.status == "ok", report.summary()
    np.testing.assert_array_equal(report.outputs[0], np.full(2 * blocks, rounds * (rounds + 1) // 2, np.int32))


def test_a_wait_no_core_can_release_is_a_finding_not_a_hang(tmp_path):
    report = _run(tmp_path, 2, 5, extra_wait=True)
    assert report.status == "findings", report.summary()
    assert {f["kind"] for f in report.findings} == {"cross-core-sync"}, report.summary()
    assert "CrossCoreWaitFlag(3)" in report.findings[0]["message"]
