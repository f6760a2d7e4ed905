// acemu-test: entry=row_max_shift args=4
// y[r, :] = x[r, :] - max(x[r, :]) + sum(x[r, :]) / cols, one row per core, in the style of
// agent-written kernels that call the API unqualified with explicit template arguments and never
// write `using namespace AscendC` (the device compiler finds the names by argument-dependent lookup).
#include "kernel_operator.h"

struct RowShiftTiling {
    uint32_t rows;
    uint32_t cols;  // a multiple of 64 (whole 256-B repeats)
};

extern "C" __global__ __aicore__ void row_max_shift(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    (void)workspace;
    RowShiftTiling t = *reinterpret_cast<__gm__ RowShiftTiling *>(tiling);
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, 1> inQueue;
    AscendC::TQue<AscendC::TPosition::VECOUT, 1> outQueue;
    AscendC::TBuf<AscendC::TPosition::VECCALC> calcBuf;
    pipe.InitBuffer(inQueue, 1, t.cols * sizeof(float));
    pipe.InitBuffer(outQueue, 1, t.cols * sizeof(float));
    pipe.InitBuffer(calcBuf, (t.cols + 16) * sizeof(float));
    AscendC::GlobalTensor<float> xGm, yGm;
    for (uint32_t r = AscendC::GetBlockIdx(); r < t.rows; r += AscendC::GetBlockNum()) {
        xGm.SetGlobalBuffer((__gm__ float *)x + r * t.cols, t.cols);
        yGm.SetGlobalBuffer((__gm__ float *)y + r * t.cols, t.cols);
        AscendC::LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
        DataCopy<float>(xLocal, xGm, t.cols);
        inQueue.EnQue(xLocal);
        xLocal = inQueue.DeQue<float>();
        AscendC::LocalTensor<float> calc = calcBuf.Get<float>();
        AscendC::LocalTensor<float> maxV = calc[0];
        AscendC::LocalTensor<float> sumV = calc[8];
        AscendC::LocalTensor<float> work = calc[16];
        ReduceMax<float>(maxV, xLocal, work, t.cols, false);
        ReduceSum<float>(sumV, xLocal, work, t.cols);
        float shift = sumV.GetValue(0) / t.cols - maxV.GetValue(0);
        AscendC::LocalTensor<float> yLocal = outQueue.AllocTensor<float>();
        Adds<float>(yLocal, xLocal, shift, t.cols);
        outQueue.EnQue(yLocal);
        inQueue.FreeTensor(xLocal);
        yLocal = outQueue.DeQue<float>();
        DataCopy<float>(yGm, yLocal, t.cols);
        outQueue.FreeTensor(yLocal);
    }
}
