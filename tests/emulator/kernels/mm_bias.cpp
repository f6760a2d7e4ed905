// acemu-test: entry=mm_bias args=5
// C[M, N] = A[M, K] * B[K, N] + bias[N] (half inputs, float bias and result) on one cube core, in
// N tiles of 128 columns: the bias goes GM -> C1 (L1) once, then each tile's slice C1 -> C2 (the
// bias table, 1 KiB) and Mmad adds it to every row of C.
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t TILE_N = 128;

struct MmTiling {
    uint32_t m, n, k;
};
REGISTER_TILING_DEFAULT(MmTiling);

class KernelMatmulBias {
public:
    __aicore__ inline void Init(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, const MmTiling& t)
    {
        m = t.m;
        n = t.n;
        k = t.k;
        mBlocks = m / BLOCK_CUBE;
        kBlocks = k / BLOCK_CUBE;
        aGm.SetGlobalBuffer((__gm__ half *)a, m * k);
        bGm.SetGlobalBuffer((__gm__ half *)b, k * n);
        biasGm.SetGlobalBuffer((__gm__ float *)bias, n);
        cGm.SetGlobalBuffer((__gm__ float *)c, m * n);
        pipe.InitBuffer(inQueueA1, 1, m * k * sizeof(half));
        pipe.InitBuffer(inQueueA2, 1, m * k * sizeof(half));
        pipe.InitBuffer(inQueueB1, 1, k * TILE_N * sizeof(half));
        pipe.InitBuffer(inQueueB2, 1, k * TILE_N * sizeof(half));
        pipe.InitBuffer(inQueueBiasC1, 1, n * sizeof(float));
        pipe.InitBuffer(inQueueBiasC2, 1, TILE_N * sizeof(float));
        pipe.InitBuffer(outQueueCO1, 1, m * TILE_N * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        CopyInA();
        SplitA();
        CopyInBias();
        LocalTensor<half> a2 = inQueueA2.DeQue<half>();
        LocalTensor<float> bias1 = inQueueBiasC1.DeQue<float>();
        for (uint32_t t = 0; t < n / TILE_N; ++t) {
            CopyInB(t);
            SplitB();
            SplitBias(bias1, t);
            Compute(a2);
            CopyOut(t);
        }
        inQueueA2.FreeTensor(a2);
        inQueueBiasC1.FreeTensor(bias1);
    }

private:
    __aicore__ inline void CopyInA()
    {
        LocalTensor<half> a1 = inQueueA1.AllocTensor<half>();
        DataCopy(a1, aGm, Nd2NzParams(1, m, k, 0, k, m, 1, 0));
        inQueueA1.EnQue(a1);
    }
    __aicore__ inline void SplitA()
    {
        LocalTensor<half> a1 = inQueueA1.DeQue<half>();
        LocalTensor<half> a2 = inQueueA2.AllocTensor<half>();
        for (uint32_t i = 0; i < mBlocks; ++i)
            LoadData(a2[i * kBlocks * CUBE_MAX_SIZE], a1[i * CUBE_MAX_SIZE], LoadData2DParams(0, kBlocks, mBlocks, 0, 0, false, 0));
        inQueueA2.EnQue(a2);
        inQueueA1.FreeTensor(a1);
    }
    __aicore__ inline void CopyInBias()
    {
        LocalTensor<float> bias1 = inQueueBiasC1.AllocTensor<float>();
        DataCopy(bias1, biasGm, n);
        inQueueBiasC1.EnQue(bias1);
    }
    __aicore__ inline void CopyInB(uint32_t t)
    {
        LocalTensor<half> b1 = inQueueB1.AllocTensor<half>();
        DataCopy(b1, bGm[t * TILE_N], Nd2NzParams(1, k, TILE_N, 0, n, k, 1, 0));
        inQueueB1.EnQue(b1);
    }
    __aicore__ inline void SplitB()
    {
        LocalTensor<half> b1 = inQueueB1.DeQue<half>();
        LocalTensor<half> b2 = inQueueB2.AllocTensor<half>();
        constexpr uint32_t nBlocks = TILE_N / BLOCK_CUBE;
        for (uint32_t kb = 0; kb < kBlocks; ++kb)
            LoadData(b2[kb * nBlocks * CUBE_MAX_SIZE], b1[kb * CUBE_MAX_SIZE], LoadData2DParams(0, nBlocks, kBlocks, 0, 0, true, 0));
        inQueueB2.EnQue(b2);
        inQueueB1.FreeTensor(b1);
    }
    __aicore__ inline void SplitBias(const LocalTensor<float>& bias1, uint32_t t)
    {
        LocalTensor<float> bias2 = inQueueBiasC2.AllocTensor<float>();
        DataCopy(bias2, bias1[t * TILE_N], TILE_N);
        inQueueBiasC2.EnQue(bias2);
    }
    __aicore__ inline void Compute(const LocalTensor<half>& a2)
    {
        LocalTensor<half> b2 = inQueueB2.DeQue<half>();
        LocalTensor<float> bias2 = inQueueBiasC2.DeQue<float>();
        LocalTensor<float> c1 = outQueueCO1.AllocTensor<float>();
        Mmad(c1, a2, b2, bias2, MmadParams(m, TILE_N, k));
        outQueueCO1.EnQue(c1);
        inQueueB2.FreeTensor(b2);
        inQueueBiasC2.FreeTensor(bias2);
    }
    __aicore__ inline void CopyOut(uint32_t t)
    {
        LocalTensor<float> c1 = outQueueCO1.DeQue<float>();
        Fixpipe(cGm[t * TILE_N], c1, FixpipeParamsV220(TILE_N, m, m, n));
        outQueueCO1.FreeTensor(c1);
    }

    TPipe pipe;
    TQue<TPosition::A1, 1> inQueueA1;
    TQue<TPosition::A2, 1> inQueueA2;
    TQue<TPosition::B1, 1> inQueueB1;
    TQue<TPosition::B2, 1> inQueueB2;
    TQue<TPosition::C1, 1> inQueueBiasC1;
    TQue<TPosition::C2, 1> inQueueBiasC2;
    TQue<TPosition::CO1, 1> outQueueCO1;
    GlobalTensor<half> aGm, bGm;
    GlobalTensor<float> biasGm, cGm;
    uint32_t m, n, k, mBlocks, kBlocks;
};

extern "C" __global__ __aicore__ void mm_bias(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelMatmulBias op;
    op.Init(a, b, bias, c, t);
    op.Process();
}
