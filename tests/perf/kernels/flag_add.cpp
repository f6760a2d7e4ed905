// acemu-test: entry=flag_add args=5
// z = x + y in tiles through TBuf buffers ordered by hand with SetFlag / WaitFlag: copy-in
// (MTE2) -> Add (V) -> copy-out (MTE3), and MTE3 -> MTE2 before the next tile reuses the buffers.
#include "kernel_operator.h"
using namespace AscendC;
struct FlagTiling { uint32_t totalLength; uint32_t tileLength; };
REGISTER_TILING_DEFAULT(FlagTiling);
extern "C" __global__ __aicore__ void flag_add(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    (void)workspace;
    GET_TILING_DATA(t, tiling);
    const uint32_t blockLength = t.totalLength / GetBlockNum(), tile = t.tileLength;
    GlobalTensor<float> xGm, yGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float *)x + blockLength * GetBlockIdx(), blockLength);
    yGm.SetGlobalBuffer((__gm__ float *)y + blockLength * GetBlockIdx(), blockLength);
    zGm.SetGlobalBuffer((__gm__ float *)z + blockLength * GetBlockIdx(), blockLength);
    TPipe pipe;
    TBuf<TPosition::VECCALC> xb, yb, zb;
    pipe.InitBuffer(xb, tile * sizeof(float));
    pipe.InitBuffer(yb, tile * sizeof(float));
    pipe.InitBuffer(zb, tile * sizeof(float));
    LocalTensor<float> xl = xb.Get<float>(), yl = yb.Get<float>(), zl = zb.Get<float>();
    for (uint32_t i = 0; i < blockLength / tile; i++) {
        if (i > 0) WaitFlag<HardEvent::MTE3_MTE2>(EVENT_ID0);
        DataCopy(xl, xGm[i * tile], tile);
        DataCopy(yl, yGm[i * tile], tile);
        SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
        WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
        Add(zl, xl, yl, tile);
        SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
        WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
        DataCopy(zGm[i * tile], zl, tile);
        SetFlag<HardEvent::MTE3_MTE2>(EVENT_ID0);
    }
    WaitFlag<HardEvent::MTE3_MTE2>(EVENT_ID0);
}
