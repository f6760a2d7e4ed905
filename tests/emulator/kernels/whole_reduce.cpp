// acemu-test: entry=row_sum_max args=4
// Rows of 64 floats: one repeat per row. WholeReduceSum gives each row's sum, WholeReduceMax
// (value only) its maximum; 8 rows per tile, so each result tile is exactly 32 B.
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t COLS = 64;
constexpr uint32_t ROWS_PER_TILE = 8;

class KernelRowSumMax {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR sum, GM_ADDR mx, uint32_t rowsPerCore)
    {
        this->rowsPerCore = rowsPerCore;
        uint64_t row0 = uint64_t(rowsPerCore) * GetBlockIdx();
        xGm.SetGlobalBuffer((__gm__ float *)x + row0 * COLS, rowsPerCore * COLS);
        sumGm.SetGlobalBuffer((__gm__ float *)sum + row0, rowsPerCore);
        maxGm.SetGlobalBuffer((__gm__ float *)mx + row0, rowsPerCore);
        pipe.InitBuffer(inQueue, 2, ROWS_PER_TILE * COLS * sizeof(float));
        pipe.InitBuffer(sumQueue, 2, ROWS_PER_TILE * sizeof(float));
        pipe.InitBuffer(maxQueue, 2, ROWS_PER_TILE * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t t = 0; t < rowsPerCore / ROWS_PER_TILE; t++) {
            LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
            DataCopy(xLocal, xGm[t * ROWS_PER_TILE * COLS], ROWS_PER_TILE * COLS);
            inQueue.EnQue(xLocal);

            xLocal = inQueue.DeQue<float>();
            LocalTensor<float> s = sumQueue.AllocTensor<float>();
            LocalTensor<float> m = maxQueue.AllocTensor<float>();
            // mask 64 = whole repeat, 8 repeats (rows), dst stride 1 result, src blocks contiguous, 8 blocks per row
            WholeReduceSum<float>(s, xLocal, COLS, ROWS_PER_TILE, 1, 1, 8);
            WholeReduceMax<float>(m, xLocal, COLS, ROWS_PER_TILE, 1, 1, 8, ReduceOrder::ORDER_ONLY_VALUE);
            sumQueue.EnQue(s);
            maxQueue.EnQue(m);
            inQueue.FreeTensor(xLocal);

            s = sumQueue.DeQue<float>();
            m = maxQueue.DeQue<float>();
            DataCopy(sumGm[t * ROWS_PER_TILE], s, ROWS_PER_TILE);
            DataCopy(maxGm[t * ROWS_PER_TILE], m, ROWS_PER_TILE);
            sumQueue.FreeTensor(s);
            maxQueue.FreeTensor(m);
        }
    }

private:
    TPipe pipe;
    TQue<TPosition::VECIN, 2> inQueue;
    TQue<TPosition::VECOUT, 2> sumQueue, maxQueue;
    GlobalTensor<float> xGm, sumGm, maxGm;
    uint32_t rowsPerCore = 0;
};

extern "C" __global__ __aicore__ void row_sum_max(GM_ADDR x, GM_ADDR sum, GM_ADDR mx, GM_ADDR tiling)
{
    uint32_t rows = *reinterpret_cast<__gm__ uint32_t *>(tiling);
    KernelRowSumMax op;
    op.Init(x, sum, mx, rows / GetBlockNum());
    op.Process();
}
