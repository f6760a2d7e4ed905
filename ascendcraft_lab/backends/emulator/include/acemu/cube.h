// The cube unit: L1 / L0A / L0B / L0C / bias table, the data paths between them, Mmad, Fixpipe,
// and the pipe-ordering check. Clean-room, from Huawei's public AscendC API reference pages.
// @api TPosition A1, B1, C1, TSCM, A2, B2, CO1, C2, C2PIPE2GM | yes: each memory its own arena with its alignment | TPosition
// @api DataCopy (GM -> L1, Nd2NzParams), DataCopy (C1 -> C2) | yes | DataCopy
// @api LoadData, LoadData2DParams, LoadDataWithTranspose, LoadData2dTransposeParams | yes: LoadData3DV2 (img2col) is not | LoadData
// @api Mmad, MmadParams | yes: int8 -> int32, half, bfloat16, float -> float; other pairs do not compile | Mmad
// @api Fixpipe, FixpipeParamsV220, QuantMode_t | yes: NZ2ND and NZ, the quantisation modes; no channel split, no CO1 -> UB | Fixpipe
// @api SetHF32Mode | yes: DISABLE only | SetHF32Mode
// @api g_coreType, AscendC::AIC, AscendC::AIV | yes | g_coreType
//
// Design note: the layouts this file models, and where each fact comes from
// --------------------------------------------------------------------------
// TPosition -> memory on Atlas A2/A3 ("TPosition与物理内存映射关系", API reference 07_0004):
//   A1 / B1 / C1 / TSCM -> L1, A2 -> L0A, B2 -> L0B, CO1 -> L0C, C2 -> bias table (BT),
//   C2PIPE2GM -> Fixpipe buffer, CO2 -> GM (there is no local CO2 on A2: L0C leaves through Fixpipe).
// Sizes: soc.py (l1/l0a/l0b/l0c_bytes; bt_bytes from the CCE reference of copy_cbuf_to_bt, 1 KiB),
// passed by the runner (spec line `cube`); alignment ("硬件约束" / 07_0004): L1 32 B, L0A/L0B 512 B,
// L0C 64 B, BT 64 B, Fixpipe buffer 128 B. Every InitBuffer at these positions is aligned so.
// A fractal is 512 B in L1/L0A/L0B: 16 rows of C0 = 32 B, i.e. 16 x 16 half/bfloat16, 16 x 8 float,
// 16 x 32 int8 (Mmad page, "分形shape为16 x (32B/sizeof(AType))"); in L0C it is 16 x 16 float/int32.
//   L1 (Nz, "大N小Z"): fractals column-major, row-major inside. DataCopy with Nd2NzParams writes it
//     (page "随路转换ND2NZ搬运"; element loop as in the CCE reference of copy_gm_to_cbuf_multi_nd2nz):
//     for matrix i < ndNum, row r < nValue, C0 block c < ceil(dValue * size / 32):
//       src  = src + i * srcNdMatrixStride + r * srcDValue + c * C0            (elements)
//       dst  = dst + i * dstNzMatrixStride + (r * dstNzNStride + c * dstNzC0Stride) * C0  (elements)
//     and the part of the last 32-B block beyond dValue is zero-filled.
//   L0A (ZZ, "小Z大Z"): fractals row-major, row-major inside: A(m, k) of an Mmad with K-fractal count
//     kF = ceil(k / C0) sits in fractal (m / 16) * kF + k / C0, at row m % 16, column k % C0.
//   L0B (ZN, "小N大Z"): fractals row-major, column-major inside: B(k, n) sits in fractal
//     (k / C0) * ceil(n / 16) + n / 16 at [n % 16][k % C0] (each 32-B row of the fractal is one n).
//   L0C (NZ, "小Z大N"): fractals column-major, row-major inside: C(m, n) in fractal
//     (n / 16) * ceil(m / 16) + m / 16 at [m % 16][n % 16] (Mmad page, the 4 x 4 example).
//   Mmad reads ceil(m/16) * kF fractals of L0A and kF * ceil(n/16) of L0B and writes the m x n
//     part of C; padding rows, columns and k are ignored (Mmad page: "对齐填充的无效数据 ... 会被忽略";
//     the transpose sample's README: "矩阵计算单元从L0A/L0B连续读入的分形总数目"). kDirectionAlign
//     (float only) counts L0A's K in 16s (same README).
//   LoadData (Load2D page): fractal i of 512 B from src + (startIndex + i * srcStride) * 512 B to
//     dst + i * (1 + dstGap) * 512 B, transposed inside when ifTranspose (16-bit types only).
//   LoadDataWithTranspose (its page): per iteration one square, 32 x 32 int8 (two 16 x 32 fractals
//     one above the other), 16 x 16 half (one fractal), 16 x 16 float (two 16 x 8 fractals side by
//     side); squares at src + (startIndex + i * srcStride) * square size; the transposed square is
//     split the same way into fractals at dst + i * (1 + dstGap) * 512 B and + (1 + dstFracGap) * 512 B.
//   Fixpipe (its page, FixpipeParamsV220): L0C -> GM; column group j of the NZ source starts at
//     src + j * srcStride * 16 elements, row m at + m * 16; NZ2ND (CFG_ROW_MAJOR) writes
//     dst[m * dstStride + n], CFG_NZ writes 16-wide columns dstStride * 32 B apart; ndNum matrices
//     srcNdStride KiB / dstNdStride elements apart; quantPre converts (float -> half / bfloat16,
//     int32 -> half with a scale, ...), reluEn clamps at 0.
//
// Pipe ordering (the `pipe-hazard` finding): MTE2 writes L1 (DataCopy GM -> A1/B1/C1, LoadData
// from GM), MTE1 reads L1 and writes L0A/L0B/BT (LoadData, DataCopy C1 -> C2), M (Mmad) reads
// L0A/L0B/BT and writes L0C, FIX (Fixpipe) reads L0C. Each pipe runs its own instructions in
// order, but the pipes run in parallel, so an access to bytes another pipe wrote (or still reads)
// needs a SetFlag/WaitFlag pair, a queue EnQue/DeQue (AllocTensor/FreeTensor for the reverse
// direction) or PipeBarrier<PIPE_ALL> between them in program order. The check and the pipes'
// clocks are pipe_order.h's, shared with UB; each memory here keeps its per-granule records.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <unordered_map>
#include <vector>

#include <sys/mman.h>

#include "copy.h"
#include "cube_gemm.h"

namespace acemu {

// Finding kinds of the cube (exact strings the runner reports).
constexpr const char* L1_OVERFLOW = "l1-overflow";
constexpr const char* L0_OVERFLOW = "l0-overflow";
constexpr const char* UNALIGNED_FRACTAL = "unaligned-fractal";
constexpr const char* UNINIT_CUBE_READ = "uninitialised-cube-read";
constexpr const char* WRONG_POSITION = "wrong-position";
constexpr const char* CUBE_PARAM = "cube-param";

namespace rt {
struct CubeSizes {
    uint64_t l1, l0a, l0b, l0c, bt;
    unsigned cube_cores;
};
// The SoC's cube memories (from the runner's spec, or ACEMU_CUBE in host programs); aborts with a
// clear message when neither told the process.
const CubeSizes& cube_sizes();
// The kernel type the launch runs (KernelMetaType; -1 when nothing registered one).
int kernel_type();
}  // namespace rt

namespace cube {

enum Mem : int { MEM_L1 = 0, MEM_L0A, MEM_L0B, MEM_L0C, MEM_BT, MEM_FB, NMEM, MEM_UB = NMEM, MEM_NONE = -1 };
// The pipes and their clocks are the core's (pipe_order.h), shared with UB.
using order::Pipe;
using order::P_S;
using order::P_V;
using order::P_M;
using order::P_MTE1;
using order::P_MTE2;
using order::P_MTE3;
using order::P_FIX;
using order::NPIPE;
using order::kPipeName;

constexpr const char* kMemName[NMEM + 1] = {"L1", "L0A", "L0B", "L0C", "the bias table", "the Fixpipe buffer", "UB"};
constexpr uint32_t kMemAlign[NMEM + 1] = {32, 512, 512, 64, 64, 128, 32};
constexpr uint64_t kFbReserve = 64 * 1024;  // no reference page gives the Fixpipe buffer's size: not checked
// The pipe-order records' granule (log2 bytes): the memory's alignment, so two buffers never share one.
constexpr int kGranShift[NMEM] = {5, 9, 9, 6, 6, 7};

// Per 32-B granule: the instruction that last wrote it and each pipe's last reader (0: none).
struct Granule {
    uint32_t w;
    uint32_t r[NPIPE];
};

struct Region {
    uint8_t* base = nullptr;
    uint32_t* shadow = nullptr;  // byte masks, as the UB's
    Granule* gran = nullptr;
    uint64_t soc = 0;   // the SoC's bytes (what InitBuffer may hand out)
    uint64_t cap = 0;   // the reserve behind `base` (an overflowing kernel goes on in it)
    uint64_t used = 0;  // InitBuffer's cursor
    uint64_t high = 0;  // highest byte touched since the block started
};


// One worker thread's cube core: its memories, reused by the blocks the thread runs.
struct State {
    Region mem[NMEM];
    bool hf32 = false;                // SetHF32Mode
    int hf32_round = 0;

    State() {
        const rt::CubeSizes& z = rt::cube_sizes();
        const uint64_t soc[NMEM] = {z.l1, z.l0a, z.l0b, z.l0c, z.bt, kFbReserve};
        for (int m = 0; m < NMEM; ++m) {
            Region& r = mem[m];
            r.soc = soc[m];
            uint64_t cap = 4 * soc[m];
            if (cap < (64u << 10)) cap = 64u << 10;
            r.cap = cap;
            const int fl = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
            void* b = mmap(nullptr, cap, PROT_READ | PROT_WRITE, fl, -1, 0);
            void* s = mmap(nullptr, cap / 32 * sizeof(uint32_t), PROT_READ | PROT_WRITE, fl, -1, 0);
            void* g = mmap(nullptr, (cap >> kGranShift[m]) * sizeof(Granule), PROT_READ | PROT_WRITE, fl, -1, 0);
            if (b == MAP_FAILED || s == MAP_FAILED || g == MAP_FAILED) {
                fprintf(stderr, "acemu: cannot reserve the emulated cube memories\n");
                abort();
            }
            r.base = static_cast<uint8_t*>(b);
            r.shadow = static_cast<uint32_t*>(s);
            r.gran = static_cast<Granule*>(g);
            std::memset(r.base, 0xff, soc[m] < cap ? soc[m] : cap);  // never-written data reads as NaN / -1
            r.high = 0;
        }
    }
    ~State() {
        for (int m = 0; m < NMEM; ++m) {
            Region& r = mem[m];
            munmap(r.base, r.cap);
            munmap(r.shadow, r.cap / 32 * sizeof(uint32_t));
            munmap(r.gran, (r.cap >> kGranShift[m]) * sizeof(Granule));
        }
    }
    // A fresh core for the next block: what the last one touched goes back to "never written".
    void reset() {
        for (int m = 0; m < NMEM; ++m) {
            Region& r = mem[m];
            const uint64_t g = uint64_t(1) << kGranShift[m];
            uint64_t h = (r.high + g - 1) & ~(g - 1);
            if (h > r.cap) h = r.cap;
            std::memset(r.base, 0xff, h);
            std::memset(r.shadow, 0, h / 32 * sizeof(uint32_t));
            std::memset(r.gran, 0, (h >> kGranShift[m]) * sizeof(Granule));
            r.used = r.high = 0;
        }
        hf32 = false;
        hf32_round = 0;
    }
};

inline thread_local State* tls_state = nullptr;

inline State& state() {
    if (__builtin_expect(tls_state == nullptr, 0)) tls_state = new State();
    return *tls_state;
}
// The runtime calls these (runtime.cpp): a block starts on this thread; the thread ends.
inline void begin_block() {
    if (tls_state) tls_state->reset();
}
inline void end_thread() {
    delete tls_state;
    tls_state = nullptr;
}

inline int mem_of_position(AscendC::TPosition pos) {
    using AscendC::TPosition;
    switch (pos) {
        case TPosition::A1: case TPosition::B1: case TPosition::C1: case TPosition::TSCM: return MEM_L1;
        case TPosition::A2: return MEM_L0A;
        case TPosition::B2: return MEM_L0B;
        case TPosition::CO1: return MEM_L0C;
        case TPosition::C2: return MEM_BT;
        case TPosition::C2PIPE2GM: return MEM_FB;
        default: return MEM_NONE;
    }
}
inline bool is_cube_position(AscendC::TPosition pos) { return mem_of_position(pos) != MEM_NONE; }

// Where a local pointer lives: a cube memory, UB, or neither.
inline int mem_of(const void* p) {
    const uint8_t* b = static_cast<const uint8_t*>(p);
    if (tls_state) {
        for (int m = 0; m < NMEM; ++m) {
            const Region& r = tls_state->mem[m];
            if (b >= r.base && b < r.base + r.cap) return m;
        }
    }
    BlockCtx* c = tls_ctx;
    if (c && in_ub(c, p)) return MEM_UB;
    return MEM_NONE;
}
inline bool in_cube(const void* p) {
    if (tls_state == nullptr) return false;  // a vector kernel never pays more than this
    int m = mem_of(p);
    return m >= 0 && m < NMEM;
}

inline uint8_t* mem_base(int m) { return m == MEM_UB ? ctx()->ub : state().mem[m].base; }
inline uint64_t mem_offset(int m, const void* p) { return uint64_t(static_cast<const uint8_t*>(p) - mem_base(m)); }

inline void mark(int m, uint64_t off, uint64_t n) {
    if (m == MEM_UB) { shadow_mark(ctx(), off, n); return; }
    Region& r = state().mem[m];
    mask_mark(r.shadow, r.cap, off, n);
    if (off + n > r.high) r.high = off + n;
}
inline int64_t first_unset(int m, uint64_t off, uint64_t n) {
    if (m == MEM_UB) return shadow_first_unset(ctx(), off, n);
    const Region& r = state().mem[m];
    return mask_first_unset(r.shadow, r.cap, off, n);
}

// ---- InitBuffer at cube positions (called by TPipe, pipe.h) ----------------------------------
inline uint8_t* take(AscendC::TPosition pos, uint64_t len, int num, const char* file, int line, uint64_t* offset, uint64_t* slot_len) {
    const int m = mem_of_position(pos);
    Region& r = state().mem[m];
    const uint64_t a = kMemAlign[m];
    const uint64_t slot = (len + a - 1) / a * a;
    uint64_t off = (r.used + a - 1) / a * a;
    uint64_t end = off + slot * uint64_t(num > 0 ? num : 0);
    if (m != MEM_FB && end > r.soc && off <= r.soc) {
        rt::report(m == MEM_L1 ? L1_OVERFLOW : L0_OVERFLOW, "InitBuffer", file, line,
                   "InitBuffer brings %s to %llu B, but the SoC has %llu B there: %llu B too many. On the NPU the buffers overlap "
                   "(or the kernel fails to load); shrink the tile (baseM / baseN / baseK) or the number of buffers",
                   kMemName[m], (unsigned long long)end, (unsigned long long)r.soc, (unsigned long long)(end - r.soc));
    }
    if (end > r.cap) {  // beyond even the reserve: overlap the start, the finding above says why
        off = 0;
        end = slot * uint64_t(num);
    }
    r.used = end;
    if (end > r.high) r.high = end < r.cap ? end : r.cap;
    *offset = off;
    *slot_len = slot;
    return r.base;
}
inline void reset_arenas() {
    if (tls_state)
        for (Region& r : tls_state->mem) r.used = 0;
}

// ---- the pipe clock ------------------------------------------------------------------------
// `amount`, `dtype` and `extra` go to the pipe trace (trace.h): bytes for copies, m | n << 16 | k << 32 for Mmad.
inline uint32_t issue(int pipe, const char* api, const char* file, int line, int dtype = 0, uint64_t amount = 0, uint64_t extra = 0) {
    trace::pipe_op(ctx(), pipe, api, file, line, dtype, amount, extra);
    return order::clocks().issue(pipe, api, file, line);
}

// The access of instruction `id` to [off, off + n) of memory m, checked against the other pipes.
inline void track(int m, uint64_t off, uint64_t n, uint32_t id, bool write) {
    if (n == 0 || m < 0 || m >= NMEM) return;
    Region& r = state().mem[m];
    if (off >= r.cap) return;
    if (off + n > r.cap) n = r.cap - off;
    if (off + n > r.high) r.high = off + n;
    const int shift = kGranShift[m];
    order::access(order::clocks(), r.gran, off >> shift, (off + n - 1) >> shift, shift, kMemName[m], id, write, [](int p) { return p; });
}

// ---- operands --------------------------------------------------------------------------------
// A local tensor as the cube APIs see it: its memory, offset there and bytes up to its end.
struct Operand {
    int mem;
    uint8_t* p;
    uint64_t off;
    uint64_t bytes;
};
template <typename T> inline Operand operand(const AscendC::LocalTensor<T>& t) {
    Operand o{mem_of(t.acemu_ptr()), reinterpret_cast<uint8_t*>(t.acemu_ptr()), 0, t.acemu_bytes()};
    if (o.mem != MEM_NONE) o.off = mem_offset(o.mem, o.p);
    return o;
}

// The operand must be in one of `mems` (a bit mask of Mem); otherwise a wrong-position finding.
inline bool expect_mem(const Operand& o, unsigned mems, const char* api, const char* what, const char* wanted, const char* file, int line) {
    if (o.mem != MEM_NONE && (mems >> o.mem) & 1u) return true;
    rt::report(WRONG_POSITION, api, file, line, "%s: %s is in %s, but %s takes it from %s (see the API page's TPosition table)", api, what,
               o.mem == MEM_NONE ? "no local memory" : kMemName[o.mem], api, wanted);
    return false;
}
inline void expect_align(const Operand& o, uint64_t align, const char* api, const char* what, const char* file, int line) {
    if (o.mem == MEM_NONE || o.off % align == 0) return;
    rt::report(UNALIGNED_FRACTAL, api, file, line,
               "%s: %s starts at offset %llu of %s, which is not %llu-B aligned; the hardware addresses it in %llu-B units and "
               "uses the aligned-down address. Take sub-tensors at whole fractals",
               api, what, (unsigned long long)o.off, kMemName[o.mem], (unsigned long long)align, (unsigned long long)align);
}
// Bytes [0, need) of the operand must lie inside its tensor (InitBuffer's buffer).
inline bool expect_extent(const Operand& o, uint64_t need, const char* api, const char* what, bool write, const char* file, int line) {
    if (need <= o.bytes) return true;
    const char* kind = o.mem == MEM_L1 ? L1_OVERFLOW : o.mem == MEM_UB ? UB_OVERFLOW : L0_OVERFLOW;
    rt::report(kind, api, file, line,
               "%s %s %llu B of %s, but that tensor has only %llu B in %s: on the NPU the access runs into the neighbouring buffer "
               "(check repeatTimes / strides / m, n, k against the buffer size)",
               api, write ? "writes" : "reads", (unsigned long long)need, what, (unsigned long long)o.bytes,
               o.mem >= 0 ? kMemName[o.mem] : "?");
    return false;
}
// Bytes [delta, delta + n) of the operand were written since the block started?
inline bool expect_defined(const Operand& o, uint64_t delta, uint64_t n, const char* api, const char* what, bool& reported, const char* file,
                           int line) {
    if (reported || o.mem == MEM_NONE) return true;
    int64_t bad = first_unset(o.mem, o.off + delta, n);
    if (bad < 0) return true;
    reported = true;
    rt::report(UNINIT_CUBE_READ, api, file, line,
               "%s reads %s at offset %lld of %s, which nothing wrote since the block started%s; the hardware computes with "
               "whatever an earlier tile left there",
               api, what, (long long)bad, kMemName[o.mem],
               o.mem == MEM_L0C ? " (an Mmad that accumulates, or a Fixpipe, before any Mmad wrote this part of L0C?)" : "");
    return false;
}

[[noreturn]] inline void unsupported(const char* api, const char* what, const char* file, int line) {
    fprintf(stderr, "acemu: %s at %s:%d uses %s, which the emulator does not model; the run stops rather than compute a wrong answer\n",
            api, file, line, what);
    abort();
}

// ---- vector instructions on cube memories (called by tensor.h's check_align) ---------------
inline void foreign_operand(const char* api, const char* what, const void* p, const char* file, int line) {
    if (!in_cube(p)) return;
    rt::report(WRONG_POSITION, api, file, line,
               "%s: %s is in %s, a cube memory; vector instructions read and write only UB (VECIN / VECOUT / VECCALC). Move the data "
               "through GM, or use the cube's own instructions (LoadData, Mmad, Fixpipe)",
               api, what, kMemName[mem_of(p)]);
}
inline void no_copy_path(const char* api, const void* src, const char* file, int line) {
    rt::report(WRONG_POSITION, api, file, line,
               "%s from %s to GM: on Atlas A2/A3 no DataCopy leaves L1 or L0 for GM; results leave L0C through Fixpipe", api,
               kMemName[mem_of(src)]);
}

}  // namespace cube
}  // namespace acemu

// ==== data paths =================================================================================
namespace acemu {
namespace cube {

constexpr unsigned bit(int m) { return 1u << m; }

// One GM read of `n` bytes at byte `goff` of src into local memory; out-of-range bytes read as 0.
template <typename T>
inline void gm_read(const AscendC::GlobalTensor<T>& src, int64_t goff, uint8_t* dst, uint64_t n, const char* api, const char* file, int line) {
    uint64_t ok = src.acemu_in_bounds_b(api, "reads", goff, n, file, line);
    const uint8_t* s = reinterpret_cast<const uint8_t*>(src.GetPhyAddr()) + goff;
    if (ok) std::memcpy(dst, s, ok);
    if (ok < n) std::memset(dst + ok, 0, n - ok);
}

// Copies carry the "written" marks with the data: a copy of never-written bytes is not a finding
// (fractal padding is copied too); reading them where they count (Mmad, Fixpipe) is.
inline void copy_marks(int sm, uint64_t soff, int dm, uint64_t doff, uint64_t n) {
    if (first_unset(sm, soff, n) < 0) { mark(dm, doff, n); return; }
    for (uint64_t i = 0; i < n; ++i)
        if (first_unset(sm, soff + i, 1) < 0) mark(dm, doff + i, 1);
}
// Copy one 512-B fractal between memories (sm == MEM_NONE: from GM, all written).
inline void copy_fractal(int sm, uint64_t soff, const uint8_t* s, int dm, uint64_t doff, uint8_t* d, bool transpose16) {
    if (!transpose16) {
        std::memcpy(d, s, 512);
        if (sm == MEM_NONE) mark(dm, doff, 512);
        else copy_marks(sm, soff, dm, doff, 512);
        return;
    }
    const uint16_t* s16 = reinterpret_cast<const uint16_t*>(s);
    uint16_t* d16 = reinterpret_cast<uint16_t*>(d);
    for (int r = 0; r < 16; ++r)
        for (int c = 0; c < 16; ++c) d16[c * 16 + r] = s16[r * 16 + c];
    if (sm == MEM_NONE || first_unset(sm, soff, 512) < 0) { mark(dm, doff, 512); return; }
    for (int r = 0; r < 16; ++r)
        for (int c = 0; c < 16; ++c)
            if (first_unset(sm, soff + uint64_t(r * 16 + c) * 2, 2) < 0) mark(dm, doff + uint64_t(c * 16 + r) * 2, 2);
}

// DataCopy GM -> L1 (A1 / B1 / C1), from copy.h: `blocks` blocks of `block_bytes`, gaps between them.
template <typename T>
inline void copy_gm_in(const AscendC::LocalTensor<T>& dst, const AscendC::GlobalTensor<T>& src, uint64_t blocks, uint64_t block_bytes,
                       uint64_t src_gap, uint64_t dst_gap, const char* file, int line) {
    const char* api = "DataCopy";
    Operand d = operand(dst);
    if (!expect_mem(d, bit(MEM_L1), api, "the destination", "GM into A1 / B1 / C1 (L1); L0A / L0B are loaded with LoadData", file, line))
        return;
    expect_align(d, kMemAlign[MEM_L1], api, "the L1 destination", file, line);
    if (blocks == 0 || block_bytes == 0) return;
    expect_extent(d, (blocks - 1) * (block_bytes + dst_gap) + block_bytes, api, "the L1 destination", true, file, line);
    const uint32_t id = issue(P_MTE2, api, file, line, dtype_of<T>(), blocks * block_bytes, blocks);
    for (uint64_t b = 0; b < blocks; ++b) {
        const uint64_t doff = b * (block_bytes + dst_gap);
        if (doff + block_bytes > state().mem[MEM_L1].cap - d.off) break;
        gm_read(src, int64_t(b * (block_bytes + src_gap)), d.p + doff, block_bytes, api, file, line);
        mark(MEM_L1, d.off + doff, block_bytes);
        track(MEM_L1, d.off + doff, block_bytes, id, true);
    }
}

// DataCopy between local memories, from copy.h. On A2 the cube core's only such path is the bias,
// C1 (L1) -> C2 (bias table), on pipe MTE1.
template <typename T>
inline void copy_local(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src, uint64_t blocks, uint64_t block_bytes,
                       uint64_t src_gap, uint64_t dst_gap, const char* file, int line) {
    const char* api = "DataCopy";
    Operand d = operand(dst), s = operand(src);
    if (!(s.mem == MEM_L1 && d.mem == MEM_BT)) {
        rt::report(WRONG_POSITION, api, file, line,
                   "DataCopy from %s to %s: on Atlas A2/A3 the only local DataCopy of the cube core is C1 (L1) -> C2 (bias table); L1 "
                   "reaches L0A / L0B through LoadData, and the vector core cannot reach L1 or L0",
                   s.mem >= 0 ? kMemName[s.mem] : "GM", d.mem >= 0 ? kMemName[d.mem] : "GM");
        return;
    }
    expect_align(s, kMemAlign[MEM_L1], api, "the L1 source", file, line);
    expect_align(d, kMemAlign[MEM_BT], api, "the bias-table destination", file, line);
    if (blocks == 0 || block_bytes == 0) return;
    expect_extent(s, (blocks - 1) * (block_bytes + src_gap) + block_bytes, api, "the L1 source", false, file, line);
    expect_extent(d, (blocks - 1) * (block_bytes + dst_gap) + block_bytes, api, "the bias-table destination", true, file, line);
    const uint32_t id = issue(P_MTE1, api, file, line, dtype_of<T>(), blocks * block_bytes, blocks);
    for (uint64_t b = 0; b < blocks; ++b) {
        const uint64_t so = b * (block_bytes + src_gap), dof = b * (block_bytes + dst_gap);
        if (s.off + so + block_bytes > state().mem[MEM_L1].cap || d.off + dof + block_bytes > state().mem[MEM_BT].cap) break;
        track(MEM_L1, s.off + so, block_bytes, id, false);
        std::memcpy(d.p + dof, s.p + so, block_bytes);
        copy_marks(MEM_L1, s.off + so, MEM_BT, d.off + dof, block_bytes);
        track(MEM_BT, d.off + dof, block_bytes, id, true);
    }
}

}  // namespace cube
}  // namespace acemu

namespace AscendC {

constexpr int32_t BLOCK_CUBE = 16;       // rows (and columns) of a cube fractal
#ifndef ACEMU_ONE_BLK_SIZE
#define ACEMU_ONE_BLK_SIZE
constexpr int32_t ONE_BLK_SIZE = 32;     // bytes of a C0 block
constexpr int32_t DEFAULT_C0_SIZE = 32;  // the same, by the name kernels use for the cube's C0
#endif
constexpr int32_t CUBE_MAX_SIZE = 256;   // elements of a 16 x 16 fractal

struct Nd2NzParams {
    Nd2NzParams() = default;
    Nd2NzParams(uint16_t ndNumIn, uint16_t nValueIn, uint16_t dValueIn, uint16_t srcNdMatrixStrideIn, uint16_t srcDValueIn,
                uint16_t dstNzC0StrideIn, uint16_t dstNzNStrideIn, uint16_t dstNzMatrixStrideIn)
        : ndNum(ndNumIn), nValue(nValueIn), dValue(dValueIn), srcNdMatrixStride(srcNdMatrixStrideIn), srcDValue(srcDValueIn),
          dstNzC0Stride(dstNzC0StrideIn), dstNzNStride(dstNzNStrideIn), dstNzMatrixStride(dstNzMatrixStrideIn) {}
    uint16_t ndNum = 1;              // matrices
    uint16_t nValue = 0;             // rows of each
    uint16_t dValue = 0;             // columns of each (elements)
    uint16_t srcNdMatrixStride = 0;  // elements between the source matrices
    uint16_t srcDValue = 0;          // elements between source rows
    uint16_t dstNzC0Stride = 0;      // 32-B blocks between the C0 columns of the destination (its row count, aligned)
    uint16_t dstNzNStride = 1;       // 32-B blocks between destination rows
    uint16_t dstNzMatrixStride = 0;  // elements between the destination matrices
};

// DataCopy GM -> L1 (A1 / B1) or UB (VECIN), ND to Nz on the way (page "随路转换ND2NZ搬运").
template <typename T> inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const Nd2NzParams& p, ACEMU_SITE_PARAMS) {
    using namespace acemu::cube;
    const char* api = "DataCopy";
    acemu::enter(acemu::ctx(), api, ACEMU_SITE);
    Operand d = operand(dst);
    if (!expect_mem(d, bit(MEM_L1) | bit(MEM_UB), api, "the Nd2Nz destination", "GM into A1 / B1 (or VECIN)", ACEMU_SITE)) return;
    expect_align(d, 32, api, "the destination", ACEMU_SITE);
    constexpr uint64_t es = sizeof(T), c0 = 32 / sizeof(T);
    if (p.ndNum == 0 || p.nValue == 0 || p.dValue == 0) return;
    const uint64_t cblocks = (uint64_t(p.dValue) + c0 - 1) / c0;
    if (uint64_t(p.dstNzC0Stride) < uint64_t(p.nValue - 1) * p.dstNzNStride + 1 && cblocks > 1) {
        acemu::rt::report(acemu::CUBE_PARAM, api, ACEMU_SITE,
                          "Nd2NzParams: dstNzC0Stride = %u blocks, but the %u rows of a C0 column take %llu blocks (dstNzNStride %u): the next "
                          "column overwrites this one. dstNzC0Stride is the destination's row count, aligned to 16",
                          unsigned(p.dstNzC0Stride), unsigned(p.nValue), (unsigned long long)(uint64_t(p.nValue - 1) * p.dstNzNStride + 1),
                          unsigned(p.dstNzNStride));
    }
    if (p.srcDValue < p.dValue && p.nValue > 1) {
        acemu::rt::report(acemu::CUBE_PARAM, api, ACEMU_SITE,
                          "Nd2NzParams: srcDValue = %u elements between source rows is less than dValue = %u: the rows overlap in GM",
                          unsigned(p.srcDValue), unsigned(p.dValue));
    }
    const uint64_t last = (uint64_t(p.ndNum) - 1) * p.dstNzMatrixStride * es +
                          ((uint64_t(p.nValue) - 1) * p.dstNzNStride + (cblocks - 1) * p.dstNzC0Stride) * 32 + 32;
    expect_extent(d, last, api, "the destination", true, ACEMU_SITE);
    const bool ub = d.mem == MEM_UB;
    const uint64_t nd_bytes = uint64_t(p.ndNum) * p.nValue * p.dValue * es;
    const uint64_t nd_rows = uint64_t(p.ndNum) * p.nValue;  // every row of every matrix is a burst of its own
    if (ub) acemu::trace::pipe_op(acemu::ctx(), acemu::trace::P_MTE2, api, ACEMU_SITE, acemu::dtype_of<T>(), nd_bytes, nd_rows);
    const uint32_t id = ub ? 0 : issue(P_MTE2, api, ACEMU_SITE, acemu::dtype_of<T>(), nd_bytes, nd_rows);
    const uint64_t cap = ub ? acemu::ctx()->ub_capacity : state().mem[d.mem].cap;
    const uint64_t range = src.acemu_range_bytes();
    const uint8_t* gm = reinterpret_cast<const uint8_t*>(src.GetPhyAddr());
    for (uint64_t i = 0; i < p.ndNum; ++i) {
        for (uint64_t r = 0; r < p.nValue; ++r) {
            const int64_t srow = int64_t((i * p.srcNdMatrixStride + r * p.srcDValue) * es);
            const bool row_in = uint64_t(srow) + uint64_t(p.dValue) * es <= range;  // else gm_read reports and zero-fills
            if (r + 2 < p.nValue && uint64_t(srow) + 2 * p.srcDValue * es + uint64_t(p.dValue) * es <= range)  // GM rows are far apart:
                for (uint64_t b = 0; b < uint64_t(p.dValue) * es; b += 64)                                       // fetch two rows ahead
                    __builtin_prefetch(gm + srow + int64_t(2 * p.srcDValue * es + b));
            for (uint64_t cb = 0; cb < cblocks; ++cb) {
                const uint64_t doff = i * p.dstNzMatrixStride * es + (r * p.dstNzNStride + cb * p.dstNzC0Stride) * 32;
                if (d.off + doff + 32 > cap) continue;
                const uint64_t n = std::min<uint64_t>(c0, p.dValue - cb * c0) * es;
                uint8_t* out = d.p + doff;
                if (row_in && n == 32) std::memcpy(out, gm + srow + int64_t(cb * 32), 32);  // the common case, inlined
                else if (row_in) std::memcpy(out, gm + srow + int64_t(cb * 32), n);
                else acemu::cube::gm_read(src, srow + int64_t(cb * 32), out, n, api, ACEMU_SITE);
                if (n < 32) std::memset(out + n, 0, 32 - n);  // the hardware pads the last block with zeros
            }
        }
        // Marks and pipe records per C0 column: its rows are one run when dstNzNStride is 1.
        for (uint64_t cb = 0; cb < cblocks; ++cb) {
            const uint64_t col = i * p.dstNzMatrixStride * es + cb * p.dstNzC0Stride * 32;
            const uint64_t run = p.dstNzNStride == 1 ? uint64_t(p.nValue) : 1;
            for (uint64_t r = 0; r < p.nValue; r += run) {
                const uint64_t doff = col + r * p.dstNzNStride * 32;
                if (d.off + doff + run * 32 > cap) break;
                mark(d.mem, d.off + doff, run * 32);
                if (!ub) track(d.mem, d.off + doff, run * 32, id, true);
            }
        }
    }
}

struct LoadData2DParams {
    LoadData2DParams() = default;
    LoadData2DParams(uint16_t startIndexIn, uint8_t repeatTimesIn, uint16_t srcStrideIn, uint8_t sidIn, uint16_t dstGapIn, bool ifTransposeIn,
                     uint8_t addrModeIn)
        : startIndex(startIndexIn), repeatTimes(repeatTimesIn), srcStride(srcStrideIn), sid(sidIn), dstGap(dstGapIn), ifTranspose(ifTransposeIn),
          addrMode(addrModeIn) {}
    uint16_t startIndex = 0;  // first source fractal (512 B)
    uint8_t repeatTimes = 0;  // fractals, 1..255
    uint16_t srcStride = 0;   // fractals between the starts of consecutive source fractals
    uint8_t sid = 0;
    uint16_t dstGap = 0;      // fractals between the end of one destination fractal and the next
    bool ifTranspose = false;
    uint8_t addrMode = 0;
};
using LoadData2dParams = LoadData2DParams;

namespace detail {
template <typename T>
inline void load2d(const char* api, const LocalTensor<T>& dst, int src_mem, const uint8_t* src_p, uint64_t src_off, uint64_t src_bytes,
                   const GlobalTensor<T>* gsrc, const LoadData2DParams& p, const char* file, int line) {
    using namespace acemu::cube;
    Operand d = operand(dst);
    const unsigned to = gsrc ? bit(MEM_L1) | bit(MEM_L0A) | bit(MEM_L0B) : bit(MEM_L0A) | bit(MEM_L0B);
    if (!expect_mem(d, to, api, "the destination", gsrc ? "GM into A1 / B1 / A2 / B2" : "A1 / B1 (L1) into A2 / B2 (L0A / L0B)", file, line))
        return;
    expect_align(d, kMemAlign[d.mem], api, "the destination", file, line);
    if (p.repeatTimes == 0) {
        acemu::rt::report(acemu::CUBE_PARAM, api, file, line, "LoadData2DParams.repeatTimes is 0; it must be 1..255 (fractals)");
        return;
    }
    bool transpose = p.ifTranspose;
    if (transpose && (sizeof(T) != 2 || std::is_same<T, bfloat16_t>::value)) {
        acemu::rt::report(acemu::CUBE_PARAM, api, file, line,
                          "LoadData2DParams.ifTranspose with %s: Load2D transposes only uint16_t / int16_t / half; use LoadDataWithTranspose "
                          "for the other types. The emulator copies without transposing",
                          acemu::type_name<T>());
        transpose = false;
    }
    if (transpose && gsrc) {
        acemu::rt::report(acemu::CUBE_PARAM, api, file, line, "LoadData2DParams.ifTranspose: only A1 -> A2 and B1 -> B2 transpose; not from GM");
        transpose = false;
    }
    const uint64_t reps = p.repeatTimes;
    const uint64_t src_need = (uint64_t(p.startIndex) + (reps - 1) * p.srcStride + 1) * 512;
    const uint64_t dst_need = (reps - 1) * (1 + uint64_t(p.dstGap)) * 512 + 512;
    if (!gsrc) expect_extent(Operand{src_mem, const_cast<uint8_t*>(src_p), src_off, src_bytes}, src_need, api, "its L1 source", false, file, line);
    expect_extent(d, dst_need, api, "the destination", true, file, line);
    const uint32_t id = issue(gsrc ? P_MTE2 : P_MTE1, api, file, line, acemu::dtype_of<T>(), reps * 512, reps);
    const uint64_t dcap = state().mem[d.mem].cap;
    for (uint64_t i = 0; i < reps; ++i) {
        const uint64_t so = (uint64_t(p.startIndex) + i * p.srcStride) * 512;
        const uint64_t dof = i * (1 + uint64_t(p.dstGap)) * 512;
        if (d.off + dof + 512 > dcap) break;
        if (gsrc) {
            uint8_t tmp[512];
            acemu::cube::gm_read(*gsrc, int64_t(so), tmp, 512, api, file, line);
            copy_fractal(MEM_NONE, 0, tmp, d.mem, d.off + dof, d.p + dof, false);
        } else {
            if (src_off + so + 512 > state().mem[src_mem].cap) break;
            track(src_mem, src_off + so, 512, id, false);
            copy_fractal(src_mem, src_off + so, src_p + so, d.mem, d.off + dof, d.p + dof, transpose);
        }
        track(d.mem, d.off + dof, 512, id, true);
    }
}
}  // namespace detail

// LoadData (Load2D): L1 -> L0A / L0B, or GM -> L1 / L0A / L0B, fractal by fractal.
template <typename T> inline void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData2DParams& p, ACEMU_SITE_PARAMS) {
    using namespace acemu::cube;
    acemu::enter(acemu::ctx(), "LoadData", ACEMU_SITE);
    Operand s = operand(src);
    if (!expect_mem(s, bit(MEM_L1), "LoadData", "the source", "A1 / B1 (L1)", ACEMU_SITE)) return;
    expect_align(s, 32, "LoadData", "the L1 source", ACEMU_SITE);
    detail::load2d("LoadData", dst, s.mem, s.p, s.off, s.bytes, static_cast<const GlobalTensor<T>*>(nullptr), p, ACEMU_SITE);
}
template <typename T> inline void LoadData(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const LoadData2DParams& p, ACEMU_SITE_PARAMS) {
    acemu::enter(acemu::ctx(), "LoadData", ACEMU_SITE);
    detail::load2d("LoadData", dst, acemu::cube::MEM_NONE, nullptr, 0, 0, &src, p, ACEMU_SITE);
}

struct LoadData2dTransposeParams {
    LoadData2dTransposeParams() = default;
    LoadData2dTransposeParams(uint16_t startIndexIn, uint8_t repeatTimesIn, uint16_t srcStrideIn, uint16_t dstGapIn, uint16_t dstFracGapIn,
                              uint8_t addrModeIn = 0)
        : startIndex(startIndexIn), repeatTimes(repeatTimesIn), srcStride(srcStrideIn), dstGap(dstGapIn), dstFracGap(dstFracGapIn),
          addrMode(addrModeIn) {}
    uint16_t startIndex = 0;  // first source square
    uint8_t repeatTimes = 0;  // squares
    uint16_t srcStride = 0;   // squares between consecutive source squares
    uint16_t dstGap = 0;      // fractals between the first destination fractals of consecutive squares, less one
    uint16_t dstFracGap = 0;  // fractals between the two destination fractals of one square, less one
    uint8_t addrMode = 0;
};

// LoadDataWithTranspose: A1 / B1 -> A2 / B2, transposing squares of two (int8, float) or one
// (half) fractal.
template <typename T>
inline void LoadDataWithTranspose(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData2dTransposeParams& p, ACEMU_SITE_PARAMS) {
    using namespace acemu::cube;
    static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4, "LoadDataWithTranspose: int8_t/uint8_t, half/bfloat16_t, float/int32_t/uint32_t");
    const char* api = "LoadDataWithTranspose";
    acemu::enter(acemu::ctx(), api, ACEMU_SITE);
    Operand s = operand(src), d = operand(dst);
    if (!expect_mem(s, bit(MEM_L1), api, "the source", "A1 / B1 (L1)", ACEMU_SITE)) return;
    if (!expect_mem(d, bit(MEM_L0A) | bit(MEM_L0B), api, "the destination", "A2 / B2 (L0A / L0B)", ACEMU_SITE)) return;
    expect_align(s, 32, api, "the L1 source", ACEMU_SITE);
    expect_align(d, 512, api, "the destination", ACEMU_SITE);
    if (p.repeatTimes == 0) return;
    // A square: n x n elements, `fr` fractals of 512 B; fractals are stacked (int8) or side by side (float).
    constexpr int n = sizeof(T) == 1 ? 32 : 16;
    constexpr int fr = sizeof(T) == 2 ? 1 : 2;
    constexpr uint64_t sq = 512 * fr;
    const uint64_t reps = p.repeatTimes;
    expect_extent(s, (uint64_t(p.startIndex) + (reps - 1) * p.srcStride + 1) * sq, api, "its L1 source", false, ACEMU_SITE);
    const uint64_t last = (reps - 1) * (1 + uint64_t(p.dstGap)) * 512 + (fr == 2 ? (1 + uint64_t(p.dstFracGap)) * 512 : 0) + 512;
    expect_extent(d, last, api, "the destination", true, ACEMU_SITE);
    const uint32_t id = issue(P_MTE1, api, ACEMU_SITE, acemu::dtype_of<T>(), reps * sq, reps);
    const uint64_t scap = state().mem[MEM_L1].cap, dcap = state().mem[d.mem].cap;
    // Element (r, c) of a square, as an offset into its two (or one) fractals.
    auto at = [](int r, int c) -> uint64_t {
        if (sizeof(T) == 1) return uint64_t(r / 16) * 512 + uint64_t(r % 16) * 32 + uint64_t(c);          // 16 x 32 above each other
        if (sizeof(T) == 4) return uint64_t(c / 8) * 512 + (uint64_t(r) * 8 + uint64_t(c % 8)) * 4;       // 16 x 8 side by side
        return (uint64_t(r) * 16 + uint64_t(c)) * 2;                                                       // one 16 x 16
    };
    for (uint64_t i = 0; i < reps; ++i) {
        const uint64_t so = (uint64_t(p.startIndex) + i * p.srcStride) * sq;
        const uint64_t d0 = i * (1 + uint64_t(p.dstGap)) * 512, d1 = fr == 2 ? d0 + (1 + uint64_t(p.dstFracGap)) * 512 : d0;
        if (s.off + so + sq > scap || d.off + d1 + 512 > dcap) break;
        track(MEM_L1, s.off + so, sq, id, false);
        if (first_unset(MEM_L1, s.off + so, sq) < 0) {  // the usual case: all written, whole fractals marked
            // Element by element as below, typed: (c, r) of the destination square is (r, c) of the source.
            T* dlo = reinterpret_cast<T*>(d.p + d0);
            T* dhi = reinterpret_cast<T*>(d.p + d1);
            const T* sv = reinterpret_cast<const T*>(s.p + so);
            constexpr int half_elems = int(512 / sizeof(T));
            for (int r = 0; r < n; ++r)
                for (int c = 0; c < n; ++c) {
                    const int to = int(at(c, r) / sizeof(T));
                    (to < half_elems ? dlo[to] : dhi[to - half_elems]) = sv[at(r, c) / sizeof(T)];
                }
            mark(d.mem, d.off + d0, 512);  // the transpose maps the square's bytes onto the whole destination fractal(s)
            if (fr == 2) mark(d.mem, d.off + d1, 512);
        } else {
            for (int r = 0; r < n; ++r) {
                for (int c = 0; c < n; ++c) {
                    const uint64_t from = at(r, c), to = at(c, r);  // the transposed square, split like the source
                    const uint64_t dst_off = to < 512 ? d0 + to : d1 + (to - 512);
                    std::memcpy(d.p + dst_off, s.p + so + from, sizeof(T));
                    if (first_unset(MEM_L1, s.off + so + from, sizeof(T)) < 0) mark(d.mem, d.off + dst_off, sizeof(T));
                }
            }
        }
        track(d.mem, d.off + d0, 512, id, true);
        if (fr == 2) track(d.mem, d.off + d1, 512, id, true);
    }
}

}  // namespace AscendC

// ==== Mmad ======================================================================================
namespace AscendC {

struct MmadParams {
    MmadParams() = default;
    MmadParams(uint16_t mIn, uint16_t nIn, uint16_t kIn, bool isBiasIn = false, int32_t fmOffsetIn = 0, bool enSsparseIn = false,
               bool enWinogradAIn = false, bool enWinogradBIn = false)
        : m(mIn), n(nIn), k(kIn), isBias(isBiasIn), fmOffset(fmOffsetIn), enSsparse(enSsparseIn), enWinogradA(enWinogradAIn),
          enWinogradB(enWinogradBIn) {}
    uint16_t m = 0;  // rows of A and C, 0..4095
    uint16_t n = 0;  // columns of B and C, 0..4095
    uint16_t k = 0;  // columns of A, rows of B, 0..4095
    bool isBias = false;  // deprecated: true = C += A * B
    int32_t fmOffset = 0;
    bool enSsparse = false;
    bool enWinogradA = false;
    bool enWinogradB = false;
    uint8_t unitFlag = 0;          // fine-grained Mmad/Fixpipe overlap; the emulator is serial, nothing to model
    bool kDirectionAlign = false;  // float: L0A's K is aligned to 16 (two fractal columns per 16)
    bool cmatrixSource = false;    // the initial C comes from the bias table (true) or L0C (false)
    bool cmatrixInitVal = true;    // true: C starts at 0
};

enum class HF32Mode : uint8_t { DISABLE = 0, ENABLE };
// Mmad's HF32 mode (page SetHF32Mode: "FP32 data in L0A/L0B is rounded off to HF32"). The default,
// DISABLE, is regular FP32: each product and sum in float. The pages do not give HF32's bit layout,
// so the emulator refuses ENABLE rather than guess.
inline void SetHF32Mode(HF32Mode mode, ACEMU_SITE_PARAMS) {
    if (mode == HF32Mode::ENABLE) acemu::cube::unsupported("SetHF32Mode", "HF32Mode::ENABLE (HF32's rounding is not documented)", ACEMU_SITE);
}

}  // namespace AscendC

namespace acemu {
namespace cube {

// What the cube computes with for each input type (Mmad page, table 4).
template <typename T> struct CubeIn;
template <> struct CubeIn<half> { using Acc = float; };
template <> struct CubeIn<bfloat16_t> { using Acc = float; };
template <> struct CubeIn<float> { using Acc = float; };
template <> struct CubeIn<int8_t> { using Acc = int32_t; };
template <typename D, typename A, typename B> constexpr bool mmad_types() {
    return std::is_same<A, B>::value &&
           ((std::is_same<D, int32_t>::value && std::is_same<A, int8_t>::value) ||
            (std::is_same<D, float>::value && (std::is_same<A, half>::value || std::is_same<A, float>::value || std::is_same<A, bfloat16_t>::value)));
}

template <typename D, typename A, typename B, typename V>
inline void mmad(const AscendC::LocalTensor<D>& dst, const AscendC::LocalTensor<A>& fm, const AscendC::LocalTensor<B>& filter,
                 const AscendC::LocalTensor<V>* bias, const AscendC::MmadParams& p, const char* file, int line) {
    static_assert(mmad_types<D, A, B>(),
                  "Mmad: the (dst, fm, filter) types must be one of (int32_t, int8_t, int8_t), (float, half, half), (float, float, float), "
                  "(float, bfloat16_t, bfloat16_t) (API page Mmad, table 4)");
    using Acc = typename CubeIn<A>::Acc;
    const char* api = "Mmad";
    enter(ctx(), api, file, line);
    Operand c = operand(dst), a = operand(fm), b = operand(filter);
    if (!expect_mem(c, bit(MEM_L0C), api, "dst", "CO1 (L0C)", file, line)) return;
    if (!expect_mem(a, bit(MEM_L0A), api, "fm (the left matrix)", "A2 (L0A)", file, line)) return;
    if (!expect_mem(b, bit(MEM_L0B), api, "filter (the right matrix)", "B2 (L0B)", file, line)) return;
    Operand bo{MEM_NONE, nullptr, 0, 0};
    if (bias) {
        bo = operand(*bias);
        if (!expect_mem(bo, bit(MEM_BT) | bit(MEM_L0C), api, "bias", "C2 (bias table) or CO1 (L0C)", file, line)) return;
        expect_align(bo, 128, api, "bias", file, line);
    }
    expect_align(c, 1024, api, "dst (256 elements)", file, line);
    expect_align(a, 512, api, "fm", file, line);
    expect_align(b, 512, api, "filter", file, line);
    if (p.m > 4095 || p.n > 4095 || p.k > 4095)
        rt::report(CUBE_PARAM, api, file, line, "MmadParams m = %u, n = %u, k = %u: each must be 0..4095", unsigned(p.m), unsigned(p.n), unsigned(p.k));
    const int m = p.m, n = p.n, k = p.k;
    if (m == 0 || n == 0) return;
    constexpr int es = int(sizeof(A));
    constexpr int k0 = 32 / es;          // columns of an L0A fractal, rows of an L0B fractal
    constexpr int frac = 512 / es;       // elements of an L0A / L0B fractal
    const int kfa = (std::is_same<A, float>::value && p.kDirectionAlign) ? (k + 15) / 16 * 2 : (k + k0 - 1) / k0;
    const int kfb = (k + k0 - 1) / k0, mf = (m + 15) / 16, nf = (n + 15) / 16;
    bool ok = expect_extent(a, uint64_t(mf) * kfa * 512, api, "fm", false, file, line);
    ok &= expect_extent(b, uint64_t(kfb) * nf * 512, api, "filter", false, file, line);
    ok &= expect_extent(c, uint64_t(nf) * mf * 1024, api, "dst", true, file, line);
    if (!ok) return;  // the reads would leave the emulated memory's bounds of the tensor: nothing to compute
    const uint32_t id = issue(P_M, api, file, line, dtype_of<A>(), uint64_t(m) | uint64_t(n) << 16 | uint64_t(k) << 32);

    // Only the m x k, k x n and m x n parts count (the padding of the fractals is ignored); the
    // row-by-row check runs only when the whole fractal area is not all written.
    bool rep_a = false, rep_b = false, rep_c = false;
    if (first_unset(MEM_L0A, a.off, uint64_t(mf) * kfa * 512) >= 0)
        for (int i = 0; i < m && !rep_a; ++i)
            for (int kb = 0; kb * k0 < k; ++kb)
                expect_defined(a, uint64_t((i / 16) * kfa + kb) * 512 + uint64_t(i % 16) * 32, uint64_t(std::min(k0, k - kb * k0)) * es, api,
                               "fm (L0A)", rep_a, file, line);
    if (first_unset(MEM_L0B, b.off, uint64_t(kfb) * nf * 512) >= 0)
        for (int j = 0; j < n && !rep_b; ++j)
            for (int kb = 0; kb * k0 < k; ++kb)
                expect_defined(b, uint64_t(kb * nf + j / 16) * 512 + uint64_t(j % 16) * 32, uint64_t(std::min(k0, k - kb * k0)) * es, api,
                               "filter (L0B)", rep_b, file, line);
    track(MEM_L0A, a.off, uint64_t(mf) * kfa * 512, id, false);
    track(MEM_L0B, b.off, uint64_t(kfb) * nf * 512, id, false);

    // C's initial value: the bias (a row of the bias table added to every row, or a matrix in
    // L0C), C itself (accumulate), or zero.
    const bool from_dst = !bias && (p.isBias || !p.cmatrixInitVal);
    if (!bias && !p.cmatrixInitVal && p.cmatrixSource)
        rt::report(CUBE_PARAM, api, file, line,
                   "MmadParams.cmatrixSource = true (initial C from the bias table) without a bias tensor: pass the bias to the Mmad "
                   "overload that takes one; the emulator accumulates onto L0C");
    // C accumulates in place, in L0C's NZ layout: column group j (16 wide) is a dense (mf * 16) x 16
    // matrix at j * mf * 256 elements (D is the accumulation type, Mmad page table 4). Only the
    // m x n part is read and written; the fractals' padding keeps what it held.
    static_assert(std::is_same<D, Acc>::value, "L0C holds the accumulation type");
    D* out = reinterpret_cast<D*>(c.p);
    auto c_at = [&](int i, int j) { return uint64_t((j / 16) * mf + i / 16) * 256 + uint64_t(i % 16) * 16 + uint64_t(j % 16); };
    if (from_dst || (bias && bo.mem == MEM_L0C)) {
        const Operand& src = from_dst ? c : bo;
        if (!from_dst) expect_extent(bo, uint64_t(nf) * mf * 1024, api, "bias", false, file, line);
        if (first_unset(MEM_L0C, src.off, uint64_t(nf) * mf * 1024) >= 0)
            for (int i = 0; i < m; ++i)
                for (int nb = 0; nb < nf; ++nb)
                    expect_defined(src, c_at(i, nb * 16) * 4, uint64_t(std::min(16, n - nb * 16)) * 4, api,
                                   from_dst ? "the C it accumulates onto (L0C)" : "bias (L0C)", rep_c, file, line);
        track(MEM_L0C, src.off, uint64_t(nf) * mf * 1024, id, false);
        if (!from_dst && bo.p != c.p) {  // a bias matrix in L0C: C starts as its m x n part (read whole first: it may overlap C)
            const D* sp = reinterpret_cast<const D*>(bo.p);
            thread_local std::vector<D> start;
            start.resize(size_t(m) * n);
            for (int i = 0; i < m; ++i)
                for (int nb = 0; nb < nf; ++nb)
                    for (int j = 0, w = std::min(16, n - nb * 16); j < w; ++j) start[size_t(i) * n + nb * 16 + j] = sp[c_at(i, nb * 16) + j];
            for (int i = 0; i < m; ++i)
                for (int nb = 0; nb < nf; ++nb)
                    for (int j = 0, w = std::min(16, n - nb * 16); j < w; ++j) out[c_at(i, nb * 16) + j] = start[size_t(i) * n + nb * 16 + j];
        }
    } else if (bias) {
        expect_extent(bo, uint64_t(n) * sizeof(V), api, "bias", false, file, line);
        bool rep = false;
        expect_defined(bo, 0, uint64_t(n) * sizeof(V), api, "bias (bias table)", rep, file, line);
        track(bo.mem, bo.off, uint64_t(n) * sizeof(V), id, false);
        const V* bp = reinterpret_cast<const V*>(bo.p);
        for (int i = 0; i < m; ++i)
            for (int nb = 0; nb < nf; ++nb)
                for (int j = 0, w = std::min(16, n - nb * 16); j < w; ++j) out[c_at(i, nb * 16) + j] = D(bp[nb * 16 + j]);
    }
    const bool accumulate = from_dst || bias != nullptr;

    const A* ap = reinterpret_cast<const A*>(a.p);
    const B* bp = reinterpret_cast<const B*>(b.p);
    // A row of A (a column of B) is a run of k0 elements per fractal: copy run by run.
    auto pack_a = [&](int m0, int rows, int kk0, int kc, Acc* pk) {
        for (int i = 0; i < rows; ++i) {
            const int mi = m0 + i;
            const A* row = ap + size_t(mi / 16) * kfa * frac + size_t(mi % 16) * k0;
            for (int kk = 0; kk < kc;) {
                const int kg = kk0 + kk, off = kg % k0, len = std::min(k0 - off, kc - kk);
                const A* src = row + size_t(kg / k0) * frac + off;
                for (int t = 0; t < len; ++t) pk[(kk + t) * gemm::MR + i] = Acc(src[t]);
                kk += len;
            }
        }
    };
    auto pack_b = [&](int n0, int cols, int kk0, int kc, Acc* pk) {
        for (int j = 0; j < cols; ++j) {
            const int nj = n0 + j;
            const B* col = bp + size_t(nj / 16) * frac + size_t(nj % 16) * k0;
            for (int kk = 0; kk < kc;) {
                const int kg = kk0 + kk, off = kg % k0, len = std::min(k0 - off, kc - kk);
                const B* src = col + size_t(kg / k0) * nf * frac + off;
                for (int t = 0; t < len; ++t) pk[(kk + t) * gemm::NR + j] = Acc(src[t]);
                kk += len;
            }
        }
    };
    const gemm::NzC<Acc> cz{out, int64_t(mf) * 256};
    if constexpr (std::is_same<A, Acc>::value) {  // float: the micro-kernels read L0A in place (no conversion to pack for)
        auto in_place = [&](int m0, int, int kk0, int, Acc*) {
            return gemm::FractalA<Acc, k0>{ap + size_t(m0 / 16) * kfa * frac + size_t(m0 % 16) * k0 + size_t(kk0 / k0) * frac};
        };
        gemm::run_view<Acc>(m, n, k, in_place, pack_b, cz, accumulate);
    } else {
        gemm::run_into<Acc>(m, n, k, pack_a, pack_b, cz, accumulate);
    }

    for (int i = 0; i < m; ++i)
        for (int nb = 0; nb < nf; ++nb) {
            const int w = std::min(16, n - nb * 16);
            if (w < 16) mark(MEM_L0C, c.off + c_at(i, nb * 16) * 4, uint64_t(w) * 4);
        }
    if (n % 16 == 0 && m % 16 == 0) mark(MEM_L0C, c.off, uint64_t(nf) * mf * 1024);  // whole fractals: one mark
    else
        for (int i = 0; i < m; ++i)
            for (int nb = 0; nb < nf && (n - nb * 16) >= 16; ++nb) mark(MEM_L0C, c.off + c_at(i, nb * 16) * 4, 64);
    track(MEM_L0C, c.off, uint64_t(nf) * mf * 1024, id, true);
}

}  // namespace cube
}  // namespace acemu

namespace AscendC {
// Mmad: C (L0C, NZ) = A (L0A, ZZ) * B (L0B, ZN), or += as MmadParams say (API page Mmad).
template <typename T, typename U, typename S>
inline void Mmad(const LocalTensor<T>& dst, const LocalTensor<U>& fm, const LocalTensor<S>& filter, const MmadParams& p, ACEMU_SITE_PARAMS) {
    (void)&acemu::rt::uses_kernel_type<KERNEL_TYPE_AIC_ONLY>;
    acemu::cube::mmad(dst, fm, filter, static_cast<const LocalTensor<T>*>(nullptr), p, ACEMU_SITE);
}
// With a bias: C = A * B + bias, the bias a row in C2 (bias table) added to every row of C, or a
// C-shaped matrix in CO1; cmatrixInitVal / cmatrixSource are ignored (the bias's position decides).
template <typename T, typename U, typename S, typename V>
inline void Mmad(const LocalTensor<T>& dst, const LocalTensor<U>& fm, const LocalTensor<S>& filter, const LocalTensor<V>& bias,
                 const MmadParams& p, ACEMU_SITE_PARAMS) {
    static_assert(std::is_same<V, T>::value, "Mmad with bias: the bias type is the result type (int32_t for int8_t inputs, float otherwise)");
    (void)&acemu::rt::uses_kernel_type<KERNEL_TYPE_AIC_ONLY>;
    acemu::cube::mmad(dst, fm, filter, &bias, p, ACEMU_SITE);
}
}  // namespace AscendC

// ==== Fixpipe ==================================================================================
// Quantisation modes of Fixpipe (a global enum in the device headers: kernels write QuantMode_t::F322F16).
enum class QuantMode_t : uint8_t { NoQuant = 0, F322F16, F322BF16, DEQF16, VDEQF16, QF322B8_PRE, VQF322B8_PRE, REQ8, VREQ8 };

namespace AscendC {
using ::QuantMode_t;

enum class CO2Layout : uint8_t { NZ = 0, ROW_MAJOR };
struct FixpipeConfig {
    CO2Layout format;
};
inline constexpr FixpipeConfig CFG_NZ = {CO2Layout::NZ};                // keep the NZ layout
inline constexpr FixpipeConfig CFG_ROW_MAJOR = {CO2Layout::ROW_MAJOR};  // NZ2ND: write ND rows

struct FixpipeParamsV220 {
    FixpipeParamsV220() = default;
    FixpipeParamsV220(uint16_t nSizeIn, uint16_t mSizeIn, uint16_t srcStrideIn, uint32_t dstStrideIn, bool reluEnIn = false)
        : nSize(nSizeIn), mSize(mSizeIn), srcStride(srcStrideIn), dstStride(dstStrideIn), reluEn(reluEnIn) {}
    uint16_t nSize = 0;      // columns moved
    uint16_t mSize = 0;      // rows moved
    uint16_t srcStride = 0;  // rows of 16 elements between the starts of the source's 16-wide column groups (its M, aligned to 16)
    uint32_t dstStride = 0;  // NZ2ND: elements per destination row; NZ: 32-B blocks between destination column groups
    QuantMode_t quantPre = QuantMode_t::NoQuant;
    uint64_t deqScalar = 0;  // the scale of the scalar modes: a float in the low 32 bits
    uint16_t ndNum = 1;
    uint16_t srcNdStride = 0;  // 1024-B units between source matrices
    uint32_t dstNdStride = 0;  // elements between destination matrices
    bool reluEn = false;
    uint8_t unitFlag = 0;
    bool isChannelSplit = false;
};

}  // namespace AscendC

namespace acemu {
namespace cube {

// A quantisation scale: the low 32 bits as a float; the processor keeps 10 mantissa bits of it
// (Fixpipe page, "约束说明"), so the low 13 are dropped.
inline float quant_scale(uint64_t v) {
    uint32_t u = uint32_t(v) & ~uint32_t((1u << 13) - 1);
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}
template <typename T> inline T saturate_round(float v) {
    float r = std::nearbyint(v);  // round half to even (the default rounding mode)
    const float lo = float(std::numeric_limits<T>::min()), hi = float(std::numeric_limits<T>::max());
    return T(r < lo ? lo : r > hi ? hi : r);
}

// One converted element: which modes fit which (source, destination) types is on the Fixpipe page.
template <typename T, typename U> struct FixConvert {
    QuantMode_t mode;
    float scale;
    const float* scales;  // per column (the V... tensor modes), or null
    bool relu;
    bool valid() const {
        const bool f32 = std::is_same<U, float>::value;
        switch (mode) {
            case QuantMode_t::NoQuant: return std::is_same<T, U>::value;
            case QuantMode_t::F322F16: return f32 && std::is_same<T, half>::value;
            case QuantMode_t::F322BF16: return f32 && std::is_same<T, bfloat16_t>::value;
            case QuantMode_t::DEQF16: case QuantMode_t::VDEQF16: return !f32 && std::is_same<T, half>::value;
            case QuantMode_t::QF322B8_PRE: case QuantMode_t::VQF322B8_PRE: return f32 && sizeof(T) == 1;
            case QuantMode_t::REQ8: case QuantMode_t::VREQ8: return !f32 && sizeof(T) == 1;
        }
        return false;
    }
    T operator()(U v, int col) const {
        float s = scales ? scales[col] : scale;
        switch (mode) {
            case QuantMode_t::NoQuant:
            case QuantMode_t::F322F16:
            case QuantMode_t::F322BF16: {
                U x = relu && v < U(0) ? U(0) : v;
                return T(float(x));
            }
            case QuantMode_t::DEQF16: case QuantMode_t::VDEQF16: {
                float x = float(v) * s;
                return T(relu && x < 0 ? 0.0f : x);
            }
            default: {
                float x = float(v) * s;
                return saturate_round<T>(relu && x < 0 ? 0.0f : x);
            }
        }
    }
};
template <> inline int32_t FixConvert<int32_t, int32_t>::operator()(int32_t v, int) const { return relu && v < 0 ? 0 : v; }
template <> inline float FixConvert<float, float>::operator()(float v, int) const { return relu && v < 0 ? 0.0f : v; }

// Bytes to GM through the bounds check and the race log (or the atomic log under SetAtomicAdd).
template <typename T>
inline void gm_write(const AscendC::GlobalTensor<T>& dst, int64_t byte_off, const void* data, uint64_t n, const char* api, const char* file, int line) {
    uint64_t ok = dst.acemu_in_bounds_b(api, "writes", byte_off, n, file, line);
    if (ok == 0 || byte_off < 0) return;
    uint8_t* d = reinterpret_cast<uint8_t*>(dst.GetPhyAddr()) + byte_off;
    BlockCtx* c = ctx();
    if (c->atomic_op != ATOMIC_NONE) {
        rt::gm_atomic(d, data, ok, c->atomic_op, c->atomic_dtype ? c->atomic_dtype : dtype_of<T>(), file, line);
        return;
    }
    std::memcpy(d, data, ok);
    rt::gm_written(d, ok, api, file, line);
}

template <typename T, typename U, bool ND>
inline void fixpipe(const AscendC::GlobalTensor<T>& dst, const AscendC::LocalTensor<U>& src, const float* col_scales,
                    const AscendC::FixpipeParamsV220& p, const char* file, int line) {
    static_assert(std::is_same<U, float>::value || std::is_same<U, int32_t>::value, "Fixpipe: the L0C source is float or int32_t (API page Fixpipe)");
    static_assert(std::is_same<T, float>::value || std::is_same<T, half>::value || std::is_same<T, bfloat16_t>::value ||
                      std::is_same<T, int32_t>::value || std::is_same<T, int8_t>::value || std::is_same<T, uint8_t>::value,
                  "Fixpipe: the GM destination is int8_t, uint8_t, half, bfloat16_t, int32_t or float (API page Fixpipe)");
    const char* api = "Fixpipe";
    enter(ctx(), api, file, line);
    Operand s = operand(src);
    if (!expect_mem(s, bit(MEM_L0C), api, "src", "CO1 (L0C)", file, line)) return;
    expect_align(s, 64, api, "src", file, line);
    if (p.isChannelSplit) unsupported(api, "FixpipeParamsV220.isChannelSplit", file, line);
    if (p.ndNum == 0) return;  // documented: ndNum = 0 does nothing
    const int mS = p.mSize, nS = p.nSize;
    if (nS < 1 || nS > 4095 || mS < 1 || mS > (ND ? 8192 : 65535)) {
        rt::report(CUBE_PARAM, api, file, line, "FixpipeParamsV220 nSize = %d, mSize = %d: nSize must be 1..4095, mSize 1..%d", nS, mS, ND ? 8192 : 65535);
        if (nS < 1 || mS < 1) return;
    }
    if (!ND && nS % 16 != 0)
        rt::report(UNALIGNED_FRACTAL, api, file, line, "Fixpipe with CFG_NZ: nSize = %d must be a multiple of 16 (whole NZ columns)", nS);
    const int nf = (nS + 15) / 16;
    if (nf > 1 && p.srcStride < mS)
        rt::report(CUBE_PARAM, api, file, line,
                   "FixpipeParamsV220.srcStride = %u rows, but mSize = %d rows are read from each 16-wide column group: rows %u.. of one "
                   "group are the next group's data. srcStride is the L0C matrix's M, aligned to 16",
                   unsigned(p.srcStride), mS, unsigned(p.srcStride));
    if (p.ndNum > 1 && (p.srcNdStride < 1 || p.srcNdStride > 512))
        rt::report(CUBE_PARAM, api, file, line, "FixpipeParamsV220.srcNdStride = %u: with ndNum > 1 it must be 1..512 (KiB)", unsigned(p.srcNdStride));
    FixConvert<T, U> cv{p.quantPre, quant_scale(p.deqScalar), col_scales, p.reluEn};
    if (!cv.valid()) {
        rt::report(CUBE_PARAM, api, file, line,
                   "Fixpipe writes %s from an L0C of %s with quantPre %d: that mode does not convert between these types (NoQuant keeps "
                   "the type; F322F16 / F322BF16 take float to half / bfloat16_t; DEQF16 int32_t to half; ...). The emulator converts "
                   "plainly",
                   type_name<T>(), type_name<U>(), int(p.quantPre));
        cv.mode = QuantMode_t::NoQuant;
    }
    const uint64_t src_need = uint64_t(p.ndNum - 1) * p.srcNdStride * 1024 + uint64_t(nf - 1) * p.srcStride * 64 + uint64_t(mS) * 64;
    if (!expect_extent(s, src_need, api, "src", false, file, line)) return;
    const uint32_t id = issue(P_FIX, api, file, line, dtype_of<T>(), uint64_t(mS) * nS * sizeof(T), mS);
    const U* sp = reinterpret_cast<const U*>(s.p);
    bool rep = false;
    thread_local std::vector<T> row;
    for (uint64_t nd = 0; nd < p.ndNum; ++nd) {
        const uint64_t sbase = nd * p.srcNdStride * 256;  // elements (1 KiB of 4-B elements)
        for (int j = 0; j < nf; ++j) {
            const uint64_t col = sbase + uint64_t(j) * p.srcStride * 16;
            const int w = std::min(16, nS - j * 16);
            for (int m = 0; m < mS; ++m) expect_defined(s, (col + uint64_t(m) * 16) * 4, uint64_t(w) * 4, api, "src (L0C)", rep, file, line);
            track(MEM_L0C, s.off + col * 4, uint64_t(mS) * 64, id, false);
        }
        if (ND) {
            row.resize(size_t(nS));
            for (int m = 0; m < mS; ++m) {
                for (int jn = 0; jn < nS; ++jn) row[size_t(jn)] = cv(sp[sbase + uint64_t(jn / 16) * p.srcStride * 16 + uint64_t(m) * 16 + jn % 16], jn);
                gm_write(dst, int64_t((nd * p.dstNdStride + uint64_t(m) * p.dstStride) * sizeof(T)), row.data(), uint64_t(nS) * sizeof(T), api,
                         file, line);
            }
        } else {
            row.resize(16);
            for (int j = 0; j < nf; ++j)
                for (int m = 0; m < mS; ++m) {
                    for (int c = 0; c < 16; ++c) row[size_t(c)] = cv(sp[sbase + uint64_t(j) * p.srcStride * 16 + uint64_t(m) * 16 + c], j * 16 + c);
                    gm_write(dst, int64_t(nd * p.dstNdStride * sizeof(T) + uint64_t(j) * p.dstStride * 32 + uint64_t(m) * 16 * sizeof(T)), row.data(),
                             16 * sizeof(T), api, file, line);
                }
        }
    }
}

}  // namespace cube
}  // namespace acemu

namespace AscendC {
// Fixpipe: L0C -> GM with NZ2ND (CFG_ROW_MAJOR, the default) or NZ (CFG_NZ), converting as
// quantPre says (API page Fixpipe, FixpipeParamsV220).
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR>
inline void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src, const FixpipeParamsV220& p, ACEMU_SITE_PARAMS) {
    acemu::cube::fixpipe<T, U, config.format == CO2Layout::ROW_MAJOR>(dst, src, nullptr, p, ACEMU_SITE);
}
// The tensor-quantisation form: one uint64_t scale per column in L1 (VDEQF16 / VQF322B8_PRE / VREQ8).
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR, typename S = uint64_t>
inline void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src, const LocalTensor<S>& cbufWorkspace, const FixpipeParamsV220& p,
                    ACEMU_SITE_PARAMS) {
    static_assert(std::is_same<S, uint64_t>::value, "Fixpipe: cbufWorkspace holds uint64_t scales");
    using namespace acemu::cube;
    Operand w = operand(cbufWorkspace);
    if (!expect_mem(w, bit(MEM_L1), "Fixpipe", "cbufWorkspace", "A1 (L1)", ACEMU_SITE)) return;
    if (p.quantPre != QuantMode_t::VDEQF16 && p.quantPre != QuantMode_t::VQF322B8_PRE && p.quantPre != QuantMode_t::VREQ8)
        acemu::rt::report(acemu::CUBE_PARAM, "Fixpipe", ACEMU_SITE, "Fixpipe with cbufWorkspace needs a tensor quantPre (VDEQF16 / VQF322B8_PRE / VREQ8)");
    expect_extent(w, uint64_t(p.nSize) * 8, "Fixpipe", "cbufWorkspace", false, ACEMU_SITE);
    bool rep = false;
    expect_defined(w, 0, uint64_t(p.nSize) * 8, "Fixpipe", "cbufWorkspace (L1)", rep, ACEMU_SITE);
    thread_local std::vector<float> scales;
    scales.resize(p.nSize);
    const uint64_t* sp = cbufWorkspace.acemu_ptr();
    for (int j = 0; j < p.nSize && uint64_t(j) * 8 < w.bytes; ++j) scales[size_t(j)] = quant_scale(sp[j]);
    acemu::cube::fixpipe<T, U, config.format == CO2Layout::ROW_MAJOR>(dst, src, scales.data(), p, ACEMU_SITE);
}
}  // namespace AscendC

// ==== cube and vector cores ===================================================================
// A block's core type (the runtime starts AIC and AIV cores as the kernel type says, base.h).
// Guarded: the vector side may define these too.
#ifndef ASCEND_IS_AIV
#define ASCEND_IS_AIV (acemu::ctx()->core_type == acemu::CORE_AIV)
#endif
#ifndef ASCEND_IS_AIC
#define ASCEND_IS_AIC (acemu::ctx()->core_type == acemu::CORE_AIC)
#endif
#ifndef ACEMU_CORE_TYPE_CONSTANTS
#define ACEMU_CORE_TYPE_CONSTANTS
namespace AscendC {
enum AicoreType : int { AIV = acemu::CORE_AIV, AIC = acemu::CORE_AIC };
}
#define g_coreType (static_cast<AscendC::AicoreType>(acemu::ctx()->core_type))
#endif
// Event ids of SetFlag / WaitFlag.
#ifndef ACEMU_EVENT_IDS
#define ACEMU_EVENT_IDS
enum event_t : int8_t { EVENT_ID0 = 0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7 };
#endif
