// acemu-test: entry=copy_kernel args=4
// y = x: each core moves its slice GM -> UB -> GM through one double-buffered TQueBind (no compute).
#include "kernel_operator.h"
using namespace AscendC;
class CopyKernel {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t tileLength)
    {
        const uint32_t blockLength = totalLength / GetBlockNum();
        this->tileLength = tileLength;
        tileNum = blockLength / tileLength;
        xGm.SetGlobalBuffer((__gm__ float *)x + blockLength * GetBlockIdx(), blockLength);
        yGm.SetGlobalBuffer((__gm__ float *)y + blockLength * GetBlockIdx(), blockLength);
        pipe.InitBuffer(que, 2, tileLength * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < tileNum; i++) {
            LocalTensor<float> t = que.AllocTensor<float>();
            DataCopy(t, xGm[i * tileLength], tileLength);
            que.EnQue(t);
            t = que.DeQue<float>();
            DataCopy(yGm[i * tileLength], t, tileLength);
            que.FreeTensor(t);
        }
    }
private:
    TPipe pipe;
    TQueBind<QuePosition::VECIN, QuePosition::VECOUT, 2> que;
    GlobalTensor<float> xGm, yGm;
    uint32_t tileNum, tileLength;
};
struct CopyTiling { uint32_t totalLength; uint32_t tileLength; };
REGISTER_TILING_DEFAULT(CopyTiling);
extern "C" __global__ __aicore__ void copy_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    (void)workspace;
    GET_TILING_DATA(t, tiling);
    CopyKernel op;
    op.Init(x, y, t.totalLength, t.tileLength);
    op.Process();
}
