// acemu-test: entry=bug_pipe_war args=3
// Two rounds over the same L1 buffer of A: the second DataCopy (MTE2) overwrites it while the first
// round's LoadData (MTE1) may still read it: the MTE1 -> MTE2 flag before reusing L1 is missing
// (the L0 and L0C reuse waits, M -> MTE1 and FIX -> M, are there).
#include "cube_bug_common.h"

extern "C" __global__ __aicore__ void bug_pipe_war(GM_ADDR a, GM_ADDR b, GM_ADDR c)
{
    TinyMatmul op;
    op.Init(a, b, c);
    DataCopy(op.b1Buf.Get<half>(), op.bGm, Nd2NzParams(1, K, N, 0, N, K, 1, 0));
    for (int round = 0; round < 2; ++round) {
        DataCopy(op.a1Buf.Get<half>(), op.aGm, Nd2NzParams(1, M, K, 0, K, M, 1, 0));  // FINDING: pipe-hazard
        SetFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
        WaitFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
        if (round > 0) WaitFlag<HardEvent::M_MTE1>(EVENT_ID0);
        op.SplitA();
        op.SplitB();
        SetFlag<HardEvent::MTE1_M>(EVENT_ID0);
        WaitFlag<HardEvent::MTE1_M>(EVENT_ID0);
        if (round > 0) WaitFlag<HardEvent::FIX_M>(EVENT_ID0);
        op.Compute();
        SetFlag<HardEvent::M_MTE1>(EVENT_ID0);
        SetFlag<HardEvent::M_FIX>(EVENT_ID0);
        WaitFlag<HardEvent::M_FIX>(EVENT_ID0);
        op.CopyOut();
        SetFlag<HardEvent::FIX_M>(EVENT_ID0);
    }
    WaitFlag<HardEvent::M_MTE1>(EVENT_ID0);
    WaitFlag<HardEvent::FIX_M>(EVENT_ID0);
}
