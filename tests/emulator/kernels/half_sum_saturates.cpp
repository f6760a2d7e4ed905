// acemu-test: entry=half_sum_saturates args=2
// ReduceSum of half [60000, 60000, -30000, 100]: 60000 + 60000 saturates at 65504 (reference:
// ReduceSum), so the sum is 65504 - 29900 = 35604, each addition rounded to half.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void half_sum_saturates(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> a, b, w;
    pipe.InitBuffer(a, 256);
    pipe.InitBuffer(b, 32);
    pipe.InitBuffer(w, 256);
    GlobalTensor<half> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ half*)x, 16);
    yGm.SetGlobalBuffer((__gm__ half*)y, 16);
    LocalTensor<half> s = a.Get<half>();
    LocalTensor<half> d = b.Get<half>();
    LocalTensor<half> work = w.Get<half>();
    DataCopy(s, xGm, 16);
    PipeBarrier<PIPE_ALL>();  // the pipes (MTE2 / V / MTE3) run in parallel: order them
    Duplicate(d, half(0), 16);
    ReduceSum(d, s, work, 4);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yGm, d, 16);
}
