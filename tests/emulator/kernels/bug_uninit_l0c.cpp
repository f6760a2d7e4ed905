// acemu-test: entry=bug_uninit_l0c args=3
// The first Mmad into a fresh L0C accumulates (cmatrixInitVal = false): it adds to whatever L0C held.
#include "cube_bug_common.h"

extern "C" __global__ __aicore__ void bug_uninit_l0c(GM_ADDR a, GM_ADDR b, GM_ADDR c)
{
    TinyMatmul op;
    op.Init(a, b, c);
    op.CopyIn();
    SetFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    op.SplitA();
    op.SplitB();
    SetFlag<HardEvent::MTE1_M>(EVENT_ID0);
    WaitFlag<HardEvent::MTE1_M>(EVENT_ID0);
    MmadParams params(M, N, K);
    params.cmatrixInitVal = false;
    Mmad(op.c1Buf.Get<float>(), op.a2Buf.Get<half>(), op.b2Buf.Get<half>(), params);  // FINDING: uninitialised-cube-read
    SetFlag<HardEvent::M_FIX>(EVENT_ID0);
    WaitFlag<HardEvent::M_FIX>(EVENT_ID0);
    op.CopyOut();
}
