// acemu-test: entry=bug_repeat_overflow args=2
// BUG: 300 repeats of 64 floats in one repeat-form call; the 8-bit repeat field keeps 44.
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t N = 300 * 64;

extern "C" __global__ __aicore__ void bug_repeat_overflow(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQueue;
    TQue<TPosition::VECOUT, 1> outQueue;
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, N);
    yGm.SetGlobalBuffer((__gm__ float *)y, N);
    pipe.InitBuffer(inQueue, 1, N * sizeof(float));
    pipe.InitBuffer(outQueue, 1, N * sizeof(float));
    LocalTensor<float> a = inQueue.AllocTensor<float>();
    DataCopy(a, xGm, N);
    inQueue.EnQue(a);
    a = inQueue.DeQue<float>();
    LocalTensor<float> b = outQueue.AllocTensor<float>();
    Duplicate(b, 0.0f, N);
    int32_t repeat = N / 64;
    Muls(b, a, 2.0f, 64, repeat, UnaryRepeatParams{1, 1, 8, 8});  // FINDING: repeat-overflow
    outQueue.EnQue(b);
    inQueue.FreeTensor(a);
    b = outQueue.DeQue<float>();
    DataCopy(yGm, b, N);
    outQueue.FreeTensor(b);
}
