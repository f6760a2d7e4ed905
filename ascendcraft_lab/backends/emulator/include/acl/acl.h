// The AscendCL runtime calls host programs make around a launch, on the emulator's host: device
// memory is host memory known to the GM bounds checker, copies are memcpy, and streams are
// synchronous (a launch has finished when it returns).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include "acemu/launch.h"

// @api aclInit, aclrtMalloc, aclrtMemcpy, aclrtSynchronizeStream (a subset) | partial: memory, copies and no-op streams | AscendCL
using aclError = int;
using aclrtStream = void*;
using aclrtContext = void*;
using aclrtEvent = void*;
constexpr aclError ACL_SUCCESS = 0;
constexpr aclError ACL_ERROR_BAD_ALLOC = 200000;   // acl_base.h: memory allocation failed
enum aclrtMemMallocPolicy { ACL_MEM_MALLOC_HUGE_FIRST = 0, ACL_MEM_MALLOC_HUGE_ONLY, ACL_MEM_MALLOC_NORMAL_ONLY };
enum aclrtMemcpyKind { ACL_MEMCPY_HOST_TO_HOST = 0, ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST, ACL_MEMCPY_DEVICE_TO_DEVICE };

inline aclError aclInit(const char*) { return ACL_SUCCESS; }
inline aclError aclFinalize() { return ACL_SUCCESS; }
inline aclError aclrtSetDevice(int32_t) { return ACL_SUCCESS; }
inline aclError aclrtResetDevice(int32_t) { return ACL_SUCCESS; }
inline aclError aclrtCreateContext(aclrtContext* ctx, int32_t) { *ctx = nullptr; return ACL_SUCCESS; }
inline aclError aclrtDestroyContext(aclrtContext) { return ACL_SUCCESS; }
inline aclError aclrtCreateStream(aclrtStream* stream) { *stream = nullptr; return ACL_SUCCESS; }
inline aclError aclrtDestroyStream(aclrtStream) { return ACL_SUCCESS; }
inline aclError aclrtSynchronizeStream(aclrtStream) { return ACL_SUCCESS; }
inline aclError aclrtSynchronizeDevice() { return ACL_SUCCESS; }
inline aclError aclrtMalloc(void** p, size_t size, aclrtMemMallocPolicy) {
    *p = std::aligned_alloc(64, (size + 63) / 64 * 64 + 64);
    if (*p == nullptr) return 1;
    acemu::rt::register_gm(*p, size, -1);
    return ACL_SUCCESS;
}
inline aclError aclrtMallocHost(void** p, size_t size) {
    *p = std::malloc(size ? size : 1);
    return *p ? ACL_SUCCESS : 1;
}
inline aclError aclrtFree(void* p) {
    acemu::rt::unregister_gm(p);
    std::free(p);
    return ACL_SUCCESS;
}
inline aclError aclrtFreeHost(void* p) { std::free(p); return ACL_SUCCESS; }
inline aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind) {
    if (count > destMax) return 1;
    std::memcpy(dst, src, count);
    return ACL_SUCCESS;
}
inline aclError aclrtMemset(void* dst, size_t destMax, int32_t value, size_t count) {
    if (count > destMax) return 1;
    std::memset(dst, value, count);
    return ACL_SUCCESS;
}
inline const char* aclGetRecentErrMsg() { return ""; }
