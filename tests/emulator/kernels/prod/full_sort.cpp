// acemu-test: entry=kv_sort args=5
// Sorts each core's n scores largest first with their positions, as agent-written kv-sort kernels
// do with the high-level API: Concat, Sort<float, true>, Extract, sizing the sort structure with
// GetSortLen. Tiling: n (a multiple of 32), then 1 for a full sort or 0 for 32-element groups.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void kv_sort(GM_ADDR x, GM_ADDR values, GM_ADDR indices, GM_ADDR workspace, GM_ADDR tiling)
{
    (void)workspace;
    const __gm__ uint32_t *t = reinterpret_cast<__gm__ uint32_t *>(tiling);
    const uint32_t n = t[0];
    const bool full = t[1] == 1;
    const int32_t repeat = n / 32;
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQueue;
    TQue<TPosition::VECOUT, 1> valueQueue, indexQueue;
    TBuf<TPosition::VECCALC> concatBuf, indexBuf, sortedBuf, tmpBuf;
    pipe.InitBuffer(inQueue, 1, n * sizeof(float));
    pipe.InitBuffer(valueQueue, 1, n * sizeof(float));
    pipe.InitBuffer(indexQueue, 1, n * sizeof(uint32_t));
    pipe.InitBuffer(concatBuf, GetSortLen<float>(n) * sizeof(float));
    pipe.InitBuffer(indexBuf, n * sizeof(uint32_t));
    pipe.InitBuffer(sortedBuf, GetSortLen<float>(n) * sizeof(float));
    pipe.InitBuffer(tmpBuf, GetSortLen<float>(n) * sizeof(float));
    GlobalTensor<float> xGm, vGm;
    GlobalTensor<uint32_t> iGm;
    xGm.SetGlobalBuffer((__gm__ float *)x + GetBlockIdx() * n, n);
    vGm.SetGlobalBuffer((__gm__ float *)values + GetBlockIdx() * n, n);
    iGm.SetGlobalBuffer((__gm__ uint32_t *)indices + GetBlockIdx() * n, n);

    LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
    DataCopy(xLocal, xGm, n);
    inQueue.EnQue(xLocal);
    xLocal = inQueue.DeQue<float>();
    LocalTensor<float> concatLocal = concatBuf.Get<float>();
    LocalTensor<uint32_t> indexLocal = indexBuf.Get<uint32_t>();
    LocalTensor<float> sortedLocal = sortedBuf.Get<float>();
    LocalTensor<float> tmpLocal = tmpBuf.Get<float>();
    CreateVecIndex(indexLocal.ReinterpretCast<int32_t>(), 0, n);
    Concat(concatLocal, xLocal, tmpLocal, repeat);
    if (full) {
        Sort<float, true>(sortedLocal, concatLocal, indexLocal, tmpLocal, repeat);
    } else {
        Sort<float, false>(sortedLocal, concatLocal, indexLocal, tmpLocal, repeat);
    }
    inQueue.FreeTensor(xLocal);
    LocalTensor<float> vLocal = valueQueue.AllocTensor<float>();
    LocalTensor<uint32_t> iLocal = indexQueue.AllocTensor<uint32_t>();
    Extract(vLocal, iLocal, sortedLocal, repeat / 2);  // a repeat extracts 64 floats (the page)
    valueQueue.EnQue(vLocal);
    indexQueue.EnQue(iLocal);
    vLocal = valueQueue.DeQue<float>();
    iLocal = indexQueue.DeQue<uint32_t>();
    DataCopy(vGm, vLocal, n);
    DataCopy(iGm, iLocal, n);
    valueQueue.FreeTensor(vLocal);
    indexQueue.FreeTensor(iLocal);
}
