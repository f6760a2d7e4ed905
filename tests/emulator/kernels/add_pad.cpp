// acemu-test: entry=add_pad args=4
// z = x + y where each core's slice (250 floats = 1000 B) is not a multiple of 32 B:
// DataCopyPad moves the exact bytes in and out.
#include "kernel_operator.h"
using namespace AscendC;

struct AddPadTiling {
    uint32_t blockLength;  // elements per core
};
REGISTER_TILING_DEFAULT(AddPadTiling);

class KernelAddPad {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t blockLength)
    {
        this->blockLength = blockLength;
        uint64_t offset = uint64_t(blockLength) * GetBlockIdx();
        xGm.SetGlobalBuffer((__gm__ float *)x + offset, blockLength);
        yGm.SetGlobalBuffer((__gm__ float *)y + offset, blockLength);
        zGm.SetGlobalBuffer((__gm__ float *)z + offset, blockLength);
        uint32_t alignedBytes = (blockLength * sizeof(float) + 31) / 32 * 32;
        pipe.InitBuffer(inQueueX, 1, alignedBytes);
        pipe.InitBuffer(inQueueY, 1, alignedBytes);
        pipe.InitBuffer(outQueueZ, 1, alignedBytes);
    }
    __aicore__ inline void Process()
    {
        CopyIn();
        Compute();
        CopyOut();
    }

private:
    __aicore__ inline void CopyIn()
    {
        LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        LocalTensor<float> yLocal = inQueueY.AllocTensor<float>();
        DataCopyExtParams copyParams{1, static_cast<uint32_t>(blockLength * sizeof(float)), 0, 0, 0};
        DataCopyPadExtParams<float> padParams{true, 0, 0, 0.0f};
        DataCopyPad(xLocal, xGm, copyParams, padParams);
        DataCopyPad(yLocal, yGm, copyParams, padParams);
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }
    __aicore__ inline void Compute()
    {
        LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        LocalTensor<float> yLocal = inQueueY.DeQue<float>();
        LocalTensor<float> zLocal = outQueueZ.AllocTensor<float>();
        Add(zLocal, xLocal, yLocal, blockLength);
        outQueueZ.EnQue(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }
    __aicore__ inline void CopyOut()
    {
        LocalTensor<float> zLocal = outQueueZ.DeQue<float>();
        DataCopyExtParams copyParams{1, static_cast<uint32_t>(blockLength * sizeof(float)), 0, 0, 0};
        DataCopyPad(zGm, zLocal, copyParams);
        outQueueZ.FreeTensor(zLocal);
    }

    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQueueX, inQueueY;
    TQue<TPosition::VECOUT, 1> outQueueZ;
    GlobalTensor<float> xGm, yGm, zGm;
    uint32_t blockLength = 0;
};

extern "C" __global__ __aicore__ void add_pad(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelAddPad op;
    op.Init(x, y, z, tilingData.blockLength);
    op.Process();
}
