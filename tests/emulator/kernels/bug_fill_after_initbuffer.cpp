// acemu-test: entry=bug_fill_after_initbuffer args=2
// Fill is only supported before the first InitBuffer (reference: Fill).
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void bug_fill_after_initbuffer(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> a;
    pipe.InitBuffer(a, 256);
    GlobalTensor<float> yGm;
    yGm.SetGlobalBuffer((__gm__ float*)y, 64);
    Fill(yGm, 64, 1.0f);  // FINDING: api-misuse
    (void)x;
}
