// acemu-test: entry=masked_scale args=4
// y = x * scale on rows whose length is not a multiple of 32 B, in the style of serving-stack
// kernels: DataCopyPad with brace-initialised copy parameters and `{}` padding parameters.
#include "kernel_operator.h"

constexpr int32_t BUFFER_NUM = 2;

class MaskedScale {
public:
    __aicore__ inline MaskedScale() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t cols, float scale)
    {
        rows_ = rows;
        cols_ = cols;
        scale_ = scale;
        xGm_.SetGlobalBuffer((__gm__ float *)x, rows * cols);
        yGm_.SetGlobalBuffer((__gm__ float *)y, rows * cols);
        uint32_t alignedCols = (cols + 7) / 8 * 8;
        pipe_.InitBuffer(inQueue_, BUFFER_NUM, alignedCols * sizeof(float));
        pipe_.InitBuffer(outQueue_, BUFFER_NUM, alignedCols * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t r = AscendC::GetBlockIdx(); r < rows_; r += AscendC::GetBlockNum()) {
            uint32_t len = cols_ * sizeof(float);
            AscendC::LocalTensor<float> xLocal = inQueue_.AllocTensor<float>();
            if (r % 2 == 0) {
                AscendC::DataCopyPad(xLocal, xGm_[r * cols_], {1, len, 0, 0}, {});
            } else {  // the older parameter structs, as objects
                AscendC::DataCopyParams copyParams{1, static_cast<uint16_t>(len), 0, 0};
                AscendC::DataCopyPadParams padParams{false, 0, 0, 0};
                AscendC::DataCopyPad(xLocal, xGm_[r * cols_], copyParams, padParams);
            }
            inQueue_.EnQue(xLocal);
            xLocal = inQueue_.DeQue<float>();
            AscendC::LocalTensor<float> yLocal = outQueue_.AllocTensor<float>();
            AscendC::Muls(yLocal, xLocal, scale_, cols_);
            outQueue_.EnQue(yLocal);
            inQueue_.FreeTensor(xLocal);
            yLocal = outQueue_.DeQue<float>();
            if (r % 2 == 0) {
                AscendC::DataCopyPad(yGm_[r * cols_], yLocal, {1, len, 0, 0});
            } else {
                AscendC::DataCopyParams copyParams{1, static_cast<uint16_t>(len), 0, 0};
                AscendC::DataCopyPad(yGm_[r * cols_], yLocal, copyParams);
            }
            outQueue_.FreeTensor(yLocal);
        }
    }

private:
    AscendC::TPipe pipe_;
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inQueue_;
    AscendC::TQue<AscendC::QuePosition::VECOUT, BUFFER_NUM> outQueue_;
    AscendC::GlobalTensor<float> xGm_, yGm_;
    uint32_t rows_ = 0, cols_ = 0;
    float scale_ = 1.0f;
};

struct MaskedScaleTiling {
    uint32_t rows;
    uint32_t cols;
    float scale;
};

extern "C" __global__ __aicore__ void masked_scale(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    (void)workspace;
    MaskedScaleTiling t = *reinterpret_cast<__gm__ MaskedScaleTiling *>(tiling);
    MaskedScale op;
    op.Init(x, y, t.rows, t.cols, t.scale);
    op.Process();
}
