// Launching a kernel from host C++ without <<<>>>: ACLRT_LAUNCH_KERNEL(name)(blockDim, stream, args...).
#pragma once
#include <cstdint>

namespace acemu {
namespace rt {
using BlockFn = void (*)(void* closure);
// Runs fn(closure) once per logical block 0..block_dim-1 (on a thread pool, each block with its own UB).
int run_blocks(uint32_t block_dim, BlockFn fn, void* closure);
// Tells the GM bounds checker about a host buffer (the harness registers every kernel argument).
void register_gm(const void* p, uint64_t nbytes, int arg_index);
}  // namespace rt

// Device pointers arrive as GM_ADDR (uint8_t*) whatever the host's pointer type.
template <typename A> inline A as_kernel_arg(A a) { return a; }
template <typename T> inline uint8_t* as_kernel_arg(T* p) { return (uint8_t*)(p); }

template <typename F> struct Launcher {
    F* fn;
    template <typename... A> int operator()(uint32_t blockDim, void* stream, A... args) const {
        (void)stream;
        F* f = fn;
        auto call = [&]() { f(as_kernel_arg(args)...); };
        using Call = decltype(call);
        return rt::run_blocks(blockDim, [](void* p) { (*static_cast<Call*>(p))(); }, &call);
    }
};
}  // namespace acemu

#define ACLRT_LAUNCH_KERNEL(kernel) (acemu::Launcher<decltype(kernel)>{&kernel})
