// acemu-test: entry=scale_tail args=3
// y = 3x + 1 over a length that does not divide by the core count: every core but the last
// takes an aligned chunk, the last takes the rest (unaligned: DataCopyPad).
#include "kernel_operator.h"
using namespace AscendC;

struct TailTiling {
    uint32_t totalLength;
    uint32_t chunk;  // elements per core except the last, a multiple of 8
};
REGISTER_TILING_DEFAULT(TailTiling);

class KernelScaleTail {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const TailTiling& t)
    {
        uint32_t idx = GetBlockIdx();
        uint64_t start = uint64_t(t.chunk) * idx;
        length = idx + 1 == GetBlockNum() ? t.totalLength - t.chunk * idx : t.chunk;
        xGm.SetGlobalBuffer((__gm__ float *)x + start, length);
        yGm.SetGlobalBuffer((__gm__ float *)y + start, length);
        uint32_t bytes = (length * sizeof(float) + 31) / 32 * 32;
        pipe.InitBuffer(inQueue, 1, bytes);
        pipe.InitBuffer(outQueue, 1, bytes);
    }
    __aicore__ inline void Process()
    {
        DataCopyExtParams params{1, static_cast<uint32_t>(length * sizeof(float)), 0, 0, 0};
        LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
        DataCopyPad(xLocal, xGm, params, DataCopyPadExtParams<float>{false, 0, 0, 0.0f});
        inQueue.EnQue(xLocal);

        xLocal = inQueue.DeQue<float>();
        LocalTensor<float> yLocal = outQueue.AllocTensor<float>();
        Muls(yLocal, xLocal, 3.0f, length);
        Adds(yLocal, yLocal, 1.0f, length);
        outQueue.EnQue(yLocal);
        inQueue.FreeTensor(xLocal);

        yLocal = outQueue.DeQue<float>();
        DataCopyPad(yGm, yLocal, params);
        outQueue.FreeTensor(yLocal);
    }

private:
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQueue;
    TQue<TPosition::VECOUT, 1> outQueue;
    GlobalTensor<float> xGm, yGm;
    uint32_t length = 0;
};

extern "C" __global__ __aicore__ void scale_tail(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelScaleTail op;
    op.Init(x, y, t);
    op.Process();
}
