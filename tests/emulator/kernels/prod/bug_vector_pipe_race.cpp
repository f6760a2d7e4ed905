// acemu-test: entry=scale_no_sync args=4
// y = x * 3 through one TBuf with no queue, flag or barrier between the pipes: the DataCopy into
// UB (MTE2), the Muls (V) and the DataCopy out (MTE3) race on the NPU. Tiling flag 1 orders them
// with flags, flag 2 with PipeBarrier<PIPE_ALL>: both are correct.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void scale_no_sync(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    (void)workspace;
    const __gm__ uint32_t *t = reinterpret_cast<__gm__ uint32_t *>(tiling);
    const uint32_t n = t[0];
    const uint32_t mode = t[1];
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, n * sizeof(float));
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float *)x + GetBlockIdx() * n, n);
    yGm.SetGlobalBuffer((__gm__ float *)y + GetBlockIdx() * n, n);
    LocalTensor<float> local = buf.Get<float>();
    DataCopy(local, xGm, n);
    if (mode == 1) {
        SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
        WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    } else if (mode == 2) {
        PipeBarrier<PIPE_ALL>();
    }
    Muls(local, local, 3.0f, n);  // FINDING: pipe-hazard
    if (mode == 1) {
        SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
        WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    } else if (mode == 2) {
        PipeBarrier<PIPE_ALL>();
    }
    DataCopy(yGm, local, n);
}
