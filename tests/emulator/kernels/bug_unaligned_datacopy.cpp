// acemu-test: entry=bug_unaligned_datacopy args=2
// BUG: copies 25 floats = 100 B with DataCopy; the hardware moves 96 B and the last float is lost.
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t N = 25;

extern "C" __global__ __aicore__ void bug_unaligned_datacopy(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQueue;
    TQue<TPosition::VECOUT, 1> outQueue;
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, N);
    yGm.SetGlobalBuffer((__gm__ float *)y, N);
    pipe.InitBuffer(inQueue, 1, 128);
    pipe.InitBuffer(outQueue, 1, 128);
    LocalTensor<float> a = inQueue.AllocTensor<float>();
    DataCopy(a, xGm, N);  // FINDING: unaligned-datacopy
    inQueue.EnQue(a);
    a = inQueue.DeQue<float>();
    LocalTensor<float> b = outQueue.AllocTensor<float>();
    Muls(b, a, 2.0f, 24);
    outQueue.EnQue(b);
    inQueue.FreeTensor(a);
    b = outQueue.DeQue<float>();
    DataCopyPad(yGm, b, DataCopyExtParams{1, 24 * sizeof(float), 0, 0, 0});
    outQueue.FreeTensor(b);
}
