// acemu-test: entry=mm_double_buffer args=4
// C[M, N] (half) = A[M, K] * B[K, N] (half) on one cube core, K in slices of baseK: the A and B
// slices are double-buffered (two buffers per L1 and L0 queue) so the next slice's copy overlaps
// this slice's Mmad on the NPU; each Mmad accumulates in L0C (cmatrixInitVal only on the first),
// and Fixpipe converts the float sums to half (QuantMode_t::F322F16).
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

struct MmTiling {
    uint32_t m, n, k, baseK;
};
REGISTER_TILING_DEFAULT(MmTiling);

class KernelMatmulDb {
public:
    __aicore__ inline void Init(GM_ADDR a, GM_ADDR b, GM_ADDR c, const MmTiling& t)
    {
        m = t.m;
        n = t.n;
        k = t.k;
        baseK = t.baseK;
        mBlocks = m / BLOCK_CUBE;
        nBlocks = n / BLOCK_CUBE;
        kBlocks = baseK / BLOCK_CUBE;
        aGm.SetGlobalBuffer((__gm__ half *)a, m * k);
        bGm.SetGlobalBuffer((__gm__ half *)b, k * n);
        cGm.SetGlobalBuffer((__gm__ half *)c, m * n);
        pipe.InitBuffer(inQueueA1, BUFFER_NUM, m * baseK * sizeof(half));
        pipe.InitBuffer(inQueueB1, BUFFER_NUM, baseK * n * sizeof(half));
        pipe.InitBuffer(inQueueA2, BUFFER_NUM, m * baseK * sizeof(half));
        pipe.InitBuffer(inQueueB2, BUFFER_NUM, baseK * n * sizeof(half));
        pipe.InitBuffer(outQueueCO1, 1, m * n * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        LocalTensor<float> c1 = outQueueCO1.AllocTensor<float>();
        for (uint32_t kIdx = 0; kIdx < k / baseK; ++kIdx) {
            CopyIn(kIdx);
            SplitA();
            SplitB();
            Compute(c1, kIdx);
        }
        outQueueCO1.EnQue(c1);
        CopyOut();
    }

private:
    __aicore__ inline void CopyIn(uint32_t kIdx)
    {
        LocalTensor<half> a1 = inQueueA1.AllocTensor<half>();
        LocalTensor<half> b1 = inQueueB1.AllocTensor<half>();
        // columns kIdx * baseK .. of A (row stride k), rows kIdx * baseK .. of B
        DataCopy(a1, aGm[kIdx * baseK], Nd2NzParams(1, m, baseK, 0, k, m, 1, 0));
        DataCopy(b1, bGm[kIdx * baseK * n], Nd2NzParams(1, baseK, n, 0, n, baseK, 1, 0));
        inQueueA1.EnQue(a1);
        inQueueB1.EnQue(b1);
    }
    __aicore__ inline void SplitA()
    {
        LocalTensor<half> a1 = inQueueA1.DeQue<half>();
        LocalTensor<half> a2 = inQueueA2.AllocTensor<half>();
        // Nz -> ZZ, one column of fractals at a time: a column is contiguous in L1, its fractals
        // land kBlocks apart in L0A (dstGap = kBlocks - 1)
        for (uint32_t kb = 0; kb < kBlocks; ++kb) {
            LoadData2DParams params(0, mBlocks, 1, 0, kBlocks - 1, false, 0);
            LoadData(a2[kb * CUBE_MAX_SIZE], a1[kb * m * BLOCK_CUBE], params);
        }
        inQueueA2.EnQue(a2);
        inQueueA1.FreeTensor(a1);
    }
    __aicore__ inline void SplitB()
    {
        LocalTensor<half> b1 = inQueueB1.DeQue<half>();
        LocalTensor<half> b2 = inQueueB2.AllocTensor<half>();
        // Nz -> ZN with Load2D's own transpose (half): fractal row kb of B, kBlocks apart in L1
        for (uint32_t kb = 0; kb < kBlocks; ++kb) {
            LoadData2DParams params(0, nBlocks, kBlocks, 0, 0, true, 0);
            LoadData(b2[kb * nBlocks * CUBE_MAX_SIZE], b1[kb * CUBE_MAX_SIZE], params);
        }
        inQueueB2.EnQue(b2);
        inQueueB1.FreeTensor(b1);
    }
    __aicore__ inline void Compute(const LocalTensor<float>& c1, uint32_t kIdx)
    {
        LocalTensor<half> a2 = inQueueA2.DeQue<half>();
        LocalTensor<half> b2 = inQueueB2.DeQue<half>();
        MmadParams params(m, n, baseK);
        params.cmatrixInitVal = kIdx == 0;  // the first slice starts C at 0, the others add to it
        Mmad(c1, a2, b2, params);
        inQueueA2.FreeTensor(a2);
        inQueueB2.FreeTensor(b2);
    }
    __aicore__ inline void CopyOut()
    {
        LocalTensor<float> c1 = outQueueCO1.DeQue<float>();
        FixpipeParamsV220 params(n, m, m, n);
        params.quantPre = QuantMode_t::F322F16;
        Fixpipe(cGm, c1, params);
        outQueueCO1.FreeTensor(c1);
    }

    TPipe pipe;
    TQue<TPosition::A1, BUFFER_NUM> inQueueA1;
    TQue<TPosition::B1, BUFFER_NUM> inQueueB1;
    TQue<TPosition::A2, BUFFER_NUM> inQueueA2;
    TQue<TPosition::B2, BUFFER_NUM> inQueueB2;
    TQue<TPosition::CO1, 1> outQueueCO1;
    GlobalTensor<half> aGm, bGm, cGm;
    uint32_t m, n, k, baseK, mBlocks, nBlocks, kBlocks;
};

extern "C" __global__ __aicore__ void mm_double_buffer(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelMatmulDb op;
    op.Init(a, b, c, t);
    op.Process();
}
