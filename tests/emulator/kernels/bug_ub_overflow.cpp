// acemu-test: entry=bug_ub_overflow args=2
// BUG: two double-buffered queues of 50 KiB each = 200 KiB, more than the 910B's 192 KiB of UB.
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t TILE = 12800;  // floats = 50 KiB

extern "C" __global__ __aicore__ void bug_ub_overflow(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQueue;
    TQue<TPosition::VECOUT, 1> outQueue;
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, TILE);
    yGm.SetGlobalBuffer((__gm__ float *)y, TILE);
    pipe.InitBuffer(inQueue, 2, TILE * sizeof(float));
    pipe.InitBuffer(outQueue, 2, TILE * sizeof(float));  // FINDING: ub-overflow
    LocalTensor<float> a = inQueue.AllocTensor<float>();
    DataCopy(a, xGm, TILE);
    inQueue.EnQue(a);
    a = inQueue.DeQue<float>();
    LocalTensor<float> b = outQueue.AllocTensor<float>();
    Muls(b, a, 2.0f, TILE);
    outQueue.EnQue(b);
    inQueue.FreeTensor(a);
    b = outQueue.DeQue<float>();
    DataCopy(yGm, b, TILE);
    outQueue.FreeTensor(b);
}
