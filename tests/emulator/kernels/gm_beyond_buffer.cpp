// acemu-test: entry=gm_beyond_buffer args=2
// SetGlobalBuffer says 8 floats, the copies move 16, all inside the 16 floats of x and y: the NPU
// copies them (the length is not checked), so does the emulator, with a note at each copy.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void gm_beyond_buffer(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> a;
    pipe.InitBuffer(a, 64);
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 8);
    yGm.SetGlobalBuffer((__gm__ float*)y, 8);
    LocalTensor<float> t = a.Get<float>();
    DataCopy(t, xGm, 16);  // NOTE: gm-beyond-buffer
    PipeBarrier<PIPE_ALL>();  // the pipes (MTE2 / V / MTE3) run in parallel: order them
    DataCopy(yGm, t, 16);  // NOTE: gm-beyond-buffer
}
