// acemu-test: entry=bf16_add args=4
// bfloat16 add computed in float: Cast bf16 -> f32 (exact), Add, Cast f32 -> bf16 (CAST_RINT).
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t TILE = 512;

class KernelBf16Add {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t blockLength)
    {
        this->blockLength = blockLength;
        uint64_t offset = uint64_t(blockLength) * GetBlockIdx();
        xGm.SetGlobalBuffer((__gm__ bfloat16_t *)x + offset, blockLength);
        yGm.SetGlobalBuffer((__gm__ bfloat16_t *)y + offset, blockLength);
        zGm.SetGlobalBuffer((__gm__ bfloat16_t *)z + offset, blockLength);
        pipe.InitBuffer(inX, 1, TILE * sizeof(bfloat16_t));
        pipe.InitBuffer(inY, 1, TILE * sizeof(bfloat16_t));
        pipe.InitBuffer(outZ, 1, TILE * sizeof(bfloat16_t));
        pipe.InitBuffer(fx, TILE * sizeof(float));
        pipe.InitBuffer(fy, TILE * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < blockLength / TILE; i++) {
            LocalTensor<bfloat16_t> a = inX.AllocTensor<bfloat16_t>();
            LocalTensor<bfloat16_t> b = inY.AllocTensor<bfloat16_t>();
            DataCopy(a, xGm[i * TILE], TILE);
            DataCopy(b, yGm[i * TILE], TILE);
            inX.EnQue(a);
            inY.EnQue(b);

            a = inX.DeQue<bfloat16_t>();
            b = inY.DeQue<bfloat16_t>();
            LocalTensor<bfloat16_t> c = outZ.AllocTensor<bfloat16_t>();
            LocalTensor<float> af = fx.Get<float>();
            LocalTensor<float> bf = fy.Get<float>();
            Cast(af, a, RoundMode::CAST_NONE, TILE);
            Cast(bf, b, RoundMode::CAST_NONE, TILE);
            Add(af, af, bf, TILE);
            Cast(c, af, RoundMode::CAST_RINT, TILE);
            outZ.EnQue(c);
            inX.FreeTensor(a);
            inY.FreeTensor(b);

            c = outZ.DeQue<bfloat16_t>();
            DataCopy(zGm[i * TILE], c, TILE);
            outZ.FreeTensor(c);
        }
    }

private:
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inX, inY;
    TQue<TPosition::VECOUT, 1> outZ;
    TBuf<TPosition::VECCALC> fx, fy;
    GlobalTensor<bfloat16_t> xGm, yGm, zGm;
    uint32_t blockLength = 0;
};

extern "C" __global__ __aicore__ void bf16_add(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR tiling)
{
    uint32_t total = *reinterpret_cast<__gm__ uint32_t *>(tiling);
    KernelBf16Add op;
    op.Init(x, y, z, total / GetBlockNum());
    op.Process();
}
