// acemu-test: entry=ib_chain args=5
// Two cores in a chain through GM: core 0 writes z[0:n) = x[0:n) + y[0:n) and sets its flag with
// IBSet; core 1 waits for it with IBWait, reads core 0's result back from GM and writes
// z[n:2n) = z[0:n) + y[n:2n). `waitEvent` (tiling) is the event core 1 waits for: 0 is the one
// core 0 sets, anything else is a wait nobody releases.
#include "kernel_operator.h"
using namespace AscendC;

struct IbTiling {
    uint32_t n;
    int32_t waitEvent;
};

extern "C" __global__ __aicore__ void ib_chain(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR sync, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(IbTiling, t, tiling);
    const int32_t core = GetBlockIdx();
    GlobalTensor<float> xGm, yGm, zGm;
    GlobalTensor<int32_t> syncGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 2 * t.n);
    yGm.SetGlobalBuffer((__gm__ float*)y, 2 * t.n);
    zGm.SetGlobalBuffer((__gm__ float*)z, 2 * t.n);
    syncGm.SetGlobalBuffer((__gm__ int32_t*)sync, 64);
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> aQ, bQ;
    TQue<QuePosition::VECOUT, 1> outQ;
    TBuf<QuePosition::VECCALC> syncBuf;
    pipe.InitBuffer(aQ, 1, t.n * sizeof(float));
    pipe.InitBuffer(bQ, 1, t.n * sizeof(float));
    pipe.InitBuffer(outQ, 1, t.n * sizeof(float));
    pipe.InitBuffer(syncBuf, 32);
    LocalTensor<int32_t> syncLocal = syncBuf.Get<int32_t>();
    if (core == 1) {
        IBWait(syncGm, syncLocal, 0, t.waitEvent);
    }
    LocalTensor<float> a = aQ.AllocTensor<float>();
    LocalTensor<float> b = bQ.AllocTensor<float>();
    DataCopy(a, core == 0 ? xGm : zGm, t.n);
    DataCopy(b, yGm[core * t.n], t.n);
    aQ.EnQue(a);
    bQ.EnQue(b);
    a = aQ.DeQue<float>();
    b = bQ.DeQue<float>();
    LocalTensor<float> out = outQ.AllocTensor<float>();
    Add(out, a, b, t.n);
    aQ.FreeTensor(a);
    bQ.FreeTensor(b);
    outQ.EnQue(out);
    out = outQ.DeQue<float>();
    DataCopy(zGm[core * t.n], out, t.n);
    outQ.FreeTensor(out);
    if (core == 0) {
        PipeBarrier<PIPE_ALL>();
        IBSet(syncGm, syncLocal, 0, 0);
    }
}
