// acemu-test: entry=reduce_index args=3
// ReduceMax / ReduceMin over 1000 floats with calIndex: value in [0], index bits in [1].
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t N = 1000;

extern "C" __global__ __aicore__ void reduce_index(GM_ADDR x, GM_ADDR mx, GM_ADDR mn)
{
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQueue;
    TQue<TPosition::VECOUT, 2> outQueue;  // two results wait in it at once
    TBuf<TPosition::VECCALC> workBuf;
    GlobalTensor<float> xGm, maxGm, minGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, N);
    maxGm.SetGlobalBuffer((__gm__ float *)mx, 8);
    minGm.SetGlobalBuffer((__gm__ float *)mn, 8);
    pipe.InitBuffer(inQueue, 1, N * sizeof(float));
    pipe.InitBuffer(outQueue, 2, 32);
    pipe.InitBuffer(workBuf, N * sizeof(float));

    LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
    DataCopy(xLocal, xGm, N);
    inQueue.EnQue(xLocal);
    xLocal = inQueue.DeQue<float>();
    LocalTensor<float> work = workBuf.Get<float>();
    LocalTensor<float> maxLocal = outQueue.AllocTensor<float>();
    LocalTensor<float> minLocal = outQueue.AllocTensor<float>();
    Duplicate(maxLocal, 0.0f, 8);
    Duplicate(minLocal, 0.0f, 8);
    ReduceMax(maxLocal, xLocal, work, N, true);
    ReduceMin(minLocal, xLocal, work, N, true);
    outQueue.EnQue(maxLocal);
    outQueue.EnQue(minLocal);
    inQueue.FreeTensor(xLocal);

    maxLocal = outQueue.DeQue<float>();
    minLocal = outQueue.DeQue<float>();
    DataCopy(maxGm, maxLocal, 8);
    DataCopy(minGm, minLocal, 8);
    outQueue.FreeTensor(maxLocal);
    outQueue.FreeTensor(minLocal);
}
