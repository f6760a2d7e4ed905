// A serving stack's kernel file (in the style of vllm-ascend's csrc/kernels): kernels typed
// `__gm__ T*` with scalar parameters, declared once per dtype by a macro that pastes the name, and
// the host launcher `scale_impl` that picks one with another such macro and launches it <<<>>>.
#include "kernel_operator.h"

template <typename T>
class ScaleKernel {
public:
    __aicore__ inline ScaleKernel() {}
    __aicore__ inline void Init(__gm__ T* x, __gm__ T* y, float factor, uint32_t perCore)
    {
        factor_ = factor;
        perCore_ = perCore;
        xGm_.SetGlobalBuffer(x + AscendC::GetBlockIdx() * perCore, perCore);
        yGm_.SetGlobalBuffer(y + AscendC::GetBlockIdx() * perCore, perCore);
        pipe_.InitBuffer(inQ_, 1, perCore * sizeof(T));
        pipe_.InitBuffer(outQ_, 1, perCore * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        AscendC::LocalTensor<T> a = inQ_.AllocTensor<T>();
        AscendC::DataCopy(a, xGm_, perCore_);
        inQ_.EnQue(a);
        a = inQ_.DeQue<T>();
        AscendC::LocalTensor<T> b = outQ_.AllocTensor<T>();
        AscendC::Muls(b, a, static_cast<T>(factor_), perCore_);
        inQ_.FreeTensor(a);
        outQ_.EnQue(b);
        b = outQ_.DeQue<T>();
        AscendC::DataCopy(yGm_, b, perCore_);
        outQ_.FreeTensor(b);
    }

private:
    AscendC::TPipe pipe_;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQ_;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQ_;
    AscendC::GlobalTensor<T> xGm_, yGm_;
    float factor_ = 1.0f;
    uint32_t perCore_ = 0;
};

#define SCALE_TYPE_DECLARE(TYPE, NAME)                                                                          \
    extern "C" __global__ __aicore__ void scale_##NAME(__gm__ TYPE* x, __gm__ TYPE* y, float factor,            \
                                                       uint32_t perCore)                                        \
    {                                                                                                           \
        ScaleKernel<TYPE> op;                                                                                   \
        op.Init(x, y, factor, perCore);                                                                         \
        op.Process();                                                                                           \
    }

SCALE_TYPE_DECLARE(float, fp32)
SCALE_TYPE_DECLARE(int32_t, int32)

#define SCALE_LAUNCH(NAME) scale_##NAME<<<blockDim, nullptr, stream>>>(x, y, factor, perCore)

namespace serving {
void scale_impl(int dtype, void* stream, void* x, void* y, float factor, uint32_t perCore, uint32_t blockDim)
{
    if (dtype == 0) {
        SCALE_LAUNCH(fp32);
    } else {
        SCALE_LAUNCH(int32);
    }
}
}  // namespace serving
