// acemu-test: entry=row_sum args=4
// y[r] = sum(x[r, :]) with each row padded with zeros to a C0-aligned length, in the style of an
// agent-written norm kernel: the alignment comes from AscendC::DEFAULT_C0_SIZE.
#include "kernel_operator.h"
using namespace AscendC;

struct RowSumTiling {
    uint32_t rows;
    uint32_t cols;
};

template <typename T>
class RowSum {
public:
    __aicore__ inline RowSum() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t cols)
    {
        constexpr uint32_t alignElems = AscendC::DEFAULT_C0_SIZE / sizeof(T);
        rows_ = rows;
        cols_ = cols;
        alignedCols_ = (cols + alignElems - 1) / alignElems * alignElems;
        xGm_.SetGlobalBuffer((__gm__ T *)x, rows * cols);
        yGm_.SetGlobalBuffer((__gm__ T *)y, rows);
        pipe_.InitBuffer(inQueue_, 1, alignedCols_ * sizeof(T));
        pipe_.InitBuffer(sumBuf_, 32);
        pipe_.InitBuffer(workBuf_, alignedCols_ * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t r = GetBlockIdx(); r < rows_; r += GetBlockNum()) {
            LocalTensor<T> xLocal = inQueue_.AllocTensor<T>();
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(cols_ * sizeof(T)), 0, 0, 0};
            DataCopyPadExtParams<T> padParams{true, 0, static_cast<uint8_t>(alignedCols_ - cols_), 0};
            DataCopyPad(xLocal, xGm_[r * cols_], copyParams, padParams);
            inQueue_.EnQue(xLocal);
            xLocal = inQueue_.DeQue<T>();
            LocalTensor<T> sum = sumBuf_.Get<T>();
            LocalTensor<T> work = workBuf_.Get<T>();
            ReduceSum(sum, xLocal, work, alignedCols_);
            inQueue_.FreeTensor(xLocal);
            yGm_.SetValue(r, sum.GetValue(0));
        }
    }

private:
    TPipe pipe_;
    TQue<QuePosition::VECIN, 1> inQueue_;
    TBuf<QuePosition::VECCALC> sumBuf_, workBuf_;
    GlobalTensor<T> xGm_, yGm_;
    uint32_t rows_ = 0, cols_ = 0, alignedCols_ = 0;
};

extern "C" __global__ __aicore__ void row_sum(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    (void)workspace;
    GET_TILING_DATA_WITH_STRUCT(RowSumTiling, t, tiling);
    RowSum<float> op;
    op.Init(x, y, t.rows, t.cols);
    op.Process();
}
