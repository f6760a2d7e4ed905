// acemu-test: entry=mm_tail args=4
// C[M, N] (float) = A[M, K] * B[K, N] (half) for M, N, K that are not multiples of 16: L1 and L0
// hold the shapes rounded up to whole fractals (Nd2Nz zero-fills each row's last 32-B block; the
// padding rows stay unwritten), Mmad gets the true m, n, k and ignores the padding, and Fixpipe
// moves only the m x n part (srcStride is the rounded M).
#include "kernel_operator.h"
using namespace AscendC;

struct MmTiling {
    uint32_t m, n, k;
};
REGISTER_TILING_DEFAULT(MmTiling);

__aicore__ inline uint32_t RoundUp16(uint32_t x) { return (x + BLOCK_CUBE - 1) / BLOCK_CUBE * BLOCK_CUBE; }

class KernelMatmulTail {
public:
    __aicore__ inline void Init(GM_ADDR a, GM_ADDR b, GM_ADDR c, const MmTiling& t)
    {
        m = t.m;
        n = t.n;
        k = t.k;
        mAligned = RoundUp16(m);
        nAligned = RoundUp16(n);
        kAligned = RoundUp16(k);
        aGm.SetGlobalBuffer((__gm__ half *)a, m * k);
        bGm.SetGlobalBuffer((__gm__ half *)b, k * n);
        cGm.SetGlobalBuffer((__gm__ float *)c, m * n);
        pipe.InitBuffer(inQueueA1, 1, mAligned * kAligned * sizeof(half));
        pipe.InitBuffer(inQueueA2, 1, mAligned * kAligned * sizeof(half));
        pipe.InitBuffer(inQueueB1, 1, kAligned * nAligned * sizeof(half));
        pipe.InitBuffer(inQueueB2, 1, kAligned * nAligned * sizeof(half));
        pipe.InitBuffer(outQueueCO1, 1, mAligned * nAligned * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        const uint32_t mBlocks = mAligned / BLOCK_CUBE, nBlocks = nAligned / BLOCK_CUBE, kBlocks = kAligned / BLOCK_CUBE;
        LocalTensor<half> a1 = inQueueA1.AllocTensor<half>();
        LocalTensor<half> b1 = inQueueB1.AllocTensor<half>();
        DataCopy(a1, aGm, Nd2NzParams(1, m, k, 0, k, mAligned, 1, 0));
        DataCopy(b1, bGm, Nd2NzParams(1, k, n, 0, n, kAligned, 1, 0));
        inQueueA1.EnQue(a1);
        inQueueB1.EnQue(b1);

        a1 = inQueueA1.DeQue<half>();
        LocalTensor<half> a2 = inQueueA2.AllocTensor<half>();
        for (uint32_t i = 0; i < mBlocks; ++i)
            LoadData(a2[i * kBlocks * CUBE_MAX_SIZE], a1[i * CUBE_MAX_SIZE], LoadData2DParams(0, kBlocks, mBlocks, 0, 0, false, 0));
        inQueueA2.EnQue(a2);
        inQueueA1.FreeTensor(a1);

        b1 = inQueueB1.DeQue<half>();
        LocalTensor<half> b2 = inQueueB2.AllocTensor<half>();
        for (uint32_t kb = 0; kb < kBlocks; ++kb)
            LoadData(b2[kb * nBlocks * CUBE_MAX_SIZE], b1[kb * CUBE_MAX_SIZE], LoadData2DParams(0, nBlocks, kBlocks, 0, 0, true, 0));
        inQueueB2.EnQue(b2);
        inQueueB1.FreeTensor(b1);

        a2 = inQueueA2.DeQue<half>();
        b2 = inQueueB2.DeQue<half>();
        LocalTensor<float> c1 = outQueueCO1.AllocTensor<float>();
        Mmad(c1, a2, b2, MmadParams(m, n, k));
        outQueueCO1.EnQue(c1);
        inQueueA2.FreeTensor(a2);
        inQueueB2.FreeTensor(b2);

        c1 = outQueueCO1.DeQue<float>();
        Fixpipe(cGm, c1, FixpipeParamsV220(n, m, mAligned, n));
        outQueueCO1.FreeTensor(c1);
    }

private:
    TPipe pipe;
    TQue<TPosition::A1, 1> inQueueA1;
    TQue<TPosition::A2, 1> inQueueA2;
    TQue<TPosition::B1, 1> inQueueB1;
    TQue<TPosition::B2, 1> inQueueB2;
    TQue<TPosition::CO1, 1> outQueueCO1;
    GlobalTensor<half> aGm, bGm;
    GlobalTensor<float> cGm;
    uint32_t m, n, k, mAligned, nAligned, kAligned;
};

extern "C" __global__ __aicore__ void mm_tail(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelMatmulTail op;
    op.Init(a, b, c, t);
    op.Process();
}
