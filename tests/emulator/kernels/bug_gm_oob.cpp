// acemu-test: entry=bug_gm_oob args=2
// BUG: the tile loop rounds the tile count up, so the last tile reads past the end of x.
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t N = 1000;   // elements in GM (a multiple of 8, not of TILE)
constexpr uint32_t TILE = 256;

extern "C" __global__ __aicore__ void bug_gm_oob(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQueue;
    TQue<TPosition::VECOUT, 1> outQueue;
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, N);
    yGm.SetGlobalBuffer((__gm__ float *)y, N);
    pipe.InitBuffer(inQueue, 1, TILE * sizeof(float));
    pipe.InitBuffer(outQueue, 1, TILE * sizeof(float));
    for (uint32_t i = 0; i < (N + TILE - 1) / TILE; i++) {
        uint32_t len = (i + 1) * TILE <= N ? TILE : N - i * TILE;
        LocalTensor<float> a = inQueue.AllocTensor<float>();
        DataCopy(a, xGm[i * TILE], TILE);  // FINDING: gm-out-of-bounds
        inQueue.EnQue(a);
        a = inQueue.DeQue<float>();
        LocalTensor<float> b = outQueue.AllocTensor<float>();
        Muls(b, a, 2.0f, TILE);
        outQueue.EnQue(b);
        inQueue.FreeTensor(a);
        b = outQueue.DeQue<float>();
        DataCopy(yGm[i * TILE], b, len);
        outQueue.FreeTensor(b);
    }
}
