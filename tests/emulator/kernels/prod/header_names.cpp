// acemu-test: entry=half_to_float_scale args=4
// y = float(x) * 2 for a half x: a kernel that includes the toolchain's headers by the names
// production kernels use (kernel_type.h, kernel_tensor_impl.h, kernel_operator_intf.h) rather
// than kernel_operator.h.
#include "kernel_type.h"
#include "kernel_tensor_impl.h"
#include "kernel_operator_intf.h"

extern "C" __global__ __aicore__ void half_to_float_scale(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    (void)workspace;
    const uint32_t n = *reinterpret_cast<__gm__ uint32_t *>(tiling);  // per core, a multiple of 64
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> inBuf, outBuf;
    pipe.InitBuffer(inBuf, n * sizeof(half));
    pipe.InitBuffer(outBuf, n * sizeof(float));
    AscendC::GlobalTensor<half> xGm;
    AscendC::GlobalTensor<float> yGm;
    xGm.SetGlobalBuffer((__gm__ half *)x + AscendC::GetBlockIdx() * n, n);
    yGm.SetGlobalBuffer((__gm__ float *)y + AscendC::GetBlockIdx() * n, n);
    AscendC::LocalTensor<half> xLocal = inBuf.Get<half>();
    AscendC::LocalTensor<float> yLocal = outBuf.Get<float>();
    AscendC::DataCopy(xLocal, xGm, n);
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::Cast(yLocal, xLocal, AscendC::RoundMode::CAST_NONE, n);
    AscendC::Muls(yLocal, yLocal, 2.0f, n);
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::DataCopy(yGm, yLocal, n);
}
