// acemu-test: entry=bug_gm_race args=2
// BUG: every core reads its own slice but writes to the start of y (the output offset is missing).
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t N = 256;  // per core

extern "C" __global__ __aicore__ void bug_gm_race(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQueue;
    TQue<TPosition::VECOUT, 1> outQueue;
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float *)x + N * GetBlockIdx(), N);
    yGm.SetGlobalBuffer((__gm__ float *)y, N);
    pipe.InitBuffer(inQueue, 1, N * sizeof(float));
    pipe.InitBuffer(outQueue, 1, N * sizeof(float));
    LocalTensor<float> a = inQueue.AllocTensor<float>();
    DataCopy(a, xGm, N);
    inQueue.EnQue(a);
    a = inQueue.DeQue<float>();
    LocalTensor<float> b = outQueue.AllocTensor<float>();
    Muls(b, a, 2.0f, N);
    outQueue.EnQue(b);
    inQueue.FreeTensor(a);
    b = outQueue.DeQue<float>();
    DataCopy(yGm, b, N);  // FINDING: gm-race
    outQueue.FreeTensor(b);
}
