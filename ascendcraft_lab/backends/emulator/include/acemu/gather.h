// CreateVecIndex (an arithmetic sequence) and Gather (element-wise gather by byte offsets), count form.
//
// From the API reference: CreateVecIndex(dst, firstValue, count) writes firstValue, firstValue + 1, ...
// (int16_t / half / int32_t / float on Atlas A2). Gather(dst, src, srcOffset, srcBaseAddr, count) writes
// dst[i] = the element of `src` at byte srcBaseAddr + srcOffset[i]; the offsets are uint32_t byte
// counts relative to src's start and must be multiples of sizeof(T) (int16_t / uint16_t / int32_t /
// uint32_t / float / half / bfloat16_t on Atlas A2). All three tensors start 32-B aligned.
#pragma once
#include "vec_core.h"
#include "dtypes.h"

// @api Gather, CreateVecIndex | partial: count forms only | Gather
namespace AscendC {

template <typename T>
inline void CreateVecIndex(const LocalTensor<T>& dst, const acemu::nd<T>& firstValue, uint32_t count, ACEMU_SITE_PARAMS) {
    ACEMU_REQUIRE_DTYPE(CreateVecIndex, T);
    acemu::BlockCtx* c = acemu::ctx();
    acemu::enter(c, "CreateVecIndex", ACEMU_SITE);
    if (!acemu::count_prologue<T, T>(c, "CreateVecIndex", dst, nullptr, 0, int64_t(count), ACEMU_SITE)) return;
    acemu::trace::pipe_op(c, acemu::trace::P_V, "CreateVecIndex", ACEMU_SITE, acemu::dtype_of<T>(), acemu::trace::repeats(count, sizeof(T)), count);
    T* d = dst.acemu_ptr();
    if constexpr (std::is_same<T, half>::value || std::is_same<T, float>::value) {
        for (uint32_t i = 0; i < count; ++i) d[i] = T(float(firstValue) + float(i));
    } else {
        for (uint32_t i = 0; i < count; ++i) d[i] = T(firstValue + T(i));
    }
    acemu::mark_written(c, d, uint64_t(count) * sizeof(T));
}

template <typename T>
inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset, const uint32_t srcBaseAddr,
                   const uint32_t count, ACEMU_SITE_PARAMS) {
    ACEMU_REQUIRE_DTYPE(Gather, T);
    acemu::BlockCtx* c = acemu::ctx();
    acemu::enter(c, "Gather", ACEMU_SITE);
    if (!acemu::count_prologue<T, uint32_t>(c, "Gather", dst, &srcOffset, 1, int64_t(count), ACEMU_SITE)) return;
    acemu::trace::pipe_op(c, acemu::trace::P_V, "Gather", ACEMU_SITE, acemu::dtype_of<T>(), acemu::trace::repeats(count, sizeof(T)), count);
    acemu::check_align(c, "Gather", "src", src.acemu_ptr(), ACEMU_SITE);
    const uint32_t* off = srcOffset.acemu_ptr();
    const uint8_t* base = reinterpret_cast<const uint8_t*>(src.acemu_ptr());
    T* d = dst.acemu_ptr();
    bool misaligned = false, outside = false, unread = false;
    for (uint32_t i = 0; i < count; ++i) {
        const uint64_t byte = uint64_t(srcBaseAddr) + off[i];
        if (byte % sizeof(T) != 0) {
            if (!misaligned) {
                acemu::rt::report(acemu::UNALIGNED_UB, "Gather", ACEMU_SITE,
                                  "Gather: offset %llu of element %u is not a multiple of the %zu-byte element; the result is undefined",
                                  (unsigned long long)byte, i, sizeof(T));
            }
            misaligned = true;
            continue;
        }
        if (byte + sizeof(T) > src.acemu_bytes()) {
            if (!outside) {
                acemu::check_extent(c, "Gather", "src", byte + sizeof(T), src.acemu_bytes(), ACEMU_SITE);
            }
            outside = true;
            if (!acemu::in_ub(c, base + byte)) continue;
        }
        const T* p = reinterpret_cast<const T*>(base + byte);
        acemu::check_read_elem(c, "Gather", "src", p, unread, ACEMU_SITE);
        d[i] = *p;
    }
    acemu::mark_written(c, d, uint64_t(count) * sizeof(T));
}

}  // namespace AscendC
