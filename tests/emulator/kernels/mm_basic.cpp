// acemu-test: entry=mm_basic args=4
// C[M, N] (float) = A[M, K] * B[K, N] on one cube core with the basic API, all of A and B in L1 at
// once: CopyIn (GM -> L1, ND to Nz), SplitA (L1 Nz -> L0A ZZ), SplitB (L1 Nz -> L0B ZN, each
// fractal transposed), Compute (Mmad), CopyOut (Fixpipe, NZ to ND); one queue per position.
// The tiling's dtype picks half (0) or bfloat16_t (1); M, N, K are multiples of 16.
#include "kernel_operator.h"
using namespace AscendC;

struct MmTiling {
    uint32_t m, n, k, dtype;
};
REGISTER_TILING_DEFAULT(MmTiling);

template <typename T> class KernelMatmul {
public:
    __aicore__ inline void Init(GM_ADDR a, GM_ADDR b, GM_ADDR c, const MmTiling& t)
    {
        m = t.m;
        n = t.n;
        k = t.k;
        mBlocks = m / BLOCK_CUBE;
        nBlocks = n / BLOCK_CUBE;
        kBlocks = k / BLOCK_CUBE;
        aGm.SetGlobalBuffer((__gm__ T *)a, m * k);
        bGm.SetGlobalBuffer((__gm__ T *)b, k * n);
        cGm.SetGlobalBuffer((__gm__ float *)c, m * n);
        pipe.InitBuffer(inQueueA1, 1, m * k * sizeof(T));
        pipe.InitBuffer(inQueueA2, 1, m * k * sizeof(T));
        pipe.InitBuffer(inQueueB1, 1, k * n * sizeof(T));
        pipe.InitBuffer(inQueueB2, 1, k * n * sizeof(T));
        pipe.InitBuffer(outQueueCO1, 1, m * n * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        CopyIn();
        SplitA();
        SplitB();
        Compute();
        CopyOut();
    }

private:
    __aicore__ inline void CopyIn()
    {
        LocalTensor<T> a1 = inQueueA1.AllocTensor<T>();
        LocalTensor<T> b1 = inQueueB1.AllocTensor<T>();
        // ND -> Nz: each row's 16-element pieces go to the C0 columns, m (or k) rows apart
        DataCopy(a1, aGm, Nd2NzParams(1, m, k, 0, k, m, 1, 0));
        DataCopy(b1, bGm, Nd2NzParams(1, k, n, 0, n, k, 1, 0));
        inQueueA1.EnQue(a1);
        inQueueB1.EnQue(b1);
    }
    __aicore__ inline void SplitA()
    {
        LocalTensor<T> a1 = inQueueA1.DeQue<T>();
        LocalTensor<T> a2 = inQueueA2.AllocTensor<T>();
        // Nz -> ZZ: one fractal row of A at a time, its fractals mBlocks apart in L1
        for (uint32_t i = 0; i < mBlocks; ++i) {
            LoadData2DParams params(0, kBlocks, mBlocks, 0, 0, false, 0);
            LoadData(a2[i * kBlocks * CUBE_MAX_SIZE], a1[i * CUBE_MAX_SIZE], params);
        }
        inQueueA2.EnQue(a2);
        inQueueA1.FreeTensor(a1);
    }
    __aicore__ inline void SplitB()
    {
        LocalTensor<T> b1 = inQueueB1.DeQue<T>();
        LocalTensor<T> b2 = inQueueB2.AllocTensor<T>();
        // Nz -> ZN: one fractal row of B (fixed k block) at a time, each fractal transposed
        for (uint32_t kb = 0; kb < kBlocks; ++kb) {
            LoadData2dTransposeParams params(0, nBlocks, kBlocks, 0, 0);
            LoadDataWithTranspose(b2[kb * nBlocks * CUBE_MAX_SIZE], b1[kb * CUBE_MAX_SIZE], params);
        }
        inQueueB2.EnQue(b2);
        inQueueB1.FreeTensor(b1);
    }
    __aicore__ inline void Compute()
    {
        LocalTensor<T> a2 = inQueueA2.DeQue<T>();
        LocalTensor<T> b2 = inQueueB2.DeQue<T>();
        LocalTensor<float> c1 = outQueueCO1.AllocTensor<float>();
        Mmad(c1, a2, b2, MmadParams(m, n, k));
        outQueueCO1.EnQue(c1);
        inQueueA2.FreeTensor(a2);
        inQueueB2.FreeTensor(b2);
    }
    __aicore__ inline void CopyOut()
    {
        LocalTensor<float> c1 = outQueueCO1.DeQue<float>();
        FixpipeParamsV220 params(n, m, m, n);  // nSize, mSize, srcStride (L0C rows), dstStride (GM row)
        Fixpipe(cGm, c1, params);
        outQueueCO1.FreeTensor(c1);
    }

    TPipe pipe;
    TQue<TPosition::A1, 1> inQueueA1;
    TQue<TPosition::A2, 1> inQueueA2;
    TQue<TPosition::B1, 1> inQueueB1;
    TQue<TPosition::B2, 1> inQueueB2;
    TQue<TPosition::CO1, 1> outQueueCO1;
    GlobalTensor<T> aGm, bGm;
    GlobalTensor<float> cGm;
    uint32_t m, n, k, mBlocks, nBlocks, kBlocks;
};

extern "C" __global__ __aicore__ void mm_basic(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    if (t.dtype == 0) {
        KernelMatmul<half> op;
        op.Init(a, b, c, t);
        op.Process();
    } else {
        KernelMatmul<bfloat16_t> op;
        op.Init(a, b, c, t);
        op.Process();
    }
}
