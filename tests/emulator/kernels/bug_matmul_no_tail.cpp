// acemu-test: entry=bug_matmul_no_tail args=6
// matmul_api.cpp without SetTail: the cores of the last row and column of parts compute whole
// singleCoreM x singleCoreN parts, so they read past A and write past C's rows into the
// neighbouring parts.
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
    }
    __aicore__ inline void Process()
    {
        mm.SetTensorA(aGm);
        mm.SetTensorB(bGm, TRANS_B);
        if (t.isBias) mm.SetBias(biasGm);
        mm.IterateAll(cGm);  // FINDING: gm-race
        mm.End();
    }

    TCubeTiling t;
    AscendC::GlobalTensor<T> aGm, bGm;
    AscendC::GlobalTensor<C> cGm, biasGm;
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

extern "C" __global__ __aicore__ void bug_matmul_no_tail(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, GM_ADDR workspace, GM_ADDR tiling)
{
    AscendC::SetSysWorkspace(workspace);
    GET_TILING_DATA(t, tiling);
    RunMatmul<half, float, false>(a, b, bias, c, t);
}
