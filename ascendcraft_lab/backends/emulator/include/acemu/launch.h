// Launching a kernel from host C++: ACLRT_LAUNCH_KERNEL(name)(blockDim, stream, args...), and the
// `<<<blockDim, l2ctrl, stream>>>` launches the runner rewrites into acemu::chevron calls.
#pragma once
#include <cstdint>
#include <type_traits>

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

// Each argument becomes the kernel's parameter type, as the device launch passes it: a host pointer
// of any type (void* from aclrtMalloc, a torch tensor's data_ptr, uint8_t*) becomes the parameter's
// GM pointer (GM_ADDR, or `__gm__ T*` in kernels that type their parameters), a scalar converts to
// the parameter's scalar type. A launch with a different number of arguments than the kernel
// takes does not compile, as with the device compiler.
template <typename P, typename A> inline P kernel_arg(A a) {
    if constexpr (std::is_pointer<P>::value && (std::is_pointer<A>::value || std::is_same<A, std::nullptr_t>::value))
        return (P)(a);
    else
        return P(a);
}
template <typename F> struct KernelParams;
template <typename R, typename... P> struct KernelParams<R(P...)> {
    template <typename... A> static void call(R (*f)(P...), A... args) {
        static_assert(sizeof...(A) == sizeof...(P), "the launch passes a different number of arguments than the kernel takes");
        f(kernel_arg<P>(args)...);
    }
};

template <typename F> struct Launcher {
    F* fn;
    const char* name;
    template <typename... A> int operator()(uint32_t blockDim, void* stream, A... args) const {
        (void)stream;
        F* f = fn;
        auto call = [&]() { KernelParams<F>::call(f, args...); };
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

// A launch written inside a macro that pastes the kernel's name (`kernel_##T<<<...>>>`) is named by
// stringifying the pasted token where the macro expands.
#define ACEMU_KERNEL_NAME_(x) #x
#define ACEMU_KERNEL_NAME(x) ACEMU_KERNEL_NAME_(x)

// @api ACLRT_LAUNCH_KERNEL, <<<>>> | yes: <<<>>> launches are rewritten before g++ sees them, also inside macros that paste the kernel's name (##); arguments convert to the kernel's parameter types (GM_ADDR or __gm__ T*, scalars) | Kernel launch
#define ACLRT_LAUNCH_KERNEL(kernel) (acemu::Launcher<decltype(kernel)>{&kernel, #kernel})
