// acemu-test: entry=matmul_gemv args=5
// y = x * W for one token (x of shape (1, K)) with the high-level Matmul API in GEMV mode, the way
// LoRA kernels of serving stacks write it: A's MatmulType is CubeFormat::VECTOR. The tiling is the
// host's TCubeTiling for M = 1; `rows` (tiling) is the M the kernel tells SetOrgShape, 1 unless a
// test asks for a wrong one.
#include "kernel_operator.h"
#include "lib/matmul_intf.h"

struct GemvTiling {
    int32_t rows;
    TCubeTiling cube;
};

extern "C" __global__ __aicore__ void matmul_gemv(GM_ADDR x, GM_ADDR w, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    AscendC::SetSysWorkspace(workspace);
    GET_TILING_DATA_WITH_STRUCT(GemvTiling, t, tiling);
    using AType = matmul::MatmulType<AscendC::TPosition::GM, CubeFormat::VECTOR, half>;
    using BType = matmul::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, half>;
    using CType = matmul::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, float>;
    AscendC::TPipe pipe;
    matmul::Matmul<AType, BType, CType, CType> mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t.cube);
    if (AscendC::GetBlockIdx() >= 1) return;
    AscendC::GlobalTensor<half> xGm, wGm;
    AscendC::GlobalTensor<float> yGm;
    xGm.SetGlobalBuffer((__gm__ half*)x, t.cube.Ka);
    wGm.SetGlobalBuffer((__gm__ half*)w, t.cube.Kb * t.cube.N);
    yGm.SetGlobalBuffer((__gm__ float*)y, t.cube.N);
    mm.SetOrgShape(t.rows, t.cube.N, t.cube.Ka);
    mm.SetSingleShape(t.rows, t.cube.N, t.cube.Ka);
    mm.SetTensorA(xGm);
    mm.SetTensorB(wGm);
    mm.IterateAll(yGm);
    mm.End();
}
