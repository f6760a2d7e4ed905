// A kernel-launch sample's host program: the CPU-debug branch runs the kernel with ICPU_RUN_KF on
// GmAlloc memory, the NPU branch with AscendCL (not built here).
#include <cstdint>
#include "data_utils.h"
#ifndef ASCENDC_CPU_DEBUG
#include "acl/acl.h"
struct AddTiling { uint32_t blockLength; uint32_t tileLength; };
extern void add_custom_do(uint32_t blockDim, void* stream, uint8_t* x, uint8_t* y, uint8_t* z, AddTiling tiling);
#else
#include "tikicpulib.h"
struct AddTiling { uint32_t blockLength; uint32_t tileLength; };
extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, AddTiling tiling);
#endif

int32_t main(int32_t argc, char* argv[])
{
    (void)argc;
    (void)argv;
    const uint32_t blockDim = 8;
    const size_t byteSize = 8 * 2048 * sizeof(uint16_t);
    AddTiling tiling{2048, 256};
#ifdef ASCENDC_CPU_DEBUG
    uint8_t* x = (uint8_t*)AscendC::GmAlloc(byteSize);
    uint8_t* y = (uint8_t*)AscendC::GmAlloc(byteSize);
    uint8_t* z = (uint8_t*)AscendC::GmAlloc(byteSize);
    if (!ReadFile("./input/input_x.bin", byteSize, x, byteSize) || !ReadFile("./input/input_y.bin", byteSize, y, byteSize)) {
        return 1;
    }
    AscendC::SetKernelMode(KernelMode::AIV_MODE);
    ICPU_RUN_KF(add_custom, blockDim, x, y, z, tiling);
    WriteFile("./output/output_z.bin", z, byteSize);
    AscendC::GmFree((void*)x);
    AscendC::GmFree((void*)y);
    AscendC::GmFree((void*)z);
#else
    // ... aclInit, aclrtMalloc, add_custom_do(blockDim, stream, ...), aclrtMemcpy back ...
#endif
    return 0;
}
