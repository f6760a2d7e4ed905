// acemu-test: entry=mm_multicore args=4
// C[M, N] (float) = A[M, K] * B[K, N] (half) over several cube cores: C is cut into baseM x baseN
// tiles (the last row and column of tiles may be short), tile t goes to core t % blockNum, and K
// is walked in slices of baseK. The buffers are TBufs, so the kernel orders the pipes itself with
// SetFlag / WaitFlag: MTE2 -> MTE1 -> M -> FIX forwards, and MTE1 -> MTE2, M -> MTE1, FIX -> M
// before a buffer is reused (set once up front: every buffer starts free; waited once at the end).
#include "kernel_operator.h"
using namespace AscendC;

struct MmTiling {
    uint32_t m, n, k, baseM, baseN, baseK;  // multiples of 16; k a multiple of baseK
};
REGISTER_TILING_DEFAULT(MmTiling);

class KernelMatmulTiles {
public:
    __aicore__ inline void Init(GM_ADDR a, GM_ADDR b, GM_ADDR c, const MmTiling& tiling)
    {
        t = tiling;
        aGm.SetGlobalBuffer((__gm__ half *)a, t.m * t.k);
        bGm.SetGlobalBuffer((__gm__ half *)b, t.k * t.n);
        cGm.SetGlobalBuffer((__gm__ float *)c, t.m * t.n);
        pipe.InitBuffer(a1Buf, t.baseM * t.baseK * sizeof(half));
        pipe.InitBuffer(b1Buf, t.baseK * t.baseN * sizeof(half));
        pipe.InitBuffer(a2Buf, t.baseM * t.baseK * sizeof(half));
        pipe.InitBuffer(b2Buf, t.baseK * t.baseN * sizeof(half));
        pipe.InitBuffer(c1Buf, t.baseM * t.baseN * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        const uint32_t tilesM = (t.m + t.baseM - 1) / t.baseM, tilesN = (t.n + t.baseN - 1) / t.baseN;
        SetFlag<HardEvent::MTE1_MTE2>(EVENT_ID0);
        SetFlag<HardEvent::M_MTE1>(EVENT_ID0);
        SetFlag<HardEvent::FIX_M>(EVENT_ID0);
        for (uint32_t tile = GetBlockIdx(); tile < tilesM * tilesN; tile += GetBlockNum()) {
            const uint32_t mOff = tile / tilesN * t.baseM, nOff = tile % tilesN * t.baseN;
            const uint32_t curM = t.m - mOff < t.baseM ? t.m - mOff : t.baseM;
            const uint32_t curN = t.n - nOff < t.baseN ? t.n - nOff : t.baseN;
            for (uint32_t kOff = 0; kOff < t.k; kOff += t.baseK) {
                CopyIn(mOff, nOff, kOff, curM, curN);
                Split(curM, curN);
                Compute(curM, curN, kOff == 0);
            }
            CopyOut(mOff, nOff, curM, curN);
        }
        WaitFlag<HardEvent::MTE1_MTE2>(EVENT_ID0);
        WaitFlag<HardEvent::M_MTE1>(EVENT_ID0);
        WaitFlag<HardEvent::FIX_M>(EVENT_ID0);
    }

private:
    __aicore__ inline void CopyIn(uint32_t mOff, uint32_t nOff, uint32_t kOff, uint32_t curM, uint32_t curN)
    {
        LocalTensor<half> a1 = a1Buf.Get<half>(), b1 = b1Buf.Get<half>();
        WaitFlag<HardEvent::MTE1_MTE2>(EVENT_ID0);  // MTE1 has read the previous slice
        DataCopy(a1, aGm[mOff * t.k + kOff], Nd2NzParams(1, curM, t.baseK, 0, t.k, curM, 1, 0));
        DataCopy(b1, bGm[kOff * t.n + nOff], Nd2NzParams(1, t.baseK, curN, 0, t.n, t.baseK, 1, 0));
        SetFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    }
    __aicore__ inline void Split(uint32_t curM, uint32_t curN)
    {
        LocalTensor<half> a1 = a1Buf.Get<half>(), b1 = b1Buf.Get<half>();
        LocalTensor<half> a2 = a2Buf.Get<half>(), b2 = b2Buf.Get<half>();
        const uint32_t mBlocks = curM / BLOCK_CUBE, nBlocks = curN / BLOCK_CUBE, kBlocks = t.baseK / BLOCK_CUBE;
        WaitFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);  // the slice is in L1
        WaitFlag<HardEvent::M_MTE1>(EVENT_ID0);     // the previous Mmad has read L0A / L0B
        for (uint32_t i = 0; i < mBlocks; ++i)
            LoadData(a2[i * kBlocks * CUBE_MAX_SIZE], a1[i * CUBE_MAX_SIZE], LoadData2DParams(0, kBlocks, mBlocks, 0, 0, false, 0));
        for (uint32_t kb = 0; kb < kBlocks; ++kb)
            LoadData(b2[kb * nBlocks * CUBE_MAX_SIZE], b1[kb * CUBE_MAX_SIZE], LoadData2DParams(0, nBlocks, kBlocks, 0, 0, true, 0));
        SetFlag<HardEvent::MTE1_MTE2>(EVENT_ID0);
        SetFlag<HardEvent::MTE1_M>(EVENT_ID0);
    }
    __aicore__ inline void Compute(uint32_t curM, uint32_t curN, bool first)
    {
        LocalTensor<half> a2 = a2Buf.Get<half>(), b2 = b2Buf.Get<half>();
        LocalTensor<float> c1 = c1Buf.Get<float>();
        WaitFlag<HardEvent::MTE1_M>(EVENT_ID0);
        if (first) WaitFlag<HardEvent::FIX_M>(EVENT_ID0);  // the previous tile has left L0C
        MmadParams params(curM, curN, t.baseK);
        params.cmatrixInitVal = first;
        Mmad(c1, a2, b2, params);
        SetFlag<HardEvent::M_MTE1>(EVENT_ID0);
    }
    __aicore__ inline void CopyOut(uint32_t mOff, uint32_t nOff, uint32_t curM, uint32_t curN)
    {
        LocalTensor<float> c1 = c1Buf.Get<float>();
        SetFlag<HardEvent::M_FIX>(EVENT_ID0);
        WaitFlag<HardEvent::M_FIX>(EVENT_ID0);
        Fixpipe(cGm[mOff * t.n + nOff], c1, FixpipeParamsV220(curN, curM, curM, t.n));
        SetFlag<HardEvent::FIX_M>(EVENT_ID0);
    }

    TPipe pipe;
    TBuf<TPosition::A1> a1Buf;
    TBuf<TPosition::B1> b1Buf;
    TBuf<TPosition::A2> a2Buf;
    TBuf<TPosition::B2> b2Buf;
    TBuf<TPosition::CO1> c1Buf;
    GlobalTensor<half> aGm, bGm;
    GlobalTensor<float> cGm;
    MmTiling t;
};

extern "C" __global__ __aicore__ void mm_multicore(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelMatmulTiles op;
    op.Init(a, b, c, t);
    op.Process();
}
