// acemu-test: entry=compare_select args=5
// z = where(x > y, x, 0.5 * y) with Compare + Select (tensor/tensor), and
// r = where(x >= 0, x, -1) with CompareScalar + Select (tensor/scalar).
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t TILE = 256;  // 256 floats = 1 KiB: Compare needs whole 256-B repeats

class KernelCompareSelect {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR r, uint32_t blockLength)
    {
        this->blockLength = blockLength;
        uint64_t offset = uint64_t(blockLength) * GetBlockIdx();
        xGm.SetGlobalBuffer((__gm__ float *)x + offset, blockLength);
        yGm.SetGlobalBuffer((__gm__ float *)y + offset, blockLength);
        zGm.SetGlobalBuffer((__gm__ float *)z + offset, blockLength);
        rGm.SetGlobalBuffer((__gm__ float *)r + offset, blockLength);
        pipe.InitBuffer(inX, 1, TILE * sizeof(float));
        pipe.InitBuffer(inY, 1, TILE * sizeof(float));
        pipe.InitBuffer(outZ, 1, TILE * sizeof(float));
        pipe.InitBuffer(outR, 1, TILE * sizeof(float));
        pipe.InitBuffer(maskBuf, TILE / 8);
        pipe.InitBuffer(halfYBuf, TILE * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < blockLength / TILE; i++) {
            CopyIn(i);
            Compute();
            CopyOut(i);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t i)
    {
        LocalTensor<float> xLocal = inX.AllocTensor<float>();
        LocalTensor<float> yLocal = inY.AllocTensor<float>();
        DataCopy(xLocal, xGm[i * TILE], TILE);
        DataCopy(yLocal, yGm[i * TILE], TILE);
        inX.EnQue(xLocal);
        inY.EnQue(yLocal);
    }
    __aicore__ inline void Compute()
    {
        LocalTensor<float> xLocal = inX.DeQue<float>();
        LocalTensor<float> yLocal = inY.DeQue<float>();
        LocalTensor<float> zLocal = outZ.AllocTensor<float>();
        LocalTensor<float> rLocal = outR.AllocTensor<float>();
        LocalTensor<uint8_t> mask = maskBuf.Get<uint8_t>();
        LocalTensor<float> halfY = halfYBuf.Get<float>();
        Compare(mask, xLocal, yLocal, CMPMODE::GT, TILE);
        Muls(halfY, yLocal, 0.5f, TILE);
        Select(zLocal, mask, xLocal, halfY, SELMODE::VSEL_TENSOR_TENSOR_MODE, TILE);
        CompareScalar(mask, xLocal, 0.0f, CMPMODE::GE, TILE);
        Select(rLocal, mask, xLocal, -1.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, TILE);
        outZ.EnQue(zLocal);
        outR.EnQue(rLocal);
        inX.FreeTensor(xLocal);
        inY.FreeTensor(yLocal);
    }
    __aicore__ inline void CopyOut(uint32_t i)
    {
        LocalTensor<float> zLocal = outZ.DeQue<float>();
        LocalTensor<float> rLocal = outR.DeQue<float>();
        DataCopy(zGm[i * TILE], zLocal, TILE);
        DataCopy(rGm[i * TILE], rLocal, TILE);
        outZ.FreeTensor(zLocal);
        outR.FreeTensor(rLocal);
    }

    TPipe pipe;
    TQue<TPosition::VECIN, 1> inX, inY;
    TQue<TPosition::VECOUT, 1> outZ, outR;
    TBuf<TPosition::VECCALC> maskBuf, halfYBuf;
    GlobalTensor<float> xGm, yGm, zGm, rGm;
    uint32_t blockLength = 0;
};

extern "C" __global__ __aicore__ void compare_select(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR r, GM_ADDR tiling)
{
    uint32_t blockLength = *reinterpret_cast<__gm__ uint32_t *>(tiling);
    KernelCompareSelect op;
    op.Init(x, y, z, r, blockLength);
    op.Process();
}
