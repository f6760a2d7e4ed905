// acemu-test: entry=gelu_tanh args=3
// GELU, tanh formula: y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))),
// with tanh(u) = 1 - 2 / (exp(2u) + 1). Tiles of tileLength, double-buffered queues.
#include "kernel_operator.h"
using namespace AscendC;

struct GeluTiling {
    uint32_t totalLength;
    uint32_t tileLength;
};
REGISTER_TILING_DEFAULT(GeluTiling);

class KernelGelu {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t tileLength)
    {
        blockLength = totalLength / GetBlockNum();
        this->tileLength = tileLength;
        xGm.SetGlobalBuffer((__gm__ float *)x + uint64_t(blockLength) * GetBlockIdx(), blockLength);
        yGm.SetGlobalBuffer((__gm__ float *)y + uint64_t(blockLength) * GetBlockIdx(), blockLength);
        pipe.InitBuffer(inQueue, 2, tileLength * sizeof(float));
        pipe.InitBuffer(outQueue, 2, tileLength * sizeof(float));
        pipe.InitBuffer(tmpBuf, tileLength * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < blockLength / tileLength; i++) {
            CopyIn(i);
            Compute();
            CopyOut(i);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t i)
    {
        LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
        DataCopy(xLocal, xGm[i * tileLength], tileLength);
        inQueue.EnQue(xLocal);
    }
    __aicore__ inline void Compute()
    {
        const float k = 0.7978845608f;  // sqrt(2 / pi)
        LocalTensor<float> x = inQueue.DeQue<float>();
        LocalTensor<float> y = outQueue.AllocTensor<float>();
        LocalTensor<float> t = tmpBuf.Get<float>();
        Mul(t, x, x, tileLength);
        Mul(t, t, x, tileLength);
        Muls(t, t, 0.044715f, tileLength);
        Add(t, t, x, tileLength);          // u / k
        Muls(t, t, 2.0f * k, tileLength);  // 2u
        Exp(t, t, tileLength);
        Adds(t, t, 1.0f, tileLength);
        Reciprocal(t, t, tileLength);
        Muls(t, t, -2.0f, tileLength);
        Adds(t, t, 2.0f, tileLength);      // 1 + tanh(u)
        Mul(y, t, x, tileLength);
        Muls(y, y, 0.5f, tileLength);
        outQueue.EnQue(y);
        inQueue.FreeTensor(x);
    }
    __aicore__ inline void CopyOut(uint32_t i)
    {
        LocalTensor<float> y = outQueue.DeQue<float>();
        DataCopy(yGm[i * tileLength], y, tileLength);
        outQueue.FreeTensor(y);
    }

    TPipe pipe;
    TQue<TPosition::VECIN, 2> inQueue;
    TQue<TPosition::VECOUT, 2> outQueue;
    TBuf<TPosition::VECCALC> tmpBuf;
    GlobalTensor<float> xGm, yGm;
    uint32_t blockLength = 0, tileLength = 0;
};

extern "C" __global__ __aicore__ void gelu_tanh(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelGelu op;
    op.Init(x, y, t.totalLength, t.tileLength);
    op.Process();
}
