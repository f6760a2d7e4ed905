// acemu-test: entry=sort_merge args=3
// 128 floats sorted largest first the AscendC way: Sort32 sorts four groups of 32 (score, index)
// structures, one MrgSort merges the four queues, Extract splits scores and indices again.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void sort_merge(GM_ADDR x, GM_ADDR values, GM_ADDR indices)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> src, idx, pairs, merged, val, out;
    pipe.InitBuffer(src, 128 * sizeof(float));
    pipe.InitBuffer(idx, 128 * sizeof(uint32_t));
    pipe.InitBuffer(pairs, 128 * 8);
    pipe.InitBuffer(merged, 128 * 8);
    pipe.InitBuffer(val, 128 * sizeof(float));
    pipe.InitBuffer(out, 128 * sizeof(uint32_t));
    GlobalTensor<float> xGm, valueGm;
    GlobalTensor<uint32_t> indexGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 128);
    valueGm.SetGlobalBuffer((__gm__ float*)values, 128);
    indexGm.SetGlobalBuffer((__gm__ uint32_t*)indices, 128);
    LocalTensor<float> s = src.Get<float>();
    LocalTensor<int32_t> positions = idx.Get<int32_t>();
    DataCopy(s, xGm, 128);
    PipeBarrier<PIPE_ALL>();  // the pipes (MTE2 / V / MTE3) run in parallel: order them
    CreateVecIndex(positions, 0, 128);
    LocalTensor<float> p = pairs.Get<float>();
    Sort32(p, s, positions.ReinterpretCast<uint32_t>(), 4);
    const uint16_t lengths[4] = {32, 32, 32, 32};
    LocalTensor<float> m = merged.Get<float>();
    MrgSort(m, MrgSortSrcList<float>(p, p[64], p[128], p[192]), MrgSort4Info(lengths, false, 0b1111, 1));
    LocalTensor<float> v = val.Get<float>();
    LocalTensor<uint32_t> o = out.Get<uint32_t>();
    Extract(v, o, m, 2);
    PipeBarrier<PIPE_ALL>();
    DataCopy(valueGm, v, 128);
    DataCopy(indexGm, o, 128);
}
