// acemu-test: entry=pattern_col_reduce args=5
// Per core, a [rows, cols] tile whose rows are not whole 32-B blocks (DataCopyPad pads each to a
// block multiple): the column maxima by ReduceMax<T, Pattern::Reduce::RA> and the row sums by
// ReduceSum<T, Pattern::Reduce::AR>, with the framework-allocated temporary space (no tmp tensor).
#include "kernel_operator.h"
using namespace AscendC;

struct ColTiling {
    uint32_t rows;
    uint32_t cols;
};

extern "C" __global__ __aicore__ void pattern_col_reduce(GM_ADDR x, GM_ADDR colMax, GM_ADDR rowSum, GM_ADDR workspace,
                                                         GM_ADDR tiling)
{
    (void)workspace;
    GET_TILING_DATA_WITH_STRUCT(ColTiling, t, tiling);
    const uint32_t padded = (t.cols + 7) / 8 * 8;
    const uint32_t core = GetBlockIdx();
    GlobalTensor<float> xGm, maxGm, sumGm;
    xGm.SetGlobalBuffer((__gm__ float*)x + core * t.rows * t.cols, t.rows * t.cols);
    maxGm.SetGlobalBuffer((__gm__ float*)colMax + core * t.cols, t.cols);
    sumGm.SetGlobalBuffer((__gm__ float*)rowSum + core * t.rows, t.rows);
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQ;
    TQue<QuePosition::VECOUT, 1> maxQ, sumQ;
    pipe.InitBuffer(inQ, 1, t.rows * padded * sizeof(float));
    pipe.InitBuffer(maxQ, 1, padded * sizeof(float));
    pipe.InitBuffer(sumQ, 1, (t.rows + 7) / 8 * 32);
    LocalTensor<float> xl = inQ.AllocTensor<float>();
    DataCopyPad(xl, xGm, {static_cast<uint16_t>(t.rows), static_cast<uint32_t>(t.cols * sizeof(float)), 0, 0, 0},
                {true, 0, static_cast<uint8_t>(padded - t.cols), 0.0f});
    inQ.EnQue(xl);
    xl = inQ.DeQue<float>();
    uint32_t shape[] = {t.rows, t.cols};
    LocalTensor<float> mx = maxQ.AllocTensor<float>();
    LocalTensor<float> sm = sumQ.AllocTensor<float>();
    ReduceMax<float, Pattern::Reduce::RA>(mx, xl, shape, false);
    ReduceSum<float, Pattern::Reduce::AR>(sm, xl, shape, false);
    inQ.FreeTensor(xl);
    maxQ.EnQue(mx);
    sumQ.EnQue(sm);
    mx = maxQ.DeQue<float>();
    sm = sumQ.DeQue<float>();
    DataCopyPad(maxGm, mx, {1, static_cast<uint32_t>(t.cols * sizeof(float)), 0, 0, 0});
    DataCopyPad(sumGm, sm, {1, static_cast<uint32_t>(t.rows * sizeof(float)), 0, 0, 0});
    maxQ.FreeTensor(mx);
    sumQ.FreeTensor(sm);
}
