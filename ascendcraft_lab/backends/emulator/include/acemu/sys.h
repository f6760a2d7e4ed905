// System-level kernel API: kernel types and the cores of a mixed launch, tiling keys, workspaces,
// event IDs, assertions, printing, the cycle counter and small utilities.
// Clean-room implementation from Huawei's public AscendC API documentation.
#pragma once
#include <chrono>
#include <cstdio>
#include <tuple>
#include <utility>
#include "pipe.h"

// ---- kernel types ---------------------------------------------------------------------------
// KERNEL_TASK_TYPE_DEFAULT(type) declares which cores a launch uses (reference: "设置Kernel类型").
// A mixed type runs every block as one cube core (AIC) plus one or two vector cores (AIV), each on
// its own thread; GetBlockIdx, GetSubBlockIdx / GetSubBlockNum and ASCEND_IS_AIV / ASCEND_IS_AIC
// answer as the reference tables say for that type. Without a declaration a kernel is AIV-only.
// A kernel that declares no type but uses the cube APIs runs on cube cores (base.h: note_kernel_type).
// @api KERNEL_TASK_TYPE_DEFAULT, KERNEL_TASK_TYPE | yes: mixed types run AIC and AIV cores per block | Kernel types

namespace acemu {
namespace rt {
// Records, before main, the type a kernel declares. `where` is __PRETTY_FUNCTION__ of a class local
// to the kernel, so the runtime can tell which kernel (by name) declared it; a launch looks its
// kernel's name up. With `per_key` the type applies only to launches with that tiling key.
bool note_kernel_type(int type, uint64_t key, bool per_key, const char* where);
uint64_t tiling_key();
[[noreturn]] void assert_failed(const char* expr, const char* file, int line, const char* fmt, ...) __attribute__((format(printf, 4, 5)));
[[noreturn]] void assert_failed(const char* expr, const char* file, int line);
void kernel_print(const char* text);
uint64_t lib_api_workspace_bytes();  // the SoC table's system workspace (GetLibApiWorkSpaceSize)
}  // namespace rt
template <int Type, bool PerKey, uint64_t Key, class Site>
inline const bool kernel_type_reg = rt::note_kernel_type(Type, Key, PerKey, Site::where());
}  // namespace acemu

#define ACEMU_KERNEL_TYPE_REG(type, per_key, key)                                                  \
    do {                                                                                           \
        struct acemu_kernel_type_site {                                                            \
            static const char* where() { return __PRETTY_FUNCTION__; }                             \
        };                                                                                         \
        (void)&acemu::kernel_type_reg<int(type), per_key, uint64_t(key), acemu_kernel_type_site>; \
    } while (0)
#define KERNEL_TASK_TYPE_DEFAULT(type) ACEMU_KERNEL_TYPE_REG(type, false, 0)
#define KERNEL_TASK_TYPE(key, type) ACEMU_KERNEL_TYPE_REG(type, true, key)

// Conditions, used as `if ASCEND_IS_AIV { ... }` (hence the parentheses in the expansion).
// @api ASCEND_IS_AIV, ASCEND_IS_AIC | yes | ASCEND_IS_AIV
#define ASCEND_IS_AIV (acemu::ctx()->core_type == acemu::CORE_AIV)
#define ASCEND_IS_AIC (acemu::ctx()->core_type == acemu::CORE_AIC)
#define ASCEND_IS_NOT_AIV (acemu::ctx()->core_type != acemu::CORE_AIV)
#define ASCEND_IS_NOT_AIC (acemu::ctx()->core_type != acemu::CORE_AIC)

// The tiling key the host set (TilingContext::SetTilingKey, ICPU_SET_TILING_KEY; 0 when unset).
// @api TILING_KEY_IS | yes | TILING_KEY_IS
#define TILING_KEY_IS(key) (acemu::rt::tiling_key() == uint64_t(key))

// ASSERT(expr) / ASSERT(expr, fmt, args...): a failed assertion stops the kernel, as on the NPU.
// @api ASSERT | yes: stops the kernel (status crash) with the expression and message | ASSERT
#define ASSERT(expr, ...) ((expr) ? (void)0 : acemu::rt::assert_failed(#expr, __FILE__, __LINE__, ##__VA_ARGS__))

// Event IDs of SetFlag / WaitFlag: not on an API page, but every toolchain supplies them.
// @api EVENT_ID0..EVENT_ID7 | yes: supplied by the toolchain, not on an API page | -
#ifndef ACEMU_EVENT_IDS  // cube.h defines them too, for a translation unit without this header
#define ACEMU_EVENT_IDS
enum event_t : int8_t { EVENT_ID0 = 0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7 };
#endif

namespace AscendC {

// @api GetSubBlockIdx, GetSubBlockNum, GetTaskRation | yes | GetSubBlockNum
inline int64_t GetSubBlockIdx() { return acemu::ctx()->sub_block_idx; }
inline int64_t GetSubBlockNum() { return acemu::ctx()->sub_block_num; }
inline int64_t GetTaskRation() { return acemu::ctx()->task_ration; }
inline int64_t GetTaskRatio() { return acemu::ctx()->task_ration; }

// The base address of the cross-core flags: a <<<>>> launch of a cube + vector kernel passes the value the host
// read (ACL aclrtGetHardwareSyncAddr; public kernels also use rtGetC2cCtrlAddr) and sets it before the first
// CrossCoreSetFlag / CrossCoreWaitFlag. The emulator's flags need no address: the call is accepted and the
// value unused.
// @api SetSyncBaseAddr | yes: accepted; the emulator's cross-core flags need no base address | -
inline void SetSyncBaseAddr(uint64_t config) { (void)config; }

// @api GetSystemCycle | yes: 50 MHz from the host clock | GetSystemCycle
// The system cycle counter, at the documented 50 MHz (cycles / 50 = microseconds).
inline int64_t GetSystemCycle() {
    using namespace std::chrono;
    static const steady_clock::time_point start = steady_clock::now();
    return int64_t(duration_cast<nanoseconds>(steady_clock::now() - start).count() / 20);
}

// @api DivCeil | yes | DivCeil
template <typename T, typename U> __aicore__ inline constexpr auto DivCeil(T a, U b) -> decltype((a + b - 1) / b) {
    return (a + b - 1) / b;
}

// Hardware units the kernels name (32-B data block, 256-B repeat, 8-bit repeat field).
// @api ONE_BLK_SIZE, DEFAULT_C0_SIZE, ONE_REPEAT_BYTE_SIZE, DEFAULT_BLK_NUM, DEFAULT_REPEAT_STRIDE, MAX_REPEAT_TIMES | yes: supplied by the toolchain, not on an API page | -
// DEFAULT_C0_SIZE: the bytes of a C0 block (the fractal's 32-B row), which kernels divide by sizeof(T)
// for an alignment in elements.
#ifndef ACEMU_ONE_BLK_SIZE  // cube.h defines them too, for a translation unit without this header
#define ACEMU_ONE_BLK_SIZE
constexpr int32_t ONE_BLK_SIZE = 32;
constexpr int32_t DEFAULT_C0_SIZE = 32;
#endif
constexpr int32_t ONE_REPEAT_BYTE_SIZE = 256;
constexpr int32_t DEFAULT_BLK_NUM = 8;
constexpr int32_t DEFAULT_BLK_STRIDE = 1;
constexpr int32_t DEFAULT_REPEAT_STRIDE = 8;
constexpr int32_t MAX_REPEAT_TIMES = 255;

// ---- workspaces -------------------------------------------------------------------------------
// The launch's workspace starts with the system workspace of the library APIs
// (GetLibApiWorkSpaceSize on the host); the kernel's own part follows it.
}  // namespace AscendC
// The system workspace the library APIs (Matmul's messages) use on the NPU: the kernel's workspace
// argument after SetSysWorkspace, or the framework's. The emulator needs none, but samples test it
// for null. Global functions in the device headers (kernels call them unqualified).
#ifndef ACEMU_SYS_WORKSPACE
#define ACEMU_SYS_WORKSPACE
namespace acemu {
namespace matmul {
inline thread_local GM_ADDR sys_workspace = nullptr;
inline uint8_t sys_workspace_stub[64];
}  // namespace matmul
}  // namespace acemu
inline void SetSysWorkspace(GM_ADDR workspace) { acemu::matmul::sys_workspace = workspace; }
inline GM_ADDR GetSysWorkSpacePtr() { return acemu::matmul::sys_workspace ? acemu::matmul::sys_workspace : acemu::matmul::sys_workspace_stub; }
namespace AscendC {
using ::GetSysWorkSpacePtr;
using ::SetSysWorkspace;
}  // namespace AscendC
#endif
namespace AscendC {
// @api SetSysWorkspace, GetSysWorkSpacePtr, GetUserWorkspace | yes | GetUserWorkspace
inline GM_ADDR GetUserWorkspace(GM_ADDR workspace) {
    return workspace == nullptr ? nullptr : workspace + acemu::rt::lib_api_workspace_bytes();
}

// ---- printing -----------------------------------------------------------------------------------
// A template, so that a kernel's unqualified printf under `using namespace AscendC` picks it over
// ::printf without ambiguity. Lines from different cores do not interleave.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"
// @api printf, PRINTF | yes: to Report.stdout | printf
template <typename... Args> inline void printf(const char* fmt, Args... args) {
    char buf[2048];
    std::snprintf(buf, sizeof(buf), fmt, args...);
    acemu::rt::kernel_print(buf);
}
#pragma GCC diagnostic pop
#define PRINTF AscendC::printf

// ---- Std: the type utilities the reference lists under AscendC::Std ---------------------------
// @api AscendC::Std | yes: the std type traits, tuple, min/max | Std
namespace Std {
using std::conditional;
using std::conditional_t;
using std::decay;
using std::decay_t;
using std::enable_if;
using std::enable_if_t;
using std::false_type;
using std::forward;
using std::get;
using std::integral_constant;
using std::is_base_of;
using std::is_base_of_v;
using std::is_convertible;
using std::is_convertible_v;
using std::is_floating_point;
using std::is_floating_point_v;
using std::is_integral;
using std::is_integral_v;
using std::is_same;
using std::is_same_v;
using std::make_tuple;
using std::move;
using std::remove_const;
using std::remove_const_t;
using std::remove_cv;
using std::remove_cv_t;
using std::remove_reference;
using std::remove_reference_t;
using std::tie;
using std::true_type;
using std::tuple;
using std::tuple_element;
using std::tuple_size;
template <typename T> __aicore__ inline constexpr const T& min(const T& a, const T& b) { return b < a ? b : a; }
template <typename T> __aicore__ inline constexpr const T& max(const T& a, const T& b) { return a < b ? b : a; }
}  // namespace Std

}  // namespace AscendC
