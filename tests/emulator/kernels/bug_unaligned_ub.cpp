// acemu-test: entry=bug_unaligned_ub args=2
// BUG: the vector op starts 3 floats (12 B) into a UB buffer; UB operands must be 32-B aligned.
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t N = 64;

extern "C" __global__ __aicore__ void bug_unaligned_ub(GM_ADDR x, GM_ADDR y)
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
    Muls(b, a[3], 2.0f, 56);  // FINDING: unaligned-ub-address
    outQueue.EnQue(b);
    inQueue.FreeTensor(a);
    b = outQueue.DeQue<float>();
    DataCopy(yGm, b, N);
    outQueue.FreeTensor(b);
}
