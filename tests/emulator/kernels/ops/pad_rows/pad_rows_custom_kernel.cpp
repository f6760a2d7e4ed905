// Kernel of PadRowsCustom: a packed height x width tile in, Pad to the aligned width, UnPad back.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void pad_rows_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    (void)workspace;
    GET_TILING_DATA(t, tiling);
    const uint32_t packed = t.height * t.width, aligned = t.height * ((t.width + 7) / 8 * 8);
    TPipe pipe;
    TBuf<TPosition::VECCALC> src, dst, back, tmp;
    pipe.InitBuffer(src, packed * sizeof(float));
    pipe.InitBuffer(dst, aligned * sizeof(float));
    pipe.InitBuffer(back, packed * sizeof(float));
    pipe.InitBuffer(tmp, t.padTiling.tmpBufferBytes);
    GlobalTensor<float> xGm, yGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, packed);
    yGm.SetGlobalBuffer((__gm__ float*)y, aligned);
    zGm.SetGlobalBuffer((__gm__ float*)z, packed);
    LocalTensor<float> s = src.Get<float>();
    LocalTensor<float> d = dst.Get<float>();
    LocalTensor<float> b = back.Get<float>();
    LocalTensor<uint8_t> scratch = tmp.Get<uint8_t>();
    DataCopy(s, xGm, packed);
    PipeBarrier<PIPE_ALL>();  // the pipes (MTE2 / V / MTE3) run in parallel: order them
    PadParams pad{0, uint16_t((t.width + 7) / 8 * 8 - t.width), int32_t(t.value)};
    Pad(d, s, pad, scratch, t.padTiling);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yGm, d, aligned);
    UnPadParams unpad{0, pad.rightPad};
    UnPad(b, d, unpad, t.unpadTiling);
    PipeBarrier<PIPE_ALL>();
    DataCopy(zGm, b, packed);
}
