// A kernel-launch sample's kernel: z = x + y in half, 8 cores, the tiling passed by value.
#include "kernel_operator.h"

struct AddTiling {
    uint32_t blockLength;
    uint32_t tileLength;
};

constexpr int32_t BUFFER_NUM = 2;

class KernelAdd {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, AddTiling t)
    {
        tiling_ = t;
        xGm_.SetGlobalBuffer((__gm__ half*)x + t.blockLength * AscendC::GetBlockIdx(), t.blockLength);
        yGm_.SetGlobalBuffer((__gm__ half*)y + t.blockLength * AscendC::GetBlockIdx(), t.blockLength);
        zGm_.SetGlobalBuffer((__gm__ half*)z + t.blockLength * AscendC::GetBlockIdx(), t.blockLength);
        pipe_.InitBuffer(inX_, BUFFER_NUM, t.tileLength * sizeof(half));
        pipe_.InitBuffer(inY_, BUFFER_NUM, t.tileLength * sizeof(half));
        pipe_.InitBuffer(outZ_, BUFFER_NUM, t.tileLength * sizeof(half));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t off = 0; off < tiling_.blockLength; off += tiling_.tileLength) {
            AscendC::LocalTensor<half> x = inX_.AllocTensor<half>();
            AscendC::LocalTensor<half> y = inY_.AllocTensor<half>();
            AscendC::DataCopy(x, xGm_[off], tiling_.tileLength);
            AscendC::DataCopy(y, yGm_[off], tiling_.tileLength);
            inX_.EnQue(x);
            inY_.EnQue(y);
            x = inX_.DeQue<half>();
            y = inY_.DeQue<half>();
            AscendC::LocalTensor<half> z = outZ_.AllocTensor<half>();
            AscendC::Add(z, x, y, tiling_.tileLength);
            outZ_.EnQue(z);
            inX_.FreeTensor(x);
            inY_.FreeTensor(y);
            z = outZ_.DeQue<half>();
            AscendC::DataCopy(zGm_[off], z, tiling_.tileLength);
            outZ_.FreeTensor(z);
        }
    }

private:
    AscendC::TPipe pipe_;
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inX_, inY_;
    AscendC::TQue<AscendC::QuePosition::VECOUT, BUFFER_NUM> outZ_;
    AscendC::GlobalTensor<half> xGm_, yGm_, zGm_;
    AddTiling tiling_{};
};

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, AddTiling tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    KernelAdd op;
    op.Init(x, y, z, tiling);
    op.Process();
}

#ifndef ASCENDC_CPU_DEBUG
// The NPU build's launcher: bisheng syntax, kept out of the CPU-debug build.
void add_custom_do(uint32_t blockDim, void* stream, uint8_t* x, uint8_t* y, uint8_t* z, AddTiling tiling)
{
    add_custom<<<blockDim, nullptr, stream>>>(x, y, z, tiling);
}
#endif
