// acemu-test: entry=mm_nz_as_zz args=3
// A layout mistake, not a sanitizer finding: A's L1 fractals (Nz order, column by column) are
// copied to L0A as they are, and Mmad reads them in ZZ order (row by row). On the NPU this computes
// with A's 16 x 16 blocks in the wrong places; so does the emulator (the test predicts the result).
#include "cube_bug_common.h"

extern "C" __global__ __aicore__ void mm_nz_as_zz(GM_ADDR a, GM_ADDR b, GM_ADDR c)
{
    TinyMatmul op;
    op.Init(a, b, c);
    op.CopyIn();
    SetFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    LoadData(op.a2Buf.Get<half>(), op.a1Buf.Get<half>(), LoadData2DParams(0, BLOCKS * BLOCKS, 1, 0, 0, false, 0));
    op.SplitB();
    SetFlag<HardEvent::MTE1_M>(EVENT_ID0);
    WaitFlag<HardEvent::MTE1_M>(EVENT_ID0);
    op.Compute();
    SetFlag<HardEvent::M_FIX>(EVENT_ID0);
    WaitFlag<HardEvent::M_FIX>(EVENT_ID0);
    op.CopyOut();
}
