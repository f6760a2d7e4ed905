// acemu-test: entry=gather_mask args=4
// GatherMask over one repeat of 64 floats: the built-in pattern 1 (even elements) and a user
// pattern that keeps elements 1, 2 and 63; the kept counts go to the third output.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void gather_mask(GM_ADDR x, GM_ADDR even, GM_ADDR picked, GM_ADDR counts)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> src, dst, pattern;
    pipe.InitBuffer(src, 64 * sizeof(float));
    pipe.InitBuffer(dst, 64 * sizeof(float));
    pipe.InitBuffer(pattern, 32);
    GlobalTensor<float> xGm, evenGm, pickedGm;
    GlobalTensor<int32_t> countGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 64);
    evenGm.SetGlobalBuffer((__gm__ float*)even, 32);
    pickedGm.SetGlobalBuffer((__gm__ float*)picked, 8);
    countGm.SetGlobalBuffer((__gm__ int32_t*)counts, 2);
    LocalTensor<float> s = src.Get<float>();
    LocalTensor<float> d = dst.Get<float>();
    DataCopy(s, xGm, 64);
    PipeBarrier<PIPE_ALL>();  // the pipes (MTE2 / V / MTE3) run in parallel: order them
    uint64_t kept = 0;
    GatherMask(d, s, uint8_t(1), false, 0, GatherMaskParams{1, 1, 8, 0}, kept);
    PipeBarrier<PIPE_ALL>();
    DataCopy(evenGm, d, 32);
    PipeBarrier<PIPE_ALL>();
    countGm.SetValue(0, int32_t(kept));
    LocalTensor<uint32_t> bits = pattern.Get<uint32_t>();
    Duplicate(bits, uint32_t(0), 8);
    bits.SetValue(0, (1u << 1) | (1u << 2));
    bits.SetValue(1, 1u << 31);
    GatherMask(d, s, bits, false, 0, GatherMaskParams{1, 1, 8, 0}, kept);
    PipeBarrier<PIPE_ALL>();
    DataCopy(pickedGm, d, 8);
    countGm.SetValue(1, int32_t(kept));
}
