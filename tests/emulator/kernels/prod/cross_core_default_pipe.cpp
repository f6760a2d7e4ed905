// acemu-test: entry=rotate_blocks args=4
// Every vector core stages its slice of x in the workspace, all cores meet at a mode-0 cross-core
// flag, then each core writes its right neighbour's slice to y: y = roll(x, -slice). The wait is
// written as production kernels write it, CrossCoreWaitFlag<modeId>(id), its pipe defaulted.
#include "kernel_operator.h"

constexpr uint16_t SYNC_FLAG = 8;

extern "C" __global__ __aicore__ void rotate_blocks(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    const uint32_t slice = *reinterpret_cast<__gm__ uint32_t *>(tiling);
    const uint32_t idx = AscendC::GetBlockIdx();
    const uint32_t next = (idx + 1) % AscendC::GetBlockNum();
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, slice * sizeof(float));
    AscendC::LocalTensor<float> local = buf.Get<float>();
    AscendC::GlobalTensor<float> xGm, yGm, wsGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, slice * AscendC::GetBlockNum());
    yGm.SetGlobalBuffer((__gm__ float *)y, slice * AscendC::GetBlockNum());
    wsGm.SetGlobalBuffer((__gm__ float *)workspace, slice * AscendC::GetBlockNum());

    AscendC::DataCopy(local, xGm[idx * slice], slice);
    AscendC::SetFlag<AscendC::HardEvent::MTE2_MTE3>(EVENT_ID0);
    AscendC::WaitFlag<AscendC::HardEvent::MTE2_MTE3>(EVENT_ID0);
    AscendC::DataCopy(wsGm[idx * slice], local, slice);
    AscendC::CrossCoreSetFlag<0x0, PIPE_MTE3>(SYNC_FLAG);
    AscendC::CrossCoreWaitFlag<0x0>(SYNC_FLAG);
    AscendC::SetFlag<AscendC::HardEvent::MTE3_MTE2>(EVENT_ID0);
    AscendC::WaitFlag<AscendC::HardEvent::MTE3_MTE2>(EVENT_ID0);
    AscendC::DataCopy(local, wsGm[next * slice], slice);
    AscendC::SetFlag<AscendC::HardEvent::MTE2_MTE3>(EVENT_ID0);
    AscendC::WaitFlag<AscendC::HardEvent::MTE2_MTE3>(EVENT_ID0);
    AscendC::DataCopy(yGm[idx * slice], local, slice);
}
