// The CPU-debug entry points of the samples' main.cpp (reference: ICPU_RUN_KF, GmAlloc, GmFree,
// SetKernelMode, ICPU_SET_TILING_KEY), on the emulator: GmAlloc memory is known to the GM bounds
// checker, ICPU_RUN_KF launches every block, and the findings go to stderr when the program ends.
#pragma once
#include <cstdlib>
#include <cstring>
#include "kernel_operator.h"

// @api ICPU_RUN_KF, ICPU_SET_TILING_KEY, GmAlloc, GmFree, SetKernelMode | yes | ICPU_RUN_KF
enum class KernelMode { MIX_MODE = 0, AIC_MODE, AIV_MODE };

namespace AscendC {
// Memory the kernel sees as GM: 64-B aligned, not cleared (like the device's).
inline void* GmAlloc(size_t size) {
    void* p = std::aligned_alloc(64, (size + 63) / 64 * 64 + 64);
    if (p != nullptr) acemu::rt::register_gm(p, size, -1);
    return p;
}
inline void GmFree(void* ptr) {
    if (ptr == nullptr) return;
    acemu::rt::unregister_gm(ptr);
    std::free(ptr);
}
// AIV_MODE / AIC_MODE run every block as a vector / cube core; MIX_MODE (the default) follows the
// kernel's KERNEL_TASK_TYPE_DEFAULT.
inline void SetKernelMode(KernelMode mode) { acemu::rt::set_kernel_mode(int(mode)); }
}  // namespace AscendC

#define ICPU_RUN_KF(func, blockDim, ...) (acemu::Launcher<decltype(func)>{&func, #func}(uint32_t(blockDim), nullptr, ##__VA_ARGS__))
#define ICPU_SET_TILING_KEY(key) acemu::rt::set_tiling_key(uint64_t(key))
