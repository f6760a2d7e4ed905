// acemu-test: entry=broadcast_rows args=3
// BroadCast of a column [4, 1] to [4, 16] (axis 1) and of a row [1, 16] to [4, 16] (axis 0).
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void broadcast_rows(GM_ADDR x, GM_ADDR cols, GM_ADDR rows)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> in, out, tmp;
    pipe.InitBuffer(in, 16 * sizeof(float));
    pipe.InitBuffer(out, 64 * sizeof(float));
    pipe.InitBuffer(tmp, 1024);
    GlobalTensor<float> xGm, colsGm, rowsGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 16);
    colsGm.SetGlobalBuffer((__gm__ float*)cols, 64);
    rowsGm.SetGlobalBuffer((__gm__ float*)rows, 64);
    LocalTensor<float> s = in.Get<float>();
    LocalTensor<float> d = out.Get<float>();
    LocalTensor<uint8_t> scratch = tmp.Get<uint8_t>();
    DataCopy(s, xGm, 16);
    PipeBarrier<PIPE_ALL>();  // the pipes (MTE2 / V / MTE3) run in parallel: order them
    const uint32_t dst[2] = {4, 16}, column[2] = {4, 1}, row[2] = {1, 16};
    BroadCast<float, 2, 1>(d, s, dst, column, scratch);
    PipeBarrier<PIPE_ALL>();
    DataCopy(colsGm, d, 64);
    PipeBarrier<PIPE_ALL>();
    Broadcast<float, 2, 0>(d, s, dst, row);
    PipeBarrier<PIPE_ALL>();
    DataCopy(rowsGm, d, 64);
}
