// acemu-test: entry=pattern_rms_norm args=4
// y = x / sqrt(mean(x^2 over the row) + eps) on a [rows, cols] tile per core, in the style of an
// agent-written rms_norm: the row sums come from the high-level ReduceSum<T, Pattern::Reduce::AR>,
// the per-row factor is spread over the row with Broadcast<T, 2, 1>.
#include "kernel_operator.h"

struct RmsTiling {
    uint32_t rowsPerCore;
    uint32_t cols;
    float eps;
};

class KernelPatternRmsNorm {
public:
    __aicore__ inline KernelPatternRmsNorm() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const RmsTiling& t)
    {
        rows_ = t.rowsPerCore;
        cols_ = t.cols;
        eps_ = t.eps;
        uint32_t n = rows_ * cols_;
        xGm_.SetGlobalBuffer((__gm__ float*)x + AscendC::GetBlockIdx() * n, n);
        yGm_.SetGlobalBuffer((__gm__ float*)y + AscendC::GetBlockIdx() * n, n);
        pipe_.InitBuffer(inQ_, 1, n * sizeof(float));
        pipe_.InitBuffer(outQ_, 1, n * sizeof(float));
        pipe_.InitBuffer(sqBuf_, n * sizeof(float));
        pipe_.InitBuffer(rowBuf_, (rows_ + 7) / 8 * 32);
        pipe_.InitBuffer(tmpBuf_, 1024);
    }
    __aicore__ inline void Process()
    {
        uint32_t n = rows_ * cols_;
        AscendC::LocalTensor<float> x = inQ_.AllocTensor<float>();
        AscendC::DataCopy(x, xGm_, n);
        inQ_.EnQue(x);
        x = inQ_.DeQue<float>();
        AscendC::LocalTensor<float> sq = sqBuf_.Get<float>();
        AscendC::LocalTensor<float> rowv = rowBuf_.Get<float>();
        AscendC::LocalTensor<uint8_t> tmp = tmpBuf_.Get<uint8_t>();
        AscendC::Mul(sq, x, x, n);
        AscendC::PipeBarrier<PIPE_V>();
        uint32_t srcShape[2] = {rows_, cols_};
        AscendC::ReduceSum<float, AscendC::Pattern::Reduce::AR, true>(rowv, sq, tmp, srcShape, true);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Muls(rowv, rowv, 1.0f / cols_, rows_);
        AscendC::Adds(rowv, rowv, eps_, rows_);
        AscendC::Sqrt(rowv, rowv, rows_);
        AscendC::PipeBarrier<PIPE_V>();
        uint32_t dstShape[2] = {rows_, cols_};
        uint32_t brcShape[2] = {rows_, 1};
        AscendC::Broadcast<float, 2, 1>(sq, rowv, dstShape, brcShape, tmp);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::LocalTensor<float> y = outQ_.AllocTensor<float>();
        AscendC::Div(y, x, sq, n);
        inQ_.FreeTensor(x);
        outQ_.EnQue(y);
        y = outQ_.DeQue<float>();
        AscendC::DataCopy(yGm_, y, n);
        outQ_.FreeTensor(y);
    }

private:
    AscendC::TPipe pipe_;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQ_;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQ_;
    AscendC::TBuf<AscendC::QuePosition::VECCALC> sqBuf_, rowBuf_, tmpBuf_;
    AscendC::GlobalTensor<float> xGm_, yGm_;
    uint32_t rows_ = 0, cols_ = 0;
    float eps_ = 0.0f;
};

extern "C" __global__ __aicore__ void pattern_rms_norm(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    (void)workspace;
    GET_TILING_DATA_WITH_STRUCT(RmsTiling, t, tiling);
    KernelPatternRmsNorm op;
    op.Init(x, y, t);
    op.Process();
}
