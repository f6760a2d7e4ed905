// acemu-test: entry=bug_uninit args=2
// BUG: the bias TBuf is never filled before it is added.
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t N = 64;

extern "C" __global__ __aicore__ void bug_uninit(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQueue;
    TQue<TPosition::VECOUT, 1> outQueue;
    TBuf<TPosition::VECCALC> biasBuf;
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, N);
    yGm.SetGlobalBuffer((__gm__ float *)y, N);
    pipe.InitBuffer(inQueue, 1, N * sizeof(float));
    pipe.InitBuffer(outQueue, 1, N * sizeof(float));
    pipe.InitBuffer(biasBuf, N * sizeof(float));
    LocalTensor<float> a = inQueue.AllocTensor<float>();
    DataCopy(a, xGm, N);
    inQueue.EnQue(a);
    a = inQueue.DeQue<float>();
    LocalTensor<float> b = outQueue.AllocTensor<float>();
    LocalTensor<float> bias = biasBuf.Get<float>();
    Add(b, a, bias, N);  // FINDING: uninitialised-ub-read
    outQueue.EnQue(b);
    inQueue.FreeTensor(a);
    b = outQueue.DeQue<float>();
    DataCopy(yGm, b, N);
    outQueue.FreeTensor(b);
}
