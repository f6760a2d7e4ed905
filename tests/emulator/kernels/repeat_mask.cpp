// acemu-test: entry=repeat_mask args=4
// Mask/repeat forms on 4 repeats of 64 floats:
//   z: Duplicate -1 everywhere, then Add with a bit-mode mask selecting the even elements;
//   w: Muls x by 2 with a continuous mask of 32 (first half of every repeat), the rest copied by Adds 0.
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t N = 256;

class KernelRepeatMask {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR w)
    {
        xGm.SetGlobalBuffer((__gm__ float *)x, N);
        yGm.SetGlobalBuffer((__gm__ float *)y, N);
        zGm.SetGlobalBuffer((__gm__ float *)z, N);
        wGm.SetGlobalBuffer((__gm__ float *)w, N);
        pipe.InitBuffer(inQueue, 2, N * sizeof(float));
        pipe.InitBuffer(outQueue, 2, N * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
        LocalTensor<float> yLocal = inQueue.AllocTensor<float>();
        DataCopy(xLocal, xGm, N);
        DataCopy(yLocal, yGm, N);
        inQueue.EnQue(xLocal);
        inQueue.EnQue(yLocal);
        xLocal = inQueue.DeQue<float>();
        yLocal = inQueue.DeQue<float>();

        LocalTensor<float> zLocal = outQueue.AllocTensor<float>();
        LocalTensor<float> wLocal = outQueue.AllocTensor<float>();
        Duplicate(zLocal, -1.0f, N);
        uint64_t evenMask[2] = {0x5555555555555555ULL, 0};
        Add(zLocal, xLocal, yLocal, evenMask, 4, BinaryRepeatParams{1, 1, 1, 8, 8, 8});
        Adds(wLocal, xLocal, 0.0f, N);
        Muls(wLocal, xLocal, 2.0f, 32, 4, UnaryRepeatParams{1, 1, 8, 8});
        outQueue.EnQue(zLocal);
        outQueue.EnQue(wLocal);
        inQueue.FreeTensor(xLocal);
        inQueue.FreeTensor(yLocal);

        zLocal = outQueue.DeQue<float>();
        wLocal = outQueue.DeQue<float>();
        DataCopy(zGm, zLocal, N);
        DataCopy(wGm, wLocal, N);
        outQueue.FreeTensor(zLocal);
        outQueue.FreeTensor(wLocal);
    }

private:
    TPipe pipe;
    TQue<TPosition::VECIN, 2> inQueue;
    TQue<TPosition::VECOUT, 2> outQueue;
    GlobalTensor<float> xGm, yGm, zGm, wGm;
};

extern "C" __global__ __aicore__ void repeat_mask(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR w)
{
    KernelRepeatMask op;
    op.Init(x, y, z, w);
    op.Process();
}
