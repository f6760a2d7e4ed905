// Kernel of SumListCustom: the tensor list through ListTensorDesc, atomic adds into y.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void sum_list_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    (void)workspace;
    GET_TILING_DATA(t, tiling);
    ListTensorDesc list(reinterpret_cast<__gm__ void*>(x));
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, t.perCore * sizeof(float));
    LocalTensor<float> tile = buf.Get<float>();
    GlobalTensor<float> yGm;
    yGm.SetGlobalBuffer((__gm__ float*)y + t.perCore * GetBlockIdx(), t.perCore);
    uint64_t shape[8] = {};
    SetAtomicAdd<float>();
    for (uint32_t i = 0; i < list.GetSize(); ++i) {
        TensorDesc<float> desc;
        desc.SetShapeAddr(shape);
        list.GetDesc(desc, i);
        ASSERT(desc.GetDim() == 1 && desc.GetShape(0) == uint64_t(t.perCore) * GetBlockNum());
        GlobalTensor<float> xGm;
        xGm.SetGlobalBuffer(list.GetDataPtr<float>(i) + t.perCore * GetBlockIdx(), t.perCore);
        DataCopy(tile, xGm, t.perCore);
        PipeBarrier<PIPE_ALL>();  // the pipes (MTE2 / V / MTE3) run in parallel: order them
        DataCopy(yGm, tile, t.perCore);
        PipeBarrier<PIPE_ALL>();
    }
    SetAtomicNone();
}
