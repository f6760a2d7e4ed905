// AscendCraft emulator: basic types, qualifiers and the per-block context.
// Clean-room implementation from Huawei's public AscendC API documentation.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>
#include <algorithm>
#include <type_traits>
#include "trace.h"

// Device qualifiers mean nothing on the CPU.
#ifndef __global__
#define __global__
#endif
#ifndef __aicore__
#define __aicore__
#endif
#ifndef __gm__
#define __gm__
#endif
#ifndef __ubuf__
#define __ubuf__
#endif
#ifndef __inline__
#define __inline__ inline
#endif
// @api GM_ADDR, __global__, __aicore__, __gm__ | yes | Kernel function
// @api half, bfloat16_t | yes | Data types
#define GM_ADDR uint8_t*

// The kernel types of KERNEL_TASK_TYPE_DEFAULT (global enumerators in the device headers; the
// statement itself is in sys.h): MIX_AIC_1_2 runs numBlocks cube cores (AIC) and 2 * numBlocks
// vector cores (AIV).
enum KernelMetaType : int {
    KERNEL_TYPE_AIV_ONLY = 0, KERNEL_TYPE_AIC_ONLY, KERNEL_TYPE_MIX_AIV_1_0, KERNEL_TYPE_MIX_AIC_1_0,
    KERNEL_TYPE_MIX_AIC_1_1, KERNEL_TYPE_MIX_AIC_1_2, KERNEL_TYPE_MAX
};

// Every API takes the caller's file and line as one trailing defaulted parameter of its own type,
// so an argument the real API does not take is reported as a mismatch with `acemu::CallSite`
// (the runner turns that into "no overload takes these arguments") rather than converted.
namespace acemu {
struct CallSite {
    const char* file;
    int line;
    constexpr CallSite(const char* f = __builtin_FILE(), int l = __builtin_LINE()) : file(f), line(l) {}
};
}  // namespace acemu
#define ACEMU_SITE_PARAMS acemu::CallSite acemu_site = acemu::CallSite()
#define ACEMU_SITE acemu_site.file, acemu_site.line

using half = _Float16;

// bfloat16 storage type: conversions round to nearest even, arithmetic goes through float.
struct bfloat16_t {
    uint16_t bits = 0;
    bfloat16_t() = default;
    static bfloat16_t from_bits(uint16_t b) { bfloat16_t r; r.bits = b; return r; }
    bfloat16_t(float f) {  // NOLINT: implicit like the device type
        uint32_t u; std::memcpy(&u, &f, 4);
        if ((u & 0x7fffffffu) > 0x7f800000u) { bits = uint16_t((u >> 16) | 0x40u); return; }  // quiet NaN
        u += 0x7fffu + ((u >> 16) & 1u);
        bits = uint16_t(u >> 16);
    }
    bfloat16_t(double d) : bfloat16_t(float(d)) {}
    bfloat16_t(int i) : bfloat16_t(float(i)) {}
    bfloat16_t(half h) : bfloat16_t(float(h)) {}
    operator float() const { uint32_t u = uint32_t(bits) << 16; float f; std::memcpy(&f, &u, 4); return f; }
};

namespace AscendC {

enum class TPosition : uint8_t { GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, LCM = VECCALC, SPM, SHM = SPM, TSCM, C2PIPE2GM, MAX };
using QuePosition = TPosition;

enum class HardEvent : uint8_t { MTE2_MTE1, MTE1_MTE2, MTE1_M, M_MTE1, MTE2_V, V_MTE2, MTE3_V, V_MTE3, M_V, V_M, V_V, MTE3_MTE1, MTE1_MTE3, MTE1_V, MTE2_M, M_MTE2, V_MTE1, M_FIX, FIX_M, MTE3_MTE2, MTE2_MTE3, S_V, V_S, S_MTE2, MTE2_S, S_MTE3, MTE3_S, MTE2_FIX, FIX_MTE2, FIX_S, M_S, FIX_MTE3, MTE1_FIX, FIX_MTE1, FIX_FIX, MAX };
using TEventID = int8_t;

// @api TPosition, HardEvent, RoundMode, CMPMODE, SELMODE, ReduceOrder | yes | Enumerations
enum class RoundMode : uint8_t { CAST_NONE = 0, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD };
enum class CMPMODE : uint8_t { LT = 0, GT, EQ, LE, GE, NE };
enum class SELMODE : uint8_t { VSEL_CMPMASK_SPR = 0, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };
enum class MaskMode : uint8_t { NORMAL = 0, COUNTER };
enum class ReduceOrder : uint8_t { ORDER_VALUE_INDEX = 0, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE, ORDER_ONLY_INDEX };
using ReduceOrder_t = ReduceOrder;
constexpr ReduceOrder ORDER_VALUE_INDEX = ReduceOrder::ORDER_VALUE_INDEX;
constexpr ReduceOrder ORDER_INDEX_VALUE = ReduceOrder::ORDER_INDEX_VALUE;
constexpr ReduceOrder ORDER_ONLY_VALUE = ReduceOrder::ORDER_ONLY_VALUE;
constexpr ReduceOrder ORDER_ONLY_INDEX = ReduceOrder::ORDER_ONLY_INDEX;
constexpr uint64_t MASK_PLACEHOLDER = 0;

}  // namespace AscendC

// Pipe ids are global enumerators in the device headers (PipeBarrier<PIPE_V>()).
enum pipe_t : uint8_t { PIPE_S = 0, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL, PIPE_MTE4, PIPE_MTE5, PIPE_V2, PIPE_FIX };

namespace acemu {

constexpr uint32_t kBlock = 32;     // UB granule, DataCopy length unit
constexpr uint32_t kRepeat = 256;   // bytes one vector repeat reads
constexpr int kMaxRepeat = 255;

// Finding kinds (exact strings the runner reports).
constexpr const char* UB_OVERFLOW = "ub-overflow";
constexpr const char* UNALIGNED_DATACOPY = "unaligned-datacopy";
constexpr const char* UNALIGNED_UB = "unaligned-ub-address";
constexpr const char* QUEUE_MISUSE = "queue-misuse";
constexpr const char* GM_OOB = "gm-out-of-bounds";
constexpr const char* UNINIT_READ = "uninitialised-ub-read";
constexpr const char* GM_RACE = "gm-race";
constexpr const char* REPEAT_OVERFLOW = "repeat-overflow";
constexpr const char* SYNC_MISMATCH = "sync-all-mismatch";
constexpr const char* SYNC_WORKSPACE = "sync-all-workspace";
constexpr const char* CROSS_CORE = "cross-core-sync";
constexpr const char* API_MISUSE = "api-misuse";
// Notes: reported, but not a bug (the run stays "ok").
constexpr const char* GM_BEYOND_BUFFER = "gm-beyond-buffer";
constexpr const char* UB_RESERVED = "ub-reserved";

enum AtomicOp : int { ATOMIC_NONE = 0, ATOMIC_ADD, ATOMIC_MAX, ATOMIC_MIN };
enum DType : int { DT_OTHER = 0, DT_F32, DT_F16, DT_BF16, DT_I32, DT_I16, DT_I8, DT_U8, DT_U16, DT_U32, DT_I64, DT_U64 };
template <typename T> constexpr DType dtype_of() {
    if (std::is_same<T, float>::value) return DT_F32;
    if (std::is_same<T, half>::value) return DT_F16;
    if (std::is_same<T, bfloat16_t>::value) return DT_BF16;
    if (std::is_same<T, int32_t>::value) return DT_I32;
    if (std::is_same<T, int16_t>::value) return DT_I16;
    if (std::is_same<T, int8_t>::value) return DT_I8;
    if (std::is_same<T, uint8_t>::value) return DT_U8;
    if (std::is_same<T, uint16_t>::value) return DT_U16;
    if (std::is_same<T, uint32_t>::value) return DT_U32;
    if (std::is_same<T, int64_t>::value) return DT_I64;
    if (std::is_same<T, uint64_t>::value) return DT_U64;
    return DT_OTHER;
}

// State of one logical AI core while it runs. The runtime owns the memory; kernels reach it
// through the thread-local pointer below (each worker thread runs one block at a time).
struct BlockCtx {
    uint8_t* ub;            // emulated Unified Buffer (reserve is larger than the SoC's UB so an overflowing kernel can go on)
    uint32_t* shadow;       // one 32-bit byte-mask per 32-B granule: bit i set = byte i written since InitBuffer
    uint64_t ub_bytes;      // physical UB of the SoC
    uint64_t ub_usable;     // what InitBuffer may hand out in total
    uint64_t ub_capacity;   // size of the reserve behind `ub`
    uint64_t ub_high;       // highest UB byte handed out or written (for the per-block reset)
    int32_t block_idx;      // GetBlockIdx: on a mixed launch's AIV cores in [0, 2 * numBlocks)
    int32_t block_num;
    int32_t core_id;        // unique per logical core of the launch (block_idx is not, on a mixed launch)
    int8_t core_type;       // CORE_AIV or CORE_AIC (sys.h: kernel types)
    // A vector core's index among the AIVs of its AI core and their number (GetSubBlockIdx /
    // GetSubBlockNum; 0 and 1 on a cube core), and AIV per AIC in this launch (GetTaskRation).
    int32_t sub_block_idx;
    int32_t sub_block_num;
    int32_t task_ration;
    bool mask_counter;      // SetMaskCount: the vector mask is an element count
    uint64_t mask[2];       // SetVectorMask state (bit mode) or mask[0] = count (counter mode)
    int atomic_op;
    int atomic_dtype;
    void* pipe;             // the TPipe constructed last (GetTPipePtr)
    const char* api;        // last API entered, for crash messages
    const char* file;
    int line;
    uint64_t calls;         // APIs entered by this block (a stopped run's progress report: is it still calling?)
    void* rt;               // runtime-private per-block data
    trace::Log* trace;      // this block's pipe trace (trace.h), null when the launch is not traced
    // The UB pipe-order check (below): the pipe the current API call's UB accesses belong to
    // (trace::P_V, P_MTE2, P_MTE3; 0: not checked), whether its instruction was issued yet and its id,
    // and this thread's per-granule records (runtime.cpp owns them).
    int8_t ub_pipe;
    bool ub_issued;
    uint32_t ub_instr;
    struct UbGranule* ub_gran;
    uint64_t ub_gran_n;
};

// ---- the UB pipe-order check (`pipe-hazard` on the vector side) ----------------------------
// MTE2 writes UB (DataCopy / DataCopyPad GM -> UB), V reads and writes it (vector instructions),
// MTE3 reads it (UB -> GM). The pipes run in parallel: a pipe's access to bytes another pipe
// wrote or still reads needs a queue EnQue/DeQue (FreeTensor/AllocTensor for the reverse
// direction), a SetFlag/WaitFlag pair or PipeBarrier<PIPE_ALL> between them in program order.
// As for the cube (cube.h), each pipe has a clock and knows how far it is ordered after the
// others; per 32-B granule of UB, the instruction that last wrote it and each pipe's last reader.
// An API call's accesses belong to the pipe its trace::pipe_op names (V until it names one);
// scalar accesses (GetValue / SetValue) are not checked.
struct UbGranule {
    uint32_t w;     // the instruction that last wrote it (0: none)
    uint32_t r[3];  // the last reader on V, MTE2, MTE3
};
inline int ub_slot(int pipe) { return pipe == 1 ? 0 : pipe - 3; }  // V -> 0, MTE2 -> 1, MTE3 -> 2
inline void order_pipe_op(BlockCtx* c, int pipe) {
    if (pipe == 1 || pipe == 4 || pipe == 5) {
        if (c->ub_issued && c->ub_pipe == pipe) return;  // reads checked before pipe_op issued this instruction
        c->ub_pipe = int8_t(pipe);
        c->ub_issued = false;
    } else {
        c->ub_pipe = 0;
    }
}
inline void order_scalar(BlockCtx* c) { c->ub_pipe = 0; }

namespace trace {
inline Log* log_of(BlockCtx* c) { return c->trace; }
}  // namespace trace

inline thread_local BlockCtx* tls_ctx = nullptr;

// Out-of-line runtime entry points (runtime.cpp).
namespace rt {
void report(const char* kind, const char* api, const char* file, int line, const char* fmt, ...)
    __attribute__((format(printf, 5, 6)));
BlockCtx* no_context();  // aborts with a clear message when an API runs outside a launch
// Host allocation containing p (from the harness or RegisterGm); false when unknown.
bool find_alloc(const void* p, const uint8_t** lo, const uint8_t** hi, int* arg_index);
void gm_written(const void* p, uint64_t nbytes, const char* api, const char* file, int line);
void gm_atomic(void* dst, const void* src, uint64_t nbytes, int op, int dtype, const char* file, int line);
void* ub_reserve_grow(uint64_t need);  // makes sure the UB reserve covers `need` bytes
void note_initbuffer_total(uint64_t bytes);
// The UB pipe-order check of bytes [off, off + n) of UB, accessed by the current instruction (base.h).
void ub_access(BlockCtx* c, uint64_t off, uint64_t n, bool write);
void ub_order_begin_block(BlockCtx* c);  // the runtime, when a block starts on a thread
void ub_order_end_thread();  // a block's pipe now holds this many InitBuffer bytes (the report's ub_bytes)
// SyncAll: wait for every block of the launch; applies the atomic writes made so far.
void sync_all(const char* file, int line);
// SyncAll's soft form: the same barrier, with the block's GM flag area (`gm`, `gm_bytes` of it
// inside its tensor's range; the launch needs 32 B per block). At the barrier the runtime checks
// the area: zero at the first one, as SyncAll left it at the later ones; then it writes the flags.
void sync_all_soft(void* gm, uint64_t gm_bytes, const char* file, int line);
// Set before main by any kernel that calls SyncAll: run_blocks then gives each block a thread.
bool note_sync_all(bool aiv_only);
template <bool B> inline const bool uses_sync_all = note_sync_all(B);
// CrossCoreSetFlag / CrossCoreWaitFlag (pipe.h): a flag counter per core and flag id; the mode says
// whose counters a set raises. Registered before main like SyncAll: every core gets a thread.
void cross_core_set(int mode, int flag, const char* file, int line);
void cross_core_wait(int flag, const char* file, int line);
bool note_cross_core();
template <bool B> inline const bool uses_cross_core = note_cross_core();
// IBSet / IBWait (pipe.h): a flag in GM set by one core and waited for by others; the waits share
// the cross-core bookkeeping, so a wait no core can release any more is reported, not hung.
void ib_set(int32_t* flag, const char* file, int line);
void ib_wait(int32_t* flag, int wait_block, const char* file, int line);
// Set before main by the cube APIs (acemu/cube.h): a kernel that uses them and declares no type with
// KERNEL_TASK_TYPE_DEFAULT (sys.h) runs on cube cores.
bool note_kernel_type(int type);
template <int T> inline const bool uses_kernel_type = note_kernel_type(T);
}  // namespace rt

enum CoreType : int8_t { CORE_AIV = 0, CORE_AIC = 1 };

inline BlockCtx* ctx() {
    BlockCtx* c = tls_ctx;
    if (__builtin_expect(c == nullptr, 0)) c = rt::no_context();
    return c;
}
inline void enter(BlockCtx* c, const char* api, const char* file, int line) {
    c->api = api;
    c->file = file;
    c->line = line;
    ++c->calls;
    c->ub_pipe = 1;  // a vector instruction unless its pipe_op says otherwise
    c->ub_issued = false;
}
// An access of the current instruction to UB bytes [off, off + n): checked against the other pipes.
inline void ub_track(BlockCtx* c, uint64_t off, uint64_t n, bool write) {
    if (c->ub_pipe == 0 || n == 0) return;
    if (c->ub_issued && ((off ^ (off + n - 1)) >> 5) == 0 && (off >> 5) < c->ub_gran_n) {  // one granule, already this instruction's
        const UbGranule& g = c->ub_gran[off >> 5];
        if (write ? g.w == c->ub_instr : g.r[ub_slot(c->ub_pipe)] == c->ub_instr) return;
    }
    rt::ub_access(c, off, n, write);
}

// ---- byte masks: which bytes were written (one 32-bit mask per 32-B granule) ----------------
// Shared by the UB shadow below and the cube memories (cube.h).
inline void mask_mark(uint32_t* s, uint64_t capacity, uint64_t off, uint64_t n) {
    if (n == 0) return;
    uint64_t end = off + n;
    if (end > capacity) end = capacity;
    if (off >= end) return;
    uint64_t g0 = off >> 5, g1 = (end - 1) >> 5;
    if (g0 == g1) {
        uint32_t lo = uint32_t(off & 31), hi = uint32_t((end - 1) & 31);
        s[g0] |= (hi == 31 ? ~0u : ((1u << (hi + 1)) - 1)) & (~0u << lo);
        return;
    }
    s[g0] |= ~0u << (off & 31);
    for (uint64_t g = g0 + 1; g < g1; ++g) s[g] = ~0u;
    uint32_t hi = uint32_t((end - 1) & 31);
    s[g1] |= hi == 31 ? ~0u : ((1u << (hi + 1)) - 1);
}

// Returns the offset of the first byte in [off, off+n) never written, or -1.
inline int64_t mask_first_unset(const uint32_t* s, uint64_t capacity, uint64_t off, uint64_t n) {
    if (n == 0) return -1;
    uint64_t end = off + n;
    if (end > capacity) end = capacity;
    if (off >= end) return -1;
    uint64_t g0 = off >> 5, g1 = (end - 1) >> 5;
    uint64_t g = g0;
    if (g0 + 2 < g1) {  // whole granules in between: eight at a time while all are fully written
        uint32_t miss = (~0u << (off & 31)) & ~s[g0];
        if (miss) return int64_t(g0 * 32 + __builtin_ctz(miss));
        g = g0 + 1;
        for (; g + 8 <= g1; g += 8) {
            uint32_t all = ~0u;
            for (int i = 0; i < 8; ++i) all &= s[g + i];
            if (all != ~0u) break;
        }
    }
    for (; g <= g1; ++g) {
        uint32_t want = ~0u;
        if (g == g0) want &= ~0u << (off & 31);
        if (g == g1) { uint32_t hi = uint32_t((end - 1) & 31); want &= hi == 31 ? ~0u : ((1u << (hi + 1)) - 1); }
        uint32_t miss = want & ~s[g];
        if (miss) return int64_t(g * 32 + __builtin_ctz(miss));
    }
    return -1;
}

// ---- UB shadow: which bytes were written since InitBuffer -------------------------------
inline void shadow_mark(BlockCtx* c, uint64_t off, uint64_t n) {
    if (n == 0) return;
    uint64_t end = off + n < c->ub_capacity ? off + n : c->ub_capacity;
    if (off >= end) return;
    if (end > c->ub_high) c->ub_high = end;  // the next block on this thread resets up to here
    mask_mark(c->shadow, c->ub_capacity, off, n);
}
inline int64_t shadow_first_unset(const BlockCtx* c, uint64_t off, uint64_t n) { return mask_first_unset(c->shadow, c->ub_capacity, off, n); }

inline uint64_t ub_offset(const BlockCtx* c, const void* p) { return uint64_t(static_cast<const uint8_t*>(p) - c->ub); }
inline bool in_ub(const BlockCtx* c, const void* p) {
    const uint8_t* b = static_cast<const uint8_t*>(p);
    return b >= c->ub && b < c->ub + c->ub_capacity;
}

}  // namespace acemu
