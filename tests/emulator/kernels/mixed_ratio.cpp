// acemu-test: entry=mixed_ratio args=2
// A MIX_AIC_1_2 kernel: every vector core writes what it is (GetBlockIdx, GetSubBlockIdx,
// GetSubBlockNum, GetTaskRation, GetBlockNum) to 8 ints of aiv; every cube core its index to aic.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void mixed_ratio(GM_ADDR aiv, GM_ADDR aic)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    if ASCEND_IS_AIC {
        GlobalTensor<int32_t> out;
        out.SetGlobalBuffer((__gm__ int32_t*)aic + 8 * GetBlockIdx(), 8);
        out.SetValue(0, int32_t(GetBlockIdx()));
        out.SetValue(1, int32_t(GetSubBlockNum()));
        return;
    }
    if ASCEND_IS_AIV {
        GlobalTensor<int32_t> out;
        out.SetGlobalBuffer((__gm__ int32_t*)aiv + 8 * GetBlockIdx(), 8);
        out.SetValue(0, int32_t(GetBlockIdx()));
        out.SetValue(1, int32_t(GetSubBlockIdx()));
        out.SetValue(2, int32_t(GetSubBlockNum()));
        out.SetValue(3, int32_t(GetTaskRation()));
        out.SetValue(4, int32_t(GetBlockNum()));
    }
}
