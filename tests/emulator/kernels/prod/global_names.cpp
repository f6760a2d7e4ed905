// acemu-test: entry=pad_rows_global args=4
// Pads each row of a rows x 13 float matrix to 16 columns (Pad, a PadTiling in the tiling data),
// the rows split over the cores. Written as serving-stack kernels are, with the names the device
// toolchain provides at global scope: GetBlockIdx / GetBlockNum, min / max and PadTiling are used
// without AscendC:: and without `using namespace AscendC`.
#include "kernel_operator.h"

struct PadRowsTiling {
    uint32_t rows;
    uint32_t cols;
    uint32_t rowsPerCore;
    int32_t padValue;
    PadTiling padTiling;
};

extern "C" __global__ __aicore__ void pad_rows_global(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    (void)workspace;
    PadRowsTiling t = *reinterpret_cast<__gm__ PadRowsTiling *>(tiling);
    const uint32_t start = GetBlockIdx() * t.rowsPerCore;
    const uint32_t end = min(start + t.rowsPerCore, t.rows);
    const int64_t count = max(int64_t(end) - int64_t(start), 0);  // mixed types, as the builtins take them
    if (count == 0) {
        return;
    }
    const uint32_t alignedCols = (t.cols + 7) / 8 * 8;
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, 1> inQueue;
    AscendC::TQue<AscendC::TPosition::VECOUT, 1> outQueue;
    pipe.InitBuffer(inQueue, 1, t.rowsPerCore * alignedCols * sizeof(float));
    pipe.InitBuffer(outQueue, 1, t.rowsPerCore * alignedCols * sizeof(float));
    AscendC::GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float *)x + start * t.cols, count * t.cols);
    yGm.SetGlobalBuffer((__gm__ float *)y + start * alignedCols, count * alignedCols);

    AscendC::LocalTensor<float> src = inQueue.AllocTensor<float>();
    AscendC::DataCopyPad(src, xGm, {1, static_cast<uint32_t>(count * t.cols * sizeof(float)), 0, 0}, {});
    inQueue.EnQue(src);
    src = inQueue.DeQue<float>();
    AscendC::LocalTensor<float> dst = outQueue.AllocTensor<float>();
    AscendC::PadParams padParams{0, static_cast<uint16_t>(alignedCols - t.cols), t.padValue};
    t.padTiling.srcHeight = count;
    AscendC::Pad(dst, src, padParams, t.padTiling);
    outQueue.EnQue(dst);
    inQueue.FreeTensor(src);
    dst = outQueue.DeQue<float>();
    AscendC::DataCopy(yGm, dst, count * alignedCols);
    outQueue.FreeTensor(dst);
}
