// acemu-test: entry=atomic_sum args=3
// Sum of a vector across cores: each core reduces its slice with ReduceSum and adds the partial
// sum into the single GM result with SetAtomicAdd (the host zero-fills the output).
#include "kernel_operator.h"
using namespace AscendC;

class KernelAtomicSum {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR out, uint32_t blockLength)
    {
        this->blockLength = blockLength;
        xGm.SetGlobalBuffer((__gm__ float *)x + uint64_t(blockLength) * GetBlockIdx(), blockLength);
        outGm.SetGlobalBuffer((__gm__ float *)out, 8);
        pipe.InitBuffer(inQueue, 1, blockLength * sizeof(float));
        pipe.InitBuffer(outQueue, 1, 32);
        pipe.InitBuffer(workBuf, blockLength * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
        DataCopy(xLocal, xGm, blockLength);
        inQueue.EnQue(xLocal);

        xLocal = inQueue.DeQue<float>();
        LocalTensor<float> partial = outQueue.AllocTensor<float>();
        LocalTensor<float> work = workBuf.Get<float>();
        ReduceSum(partial, xLocal, work, blockLength);
        outQueue.EnQue(partial);
        inQueue.FreeTensor(xLocal);

        partial = outQueue.DeQue<float>();
        SetAtomicAdd<float>();
        DataCopyPad(outGm, partial, DataCopyExtParams{1, sizeof(float), 0, 0, 0});
        SetAtomicNone();
        outQueue.FreeTensor(partial);
    }

private:
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQueue;
    TQue<TPosition::VECOUT, 1> outQueue;
    TBuf<TPosition::VECCALC> workBuf;
    GlobalTensor<float> xGm, outGm;
    uint32_t blockLength = 0;
};

extern "C" __global__ __aicore__ void atomic_sum(GM_ADDR x, GM_ADDR out, GM_ADDR tiling)
{
    uint32_t total = *reinterpret_cast<__gm__ uint32_t *>(tiling);
    KernelAtomicSum op;
    op.Init(x, out, total / GetBlockNum());
    op.Process();
}
