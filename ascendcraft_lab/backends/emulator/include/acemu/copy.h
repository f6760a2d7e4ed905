// DataCopy and DataCopyPad between GM and UB (and UB to UB).
#pragma once
#include "pipe.h"

namespace AscendC {
struct DataCopyParams;
}
// DataCopy into or out of the cube memories (L1, bias table) takes cube.h's paths.
namespace acemu {
namespace cube {
inline bool in_cube(const void* p);
template <typename T>
inline void copy_gm_in(const AscendC::LocalTensor<T>& dst, const AscendC::GlobalTensor<T>& src, uint64_t blocks, uint64_t block_bytes,
                       uint64_t src_gap, uint64_t dst_gap, const char* file, int line);
template <typename T>
inline void copy_local(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src, uint64_t blocks, uint64_t block_bytes,
                       uint64_t src_gap, uint64_t dst_gap, const char* file, int line);
inline void no_copy_path(const char* api, const void* src, const char* file, int line);
}  // namespace cube
template <typename T> struct no_deduce { using type = T; };
}  // namespace acemu

namespace AscendC {

// @api DataCopy | partial: count and DataCopyParams forms; the enhanced parameters are missing | DataCopy
// @api DataCopyPad | yes | DataCopyPad
struct DataCopyParams {
    DataCopyParams() = default;
    DataCopyParams(uint16_t count, uint16_t len, uint16_t srcStrideIn, uint16_t dstStrideIn)
        : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn) {}
    uint16_t blockCount = 1;
    uint16_t blockLen = 0;   // DataCopy: 32-B blocks; DataCopyPad: bytes
    uint16_t srcStride = 0;  // gap between blocks: 32-B blocks in UB (DataCopyPad: bytes in GM)
    uint16_t dstStride = 0;
};

// DataCopyPad takes either parameter pair (DataCopyExtParams + DataCopyPadExtParams<T>, or the older
// DataCopyParams + DataCopyPadParams), whose fields mean the same there. Kernels also pass them
// brace-initialised (`{1, len, 0, 0}`, `{}`), which the device compiler accepts: so the emulator has
// one DataCopyPad per direction, on the Ext structs, and the older structs convert to them.
struct DataCopyExtParams {
    DataCopyExtParams() = default;
    DataCopyExtParams(uint16_t count, uint32_t len, uint32_t srcStrideIn, uint32_t dstStrideIn, uint32_t rsvIn = 0)
        : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn), rsv(rsvIn) {}
    DataCopyExtParams(const DataCopyParams& p)  // NOLINT: implicit, the older form of DataCopyPad
        : blockCount(p.blockCount), blockLen(p.blockLen), srcStride(p.srcStride), dstStride(p.dstStride) {}
    uint16_t blockCount = 1;
    uint32_t blockLen = 0;   // bytes
    uint32_t srcStride = 0;  // gap after each block: bytes in GM, 32-B blocks in UB
    uint32_t dstStride = 0;
    uint32_t rsv = 0;
};

struct DataCopyPadParams {
    DataCopyPadParams() = default;
    DataCopyPadParams(bool isPadIn, uint8_t left, uint8_t right, uint64_t value)
        : isPad(isPadIn), leftPadding(left), rightPadding(right), paddingValue(value) {}
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    uint64_t paddingValue = 0;  // the value's bits, in the low bytes
};

template <typename T> struct DataCopyPadExtParams {
    DataCopyPadExtParams() = default;
    DataCopyPadExtParams(bool isPadIn, uint8_t left, uint8_t right, T value)
        : isPad(isPadIn), leftPadding(left), rightPadding(right), paddingValue(value) {}
    DataCopyPadExtParams(const DataCopyPadParams& p)  // NOLINT: implicit, the older form of DataCopyPad
        : isPad(p.isPad), leftPadding(p.leftPadding), rightPadding(p.rightPadding) {
        std::memset(&paddingValue, 0, sizeof(T));
        std::memcpy(&paddingValue, &p.paddingValue, sizeof(T) < 8 ? sizeof(T) : 8);
    }
    bool isPad = false;
    uint8_t leftPadding = 0;   // elements
    uint8_t rightPadding = 0;  // elements
    T paddingValue = T();
};

namespace detail {

inline uint64_t round32(uint64_t n) { return (n + 31) & ~uint64_t(31); }

template <typename T>
inline void gm_to_ub(acemu::BlockCtx* c, const char* api, T* ub, uint64_t ub_byte_off, const GlobalTensor<T>& g, int64_t gm_byte_off,
                     uint64_t bytes, const char* file, int line) {
    uint8_t* d = reinterpret_cast<uint8_t*>(ub) + ub_byte_off;
    if (bytes == 0) return;
    if (!acemu::in_ub(c, d + bytes - 1)) return;  // beyond even the emulator's reserve: already reported as ub-overflow
    uint64_t ok = g.acemu_in_bounds_b(api, "reads", gm_byte_off, bytes, file, line);
    const uint8_t* s = reinterpret_cast<const uint8_t*>(g.GetPhyAddr()) + gm_byte_off;
    if (ok == bytes) {
        std::memcpy(d, s, bytes);
    } else {  // out-of-range bytes read as zero
        if (ok) std::memcpy(d, s, ok);
        std::memset(d + ok, 0, bytes - ok);
    }
    acemu::mark_written(c, d, bytes);
}

template <typename T>
inline void ub_to_gm(acemu::BlockCtx* c, const char* api, const GlobalTensor<T>& g, int64_t gm_byte_off, const T* ub, uint64_t ub_byte_off,
                     uint64_t bytes, const char* file, int line) {
    const uint8_t* s = reinterpret_cast<const uint8_t*>(ub) + ub_byte_off;
    if (bytes == 0) return;
    acemu::check_read(c, api, "its UB source", s, bytes, file, line);
    uint64_t ok = g.acemu_in_bounds_b(api, "writes", gm_byte_off, bytes, file, line);
    if (ok == 0) return;
    uint8_t* d = reinterpret_cast<uint8_t*>(g.GetPhyAddr()) + gm_byte_off;
    if (c->atomic_op != acemu::ATOMIC_NONE) {
        acemu::rt::gm_atomic(d, s, ok, c->atomic_op, c->atomic_dtype ? c->atomic_dtype : acemu::dtype_of<T>(), file, line);
        return;
    }
    std::memcpy(d, s, ok);
    acemu::rt::gm_written(d, ok, api, file, line);
}

// DataCopy moves whole 32-B blocks: the hardware drops the remainder of the length.
template <typename T> inline uint64_t datacopy_bytes(uint32_t count, const char* file, int line) {
    uint64_t bytes = uint64_t(count) * sizeof(T);
    if (__builtin_expect(bytes % acemu::kBlock != 0, 0)) {
        uint64_t down = bytes & ~uint64_t(31);
        acemu::rt::report(acemu::UNALIGNED_DATACOPY, "DataCopy", file, line,
                          "DataCopy of %u %s elements = %llu bytes is not a multiple of 32 B; the hardware copies %llu B "
                          "(%llu elements): use DataCopyPad or pad the length to a multiple of %u elements",
                          count, acemu::type_name<T>(), (unsigned long long)bytes, (unsigned long long)down,
                          (unsigned long long)(down / sizeof(T)), unsigned(acemu::kBlock / sizeof(T)));
        bytes = down;
    }
    return bytes;
}

}  // namespace detail

// ---- DataCopy: count form --------------------------------------------------------------
template <typename T> inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const uint32_t count, ACEMU_SITE_PARAMS) {
    acemu::BlockCtx* c = acemu::ctx();
    acemu::enter(c, "DataCopy", ACEMU_SITE);
    uint64_t bytes = detail::datacopy_bytes<T>(count, ACEMU_SITE);
    if (acemu::cube::in_cube(dst.acemu_ptr())) return acemu::cube::copy_gm_in(dst, src, 1, bytes, 0, 0, ACEMU_SITE);
    acemu::trace::pipe_op(c, acemu::trace::P_MTE2, "DataCopy", ACEMU_SITE, acemu::dtype_of<T>(), bytes, 1);
    acemu::check_align(c, "DataCopy", "the UB destination", dst.acemu_ptr(), ACEMU_SITE);
    acemu::check_extent(c, "DataCopy", "the UB destination", bytes, dst.acemu_bytes(), ACEMU_SITE);
    detail::gm_to_ub(c, "DataCopy", dst.acemu_ptr(), 0, src, 0, bytes, ACEMU_SITE);
}
template <typename T> inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count, ACEMU_SITE_PARAMS) {
    acemu::BlockCtx* c = acemu::ctx();
    acemu::enter(c, "DataCopy", ACEMU_SITE);
    uint64_t bytes = detail::datacopy_bytes<T>(count, ACEMU_SITE);
    if (acemu::cube::in_cube(src.acemu_ptr())) return acemu::cube::no_copy_path("DataCopy", src.acemu_ptr(), ACEMU_SITE);
    acemu::trace::pipe_op(c, acemu::trace::P_MTE3, "DataCopy", ACEMU_SITE, acemu::dtype_of<T>(), bytes, 1);
    acemu::check_align(c, "DataCopy", "the UB source", src.acemu_ptr(), ACEMU_SITE);
    acemu::check_extent(c, "DataCopy", "the UB source", bytes, src.acemu_bytes(), ACEMU_SITE);
    detail::ub_to_gm(c, "DataCopy", dst, 0, src.acemu_ptr(), 0, bytes, ACEMU_SITE);
}
template <typename T> inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count, ACEMU_SITE_PARAMS) {
    acemu::BlockCtx* c = acemu::ctx();
    acemu::enter(c, "DataCopy", ACEMU_SITE);
    uint64_t bytes = detail::datacopy_bytes<T>(count, ACEMU_SITE);
    if (acemu::cube::in_cube(src.acemu_ptr()) || acemu::cube::in_cube(dst.acemu_ptr()))
        return acemu::cube::copy_local(dst, src, 1, bytes, 0, 0, ACEMU_SITE);
    acemu::trace::pipe_op(c, acemu::trace::P_V, "DataCopy", ACEMU_SITE, acemu::dtype_of<T>(), acemu::trace::repeats(bytes, 1), 1);
    acemu::check_align(c, "DataCopy", "the UB source", src.acemu_ptr(), ACEMU_SITE);
    acemu::check_align(c, "DataCopy", "the UB destination", dst.acemu_ptr(), ACEMU_SITE);
    acemu::check_extent(c, "DataCopy", "the UB source", bytes, src.acemu_bytes(), ACEMU_SITE);
    acemu::check_extent(c, "DataCopy", "the UB destination", bytes, dst.acemu_bytes(), ACEMU_SITE);
    acemu::check_read(c, "DataCopy", "its UB source", src.acemu_ptr(), bytes, ACEMU_SITE);
    std::memmove(dst.acemu_ptr(), src.acemu_ptr(), bytes);
    acemu::mark_written(c, dst.acemu_ptr(), bytes);
}

// ---- DataCopy: blocks form (lengths and strides in 32-B blocks) -------------------------
template <typename T> inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p, ACEMU_SITE_PARAMS) {
    acemu::BlockCtx* c = acemu::ctx();
    acemu::enter(c, "DataCopy", ACEMU_SITE);
    if (acemu::cube::in_cube(dst.acemu_ptr()))
        return acemu::cube::copy_gm_in(dst, src, p.blockCount, p.blockLen * 32ull, p.srcStride * 32ull, p.dstStride * 32ull, ACEMU_SITE);
    acemu::check_align(c, "DataCopy", "the UB destination", dst.acemu_ptr(), ACEMU_SITE);
    uint64_t len = uint64_t(p.blockLen) * 32;
    acemu::trace::pipe_op(c, acemu::trace::P_MTE2, "DataCopy", ACEMU_SITE, acemu::dtype_of<T>(), p.blockCount * len, p.blockCount);
    if (p.blockCount)
        acemu::check_extent(c, "DataCopy", "the UB destination", (p.blockCount - 1) * (len + p.dstStride * 32ull) + len, dst.acemu_bytes(), ACEMU_SITE);
    for (uint32_t b = 0; b < p.blockCount; ++b)
        detail::gm_to_ub(c, "DataCopy", dst.acemu_ptr(), b * (len + p.dstStride * 32ull), src, int64_t(b * (len + p.srcStride * 32ull)), len, ACEMU_SITE);
}
template <typename T> inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p, ACEMU_SITE_PARAMS) {
    acemu::BlockCtx* c = acemu::ctx();
    acemu::enter(c, "DataCopy", ACEMU_SITE);
    if (acemu::cube::in_cube(src.acemu_ptr())) return acemu::cube::no_copy_path("DataCopy", src.acemu_ptr(), ACEMU_SITE);
    acemu::check_align(c, "DataCopy", "the UB source", src.acemu_ptr(), ACEMU_SITE);
    uint64_t len = uint64_t(p.blockLen) * 32;
    acemu::trace::pipe_op(c, acemu::trace::P_MTE3, "DataCopy", ACEMU_SITE, acemu::dtype_of<T>(), p.blockCount * len, p.blockCount);
    if (p.blockCount)
        acemu::check_extent(c, "DataCopy", "the UB source", (p.blockCount - 1) * (len + p.srcStride * 32ull) + len, src.acemu_bytes(), ACEMU_SITE);
    for (uint32_t b = 0; b < p.blockCount; ++b)
        detail::ub_to_gm(c, "DataCopy", dst, int64_t(b * (len + p.dstStride * 32ull)), src.acemu_ptr(), b * (len + p.srcStride * 32ull), len, ACEMU_SITE);
}
template <typename T> inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p, ACEMU_SITE_PARAMS) {
    acemu::BlockCtx* c = acemu::ctx();
    acemu::enter(c, "DataCopy", ACEMU_SITE);
    if (acemu::cube::in_cube(src.acemu_ptr()) || acemu::cube::in_cube(dst.acemu_ptr()))
        return acemu::cube::copy_local(dst, src, p.blockCount, p.blockLen * 32ull, p.srcStride * 32ull, p.dstStride * 32ull, ACEMU_SITE);
    acemu::check_align(c, "DataCopy", "the UB source", src.acemu_ptr(), ACEMU_SITE);
    acemu::check_align(c, "DataCopy", "the UB destination", dst.acemu_ptr(), ACEMU_SITE);
    uint64_t len = uint64_t(p.blockLen) * 32;
    acemu::trace::pipe_op(c, acemu::trace::P_V, "DataCopy", ACEMU_SITE, acemu::dtype_of<T>(), acemu::trace::repeats(p.blockCount * len, 1), p.blockCount);
    for (uint32_t b = 0; b < p.blockCount; ++b) {
        const uint8_t* s = reinterpret_cast<const uint8_t*>(src.acemu_ptr()) + b * (len + p.srcStride * 32ull);
        uint8_t* d = reinterpret_cast<uint8_t*>(dst.acemu_ptr()) + b * (len + p.dstStride * 32ull);
        acemu::check_read(c, "DataCopy", "its UB source", s, len, ACEMU_SITE);
        std::memmove(d, s, len);
        acemu::mark_written(c, d, len);
    }
}

// ---- DataCopyPad: byte-exact blocks, each block padded to 32 B in UB ----------------------
namespace detail {
template <typename T>
inline void pad_gm_to_ub(const char* api, const LocalTensor<T>& dst, const GlobalTensor<T>& src, uint32_t count, uint64_t len, uint64_t src_gap,
                         uint64_t dst_gap_blocks, bool is_pad, uint32_t left, uint32_t right, T pad_value, const char* file, int line) {
    acemu::BlockCtx* c = acemu::ctx();
    acemu::enter(c, api, file, line);
    acemu::trace::pipe_op(c, acemu::trace::P_MTE2, api, file, line, acemu::dtype_of<T>(), uint64_t(count) * len, count);
    acemu::check_align(c, api, "the UB destination", dst.acemu_ptr(), file, line);
    if (len % sizeof(T) != 0) {
        acemu::rt::report(acemu::UNALIGNED_DATACOPY, api, file, line, "%s: blockLen %llu B is not a multiple of sizeof(%s) = %u",
                          api, (unsigned long long)len, acemu::type_name<T>(), unsigned(sizeof(T)));
    }
    const uint64_t es = sizeof(T);
    const uint64_t ub_block = round32(left * es + len + right * es);
    if (count)
        acemu::check_extent(c, api, "the UB destination", (count - 1) * (ub_block + dst_gap_blocks * 32) + ub_block, dst.acemu_bytes(), file, line);
    for (uint32_t b = 0; b < count; ++b) {
        uint64_t ub_off = b * (ub_block + dst_gap_blocks * 32);
        T* d = reinterpret_cast<T*>(reinterpret_cast<uint8_t*>(dst.acemu_ptr()) + ub_off);
        if (!acemu::in_ub(c, reinterpret_cast<uint8_t*>(d) + ub_block - 1)) return;
        gm_to_ub(c, api, dst.acemu_ptr(), ub_off + left * es, src, int64_t(b * (len + src_gap)), len, file, line);
        // Padding is the user's value; the rest of the 32-B block is filler (the first element, as the hardware does).
        T fill = is_pad ? pad_value : (len >= es ? d[left] : T());
        for (uint32_t k = 0; k < left; ++k) d[k] = is_pad ? pad_value : fill;
        uint64_t data_elems = len / es;
        uint64_t total = ub_block / es;
        for (uint64_t k = left + data_elems; k < total; ++k) d[k] = fill;
        acemu::mark_written(c, d, ub_block);
    }
}
template <typename T>
inline void pad_ub_to_gm(const char* api, const GlobalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count, uint64_t len, uint64_t src_gap_blocks,
                         uint64_t dst_gap, const char* file, int line) {
    acemu::BlockCtx* c = acemu::ctx();
    acemu::enter(c, api, file, line);
    acemu::trace::pipe_op(c, acemu::trace::P_MTE3, api, file, line, acemu::dtype_of<T>(), uint64_t(count) * len, count);
    acemu::check_align(c, api, "the UB source", src.acemu_ptr(), file, line);
    if (len % sizeof(T) != 0) {
        acemu::rt::report(acemu::UNALIGNED_DATACOPY, api, file, line, "%s: blockLen %llu B is not a multiple of sizeof(%s) = %u",
                          api, (unsigned long long)len, acemu::type_name<T>(), unsigned(sizeof(T)));
    }
    const uint64_t ub_block = round32(len);
    if (count)
        acemu::check_extent(c, api, "the UB source", (count - 1) * (ub_block + src_gap_blocks * 32) + len, src.acemu_bytes(), file, line);
    for (uint32_t b = 0; b < count; ++b)
        ub_to_gm(c, api, dst, int64_t(b * (len + dst_gap)), src.acemu_ptr(), b * (ub_block + src_gap_blocks * 32), len, file, line);
}
}  // namespace detail

// One overload per direction (see DataCopyExtParams): the padding parameters' T comes from the
// tensors only, so `{}`, `{false, 0, 0, 0}` and a DataCopyPadParams all convert.
template <typename T>
inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyExtParams& p,
                        const DataCopyPadExtParams<typename acemu::no_deduce<T>::type>& pad, ACEMU_SITE_PARAMS) {
    detail::pad_gm_to_ub("DataCopyPad", dst, src, p.blockCount, p.blockLen, p.srcStride, p.dstStride, pad.isPad, pad.leftPadding, pad.rightPadding,
                         pad.paddingValue, ACEMU_SITE);
}
template <typename T>
inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyExtParams& p, ACEMU_SITE_PARAMS) {
    detail::pad_ub_to_gm("DataCopyPad", dst, src, p.blockCount, p.blockLen, p.srcStride, p.dstStride, ACEMU_SITE);
}

}  // namespace AscendC
