// Gather (element gather by byte offsets) and CreateVecIndex (an index ramp), count forms.
//
// Documented behaviour (AscendC API reference, "Gather" and "CreateVecIndex"):
//   Gather(dst, src, srcOffset, srcBaseAddr, count): dst[i] = the element of src at byte
//     srcBaseAddr + srcOffset[i], for i < count. dst, src and srcOffset start 32-B aligned;
//     the offsets are uint32 byte counts, non-negative and aligned to the element size.
//   CreateVecIndex(dst, firstValue, count): dst[i] = firstValue + i (int16, half, int32, float).
#pragma once
#include "vec_core.h"

namespace AscendC {

template <typename T>
inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset, const uint32_t srcBaseAddr,
                   const uint32_t count, ACEMU_SITE_PARAMS) {
    acemu::BlockCtx* c = acemu::ctx();
    acemu::enter(c, "Gather", ACEMU_SITE);
    if (count == 0) return;
    acemu::check_align(c, "Gather", "dst", dst.acemu_ptr(), ACEMU_SITE);
    acemu::check_align(c, "Gather", "src", src.acemu_ptr(), ACEMU_SITE);
    acemu::check_align(c, "Gather", "srcOffset", srcOffset.acemu_ptr(), ACEMU_SITE);
    acemu::check_extent(c, "Gather", "dst", uint64_t(count) * sizeof(T), dst.acemu_bytes(), ACEMU_SITE);
    acemu::check_extent(c, "Gather", "srcOffset", uint64_t(count) * sizeof(uint32_t), srcOffset.acemu_bytes(), ACEMU_SITE);
    acemu::check_read(c, "Gather", "srcOffset", srcOffset.acemu_ptr(), uint64_t(count) * sizeof(uint32_t), ACEMU_SITE);
    if (srcBaseAddr % sizeof(T) != 0) {
        acemu::rt::report(acemu::UNALIGNED_UB, "Gather", ACEMU_SITE,
                          "Gather: srcBaseAddr %u is not a multiple of sizeof(%s) = %u; the hardware result is undefined",
                          srcBaseAddr, acemu::type_name<T>(), unsigned(sizeof(T)));
    }
    const uint8_t* from = reinterpret_cast<const uint8_t*>(src.acemu_ptr());
    const uint32_t* off = srcOffset.acemu_ptr();
    T* d = dst.acemu_ptr();
    bool bad_offset = false, uninit = false;
    for (uint32_t i = 0; i < count; ++i) {
        const uint64_t at = uint64_t(srcBaseAddr) + off[i];
        if (__builtin_expect(off[i] % sizeof(T) != 0 || at + sizeof(T) > src.acemu_bytes(), 0)) {
            if (!bad_offset) {
                bad_offset = true;
                if (off[i] % sizeof(T) != 0) {
                    acemu::rt::report(acemu::UNALIGNED_UB, "Gather", ACEMU_SITE,
                                      "Gather: srcOffset[%u] = %u B is not a multiple of sizeof(%s) = %u",
                                      i, off[i], acemu::type_name<T>(), unsigned(sizeof(T)));
                } else {
                    acemu::check_extent(c, "Gather", "src (srcBaseAddr + srcOffset)", at + sizeof(T), src.acemu_bytes(), ACEMU_SITE);
                }
            }
            if (!acemu::in_ub(c, from + at + sizeof(T) - 1)) {
                d[i] = T();
                continue;
            }
        }
        const T* p = reinterpret_cast<const T*>(from + at);
        acemu::check_read_elem(c, "Gather", "src", p, uninit, ACEMU_SITE);
        std::memcpy(&d[i], p, sizeof(T));
    }
    acemu::mark_written(c, d, uint64_t(count) * sizeof(T));
}

template <typename T> inline void CreateVecIndex(LocalTensor<T> dst, const T& firstValue, uint32_t count, ACEMU_SITE_PARAMS) {
    static_assert(std::is_same<T, int16_t>::value || std::is_same<T, int32_t>::value || std::is_same<T, half>::value ||
                      std::is_same<T, float>::value,
                  "CreateVecIndex supports int16_t, half, int32_t and float");
    acemu::BlockCtx* c = acemu::ctx();
    acemu::enter(c, "CreateVecIndex", ACEMU_SITE);
    if (!acemu::count_prologue<T, T>(c, "CreateVecIndex", dst, nullptr, 0, count, ACEMU_SITE)) return;
    T* d = dst.acemu_ptr();
    for (uint32_t i = 0; i < count; ++i) d[i] = T(firstValue + T(i));
    acemu::mark_written(c, d, uint64_t(count) * sizeof(T));
}

}  // namespace AscendC
