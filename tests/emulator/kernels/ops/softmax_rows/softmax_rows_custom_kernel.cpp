// Kernel of SoftmaxRowsCustom: ROWS_PER_STEP rows at a time through SoftMax (half data with float
// max and sum when x is half, all float otherwise).
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t ROWS_PER_STEP = 4;

template <typename T>
class KernelSoftmaxRows {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR mx, GM_ADDR sm, const SoftmaxRowsCustomTilingData& t)
    {
        rows_ = t.rowsPerCore;
        cols_ = t.cols;
        tiling_ = t.softmax;
        const uint64_t first = uint64_t(GetBlockIdx()) * rows_;
        xGm.SetGlobalBuffer((__gm__ T*)x + first * cols_, rows_ * cols_);
        yGm.SetGlobalBuffer((__gm__ T*)y + first * cols_, rows_ * cols_);
        maxGm.SetGlobalBuffer((__gm__ float*)mx + first * 8, rows_ * 8);
        sumGm.SetGlobalBuffer((__gm__ float*)sm + first * 8, rows_ * 8);
        pipe.InitBuffer(inQueue, 2, ROWS_PER_STEP * cols_ * sizeof(T));
        pipe.InitBuffer(outQueue, 2, ROWS_PER_STEP * cols_ * sizeof(T));
        pipe.InitBuffer(statQueue, 2, 2 * ROWS_PER_STEP * 8 * sizeof(float));
        pipe.InitBuffer(tmpBuf, t.tmpBytes);
    }
    __aicore__ inline void Process()
    {
        for (uint32_t r = 0; r < rows_; r += ROWS_PER_STEP) {
            LocalTensor<T> x = inQueue.AllocTensor<T>();
            DataCopy(x, xGm[r * cols_], ROWS_PER_STEP * cols_);
            inQueue.EnQue(x);
            x = inQueue.DeQue<T>();
            LocalTensor<T> y = outQueue.AllocTensor<T>();
            LocalTensor<float> stats = statQueue.AllocTensor<float>();
            LocalTensor<float> mx = stats, sm = stats[ROWS_PER_STEP * 8];
            SoftMaxShapeInfo shape = {ROWS_PER_STEP, cols_, ROWS_PER_STEP, cols_};
            SoftMax<T>(y, sm, mx, x, tmpBuf.Get<uint8_t>(), tiling_, shape);
            inQueue.FreeTensor(x);
            outQueue.EnQue(y);
            statQueue.EnQue(stats);
            y = outQueue.DeQue<T>();
            stats = statQueue.DeQue<float>();
            DataCopy(yGm[r * cols_], y, ROWS_PER_STEP * cols_);
            DataCopy(maxGm[r * 8], stats, ROWS_PER_STEP * 8);
            DataCopy(sumGm[r * 8], stats[ROWS_PER_STEP * 8], ROWS_PER_STEP * 8);
            outQueue.FreeTensor(y);
            statQueue.FreeTensor(stats);
        }
    }

private:
    TPipe pipe;
    TQue<TPosition::VECIN, 2> inQueue;
    TQue<TPosition::VECOUT, 2> outQueue, statQueue;
    TBuf<TPosition::VECCALC> tmpBuf;
    GlobalTensor<T> xGm, yGm;
    GlobalTensor<float> maxGm, sumGm;
    SoftMaxTiling tiling_;
    uint32_t rows_ = 0, cols_ = 0;
};

extern "C" __global__ __aicore__ void softmax_rows_custom(GM_ADDR x, GM_ADDR y, GM_ADDR rowmax, GM_ADDR rowsum, GM_ADDR workspace,
                                                          GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelSoftmaxRows<DTYPE_X> op;
    op.Init(x, y, rowmax, rowsum, t);
    op.Process();
}
