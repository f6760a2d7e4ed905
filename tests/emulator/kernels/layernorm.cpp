// acemu-test: entry=layer_norm args=6
// LayerNorm over the last axis: y = (x - mean) / sqrt(var + eps) * gamma + beta.
// gamma and beta stay in TBufs for the whole kernel; the statistics are read back as scalars.
#include "kernel_operator.h"
using namespace AscendC;

struct LayerNormTiling {
    uint32_t rows;
    uint32_t cols;
    float eps;
};
REGISTER_TILING_DEFAULT(LayerNormTiling);

class KernelLayerNorm {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y, const LayerNormTiling& t)
    {
        cols = t.cols;
        eps = t.eps;
        rowsPerCore = t.rows / GetBlockNum();
        uint64_t offset = uint64_t(rowsPerCore) * cols * GetBlockIdx();
        xGm.SetGlobalBuffer((__gm__ float *)x + offset, rowsPerCore * cols);
        yGm.SetGlobalBuffer((__gm__ float *)y + offset, rowsPerCore * cols);
        gammaGm.SetGlobalBuffer((__gm__ float *)gamma, cols);
        betaGm.SetGlobalBuffer((__gm__ float *)beta, cols);
        pipe.InitBuffer(inQueue, 2, cols * sizeof(float));
        pipe.InitBuffer(outQueue, 2, cols * sizeof(float));
        pipe.InitBuffer(gammaBuf, cols * sizeof(float));
        pipe.InitBuffer(betaBuf, cols * sizeof(float));
        pipe.InitBuffer(tmpBuf, cols * sizeof(float));
        pipe.InitBuffer(workBuf, cols * sizeof(float));
        pipe.InitBuffer(redBuf, 32);
    }
    __aicore__ inline void Process()
    {
        LocalTensor<float> g = gammaBuf.Get<float>();
        LocalTensor<float> b = betaBuf.Get<float>();
        DataCopy(g, gammaGm, cols);
        DataCopy(b, betaGm, cols);
        PipeBarrier<PIPE_ALL>();
        for (uint32_t r = 0; r < rowsPerCore; r++) {
            CopyIn(r);
            Compute(g, b);
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
    __aicore__ inline void Compute(const LocalTensor<float>& g, const LocalTensor<float>& b)
    {
        LocalTensor<float> xLocal = inQueue.DeQue<float>();
        LocalTensor<float> yLocal = outQueue.AllocTensor<float>();
        LocalTensor<float> tmp = tmpBuf.Get<float>();
        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> red = redBuf.Get<float>();
        ReduceSum(red, xLocal, work, cols);
        float mean = red.GetValue(0) / cols;
        Adds(yLocal, xLocal, -mean, cols);
        Mul(tmp, yLocal, yLocal, cols);
        ReduceSum(red, tmp, work, cols);
        float var = red.GetValue(0) / cols;
        float rstd = 1.0f / sqrtf(var + eps);
        Muls(yLocal, yLocal, rstd, cols);
        Mul(yLocal, yLocal, g, cols);
        Add(yLocal, yLocal, b, cols);
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
    TBuf<TPosition::VECCALC> gammaBuf, betaBuf, tmpBuf, workBuf, redBuf;
    GlobalTensor<float> xGm, yGm, gammaGm, betaGm;
    uint32_t cols = 0, rowsPerCore = 0;
    float eps = 0.0f;
};

extern "C" __global__ __aicore__ void layer_norm(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    (void)workspace;
    GET_TILING_DATA(t, tiling);
    KernelLayerNorm op;
    op.Init(x, gamma, beta, y, t);
    op.Process();
}
