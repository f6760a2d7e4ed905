// Kernel of RmsRowsCustom: x and gamma in, RmsNorm over the rows, y out.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void rms_rows_custom(GM_ADDR x, GM_ADDR gamma, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    const uint32_t n = t.rows * t.cols;
    GlobalTensor<float> xGm, gGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, n);
    gGm.SetGlobalBuffer((__gm__ float*)gamma, t.cols);
    yGm.SetGlobalBuffer((__gm__ float*)y, n);
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQueue, gammaQueue;
    TQue<TPosition::VECOUT, 1> outQueue;
    TBuf<TPosition::VECCALC> tmpBuf;
    pipe.InitBuffer(inQueue, 1, n * sizeof(float));
    pipe.InitBuffer(gammaQueue, 1, t.cols * sizeof(float));
    pipe.InitBuffer(outQueue, 1, n * sizeof(float));
    pipe.InitBuffer(tmpBuf, t.tmpBytes);
    LocalTensor<float> xl = inQueue.AllocTensor<float>();
    LocalTensor<float> gl = gammaQueue.AllocTensor<float>();
    DataCopy(xl, xGm, n);
    DataCopy(gl, gGm, t.cols);
    inQueue.EnQue(xl);
    gammaQueue.EnQue(gl);
    xl = inQueue.DeQue<float>();
    gl = gammaQueue.DeQue<float>();
    LocalTensor<float> yl = outQueue.AllocTensor<float>();
    RmsNorm<float>(yl, xl, gl, tmpBuf.Get<uint8_t>(), t.epsilon, t.rms);
    outQueue.EnQue(yl);
    inQueue.FreeTensor(xl);
    gammaQueue.FreeTensor(gl);
    yl = outQueue.DeQue<float>();
    DataCopy(yGm, yl, n);
    outQueue.FreeTensor(yl);
}
