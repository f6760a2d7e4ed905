// acemu-test: entry=brcb_row_scale args=4
// y[r, :] = x[r, :] * s[r] for 16 rows of 24 floats: Brcb spreads each s[r] over one 32-byte block,
// then one Mul per 64-lane repeat column reads that block for the whole row (src1 block stride 0,
// repeat stride 1 block) while x and y move one row (3 blocks) per repeat.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t ROWS = 16;
constexpr int32_t COLS = 24;

class KernelBrcbRowScale {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR s, GM_ADDR y)
    {
        xGm.SetGlobalBuffer((__gm__ float *)x, ROWS * COLS);
        sGm.SetGlobalBuffer((__gm__ float *)s, ROWS);
        yGm.SetGlobalBuffer((__gm__ float *)y, ROWS * COLS);
        pipe.InitBuffer(xQueue, 1, ROWS * COLS * sizeof(float));
        pipe.InitBuffer(sQueue, 1, ROWS * sizeof(float));
        pipe.InitBuffer(yQueue, 1, ROWS * COLS * sizeof(float));
        pipe.InitBuffer(spreadBuf, ROWS * 8 * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        LocalTensor<float> x = xQueue.AllocTensor<float>();
        LocalTensor<float> s = sQueue.AllocTensor<float>();
        DataCopy(x, xGm, ROWS * COLS);
        DataCopy(s, sGm, ROWS);
        xQueue.EnQue(x);
        sQueue.EnQue(s);
        x = xQueue.DeQue<float>();
        s = sQueue.DeQue<float>();
        LocalTensor<float> spread = spreadBuf.Get<float>();
        LocalTensor<float> y = yQueue.AllocTensor<float>();
        Brcb(spread, s, ROWS / 8, {1, 8});
        Mul(y, x, spread, COLS, ROWS, {1, 1, 0, COLS / 8, COLS / 8, 1});
        yQueue.EnQue(y);
        y = yQueue.DeQue<float>();
        DataCopy(yGm, y, ROWS * COLS);
        xQueue.FreeTensor(x);
        sQueue.FreeTensor(s);
        yQueue.FreeTensor(y);
    }

private:
    TPipe pipe;
    TQue<TPosition::VECIN, 1> xQueue, sQueue;
    TQue<TPosition::VECOUT, 1> yQueue;
    TBuf<TPosition::VECCALC> spreadBuf;
    GlobalTensor<float> xGm, sGm, yGm;
};

extern "C" __global__ __aicore__ void brcb_row_scale(GM_ADDR x, GM_ADDR s, GM_ADDR y, GM_ADDR workspace)
{
    (void)workspace;
    KernelBrcbRowScale op;
    op.Init(x, s, y);
    op.Process();
}
