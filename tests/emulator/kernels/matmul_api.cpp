// acemu-test: entry=matmul_api args=6
// C = A * B (+ bias) with the high-level Matmul API, the way MultiKernelBench's matmul operators
// and the official MatmulCustom sample write it: each vector core finds its singleCoreM x
// singleCoreN part of C from GetBlockIdx, sets the tail for the last row / column of parts, and
// IterateAll writes its blocks to GM. The tiling is a small header (dtype, transposed B) and the
// TCubeTiling that the host's MultiCoreMatmulTiling made.
#include "kernel_operator.h"
#include "lib/matmul_intf.h"

using namespace matmul;

struct MatmulApiTiling {
    uint32_t dtype;   // 0 half, 1 bfloat16, 2 float (C float), 3 int8 (C int32)
    uint32_t transB;  // B given as [N, K]
    TCubeTiling cube;
};
REGISTER_TILING_DEFAULT(MatmulApiTiling);

template <typename T, typename C, bool TRANS_B> class MatmulKernel {
public:
    using AType = MatmulType<AscendC::TPosition::GM, CubeFormat::ND, T>;
    using BType = MatmulType<AscendC::TPosition::GM, CubeFormat::ND, T, TRANS_B>;
    using CType = MatmulType<AscendC::TPosition::GM, CubeFormat::ND, C>;
    Matmul<AType, BType, CType, CType> mm;

    __aicore__ inline void Init(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, const TCubeTiling& tiling)
    {
        t = tiling;
        aGm.SetGlobalBuffer((__gm__ T *)a, t.M * t.Ka);
        bGm.SetGlobalBuffer((__gm__ T *)b, t.Kb * t.N);
        cGm.SetGlobalBuffer((__gm__ C *)c, t.M * t.N);
        biasGm.SetGlobalBuffer((__gm__ C *)bias, t.N);
        const int32_t mParts = (t.M + t.singleCoreM - 1) / t.singleCoreM;
        const int32_t mIdx = AscendC::GetBlockIdx() % mParts, nIdx = AscendC::GetBlockIdx() / mParts;
        aGm = aGm[mIdx * t.singleCoreM * t.Ka];
        bGm = bGm[TRANS_B ? nIdx * t.singleCoreN * t.Kb : nIdx * t.singleCoreN];
        cGm = cGm[mIdx * t.singleCoreM * t.N + nIdx * t.singleCoreN];
        biasGm = biasGm[nIdx * t.singleCoreN];
        tailM = t.M - mIdx * t.singleCoreM < t.singleCoreM ? t.M - mIdx * t.singleCoreM : t.singleCoreM;
        tailN = t.N - nIdx * t.singleCoreN < t.singleCoreN ? t.N - nIdx * t.singleCoreN : t.singleCoreN;
    }
    __aicore__ inline void Process()
    {
        mm.SetTail(tailM, tailN);
        mm.SetTensorA(aGm);
        mm.SetTensorB(bGm, TRANS_B);
        if (t.isBias) mm.SetBias(biasGm);
        mm.IterateAll(cGm);
        mm.End();
    }

    TCubeTiling t;
    AscendC::GlobalTensor<T> aGm, bGm;
    AscendC::GlobalTensor<C> cGm, biasGm;
    int32_t tailM, tailN;
};

template <typename T, typename C, bool TRANS_B>
__aicore__ inline void RunMatmul(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, const MatmulApiTiling& tiling)
{
    AscendC::TPipe pipe;
    MatmulKernel<T, C, TRANS_B> op;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), op.mm, &tiling.cube);
    if (AscendC::GetBlockIdx() >= tiling.cube.usedCoreNum) return;
    op.Init(a, b, bias, c, tiling.cube);
    op.Process();
}

extern "C" __global__ __aicore__ void matmul_api(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, GM_ADDR workspace, GM_ADDR tiling)
{
    AscendC::SetSysWorkspace(workspace);
    GET_TILING_DATA(t, tiling);
    switch (t.dtype * 2 + t.transB) {
        case 0: RunMatmul<half, float, false>(a, b, bias, c, t); break;
        case 1: RunMatmul<half, float, true>(a, b, bias, c, t); break;
        case 2: RunMatmul<bfloat16_t, float, false>(a, b, bias, c, t); break;
        case 3: RunMatmul<bfloat16_t, float, true>(a, b, bias, c, t); break;
        case 4: RunMatmul<float, float, false>(a, b, bias, c, t); break;
        case 5: RunMatmul<float, float, true>(a, b, bias, c, t); break;
        case 6: RunMatmul<int8_t, int32_t, false>(a, b, bias, c, t); break;
        default: RunMatmul<int8_t, int32_t, true>(a, b, bias, c, t); break;
    }
}
