// acemu-test: entry=tbuf_free args=4
// y = exp(x) - 1, with scratch from TBufs that the kernel frees with FreeTensor after use, as
// kernels ported from queues do. With tiling flag 1 it frees a tensor through the wrong TBuf.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void tbuf_free(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    (void)workspace;
    const __gm__ uint32_t *t = reinterpret_cast<__gm__ uint32_t *>(tiling);
    const uint32_t n = t[0];  // a multiple of 64
    const bool wrongBuffer = t[1] == 1;
    TPipe pipe;
    TBuf<TPosition::VECCALC> xBuf, tmpBuf;
    pipe.InitBuffer(xBuf, n * sizeof(float));
    pipe.InitBuffer(tmpBuf, n * sizeof(float));
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, n);
    yGm.SetGlobalBuffer((__gm__ float *)y, n);
    LocalTensor<float> xLocal = xBuf.Get<float>();
    DataCopy(xLocal, xGm, n);
    PipeBarrier<PIPE_ALL>();
    LocalTensor<float> tmp = tmpBuf.Get<float>();
    Exp(tmp, xLocal, n);
    Adds(xLocal, tmp, -1.0f, n);
    tmpBuf.FreeTensor(tmp);
    if (wrongBuffer) {
        tmpBuf.FreeTensor(xLocal);  // FINDING: queue-misuse
    }
    PipeBarrier<PIPE_ALL>();
    DataCopy(yGm, xLocal, n);
    xBuf.FreeTensor(xLocal);
}
