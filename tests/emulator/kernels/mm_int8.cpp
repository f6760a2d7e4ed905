// acemu-test: entry=mm_int8 args=5
// C[M, N] = A[M, K] * B[K, N] for int8 inputs on one cube core: the int32 sums leave L0C twice,
// as int32 (NoQuant) and as half (DEQF16, scaled by deqScale). int8 fractals are 16 x 32; Load2D
// cannot transpose int8, so B reaches L0B with LoadDataWithTranspose, whose 32 x 32 squares are
// two L1 fractals one above the other. M, N multiples of 32, K of 32.
#include "kernel_operator.h"
using namespace AscendC;

struct MmTiling {
    uint32_t m, n, k;
    float deqScale;
};
REGISTER_TILING_DEFAULT(MmTiling);

class KernelMatmulInt8 {
public:
    static constexpr uint32_t C0 = 32;        // int8 elements in a fractal row
    static constexpr uint32_t FRACTAL = 512;  // elements of a fractal

    __aicore__ inline void Init(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR cHalf, const MmTiling& t)
    {
        m = t.m;
        n = t.n;
        k = t.k;
        deqScale = t.deqScale;
        aGm.SetGlobalBuffer((__gm__ int8_t *)a, m * k);
        bGm.SetGlobalBuffer((__gm__ int8_t *)b, k * n);
        cGm.SetGlobalBuffer((__gm__ int32_t *)c, m * n);
        cHalfGm.SetGlobalBuffer((__gm__ half *)cHalf, m * n);
        pipe.InitBuffer(inQueueA1, 1, m * k);
        pipe.InitBuffer(inQueueA2, 1, m * k);
        pipe.InitBuffer(inQueueB1, 1, k * n);
        pipe.InitBuffer(inQueueB2, 1, k * n);
        pipe.InitBuffer(outQueueCO1, 1, m * n * sizeof(int32_t));
    }
    __aicore__ inline void Process()
    {
        const uint32_t mBlocks = m / BLOCK_CUBE, nBlocks = n / BLOCK_CUBE, kBlocks = k / C0;
        LocalTensor<int8_t> a1 = inQueueA1.AllocTensor<int8_t>();
        LocalTensor<int8_t> b1 = inQueueB1.AllocTensor<int8_t>();
        DataCopy(a1, aGm, Nd2NzParams(1, m, k, 0, k, m, 1, 0));
        DataCopy(b1, bGm, Nd2NzParams(1, k, n, 0, n, k, 1, 0));
        inQueueA1.EnQue(a1);
        inQueueB1.EnQue(b1);

        a1 = inQueueA1.DeQue<int8_t>();
        LocalTensor<int8_t> a2 = inQueueA2.AllocTensor<int8_t>();
        for (uint32_t i = 0; i < mBlocks; ++i)
            LoadData(a2[i * kBlocks * FRACTAL], a1[i * FRACTAL], LoadData2DParams(0, kBlocks, mBlocks, 0, 0, false, 0));
        inQueueA2.EnQue(a2);
        inQueueA1.FreeTensor(a1);

        // Square (k pair kb, C0 column c) is 1 KiB at (c * k / 16 + 2 * kb) * 512 in L1 and becomes
        // ZN fractals (kb, 2c) and (kb, 2c + 1), next to each other in L0B.
        b1 = inQueueB1.DeQue<int8_t>();
        LocalTensor<int8_t> b2 = inQueueB2.AllocTensor<int8_t>();
        for (uint32_t kb = 0; kb < kBlocks; ++kb)
            LoadDataWithTranspose(b2[kb * nBlocks * FRACTAL], b1[kb * 2 * FRACTAL], LoadData2dTransposeParams(0, n / C0, kBlocks, 1, 0));
        inQueueB2.EnQue(b2);
        inQueueB1.FreeTensor(b1);

        a2 = inQueueA2.DeQue<int8_t>();
        b2 = inQueueB2.DeQue<int8_t>();
        LocalTensor<int32_t> c1 = outQueueCO1.AllocTensor<int32_t>();
        Mmad(c1, a2, b2, MmadParams(m, n, k));
        outQueueCO1.EnQue(c1);
        inQueueA2.FreeTensor(a2);
        inQueueB2.FreeTensor(b2);

        c1 = outQueueCO1.DeQue<int32_t>();
        Fixpipe(cGm, c1, FixpipeParamsV220(n, m, m, n));
        FixpipeParamsV220 deq(n, m, m, n);
        deq.quantPre = QuantMode_t::DEQF16;
        uint32_t scaleBits;
        memcpy(&scaleBits, &deqScale, sizeof(scaleBits));
        deq.deqScalar = scaleBits;
        Fixpipe(cHalfGm, c1, deq);
        outQueueCO1.FreeTensor(c1);
    }

private:
    TPipe pipe;
    TQue<TPosition::A1, 1> inQueueA1;
    TQue<TPosition::A2, 1> inQueueA2;
    TQue<TPosition::B1, 1> inQueueB1;
    TQue<TPosition::B2, 1> inQueueB2;
    TQue<TPosition::CO1, 1> outQueueCO1;
    GlobalTensor<int8_t> aGm, bGm;
    GlobalTensor<int32_t> cGm;
    GlobalTensor<half> cHalfGm;
    uint32_t m, n, k;
    float deqScale;
};

extern "C" __global__ __aicore__ void mm_int8(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR cHalf, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelMatmulInt8 op;
    op.Init(a, b, c, cHalf, t);
    op.Process();
}
