// acemu-test: entry=bug_queue_misuse args=2
// BUG: CopyIn forgets EnQue, so Compute's DeQue finds the queue empty (on the NPU it hangs).
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t N = 64;

class KernelForgotEnQue {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y)
    {
        xGm.SetGlobalBuffer((__gm__ float *)x, N);
        yGm.SetGlobalBuffer((__gm__ float *)y, N);
        pipe.InitBuffer(inQueue, 1, N * sizeof(float));
        pipe.InitBuffer(outQueue, 1, N * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        LocalTensor<float> a = inQueue.AllocTensor<float>();
        DataCopy(a, xGm, N);
        a = inQueue.DeQue<float>();  // FINDING: queue-misuse
        LocalTensor<float> b = outQueue.AllocTensor<float>();
        Muls(b, a, 2.0f, N);
        outQueue.EnQue(b);
        inQueue.FreeTensor(a);
        b = outQueue.DeQue<float>();
        DataCopy(yGm, b, N);
        outQueue.FreeTensor(b);
    }

private:
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQueue;
    TQue<TPosition::VECOUT, 1> outQueue;
    GlobalTensor<float> xGm, yGm;
};

extern "C" __global__ __aicore__ void bug_queue_misuse(GM_ADDR x, GM_ADDR y)
{
    KernelForgotEnQue op;
    op.Init(x, y);
    op.Process();
}
