// acemu-test: entry=row_sum_block args=3
// Row sums of 512-float rows the fast way: BlockReduceSum folds each 32-B block (8 repeats -> 64
// partial sums), then one WholeReduceSum folds those 64 into the row's sum.
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t COLS = 512;
constexpr uint32_t ROWS_PER_TILE = 8;

class KernelRowSumBlock {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t rowsPerCore)
    {
        this->rowsPerCore = rowsPerCore;
        uint64_t row0 = uint64_t(rowsPerCore) * GetBlockIdx();
        xGm.SetGlobalBuffer((__gm__ float *)x + row0 * COLS, rowsPerCore * COLS);
        yGm.SetGlobalBuffer((__gm__ float *)y + row0, rowsPerCore);
        pipe.InitBuffer(inQueue, 2, COLS * sizeof(float));
        pipe.InitBuffer(outQueue, 1, ROWS_PER_TILE * sizeof(float));
        pipe.InitBuffer(partialBuf, 64 * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t t = 0; t < rowsPerCore / ROWS_PER_TILE; t++) {
            LocalTensor<float> sums = outQueue.AllocTensor<float>();
            for (uint32_t r = 0; r < ROWS_PER_TILE; r++) {
                LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
                DataCopy(xLocal, xGm[(t * ROWS_PER_TILE + r) * COLS], COLS);
                inQueue.EnQue(xLocal);
                xLocal = inQueue.DeQue<float>();
                LocalTensor<float> partial = partialBuf.Get<float>();
                BlockReduceSum<float>(partial, xLocal, COLS / 64, 64, 1, 1, 8);
                WholeReduceSum<float>(sums[r], partial, 64, 1, 1, 1, 8);
                inQueue.FreeTensor(xLocal);
            }
            outQueue.EnQue(sums);
            sums = outQueue.DeQue<float>();
            DataCopy(yGm[t * ROWS_PER_TILE], sums, ROWS_PER_TILE);
            outQueue.FreeTensor(sums);
        }
    }

private:
    TPipe pipe;
    TQue<TPosition::VECIN, 2> inQueue;
    TQue<TPosition::VECOUT, 1> outQueue;
    TBuf<TPosition::VECCALC> partialBuf;
    GlobalTensor<float> xGm, yGm;
    uint32_t rowsPerCore = 0;
};

extern "C" __global__ __aicore__ void row_sum_block(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
    uint32_t rows = *reinterpret_cast<__gm__ uint32_t *>(tiling);
    KernelRowSumBlock op;
    op.Init(x, y, rows / GetBlockNum());
    op.Process();
}
