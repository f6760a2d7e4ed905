// The caller a serving stack's torch binding would be: device buffers from aclrtMalloc, the
// launcher called with void* pointers and scalars; results written to out_fp32.bin / out_int32.bin.
#include <cstdio>
#include <cstdint>
#include <vector>
#include "acl/acl.h"

namespace serving {
void scale_impl(int dtype, void* stream, void* x, void* y, float factor, uint32_t perCore, uint32_t blockDim);
}

template <typename T> static int run(int dtype, const char* out, float factor)
{
    const uint32_t blockDim = 4, perCore = 256, n = blockDim * perCore;
    std::vector<T> host(n);
    for (uint32_t i = 0; i < n; ++i) host[i] = static_cast<T>(int(i % 97) - 48);
    void *x = nullptr, *y = nullptr;
    aclrtStream stream = nullptr;
    aclrtCreateStream(&stream);
    aclrtMalloc(&x, n * sizeof(T), ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&y, n * sizeof(T), ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(x, n * sizeof(T), host.data(), n * sizeof(T), ACL_MEMCPY_HOST_TO_DEVICE);
    serving::scale_impl(dtype, stream, x, y, factor, perCore, blockDim);
    aclrtSynchronizeStream(stream);
    aclrtMemcpy(host.data(), n * sizeof(T), y, n * sizeof(T), ACL_MEMCPY_DEVICE_TO_HOST);
    FILE* f = fopen(out, "wb");
    if (f == nullptr) return 1;
    fwrite(host.data(), sizeof(T), n, f);
    fclose(f);
    aclrtFree(x);
    aclrtFree(y);
    return 0;
}

int main()
{
    return run<float>(0, "out_fp32.bin", 1.5f) | run<int32_t>(1, "out_int32.bin", 3.0f);
}
