// High-level vector APIs: BroadCast / Broadcast, Pad, UnPad.
// Clean-room implementation from Huawei's public AscendC API documentation: the results are the
// documented ones; how the device computes them (brcb, copies, GatherMask) is not modelled, so the
// temporary buffer these APIs take is accepted and left alone.
#pragma once
#include "adv_tiling.h"
#include "gather_mask.h"

namespace AscendC {

// ---- BroadCast ----------------------------------------------------------------------------------
// numpy-style broadcasting of a 1-D [1] to [n], or a 2-D [m, 1] (axis 1) / [1, k] (axis 0) to [m, k]
// (reference: BroadCast; dim 1 or 2). Renamed Broadcast in CANN 8.1; both spellings work.
// @api BroadCast, Broadcast | yes: dim 1 and 2 | BroadCast
namespace detail {
template <typename T, int32_t dim, int32_t axis>
inline void broadcast(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t* dstShape, const uint32_t* srcShape,
                      const char* file, int line) {
    ACEMU_REQUIRE_DTYPE(BroadCast, T);
    static_assert(dim == 1 || dim == 2, "BroadCast supports dim 1 and 2 (API reference: BroadCast)");
    static_assert(axis >= 0 && axis < dim, "BroadCast's axis is the dimension that grows: 0, or 1 for dim 2 (API reference: BroadCast)");
    acemu::BlockCtx* c = acemu::ctx();
    acemu::enter(c, "BroadCast", file, line);
    acemu::check_align(c, "BroadCast", "dst", dst.acemu_ptr(), file, line);
    acemu::check_align(c, "BroadCast", "src", src.acemu_ptr(), file, line);
    const uint64_t rows = dim == 1 ? 1 : dstShape[0], cols = dstShape[dim - 1];
    acemu::trace::pipe_op(c, acemu::trace::P_V, "BroadCast", file, line, acemu::dtype_of<T>(), acemu::trace::repeats(rows * cols, sizeof(T)), rows * cols);
    for (int32_t i = 0; i < dim; ++i) {
        if (srcShape[i] != dstShape[i] && !(i == axis && srcShape[i] == 1)) {
            acemu::rt::report(acemu::API_MISUSE, "BroadCast", file, line,
                              "BroadCast<dim %d, axis %d>: srcShape[%d] = %u must be 1 (the broadcast axis) or equal dstShape[%d] = %u",
                              int(dim), int(axis), int(i), srcShape[i], int(i), dstShape[i]);
            return;
        }
    }
    const uint64_t src_n = dim == 1 ? 1 : (axis == 0 ? cols : rows);
    acemu::check_extent(c, "BroadCast", "src", src_n * sizeof(T), src.acemu_bytes(), file, line);
    acemu::check_extent(c, "BroadCast", "dst", rows * cols * sizeof(T), dst.acemu_bytes(), file, line);
    acemu::check_read(c, "BroadCast", "src", src.acemu_ptr(), src_n * sizeof(T), file, line);
    T* d = dst.acemu_ptr();
    const T* s = src.acemu_ptr();
    for (uint64_t r = 0; r < rows; ++r)
        for (uint64_t k = 0; k < cols; ++k) {
            T* o = d + r * cols + k;
            if (acemu::in_ub(c, o)) *o = dim == 1 ? s[0] : (axis == 0 ? s[k] : s[r]);
        }
    acemu::mark_written(c, d, rows * cols * sizeof(T));
}
}  // namespace detail

template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void BroadCast(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const uint32_t dstShape[dim], const uint32_t srcShape[dim],
                      LocalTensor<uint8_t>& sharedTmpBuffer, ACEMU_SITE_PARAMS) {
    (void)sharedTmpBuffer;
    detail::broadcast<T, dim, axis>(dstLocal, srcLocal, dstShape, srcShape, ACEMU_SITE);
}
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void BroadCast(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const uint32_t dstShape[dim], const uint32_t srcShape[dim],
                      ACEMU_SITE_PARAMS) {
    detail::broadcast<T, dim, axis>(dstLocal, srcLocal, dstShape, srcShape, ACEMU_SITE);
}
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void Broadcast(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const uint32_t dstShape[dim], const uint32_t srcShape[dim],
                      LocalTensor<uint8_t>& sharedTmpBuffer, ACEMU_SITE_PARAMS) {
    (void)sharedTmpBuffer;
    detail::broadcast<T, dim, axis>(dstLocal, srcLocal, dstShape, srcShape, ACEMU_SITE);
}
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void Broadcast(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const uint32_t dstShape[dim], const uint32_t srcShape[dim],
                      ACEMU_SITE_PARAMS) {
    detail::broadcast<T, dim, axis>(dstLocal, srcLocal, dstShape, srcShape, ACEMU_SITE);
}

// ---- Pad / UnPad -----------------------------------------------------------------------------------
// Pad (reference: Pad) pads every row of a height x width tensor to a 32-B aligned width: the row
// becomes leftPad values, the valid elements (PadTiling's oriSrcShape width), then values up to the
// aligned width; an unaligned source is packed (row stride = its width). UnPad (reference: UnPad)
// drops leftPad / rightPad elements of every row of a 32-B aligned tensor, packing the rest.
// @api Pad, UnPad, PadParams, UnPadParams | yes | Pad
struct PadParams {
    PadParams() = default;
    PadParams(uint16_t left, uint16_t right, int32_t value) : leftPad(left), rightPad(right), padValue(value) {}
    uint16_t leftPad = 0;
    uint16_t rightPad = 0;
    int32_t padValue = 0;
};
struct UnPadParams {
    UnPadParams() = default;
    UnPadParams(uint16_t left, uint16_t right) : leftPad(left), rightPad(right) {}
    uint16_t leftPad = 0;
    uint16_t rightPad = 0;
};

namespace detail {
template <typename T>
inline void pad(const LocalTensor<T>& dst, const LocalTensor<T>& src, const PadParams& p, const acemu::api_tiling::PadTiling& t, const char* file, int line) {
    ACEMU_REQUIRE_DTYPE(Pad, T);
    acemu::BlockCtx* c = acemu::ctx();
    acemu::enter(c, "Pad", file, line);
    constexpr uint32_t E = 32 / sizeof(T);
    const uint64_t h = t.srcHeight, w = t.srcWidth, ow = t.srcOriWidth, aw = (w + E - 1) / E * E;
    acemu::trace::pipe_op(c, acemu::trace::P_V, "Pad", file, line, acemu::dtype_of<T>(), acemu::trace::repeats(h * aw, sizeof(T)), h * aw);
    if (t.typeSize != sizeof(T) || ow > w || h == 0) {
        acemu::rt::report(acemu::API_MISUSE, "Pad", file, line,
                          "Pad: the PadTiling does not describe this tensor (typeSize %u for a %zu-byte type, height %u, width %u, "
                          "valid width %u); fill it with PadTilingFunc for this shape and type",
                          t.typeSize, sizeof(T), t.srcHeight, t.srcWidth, t.srcOriWidth);
        return;
    }
    if (w == aw && ow == w) {
        acemu::rt::report(acemu::API_MISUSE, "Pad", file, line,
                          "Pad on a tensor whose width %u is already 32-B aligned and all valid: the reference does not support it",
                          t.srcWidth);
        return;
    }
    if (uint64_t(p.leftPad) + ow + p.rightPad != aw) {
        acemu::rt::report(acemu::API_MISUSE, "Pad", file, line,
                          "Pad: leftPad %u + valid width %llu + rightPad %u must make the 32-B aligned width %llu",
                          unsigned(p.leftPad), (unsigned long long)ow, unsigned(p.rightPad), (unsigned long long)aw);
    }
    acemu::check_align(c, "Pad", "dst", dst.acemu_ptr(), file, line);
    acemu::check_extent(c, "Pad", "src", h * w * sizeof(T), src.acemu_bytes(), file, line);
    acemu::check_extent(c, "Pad", "dst", h * aw * sizeof(T), dst.acemu_bytes(), file, line);
    std::vector<T> rows(h * w);
    const T* s = src.acemu_ptr();
    for (uint64_t r = 0; r < h; ++r) acemu::check_read(c, "Pad", "src", s + r * w, ow * sizeof(T), file, line);
    std::memcpy(rows.data(), s, std::min<uint64_t>(h * w * sizeof(T), src.acemu_bytes()));
    const T value = T(p.padValue);
    T* d = dst.acemu_ptr();
    for (uint64_t r = 0; r < h; ++r) {
        T* o = d + r * aw;
        if (!acemu::in_ub(c, o + aw - 1)) break;
        uint64_t k = 0;
        for (; k < p.leftPad && k < aw; ++k) o[k] = value;
        for (uint64_t j = 0; j < ow && k < aw; ++j, ++k) o[k] = rows[r * w + j];
        for (; k < aw; ++k) o[k] = value;
    }
    acemu::mark_written(c, d, h * aw * sizeof(T));
}

template <typename T>
inline void unpad(const LocalTensor<T>& dst, const LocalTensor<T>& src, const UnPadParams& p, const acemu::api_tiling::UnPadTiling& t, const char* file, int line) {
    ACEMU_REQUIRE_DTYPE(UnPad, T);
    acemu::BlockCtx* c = acemu::ctx();
    acemu::enter(c, "UnPad", file, line);
    const uint64_t h = t.srcHeight, w = t.srcWidth;
    acemu::trace::pipe_op(c, acemu::trace::P_V, "UnPad", file, line, acemu::dtype_of<T>(), acemu::trace::repeats(h * w, sizeof(T)), h * w);
    if (t.typeSize != sizeof(T) || h == 0 || (w * sizeof(T)) % 32 != 0 || uint64_t(p.leftPad) + p.rightPad >= w) {
        acemu::rt::report(acemu::API_MISUSE, "UnPad", file, line,
                          "UnPad needs a 32-B aligned width and fewer padding than width elements (typeSize %u for a %zu-byte type, "
                          "height %u, width %u, leftPad %u, rightPad %u); fill the UnPadTiling with UnPadTilingFunc",
                          t.typeSize, sizeof(T), t.srcHeight, t.srcWidth, unsigned(p.leftPad), unsigned(p.rightPad));
        return;
    }
    const uint64_t dw = w - p.leftPad - p.rightPad;
    acemu::check_align(c, "UnPad", "src", src.acemu_ptr(), file, line);
    acemu::check_extent(c, "UnPad", "src", h * w * sizeof(T), src.acemu_bytes(), file, line);
    acemu::check_extent(c, "UnPad", "dst", h * dw * sizeof(T), dst.acemu_bytes(), file, line);
    const T* s = src.acemu_ptr();
    std::vector<T> out(h * dw);
    for (uint64_t r = 0; r < h; ++r) {
        acemu::check_read(c, "UnPad", "src", s + r * w + p.leftPad, dw * sizeof(T), file, line);
        for (uint64_t j = 0; j < dw; ++j) out[r * dw + j] = s[r * w + p.leftPad + j];
    }
    T* d = dst.acemu_ptr();
    const uint64_t n = std::min<uint64_t>(h * dw, dst.acemu_bytes() / sizeof(T));
    std::memcpy(d, out.data(), n * sizeof(T));
    acemu::mark_written(c, d, n * sizeof(T));
}
}  // namespace detail

template <typename T>
inline void Pad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, PadParams& padParams, const LocalTensor<uint8_t>& sharedTmpBuffer,
                acemu::api_tiling::PadTiling& tiling, ACEMU_SITE_PARAMS) {
    (void)sharedTmpBuffer;
    detail::pad(dstTensor, srcTensor, padParams, tiling, ACEMU_SITE);
}
template <typename T>
inline void Pad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, PadParams& padParams, acemu::api_tiling::PadTiling& tiling, ACEMU_SITE_PARAMS) {
    detail::pad(dstTensor, srcTensor, padParams, tiling, ACEMU_SITE);
}
template <typename T>
inline void UnPad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, UnPadParams& unPadParams, LocalTensor<uint8_t>& sharedTmpBuffer,
                  acemu::api_tiling::UnPadTiling& tiling, ACEMU_SITE_PARAMS) {
    (void)sharedTmpBuffer;
    detail::unpad(dstTensor, srcTensor, unPadParams, tiling, ACEMU_SITE);
}
template <typename T>
inline void UnPad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, UnPadParams& unPadParams, acemu::api_tiling::UnPadTiling& tiling,
                  ACEMU_SITE_PARAMS) {
    detail::unpad(dstTensor, srcTensor, unPadParams, tiling, ACEMU_SITE);
}

}  // namespace AscendC
