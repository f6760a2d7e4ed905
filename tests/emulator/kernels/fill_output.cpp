// acemu-test: entry=fill_output args=2
// Fill (InitGlobalMemory) before InitBuffer: each core sets its 256 floats of y to its block index,
// then adds x to them through UB.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void fill_output(GM_ADDR x, GM_ADDR y)
{
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x + 256 * GetBlockIdx(), 256);
    yGm.SetGlobalBuffer((__gm__ float*)y + 256 * GetBlockIdx(), 256);
    InitGlobalMemory(yGm, 256, float(GetBlockIdx()));
    TPipe pipe;
    TBuf<TPosition::VECCALC> a, b;
    pipe.InitBuffer(a, 256 * sizeof(float));
    pipe.InitBuffer(b, 256 * sizeof(float));
    LocalTensor<float> xs = a.Get<float>();
    LocalTensor<float> ys = b.Get<float>();
    DataCopy(xs, xGm, 256);
    DataCopy(ys, yGm, 256);
    PipeBarrier<PIPE_ALL>();  // the pipes (MTE2 / V / MTE3) run in parallel: order them
    Add(ys, ys, xs, 256);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yGm, ys, 256);
}
