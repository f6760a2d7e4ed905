// acemu-test: entry=bug_pipe_hazard args=3
// A's LoadData (MTE1) reads L1 before any MTE2 -> MTE1 sync after the DataCopy that wrote it.
#include "cube_bug_common.h"

extern "C" __global__ __aicore__ void bug_pipe_hazard(GM_ADDR a, GM_ADDR b, GM_ADDR c)
{
    TinyMatmul op;
    op.Init(a, b, c);
    op.CopyIn();
    LoadData(op.a2Buf.Get<half>(), op.a1Buf.Get<half>(), LoadData2DParams(0, BLOCKS, BLOCKS, 0, 0, false, 0));  // FINDING: pipe-hazard
    LoadData(op.a2Buf.Get<half>()[BLOCKS * CUBE_MAX_SIZE], op.a1Buf.Get<half>()[CUBE_MAX_SIZE], LoadData2DParams(0, BLOCKS, BLOCKS, 0, 0, false, 0));
    SetFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    op.SplitB();
    SetFlag<HardEvent::MTE1_M>(EVENT_ID0);
    WaitFlag<HardEvent::MTE1_M>(EVENT_ID0);
    op.Compute();
    SetFlag<HardEvent::M_FIX>(EVENT_ID0);
    WaitFlag<HardEvent::M_FIX>(EVENT_ID0);
    op.CopyOut();
}
