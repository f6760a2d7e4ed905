// acemu-test: entry=keyed_affine args=4
// An msopgen-style kernel whose host picks the code path by tiling key: key 1 computes y = x + 1,
// key 2 computes y = x * 2; any other key leaves y untouched.
#include "kernel_operator.h"
using namespace AscendC;

template <int MODE>
__aicore__ inline void Affine(GM_ADDR x, GM_ADDR y, uint32_t n)
{
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQueue;
    TQue<TPosition::VECOUT, 1> outQueue;
    pipe.InitBuffer(inQueue, 1, n * sizeof(float));
    pipe.InitBuffer(outQueue, 1, n * sizeof(float));
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float *)x + GetBlockIdx() * n, n);
    yGm.SetGlobalBuffer((__gm__ float *)y + GetBlockIdx() * n, n);
    LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
    DataCopy(xLocal, xGm, n);
    inQueue.EnQue(xLocal);
    xLocal = inQueue.DeQue<float>();
    LocalTensor<float> yLocal = outQueue.AllocTensor<float>();
    if constexpr (MODE == 1) {
        Adds(yLocal, xLocal, 1.0f, n);
    } else {
        Muls(yLocal, xLocal, 2.0f, n);
    }
    outQueue.EnQue(yLocal);
    inQueue.FreeTensor(xLocal);
    yLocal = outQueue.DeQue<float>();
    DataCopy(yGm, yLocal, n);
    outQueue.FreeTensor(yLocal);
}

extern "C" __global__ __aicore__ void keyed_affine(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    (void)workspace;
    const uint32_t n = *reinterpret_cast<__gm__ uint32_t *>(tiling);
    if (TILING_KEY_IS(1)) {
        Affine<1>(x, y, n);
    } else if (TILING_KEY_IS(2)) {
        Affine<2>(x, y, n);
    }
}
