// acemu-test: entry=bug_unaligned_fractal args=3
// Fixpipe in NZ layout (CFG_NZ) moves whole 16-wide columns: nSize = 24 is not one.
#include "cube_bug_common.h"

extern "C" __global__ __aicore__ void bug_unaligned_fractal(GM_ADDR a, GM_ADDR b, GM_ADDR c)
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
    op.Compute();
    SetFlag<HardEvent::M_FIX>(EVENT_ID0);
    WaitFlag<HardEvent::M_FIX>(EVENT_ID0);
    Fixpipe<float, float, CFG_NZ>(op.cGm, op.c1Buf.Get<float>(), FixpipeParamsV220(24, M, M, M * 16 * sizeof(float) / 32));  // FINDING: unaligned-fractal
}
