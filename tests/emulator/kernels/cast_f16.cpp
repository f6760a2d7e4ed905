// acemu-test: entry=cast_scale args=3
// y(half) = half(float(x) * 2.5 + 1): fp16 -> fp32 Cast, math in fp32, fp32 -> fp16 Cast (round to nearest even).
#include "kernel_operator.h"
using namespace AscendC;

struct CastTiling {
    uint32_t blockLength;
    uint32_t tileLength;
};
REGISTER_TILING_DEFAULT(CastTiling);

class KernelCastScale {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t blockLength, uint32_t tileLength)
    {
        this->blockLength = blockLength;
        this->tileLength = tileLength;
        xGm.SetGlobalBuffer((__gm__ half *)x + blockLength * GetBlockIdx(), blockLength);
        yGm.SetGlobalBuffer((__gm__ half *)y + blockLength * GetBlockIdx(), blockLength);
        pipe.InitBuffer(inQueue, 2, tileLength * sizeof(half));
        pipe.InitBuffer(outQueue, 2, tileLength * sizeof(half));
        pipe.InitBuffer(f32Buf, tileLength * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < blockLength / tileLength; i++) {
            LocalTensor<half> xLocal = inQueue.AllocTensor<half>();
            DataCopy(xLocal, xGm[i * tileLength], tileLength);
            inQueue.EnQue(xLocal);

            xLocal = inQueue.DeQue<half>();
            LocalTensor<half> yLocal = outQueue.AllocTensor<half>();
            LocalTensor<float> f = f32Buf.Get<float>();
            Cast(f, xLocal, RoundMode::CAST_NONE, tileLength);
            Muls(f, f, 2.5f, tileLength);
            Adds(f, f, 1.0f, tileLength);
            Cast(yLocal, f, RoundMode::CAST_RINT, tileLength);
            outQueue.EnQue(yLocal);
            inQueue.FreeTensor(xLocal);

            yLocal = outQueue.DeQue<half>();
            DataCopy(yGm[i * tileLength], yLocal, tileLength);
            outQueue.FreeTensor(yLocal);
        }
    }

private:
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQueue;
    TQue<TPosition::VECOUT, 1> outQueue;
    TBuf<TPosition::VECCALC> f32Buf;
    GlobalTensor<half> xGm, yGm;
    uint32_t blockLength = 0, tileLength = 0;
};

extern "C" __global__ __aicore__ void cast_scale(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelCastScale op;
    op.Init(x, y, t.blockLength, t.tileLength);
    op.Process();
}
