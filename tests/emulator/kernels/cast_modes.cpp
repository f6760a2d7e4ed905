// acemu-test: entry=cast_modes args=3
// x (float, 256) -> half with each rounding mode (RINT FLOOR CEIL TRUNC ROUND ODD) and
// -> int32 with each (RINT FLOOR CEIL TRUNC ROUND): h[6][256] halfs, k[5][256] int32s.
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t N = 256;

extern "C" __global__ __aicore__ void cast_modes(GM_ADDR x, GM_ADDR h, GM_ADDR k)
{
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQueue;
    TQue<TPosition::VECOUT, 1> halfQueue, intQueue;
    GlobalTensor<float> xGm;
    GlobalTensor<half> hGm;
    GlobalTensor<int32_t> kGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, N);
    hGm.SetGlobalBuffer((__gm__ half *)h, 6 * N);
    kGm.SetGlobalBuffer((__gm__ int32_t *)k, 5 * N);
    pipe.InitBuffer(inQueue, 1, N * sizeof(float));
    pipe.InitBuffer(halfQueue, 1, 6 * N * sizeof(half));
    pipe.InitBuffer(intQueue, 1, 5 * N * sizeof(int32_t));

    LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
    DataCopy(xLocal, xGm, N);
    inQueue.EnQue(xLocal);
    xLocal = inQueue.DeQue<float>();
    LocalTensor<half> hLocal = halfQueue.AllocTensor<half>();
    LocalTensor<int32_t> kLocal = intQueue.AllocTensor<int32_t>();
    const RoundMode halfModes[6] = {RoundMode::CAST_RINT, RoundMode::CAST_FLOOR, RoundMode::CAST_CEIL,
                                    RoundMode::CAST_TRUNC, RoundMode::CAST_ROUND, RoundMode::CAST_ODD};
    for (uint32_t m = 0; m < 6; m++) Cast(hLocal[m * N], xLocal, halfModes[m], N);
    for (uint32_t m = 0; m < 5; m++) Cast(kLocal[m * N], xLocal, halfModes[m], N);
    halfQueue.EnQue(hLocal);
    intQueue.EnQue(kLocal);
    inQueue.FreeTensor(xLocal);

    hLocal = halfQueue.DeQue<half>();
    kLocal = intQueue.DeQue<int32_t>();
    DataCopy(hGm, hLocal, 6 * N);
    DataCopy(kGm, kLocal, 5 * N);
    halfQueue.FreeTensor(hLocal);
    intQueue.FreeTensor(kLocal);
}
