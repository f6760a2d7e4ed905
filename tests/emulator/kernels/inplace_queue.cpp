// acemu-test: entry=inplace_queue args=2
// A depth-0 queue used through the inplace API: AllocTensor(t) fills t, DeQue(u) hands the enqueued
// buffer to another tensor object u. y = 2 * x over 4 tiles of 64 floats.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void inplace_queue(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    TQue<TPosition::VECIN, 0> inQ;
    pipe.InitBuffer(inQ, 2, 64 * sizeof(float));
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 256);
    yGm.SetGlobalBuffer((__gm__ float*)y, 256);
    LocalTensor<float> t, u;
    for (uint32_t i = 0; i < 4; ++i) {
        inQ.AllocTensor<float>(t);
        DataCopy(t, xGm[i * 64], 64);
        inQ.EnQue(t);
        inQ.DeQue<float>(u);
        Muls(u, u, 2.0f, 64);
        PipeBarrier<PIPE_ALL>();  // a VECIN queue orders MTE2 -> V only: the copy-out (MTE3) waits for the Muls
        DataCopy(yGm[i * 64], u, 64);
        inQ.FreeTensor(u);
    }
}
