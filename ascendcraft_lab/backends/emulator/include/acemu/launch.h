// Launching a kernel from host C++: ACLRT_LAUNCH_KERNEL(name)(blockDim, stream, args...), and the
// `<<<blockDim, l2ctrl, stream>>>` launches the runner rewrites into acemu::chevron calls.
#pragma once
#include <cstdint>

namespace acemu {
namespace rt {
using BlockFn = void (*)(void* closure);
// Runs fn(closure) once per task of a launch of `block_dim` blocks of the kernel named `kernel`
// (its declared type decides the tasks: one per block, or AIC + AIV cores per block), on a thread
// pool, each task with its own UB. run_blocks is the same for an unnamed kernel.
int run_kernel(const char* kernel, uint32_t block_dim, BlockFn fn, void* closure);
int run_blocks(uint32_t block_dim, BlockFn fn, void* closure);
// Tells the GM bounds checker about a host buffer (the harness registers every kernel argument).
void register_gm(const void* p, uint64_t nbytes, int arg_index);
void unregister_gm(const void* p);
void set_tiling_key(uint64_t key);  // TILING_KEY_IS of the next launches
void set_kernel_mode(int mode);     // 0 MIX (the declared type), 1 AIC only, 2 AIV only
}  // namespace rt

// Device pointers arrive as GM_ADDR (uint8_t*) whatever the host's pointer type.
template <typename A> inline A as_kernel_arg(A a) { return a; }
template <typename T> inline uint8_t* as_kernel_arg(T* p) { return (uint8_t*)(p); }

template <typename F> struct Launcher {
    F* fn;
    const char* name;
    template <typename... A> int operator()(uint32_t blockDim, void* stream, A... args) const {
        (void)stream;
        F* f = fn;
        auto call = [&]() { f(as_kernel_arg(args)...); };
        using Call = decltype(call);
        return rt::run_kernel(name, blockDim, [](void* p) { (*static_cast<Call*>(p))(); }, &call);
    }
};

// kernel<<<blockDim, l2ctrl, stream>>>(args...) becomes acemu::chevron(#kernel, &kernel, blockDim, l2ctrl, stream)(args...).
template <typename F> struct Chevron {
    Launcher<F> launch;
    uint32_t block_dim;
    void* stream;
    template <typename... A> void operator()(A... args) const { launch(block_dim, stream, args...); }
};
template <typename F, typename B, typename L, typename S>
inline Chevron<F> chevron(const char* name, F* fn, B blockDim, L l2ctrl, S stream) {
    (void)l2ctrl;
    return Chevron<F>{Launcher<F>{fn, name}, uint32_t(blockDim), (void*)(stream)};
}
}  // namespace acemu

// @api ACLRT_LAUNCH_KERNEL, <<<>>> | yes: <<<>>> launches are rewritten before g++ sees them | Kernel launch
#define ACLRT_LAUNCH_KERNEL(kernel) (acemu::Launcher<decltype(kernel)>{&kernel, #kernel})
