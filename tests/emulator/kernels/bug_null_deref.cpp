// acemu-test: entry=bug_null_deref args=2
// BUG: dereferences a null pointer: the run must end as a crash report, not take the caller down.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void bug_null_deref(GM_ADDR x, GM_ADDR y)
{
    GlobalTensor<float> xGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, 8);
    volatile float* p = nullptr;
    if (GetBlockIdx() == 1) *p = xGm.GetValue(0);
    (void)y;
}
