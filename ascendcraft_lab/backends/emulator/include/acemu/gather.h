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

// Brcb (API reference "Brcb"): each repeat takes 8 consecutive elements of src0 and fills 8 blocks
// of 32 bytes of dst, block j with element j repeated (8 floats, 16 halves). BrcbRepeatParams gives
// the destination's block stride (0 is taken as 1) and repeat stride, in 32-byte blocks; src0 moves
// 8 elements per repeat. Types: int16_t, uint16_t, int32_t, uint32_t, half, bfloat16_t, float (Atlas
// A2/A3); both tensors start 32-B aligned; src0 and dst may not be the same memory.
// @api Brcb, BrcbRepeatParams | yes | Brcb
namespace AscendC {

struct BrcbRepeatParams {
    BrcbRepeatParams() = default;
    BrcbRepeatParams(uint16_t dstBlkStrideIn, uint16_t dstRepStrideIn) : dstBlkStride(dstBlkStrideIn), dstRepStride(dstRepStrideIn) {}
    uint16_t dstBlkStride = 1;
    uint16_t dstRepStride = 8;
};

template <typename T>
inline void Brcb(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const uint8_t repeatTime, const BrcbRepeatParams& repeatParams,
                 ACEMU_SITE_PARAMS) {
    ACEMU_REQUIRE_DTYPE(Brcb, T);
    acemu::BlockCtx* c = acemu::ctx();
    acemu::enter(c, "Brcb", ACEMU_SITE);
    acemu::check_align(c, "Brcb", "dst", dst.acemu_ptr(), ACEMU_SITE);
    acemu::check_align(c, "Brcb", "src0", src0.acemu_ptr(), ACEMU_SITE);
    const uint64_t values = uint64_t(repeatTime) * 8;
    if (values == 0) return;
    if (src0.acemu_ptr() == dst.acemu_ptr()) {
        acemu::rt::report(acemu::API_MISUSE, "Brcb", ACEMU_SITE, "Brcb: src0 and dst are the same memory, which the reference does not allow");
    }
    acemu::check_extent(c, "Brcb", "src0", values * sizeof(T), src0.acemu_bytes(), ACEMU_SITE);
    acemu::check_read(c, "Brcb", "src0", src0.acemu_ptr(), values * sizeof(T), ACEMU_SITE);
    const uint64_t blk = repeatParams.dstBlkStride == 0 ? 1 : repeatParams.dstBlkStride;
    const uint64_t rep = repeatParams.dstRepStride;
    constexpr uint32_t per_block = 32 / sizeof(T);
    const T* s = src0.acemu_ptr();
    uint8_t* base = reinterpret_cast<uint8_t*>(dst.acemu_ptr());
    acemu::check_extent(c, "Brcb", "dst", ((repeatTime - 1) * rep + 7 * blk + 1) * 32, dst.acemu_bytes(), ACEMU_SITE);
    for (uint32_t r = 0; r < repeatTime; ++r) {
        for (uint32_t j = 0; j < 8; ++j) {
            T* d = reinterpret_cast<T*>(base + (r * rep + j * blk) * 32);
            if (!acemu::in_ub(c, reinterpret_cast<uint8_t*>(d) + 31)) return;
            const T v = s[r * 8 + j];
            for (uint32_t k = 0; k < per_block; ++k) d[k] = v;
            acemu::mark_written(c, d, 32);
        }
    }
}

}  // namespace AscendC
