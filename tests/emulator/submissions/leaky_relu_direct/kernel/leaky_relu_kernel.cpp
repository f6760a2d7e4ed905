#include <algorithm>
#include "kernel_operator.h"
#include "tiling/platform/platform_ascendc.h"
#include "leaky_relu_launch.h"

constexpr int32_t BUFFER_NUM = 2;

template <typename T>
__global__ __aicore__ void leaky_relu_kernel(GM_ADDR x, GM_ADDR y, uint32_t total, uint32_t perCore, uint32_t tile, float slope)
{
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inQ;
    AscendC::TQue<AscendC::QuePosition::VECOUT, BUFFER_NUM> outQ;
    AscendC::GlobalTensor<T> xGm, yGm;
    const uint32_t start = perCore * AscendC::GetBlockIdx();
    const uint32_t len = start < total ? std::min(perCore, total - start) : 0;
    xGm.SetGlobalBuffer((__gm__ T*)x + start, len);
    yGm.SetGlobalBuffer((__gm__ T*)y + start, len);
    pipe.InitBuffer(inQ, BUFFER_NUM, tile * sizeof(T));
    pipe.InitBuffer(outQ, BUFFER_NUM, tile * sizeof(T));
    for (uint32_t off = 0; off < len; off += tile) {
        const uint32_t n = std::min(tile, len - off);
        const bool whole = (n * sizeof(T)) % 32 == 0;
        AscendC::LocalTensor<T> xl = inQ.AllocTensor<T>();
        if (whole) {
            AscendC::DataCopy(xl, xGm[off], n);
        } else {
            AscendC::DataCopyExtParams p{1, uint32_t(n * sizeof(T)), 0, 0, 0};
            AscendC::DataCopyPadExtParams<T> pad{false, 0, 0, T(0)};
            AscendC::DataCopyPad(xl, xGm[off], p, pad);
        }
        inQ.EnQue(xl);
        xl = inQ.DeQue<T>();
        AscendC::LocalTensor<T> yl = outQ.AllocTensor<T>();
        AscendC::LeakyRelu(yl, xl, T(slope), n);
        outQ.EnQue(yl);
        inQ.FreeTensor(xl);
        yl = outQ.DeQue<T>();
        if (whole) {
            AscendC::DataCopy(yGm[off], yl, n);
        } else {
            AscendC::DataCopyExtParams p{1, uint32_t(n * sizeof(T)), 0, 0, 0};
            AscendC::DataCopyPad(yGm[off], yl, p);
        }
        outQ.FreeTensor(yl);
    }
}

LeakyReluTiling leaky_relu_tiling(uint32_t total, uint32_t elemBytes)
{
    auto* platform = platform_ascendc::PlatformAscendCManager::GetInstance();
    uint64_t ub = 0;
    platform->GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
    LeakyReluTiling t;
    t.blockDim = std::max<uint32_t>(1, std::min<uint32_t>(platform->GetCoreNumAiv(), (total + 4095) / 4096));
    t.perCore = (total + t.blockDim - 1) / t.blockDim;
    // Two queues, double buffered: a quarter of the UB per buffer, whole 32-byte blocks.
    t.tile = uint32_t(ub / (2 * BUFFER_NUM) / elemBytes) / (32 / elemBytes) * (32 / elemBytes);
    return t;
}

extern "C" {
void launch_leaky_relu_float(GM_ADDR x, GM_ADDR y, uint32_t total, float slope, const LeakyReluTiling* t, void* stream)
{
    leaky_relu_kernel<float><<<t->blockDim, nullptr, stream>>>(x, y, total, t->perCore, t->tile, slope);
}
void launch_leaky_relu_half(GM_ADDR x, GM_ADDR y, uint32_t total, float slope, const LeakyReluTiling* t, void* stream)
{
    leaky_relu_kernel<half><<<t->blockDim, nullptr, stream>>>(x, y, total, t->perCore, t->tile, slope);
}
}
