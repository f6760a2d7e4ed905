// acemu-test: entry=stream_add args=5
// z = x + y, each core's slice in tiles of tileLength floats; BUFFER_NUM buffers per queue
// (-DBUFFER_NUM=1: single-buffered; the default 2: double-buffered).
#include "kernel_operator.h"
using namespace AscendC;
#ifndef BUFFER_NUM
#define BUFFER_NUM 2
#endif
class StreamAdd {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t totalLength, uint32_t tileLength)
    {
        const uint32_t blockLength = totalLength / GetBlockNum();
        this->tileLength = tileLength;
        tileNum = blockLength / tileLength;
        xGm.SetGlobalBuffer((__gm__ float *)x + blockLength * GetBlockIdx(), blockLength);
        yGm.SetGlobalBuffer((__gm__ float *)y + blockLength * GetBlockIdx(), blockLength);
        zGm.SetGlobalBuffer((__gm__ float *)z + blockLength * GetBlockIdx(), blockLength);
        pipe.InitBuffer(inX, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(inY, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(outZ, BUFFER_NUM, tileLength * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < tileNum; i++) {
            LocalTensor<float> x = inX.AllocTensor<float>();
            LocalTensor<float> y = inY.AllocTensor<float>();
            DataCopy(x, xGm[i * tileLength], tileLength);
            DataCopy(y, yGm[i * tileLength], tileLength);
            inX.EnQue(x);
            inY.EnQue(y);
            x = inX.DeQue<float>();
            y = inY.DeQue<float>();
            LocalTensor<float> z = outZ.AllocTensor<float>();
            Add(z, x, y, tileLength);
            outZ.EnQue<float>(z);
            inX.FreeTensor(x);
            inY.FreeTensor(y);
            z = outZ.DeQue<float>();
            DataCopy(zGm[i * tileLength], z, tileLength);
            outZ.FreeTensor(z);
        }
    }
private:
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inX, inY;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outZ;
    GlobalTensor<float> xGm, yGm, zGm;
    uint32_t tileNum, tileLength;
};
struct StreamTiling { uint32_t totalLength; uint32_t tileLength; };
REGISTER_TILING_DEFAULT(StreamTiling);
extern "C" __global__ __aicore__ void stream_add(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    (void)workspace;
    GET_TILING_DATA(t, tiling);
    StreamAdd op;
    op.Init(x, y, z, t.totalLength, t.tileLength);
    op.Process();
}
