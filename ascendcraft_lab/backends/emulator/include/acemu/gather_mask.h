// GatherMask: keep the elements of src0 whose gather-mask bit is set, packed into dst.
//
// From the API reference (GatherMask): the mask is one of seven built-in per-repeat patterns (1 even
// elements, 2 odd, 3..6 the first..fourth of every four, 7 all) or a user tensor of uint16_t (for
// 16-bit T) / uint32_t (for 32-bit T) bits, consumed continuously within a repeat, LSB first, with
// src1RepeatStride (32-B blocks) between repeats. reduceMode false is the normal mode: repeatTimes
// repeats of 256 B, the mask argument unused; true is the counter mode, where the emulator follows
// the reference's second form (mask = the total element count, repeatTimes not used). Strides of
// src0 count 32-B blocks. rsvdCnt is the number of elements kept. The API leaves the mask mode
// normal when it returns.
#pragma once
#include "vec_core.h"
#include "dtypes.h"

namespace AscendC {

// @api GatherMask | yes: built-in patterns 1..7 and user patterns; counter mode takes mask as the total count | GatherMask
enum class GatherMaskMode : uint8_t { DEFAULT = 0 };
constexpr GatherMaskMode defaultGatherMaskMode = GatherMaskMode::DEFAULT;
constexpr GatherMaskMode defaultGahterMaskMode = GatherMaskMode::DEFAULT;  // the spelling of older releases

struct GatherMaskParams {
    GatherMaskParams() = default;
    GatherMaskParams(uint8_t src0BlockStrideIn, uint16_t repeatTimesIn, uint16_t src0RepeatStrideIn, uint8_t src1RepeatStrideIn)
        : src0BlockStride(src0BlockStrideIn), repeatTimes(repeatTimesIn), src0RepeatStride(src0RepeatStrideIn),
          src1RepeatStride(src1RepeatStrideIn) {}
    uint8_t src0BlockStride = 1;
    uint16_t repeatTimes = 0;
    uint16_t src0RepeatStride = 0;
    uint8_t src1RepeatStride = 0;
};

namespace detail {
// bit(r, k): is element k of repeat r kept.
template <typename T, class Bit>
inline void gather_mask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, bool reduceMode, uint32_t mask, const GatherMaskParams& p,
                        uint64_t& rsvdCnt, Bit bit, const char* file, int line) {
    acemu::BlockCtx* c = acemu::ctx();
    acemu::enter(c, "GatherMask", file, line);
    acemu::check_align(c, "GatherMask", "dst", dst.acemu_ptr(), file, line);
    acemu::check_align(c, "GatherMask", "src0", src0.acemu_ptr(), file, line);
    constexpr uint32_t per = 256 / sizeof(T);
    const uint64_t total = reduceMode ? uint64_t(mask) : uint64_t(p.repeatTimes) * per;
    acemu::trace::pipe_op(c, acemu::trace::P_V, "GatherMask", file, line, acemu::dtype_of<T>(), (total + per - 1) / per, total);
    acemu::Operand<const T> S{src0.acemu_ptr(), p.src0BlockStride, p.src0RepeatStride};
    T* d = dst.acemu_ptr();
    const uint64_t cap = dst.acemu_bytes() / sizeof(T);
    uint64_t kept = 0;
    bool unread = false, overflow = false;
    for (uint64_t i = 0; i < total; ++i) {
        const uint32_t r = uint32_t(i / per), k = uint32_t(i % per);
        if (!bit(r, k)) continue;
        const T* x = S.at(r, k);
        acemu::check_read_elem(c, "GatherMask", "src0", x, unread, file, line);
        if (kept >= cap && !overflow) {
            overflow = true;
            acemu::check_extent(c, "GatherMask", "dst", (kept + 1) * sizeof(T), cap * sizeof(T), file, line);
        }
        if (acemu::in_ub(c, d + kept)) {
            d[kept] = *x;
            acemu::mark_written(c, d + kept, sizeof(T));
        }
        ++kept;
    }
    rsvdCnt = kept;
    c->mask_counter = false;
}
}  // namespace detail

template <typename T, typename U, GatherMaskMode mode = defaultGatherMaskMode>
inline void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<U>& src1Pattern, const bool reduceMode,
                       const uint32_t mask, const GatherMaskParams& gatherMaskParams, uint64_t& rsvdCnt, ACEMU_SITE_PARAMS) {
    ACEMU_REQUIRE_DTYPE(GatherMask, T);
    static_assert((sizeof(T) == 2 && std::is_same<U, uint16_t>::value) || (sizeof(T) == 4 && std::is_same<U, uint32_t>::value),
                  "GatherMask's src1Pattern is uint16_t for 16-bit data and uint32_t for 32-bit data (API reference: GatherMask)");
    acemu::BlockCtx* c = acemu::ctx();
    const U* pat = src1Pattern.acemu_ptr();
    constexpr uint32_t bits = sizeof(U) * 8;
    bool unread = false;
    auto bit = [&](uint32_t r, uint32_t k) {
        const U* w = reinterpret_cast<const U*>(reinterpret_cast<const uint8_t*>(pat) + uint64_t(r) * gatherMaskParams.src1RepeatStride * 32) + k / bits;
        acemu::check_read_elem(c, "GatherMask", "src1Pattern", w, unread, ACEMU_SITE);
        return ((*w >> (k % bits)) & 1) != 0;
    };
    detail::gather_mask(dst, src0, reduceMode, mask, gatherMaskParams, rsvdCnt, bit, ACEMU_SITE);
}

template <typename T, GatherMaskMode mode = defaultGatherMaskMode>
inline void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const uint8_t src1Pattern, const bool reduceMode,
                       const uint32_t mask, const GatherMaskParams& gatherMaskParams, uint64_t& rsvdCnt, ACEMU_SITE_PARAMS) {
    ACEMU_REQUIRE_DTYPE(GatherMask, T);
    if (src1Pattern < 1 || src1Pattern > 7) {
        acemu::rt::report(acemu::API_MISUSE, "GatherMask", ACEMU_SITE,
                          "GatherMask: built-in pattern %u is not one of 1..7 (even, odd, 1st..4th of every four, all elements)",
                          unsigned(src1Pattern));
    }
    auto bit = [src1Pattern](uint32_t, uint32_t k) {
        switch (src1Pattern) {
            case 1: return k % 2 == 0;
            case 2: return k % 2 == 1;
            case 3: case 4: case 5: case 6: return k % 4 == uint32_t(src1Pattern - 3);
            case 7: return true;
            default: return false;
        }
    };
    detail::gather_mask(dst, src0, reduceMode, mask, gatherMaskParams, rsvdCnt, bit, ACEMU_SITE);
}

}  // namespace AscendC
