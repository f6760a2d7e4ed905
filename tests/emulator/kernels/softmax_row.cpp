// acemu-test: entry=softmax_row args=3
// Row softmax: each core takes rows; per row ReduceMax (with scratch), subtract, Exp, ReduceSum,
// scale by the reciprocal read back with GetValue.
#include "kernel_operator.h"
using namespace AscendC;

struct SoftmaxTiling {
    uint32_t rows;  // total rows
    uint32_t cols;  // multiple of 8
};
REGISTER_TILING_DEFAULT(SoftmaxTiling);

class KernelSoftmax {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t cols)
    {
        this->cols = cols;
        rowsPerCore = rows / GetBlockNum();
        uint64_t offset = uint64_t(rowsPerCore) * cols * GetBlockIdx();
        xGm.SetGlobalBuffer((__gm__ float *)x + offset, rowsPerCore * cols);
        yGm.SetGlobalBuffer((__gm__ float *)y + offset, rowsPerCore * cols);
        pipe.InitBuffer(inQueue, 2, cols * sizeof(float));
        pipe.InitBuffer(outQueue, 2, cols * sizeof(float));
        pipe.InitBuffer(workBuf, cols * sizeof(float));
        pipe.InitBuffer(redBuf, 32);
    }
    __aicore__ inline void Process()
    {
        for (uint32_t r = 0; r < rowsPerCore; r++) {
            CopyIn(r);
            Compute();
            CopyOut(r);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t r)
    {
        LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
        DataCopy(xLocal, xGm[r * cols], cols);
        inQueue.EnQue(xLocal);
    }
    __aicore__ inline void Compute()
    {
        LocalTensor<float> xLocal = inQueue.DeQue<float>();
        LocalTensor<float> yLocal = outQueue.AllocTensor<float>();
        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> red = redBuf.Get<float>();
        ReduceMax(red, xLocal, work, cols);
        float rowMax = red.GetValue(0);
        Adds(yLocal, xLocal, -rowMax, cols);
        Exp(yLocal, yLocal, cols);
        ReduceSum(red, yLocal, work, cols);
        float rowSum = red.GetValue(0);
        Muls(yLocal, yLocal, 1.0f / rowSum, cols);
        outQueue.EnQue(yLocal);
        inQueue.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(uint32_t r)
    {
        LocalTensor<float> yLocal = outQueue.DeQue<float>();
        DataCopy(yGm[r * cols], yLocal, cols);
        outQueue.FreeTensor(yLocal);
    }

    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQueue;
    TQue<TPosition::VECOUT, 1> outQueue;
    TBuf<TPosition::VECCALC> workBuf, redBuf;
    GlobalTensor<float> xGm, yGm;
    uint32_t cols = 0, rowsPerCore = 0;
};

extern "C" __global__ __aicore__ void softmax_row(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelSoftmax op;
    op.Init(x, y, t.rows, t.cols);
    op.Process();
}
