// Kernel of AxpbyCustom: z = alpha * x + y over this core's share, UB-sized tiles, double buffered.
// The host's tiling key picks DataCopy (whole 32-B blocks) or DataCopyPad (a ragged tail).
#include "kernel_operator.h"

constexpr int32_t BUFFER_NUM = 2;

class KernelAxpby {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const AxpbyCustomTilingData& t)
    {
        const uint32_t start = t.blockLength * AscendC::GetBlockIdx();
        length_ = start < t.totalLength ? std::min(t.blockLength, t.totalLength - start) : 0;
        tile_ = t.tileLength;
        alpha_ = t.alpha;
        xGm_.SetGlobalBuffer((__gm__ float*)x + start, length_);
        yGm_.SetGlobalBuffer((__gm__ float*)y + start, length_);
        zGm_.SetGlobalBuffer((__gm__ float*)z + start, length_);
        pipe_.InitBuffer(inX_, BUFFER_NUM, tile_ * sizeof(float));
        pipe_.InitBuffer(inY_, BUFFER_NUM, tile_ * sizeof(float));
        pipe_.InitBuffer(outZ_, BUFFER_NUM, tile_ * sizeof(float));
    }
    template <bool PAD> __aicore__ inline void Process()
    {
        for (uint32_t off = 0; off < length_; off += tile_) {
            const uint32_t n = std::min(tile_, length_ - off);
            CopyIn<PAD>(off, n);
            Compute(n);
            CopyOut<PAD>(off, n);
        }
    }

private:
    template <bool PAD> __aicore__ inline void CopyIn(uint32_t off, uint32_t n)
    {
        AscendC::LocalTensor<float> x = inX_.AllocTensor<float>();
        AscendC::LocalTensor<float> y = inY_.AllocTensor<float>();
        if constexpr (PAD) {
            AscendC::DataCopyExtParams p{1, uint32_t(n * sizeof(float)), 0, 0, 0};
            AscendC::DataCopyPadExtParams<float> pad{false, 0, 0, 0.0f};
            AscendC::DataCopyPad(x, xGm_[off], p, pad);
            AscendC::DataCopyPad(y, yGm_[off], p, pad);
        } else {
            AscendC::DataCopy(x, xGm_[off], n);
            AscendC::DataCopy(y, yGm_[off], n);
        }
        inX_.EnQue(x);
        inY_.EnQue(y);
    }
    __aicore__ inline void Compute(uint32_t n)
    {
        AscendC::LocalTensor<float> x = inX_.DeQue<float>();
        AscendC::LocalTensor<float> y = inY_.DeQue<float>();
        AscendC::LocalTensor<float> z = outZ_.AllocTensor<float>();
        AscendC::Muls(z, x, alpha_, n);
        AscendC::Add(z, z, y, n);
        outZ_.EnQue(z);
        inX_.FreeTensor(x);
        inY_.FreeTensor(y);
    }
    template <bool PAD> __aicore__ inline void CopyOut(uint32_t off, uint32_t n)
    {
        AscendC::LocalTensor<float> z = outZ_.DeQue<float>();
        if constexpr (PAD) {
            AscendC::DataCopyExtParams p{1, uint32_t(n * sizeof(float)), 0, 0, 0};
            AscendC::DataCopyPad(zGm_[off], z, p);
        } else {
            AscendC::DataCopy(zGm_[off], z, n);
        }
        outZ_.FreeTensor(z);
    }

    AscendC::TPipe pipe_;
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inX_, inY_;
    AscendC::TQue<AscendC::QuePosition::VECOUT, BUFFER_NUM> outZ_;
    AscendC::GlobalTensor<float> xGm_, yGm_, zGm_;
    uint32_t length_ = 0, tile_ = 0;
    float alpha_ = 1.0f;
};

extern "C" __global__ __aicore__ void axpby_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    (void)workspace;
    GET_TILING_DATA(tilingData, tiling);
    KernelAxpby op;
    op.Init(x, y, z, tilingData);
    if (TILING_KEY_IS(1)) {
        op.Process<false>();
    } else if (TILING_KEY_IS(2)) {
        op.Process<true>();
    }
}
