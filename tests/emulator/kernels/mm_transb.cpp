// acemu-test: entry=mm_transb args=4
// C[M, N] (float) = A[M, K] * B^T, with B given as [N, K] (a Linear layer's weight), float or half
// (tiling dtype 2 / 0). ND -> Nz of B^T in L1 is already B's ZN layout for L0B, so one LoadData
// moves all of it without a transpose; that is how float, which Load2D cannot transpose, gets a
// right-hand matrix into L0B.
#include "kernel_operator.h"
using namespace AscendC;

struct MmTiling {
    uint32_t m, n, k, dtype;
};
REGISTER_TILING_DEFAULT(MmTiling);

template <typename T> class KernelMatmulTransB {
public:
    static constexpr uint32_t C0 = ONE_BLK_SIZE / sizeof(T);     // elements of a fractal row: 8 float, 16 half
    static constexpr uint32_t FRACTAL = BLOCK_CUBE * C0;         // elements of a 512-B fractal

    __aicore__ inline void Init(GM_ADDR a, GM_ADDR b, GM_ADDR c, const MmTiling& t)
    {
        m = t.m;
        n = t.n;
        k = t.k;
        mBlocks = m / BLOCK_CUBE;
        nBlocks = n / BLOCK_CUBE;
        kBlocks = k / C0;
        aGm.SetGlobalBuffer((__gm__ T *)a, m * k);
        bGm.SetGlobalBuffer((__gm__ T *)b, n * k);
        cGm.SetGlobalBuffer((__gm__ float *)c, m * n);
        pipe.InitBuffer(inQueueA1, 1, m * k * sizeof(T));
        pipe.InitBuffer(inQueueA2, 1, m * k * sizeof(T));
        pipe.InitBuffer(inQueueB1, 1, n * k * sizeof(T));
        pipe.InitBuffer(inQueueB2, 1, n * k * sizeof(T));
        pipe.InitBuffer(outQueueCO1, 1, m * n * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        LocalTensor<T> a1 = inQueueA1.AllocTensor<T>();
        LocalTensor<T> b1 = inQueueB1.AllocTensor<T>();
        DataCopy(a1, aGm, Nd2NzParams(1, m, k, 0, k, m, 1, 0));
        DataCopy(b1, bGm, Nd2NzParams(1, n, k, 0, k, n, 1, 0));  // B^T: n rows of k
        inQueueA1.EnQue(a1);
        inQueueB1.EnQue(b1);

        a1 = inQueueA1.DeQue<T>();
        LocalTensor<T> a2 = inQueueA2.AllocTensor<T>();
        for (uint32_t i = 0; i < mBlocks; ++i)
            LoadData(a2[i * kBlocks * FRACTAL], a1[i * FRACTAL], LoadData2DParams(0, kBlocks, mBlocks, 0, 0, false, 0));
        inQueueA2.EnQue(a2);
        inQueueA1.FreeTensor(a1);

        b1 = inQueueB1.DeQue<T>();
        LocalTensor<T> b2 = inQueueB2.AllocTensor<T>();
        LoadData(b2, b1, LoadData2DParams(0, kBlocks * nBlocks, 1, 0, 0, false, 0));
        inQueueB2.EnQue(b2);
        inQueueB1.FreeTensor(b1);

        a2 = inQueueA2.DeQue<T>();
        b2 = inQueueB2.DeQue<T>();
        LocalTensor<float> c1 = outQueueCO1.AllocTensor<float>();
        Mmad(c1, a2, b2, MmadParams(m, n, k));
        outQueueCO1.EnQue(c1);
        inQueueA2.FreeTensor(a2);
        inQueueB2.FreeTensor(b2);

        c1 = outQueueCO1.DeQue<float>();
        Fixpipe(cGm, c1, FixpipeParamsV220(n, m, m, n));
        outQueueCO1.FreeTensor(c1);
    }

private:
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

extern "C" __global__ __aicore__ void mm_transb(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    if (t.dtype == 2) {
        KernelMatmulTransB<float> op;
        op.Init(a, b, c, t);
        op.Process();
    } else {
        KernelMatmulTransB<half> op;
        op.Init(a, b, c, t);
        op.Process();
    }
}
