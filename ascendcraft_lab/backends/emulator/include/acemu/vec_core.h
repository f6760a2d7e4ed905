// Machinery shared by the vector instructions: repeat parameters, masks, the count and repeat loops.
#pragma once
#include "copy.h"

namespace AscendC {

// @api BinaryRepeatParams, UnaryRepeatParams | yes | General parameters
struct BinaryRepeatParams {
    BinaryRepeatParams() = default;
    BinaryRepeatParams(uint8_t dstBlk, uint8_t src0Blk, uint8_t src1Blk, uint8_t dstRep, uint8_t src0Rep, uint8_t src1Rep)
        : dstBlkStride(dstBlk), src0BlkStride(src0Blk), src1BlkStride(src1Blk), dstRepStride(dstRep), src0RepStride(src0Rep), src1RepStride(src1Rep) {}
    uint8_t dstBlkStride = 1;   // 32-B blocks between the blocks of one repeat
    uint8_t src0BlkStride = 1;
    uint8_t src1BlkStride = 1;
    uint8_t dstRepStride = 8;   // 32-B blocks between repeats
    uint8_t src0RepStride = 8;
    uint8_t src1RepStride = 8;
};

struct UnaryRepeatParams {
    UnaryRepeatParams() = default;
    UnaryRepeatParams(uint16_t dstBlk, uint16_t srcBlk, uint8_t dstRep, uint8_t srcRep)
        : dstBlkStride(dstBlk), srcBlkStride(srcBlk), dstRepStride(dstRep), srcRepStride(srcRep) {}
    uint16_t dstBlkStride = 1;
    uint16_t srcBlkStride = 1;
    uint8_t dstRepStride = 8;
    uint8_t srcRepStride = 8;
};

// ---- mask registers ----------------------------------------------------------------------
// @api SetMaskCount, SetMaskNorm, SetVectorMask, ResetMask | yes | SetVectorMask
inline void SetMaskCount() { acemu::ctx()->mask_counter = true; }
inline void SetMaskNorm() { acemu::ctx()->mask_counter = false; }
inline void ResetMask() { auto* c = acemu::ctx(); c->mask[0] = c->mask[1] = ~uint64_t(0); }
template <typename T, MaskMode mode = MaskMode::NORMAL> inline void SetVectorMask(uint64_t maskHigh, uint64_t maskLow) {
    auto* c = acemu::ctx();
    if (mode == MaskMode::COUNTER) { c->mask[0] = maskLow; c->mask[1] = 0; }
    else { c->mask[0] = maskLow; c->mask[1] = maskHigh; }
}
template <typename T, MaskMode mode = MaskMode::NORMAL> inline void SetVectorMask(int32_t len) {
    auto* c = acemu::ctx();
    if (mode == MaskMode::COUNTER || c->mask_counter) { c->mask[0] = uint64_t(len); c->mask[1] = 0; return; }
    c->mask[0] = len >= 64 ? ~uint64_t(0) : ((uint64_t(1) << len) - 1);
    c->mask[1] = len >= 128 ? ~uint64_t(0) : (len > 64 ? ((uint64_t(1) << (len - 64)) - 1) : 0);
}

}  // namespace AscendC

namespace acemu {

template <typename T> struct identity { using type = T; };
template <typename T> using nd = typename identity<T>::type;  // a scalar parameter that does not take part in deduction

// Which elements of each repeat take part: a 128-bit pattern, or (counter mode) a total count.
struct Mask {
    uint64_t bits[2];
    bool counter;
    uint64_t count;
    bool on(uint32_t k) const { return (bits[k >> 6] >> (k & 63)) & 1; }
};

template <uint32_t per> inline Mask mask_cont(BlockCtx* c, const char* api, bool is_set, uint64_t m, const char* file, int line) {
    Mask r{{0, 0}, false, 0};
    if (c->mask_counter) { r.counter = true; r.count = is_set ? m : c->mask[0]; return r; }
    if (!is_set) { r.bits[0] = c->mask[0]; r.bits[1] = c->mask[1]; }
    else {
        if (m > per) {
            rt::report(REPEAT_OVERFLOW, api, file, line,
                       "%s: continuous mask %llu is wider than one repeat (%u elements of this type); the hardware uses only the "
                       "first %u. Use a mask of at most %u and more repeats",
                       api, (unsigned long long)m, per, per, per);
            m = per;
        }
        r.bits[0] = m >= 64 ? ~uint64_t(0) : ((uint64_t(1) << m) - 1);
        r.bits[1] = m >= 128 ? ~uint64_t(0) : (m > 64 ? ((uint64_t(1) << (m - 64)) - 1) : 0);
    }
    if (per < 128) r.bits[1] = 0;
    if (per < 64) r.bits[0] &= (uint64_t(1) << per) - 1;
    return r;
}
template <uint32_t per> inline Mask mask_bits(BlockCtx* c, const char* api, bool is_set, const uint64_t* m, const char* file, int line) {
    Mask r{{0, 0}, false, 0};
    if (c->mask_counter) { r.counter = true; r.count = is_set ? m[0] : c->mask[0]; return r; }
    if (!is_set) { r.bits[0] = c->mask[0]; r.bits[1] = c->mask[1]; }
    else { r.bits[0] = m[0]; r.bits[1] = m[1]; }
    uint64_t beyond = 0;
    if (per <= 64) beyond = r.bits[1] | (per < 64 ? (r.bits[0] & ~((uint64_t(1) << per) - 1)) : 0);
    if (beyond && is_set) {
        rt::report(REPEAT_OVERFLOW, api, file, line,
                   "%s: bit-mode mask sets bits beyond the %u elements of one repeat of this type (mask[1] must be 0 for 32-bit types); "
                   "the hardware ignores them",
                   api, per);
    }
    if (per < 128) r.bits[1] = 0;
    if (per < 64) r.bits[0] &= (uint64_t(1) << per) - 1;
    return r;
}
// The repeat field of the instruction is 8 bits wide.
inline int repeat_times(const char* api, int64_t repeat, const char* file, int line) {
    if (__builtin_expect(repeat < 0 || repeat > kMaxRepeat, 0)) {
        rt::report(REPEAT_OVERFLOW, api, file, line,
                   "%s: repeatTimes %lld is outside 0..255; the 8-bit hardware field keeps only %lld. Split the call, or use the count form",
                   api, (long long)repeat, (long long)(uint64_t(repeat) & 0xff));
        return int(uint64_t(repeat) & 0xff);
    }
    return int(repeat);
}

// The repeats a repeat-form instruction runs: `repeat`, or (counter mode) enough for the count.
template <uint32_t per> inline uint64_t mask_repeats(const Mask& m, int repeat) {
    return m.counter ? (m.count + per - 1) / per : uint64_t(repeat > 0 ? repeat : 0);
}

// One operand of a repeat-form instruction: base pointer and its strides (in 32-B blocks).
template <typename T> struct Operand {
    T* p;
    uint32_t blk;
    uint32_t rep;
    static constexpr uint32_t E = 32 / sizeof(T);
    T* at(uint32_t r, uint32_t k) const { return p + uint64_t(r) * rep * E + uint64_t(k / E) * blk * E + (k % E); }
};

// Runs f(r, k) for every active element k of every repeat r; `per` elements make one repeat.
template <uint32_t per, class F> inline void for_each_active(const Mask& m, int repeat, F f) {
    if (m.counter) {
        uint64_t reps = (m.count + per - 1) / per;
        for (uint64_t r = 0; r < reps; ++r) {
            uint32_t n = uint32_t(m.count - r * per < per ? m.count - r * per : per);
            for (uint32_t k = 0; k < n; ++k) f(uint32_t(r), k);
        }
        return;
    }
    for (int r = 0; r < repeat; ++r)
        for (uint32_t k = 0; k < per; ++k)
            if (m.on(k)) f(uint32_t(r), k);
}

template <typename T> inline void check_read_elem(BlockCtx* c, const char* api, const char* what, const T* p, bool& reported, const char* file, int line) {
    if (!in_ub(c, p)) return;
    ub_track(c, ub_offset(c, p), sizeof(T), false);
    if (reported) return;
    if (shadow_first_unset(c, ub_offset(c, p), sizeof(T)) >= 0) {
        reported = true;
        check_read(c, api, what, p, sizeof(T), file, line);
    }
}

// ---- count form (the first n elements): tight loops the compiler vectorises ---------------
template <typename TD, typename TS> inline bool count_prologue(BlockCtx* c, const char* api, const AscendC::LocalTensor<TD>& d,
                                                             const AscendC::LocalTensor<TS>* srcs, int nsrc, int64_t n, const char* file, int line) {
    if (n <= 0) {
        if (n < 0) rt::report(REPEAT_OVERFLOW, api, file, line, "%s: negative count %lld", api, (long long)n);
        return false;
    }
    check_align(c, api, "dst", d.acemu_ptr(), file, line);
    check_extent(c, api, "dst", uint64_t(n) * sizeof(TD), d.acemu_bytes(), file, line);
    static const char* names[3] = {"src0", "src1", "src2"};
    for (int i = 0; i < nsrc; ++i) {
        const char* nm = nsrc == 1 ? "src" : names[i];
        check_align(c, api, nm, srcs[i].acemu_ptr(), file, line);
        check_extent(c, api, nm, uint64_t(n) * sizeof(TS), srcs[i].acemu_bytes(), file, line);
        check_read(c, api, nm, srcs[i].acemu_ptr(), uint64_t(n) * sizeof(TS), file, line);
    }
    return true;
}

template <typename T, class Op>
inline void count_binary(const char* api, const AscendC::LocalTensor<T>& d, const AscendC::LocalTensor<T>& a, const AscendC::LocalTensor<T>& b,
                         int64_t n, Op op, const char* file, int line) {
    BlockCtx* c = ctx();
    enter(c, api, file, line);
    AscendC::LocalTensor<T> s[2] = {a, b};
    if (!count_prologue(c, api, d, s, 2, n, file, line)) return;
    trace::pipe_op(c, trace::P_V, api, file, line, dtype_of<T>(), trace::repeats(uint64_t(n), sizeof(T)), uint64_t(n));
    T* dp = d.acemu_ptr();
    const T* ap = a.acemu_ptr();
    const T* bp = b.acemu_ptr();
    for (int64_t i = 0; i < n; ++i) dp[i] = op(ap[i], bp[i]);
    mark_written(c, dp, uint64_t(n) * sizeof(T));
}

template <typename TD, typename TS, class Op>
inline void count_unary(const char* api, const AscendC::LocalTensor<TD>& d, const AscendC::LocalTensor<TS>& a, int64_t n, Op op,
                        const char* file, int line) {
    BlockCtx* c = ctx();
    enter(c, api, file, line);
    if (!count_prologue(c, api, d, &a, 1, n, file, line)) return;
    trace::pipe_op(c, trace::P_V, api, file, line, dtype_of<TS>(), trace::repeats(uint64_t(n), sizeof(TD) > sizeof(TS) ? sizeof(TD) : sizeof(TS)),
                   uint64_t(n));
    TD* dp = d.acemu_ptr();
    const TS* ap = a.acemu_ptr();
    for (int64_t i = 0; i < n; ++i) dp[i] = op(ap[i]);
    mark_written(c, dp, uint64_t(n) * sizeof(TD));
}

// ---- repeat form -------------------------------------------------------------------------
template <typename T, class Op>
inline void repeat_binary(const char* api, T* d, const T* a, const T* b, const Mask& m, int repeat, const AscendC::BinaryRepeatParams& p, Op op,
                          const char* file, int line) {
    BlockCtx* c = ctx();
    enter(c, api, file, line);
    check_align(c, api, "dst", d, file, line);
    check_align(c, api, "src0", a, file, line);
    check_align(c, api, "src1", b, file, line);
    constexpr uint32_t per = 256 / sizeof(T);
    trace::pipe_op(c, trace::P_V, api, file, line, dtype_of<T>(), mask_repeats<per>(m, repeat));
    Operand<T> D{d, p.dstBlkStride, p.dstRepStride};
    Operand<const T> A{a, p.src0BlkStride, p.src0RepStride}, B{b, p.src1BlkStride, p.src1RepStride};
    bool ra = false, rb = false;
    for_each_active<per>(m, repeat, [&](uint32_t r, uint32_t k) {
        const T* x = A.at(r, k);
        const T* y = B.at(r, k);
        check_read_elem(c, api, "src0", x, ra, file, line);
        check_read_elem(c, api, "src1", y, rb, file, line);
        T* z = D.at(r, k);
        if (!in_ub(c, z)) return;
        *z = op(*x, *y);
        mark_written(c, z, sizeof(T));
    });
}

template <typename TD, typename TS, class Op>
inline void repeat_unary(const char* api, TD* d, const TS* a, const Mask& m, int repeat, const AscendC::UnaryRepeatParams& p, Op op,
                         const char* file, int line) {
    BlockCtx* c = ctx();
    enter(c, api, file, line);
    check_align(c, api, "dst", d, file, line);
    check_align(c, api, "src", a, file, line);
    constexpr uint32_t per = 256 / (sizeof(TD) > sizeof(TS) ? sizeof(TD) : sizeof(TS));
    trace::pipe_op(c, trace::P_V, api, file, line, dtype_of<TS>(), mask_repeats<per>(m, repeat));
    Operand<TD> D{d, p.dstBlkStride, p.dstRepStride};
    Operand<const TS> A{a, p.srcBlkStride, p.srcRepStride};
    bool ra = false;
    for_each_active<per>(m, repeat, [&](uint32_t r, uint32_t k) {
        const TS* x = A.at(r, k);
        check_read_elem(c, api, "src", x, ra, file, line);
        TD* z = D.at(r, k);
        if (!in_ub(c, z)) return;
        *z = op(*x);
        mark_written(c, z, sizeof(TD));
    });
}

}  // namespace acemu
