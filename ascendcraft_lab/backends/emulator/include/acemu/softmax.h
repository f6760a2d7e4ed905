// The high-level SoftMax API: row-wise softmax of an [m, k] tensor, with each row's max and sum
// written out as a 32-B block (8 floats or 16 halves per row); and RmsNorm over the last axis.
// Clean-room implementation from Huawei's public AscendC API documentation (SoftMax, SoftMax
// Tiling): per row, max = rowmax(x), e = exp(x - max), sum = rowsum(e), y = e / sum. The device's
// steps (reducemax, brcb, sub, exp, reducesum, div) are not modelled one by one: the row is computed
// in float and rounded to the tensor's type once, and the sum is added pairwise as ReduceSum adds.
// The temporary buffer is accepted and left alone. ND format only (isDataFormatNZ is rejected).
#pragma once
#include <cmath>
#include <vector>
#include "adv_tiling.h"
#include "reduce.h"

namespace AscendC {

// @api SoftMax, SoftMaxShapeInfo, SoftmaxConfig | yes: ND format | SoftMax
struct SoftMaxShapeInfo {
    uint32_t srcM = 0;     // rows
    uint32_t srcK = 0;     // elements per row in the tensor (32-B aligned)
    uint32_t oriSrcM = 0;  // rows before alignment
    uint32_t oriSrcK = 0;  // valid elements per row
};
struct SoftmaxConfig {
    bool isCheckTiling = true;
    uint32_t oriSrcM = 0;
    uint32_t oriSrcK = 0;
};
constexpr SoftmaxConfig SOFTMAX_DEFAULT_CFG = {true, 0, 0};

namespace detail {
template <typename T, typename U>
inline void softmax(const LocalTensor<T>& dst, const LocalTensor<U>& sum, const LocalTensor<U>& max, const LocalTensor<T>& src,
                    const acemu::api_tiling::SoftMaxTiling& tiling, const SoftMaxShapeInfo& shape, const char* file, int line) {
    ACEMU_REQUIRE_DTYPE(SoftMax, T);
    acemu::BlockCtx* c = acemu::ctx();
    acemu::enter(c, "SoftMax", file, line);
    // The shape info wins; without one the tiling's [m, k] is the whole tensor.
    const uint64_t m = shape.srcM ? shape.srcM : tiling.srcM, k = shape.srcK ? shape.srcK : tiling.srcK;
    const uint64_t valid = shape.oriSrcK && shape.oriSrcK <= k ? shape.oriSrcK : k;
    acemu::trace::pipe_op(c, acemu::trace::P_V, "SoftMax", file, line, acemu::dtype_of<T>(), acemu::trace::repeats(m * k, sizeof(T)), m * k);
    if (m == 0 || k == 0 || (k * sizeof(T)) % 32 != 0) {
        acemu::rt::report(acemu::API_MISUSE, "SoftMax", file, line,
                          "SoftMax needs rows of a 32-B aligned length (srcM %llu, srcK %llu of a %zu-byte type); pass the aligned "
                          "length as SoftMaxShapeInfo.srcK and the valid one as oriSrcK",
                          (unsigned long long)m, (unsigned long long)k, sizeof(T));
        return;
    }
    constexpr uint64_t E = 32 / sizeof(U);  // one block per row in sum and max
    for (const char* what : {"dst", "src"}) acemu::check_align(c, "SoftMax", what, what[0] == 'd' ? dst.acemu_ptr() : src.acemu_ptr(), file, line);
    acemu::check_extent(c, "SoftMax", "src", m * k * sizeof(T), src.acemu_bytes(), file, line);
    acemu::check_extent(c, "SoftMax", "dst", m * k * sizeof(T), dst.acemu_bytes(), file, line);
    acemu::check_extent(c, "SoftMax", "sumTensor", m * E * sizeof(U), sum.acemu_bytes(), file, line);
    acemu::check_extent(c, "SoftMax", "maxTensor", m * E * sizeof(U), max.acemu_bytes(), file, line);
    const T* s = src.acemu_ptr();
    T* d = dst.acemu_ptr();
    U* ps = sum.acemu_ptr();
    U* pm = max.acemu_ptr();
    std::vector<float> row(valid), tree(2 * valid + 2);
    for (uint64_t r = 0; r < m; ++r) {
        const T* x = s + r * k;
        if (!acemu::in_ub(c, x + k - 1) || !acemu::in_ub(c, d + r * k + k - 1) || !acemu::in_ub(c, ps + r * E + E - 1) ||
            !acemu::in_ub(c, pm + r * E + E - 1))
            break;
        acemu::check_read(c, "SoftMax", "src", x, valid * sizeof(T), file, line);
        float mx = -INFINITY;
        for (uint64_t j = 0; j < valid; ++j) mx = std::max(mx, float(x[j]));
        for (uint64_t j = 0; j < valid; ++j) row[j] = tree[j] = std::exp(float(x[j]) - mx);
        const float total = acemu::red::tree_sum<float>(tree.data(), uint32_t(valid));
        for (uint64_t j = 0; j < valid; ++j) d[r * k + j] = T(row[j] / total);
        for (uint64_t e = 0; e < E; ++e) {
            ps[r * E + e] = U(total);
            pm[r * E + e] = U(mx);
        }
    }
    acemu::mark_written(c, d, m * k * sizeof(T));
    acemu::mark_written(c, ps, m * E * sizeof(U));
    acemu::mark_written(c, pm, m * E * sizeof(U));
}
template <bool isDataFormatNZ> constexpr void softmax_nd() {
    static_assert(!isDataFormatNZ, "the emulator's SoftMax takes ND tensors only (isDataFormatNZ = false) (API reference: SoftMax)");
}
}  // namespace detail

// Same type for all tensors, with or without a caller's temporary buffer.
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& sumTensor, const LocalTensor<T>& maxTensor,
                    const LocalTensor<T>& srcTensor, const acemu::api_tiling::SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {},
                    ACEMU_SITE_PARAMS) {
    detail::softmax_nd<isDataFormatNZ>();
    detail::softmax(dstTensor, sumTensor, maxTensor, srcTensor, tiling, softmaxShapeInfo, ACEMU_SITE);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& sumTensor, const LocalTensor<T>& maxTensor,
                    const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer, const acemu::api_tiling::SoftMaxTiling& tiling,
                    const SoftMaxShapeInfo& softmaxShapeInfo = {}, ACEMU_SITE_PARAMS) {
    (void)sharedTmpBuffer;
    detail::softmax_nd<isDataFormatNZ>();
    detail::softmax(dstTensor, sumTensor, maxTensor, srcTensor, tiling, softmaxShapeInfo, ACEMU_SITE);
}
// half data with float sum and max.
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<half>& dstTensor, const LocalTensor<float>& sumTensor, const LocalTensor<float>& maxTensor,
                    const LocalTensor<half>& srcTensor, const acemu::api_tiling::SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {},
                    ACEMU_SITE_PARAMS) {
    detail::softmax_nd<isDataFormatNZ>();
    detail::softmax(dstTensor, sumTensor, maxTensor, srcTensor, tiling, softmaxShapeInfo, ACEMU_SITE);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<half>& dstTensor, const LocalTensor<float>& sumTensor, const LocalTensor<float>& maxTensor,
                    const LocalTensor<half>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer, const acemu::api_tiling::SoftMaxTiling& tiling,
                    const SoftMaxShapeInfo& softmaxShapeInfo = {}, ACEMU_SITE_PARAMS) {
    (void)sharedTmpBuffer;
    detail::softmax_nd<isDataFormatNZ>();
    detail::softmax(dstTensor, sumTensor, maxTensor, srcTensor, tiling, softmaxShapeInfo, ACEMU_SITE);
}

// ---- RmsNorm --------------------------------------------------------------------------------------
// y = x / sqrt(mean(x^2 over H) + epsilon) * gamma for every row of an [B, S, H] tensor (reference:
// RmsNorm). The row is computed in float and rounded to T once; the temporary buffer is left alone.
// @api RmsNorm | yes | RmsNorm
namespace detail {
template <typename T>
inline void rms_norm(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& gamma, const T epsilon,
                     const acemu::api_tiling::RmsNormTiling& t, const char* file, int line) {
    ACEMU_REQUIRE_DTYPE(RmsNorm, T);
    acemu::BlockCtx* c = acemu::ctx();
    acemu::enter(c, "RmsNorm", file, line);
    const uint64_t rows = uint64_t(t.bLength) * t.sLength, h = t.hLength;
    const uint64_t valid = t.originalHLength && t.originalHLength <= h ? t.originalHLength : h;
    acemu::trace::pipe_op(c, acemu::trace::P_V, "RmsNorm", file, line, acemu::dtype_of<T>(), acemu::trace::repeats(rows * h, sizeof(T)), rows * h);
    if (rows == 0 || h == 0 || (h * sizeof(T)) % 32 != 0 || t.typeSize != sizeof(T)) {
        acemu::rt::report(acemu::API_MISUSE, "RmsNorm", file, line,
                          "RmsNorm: the RmsNormTiling does not describe this tensor (B %u, S %u, H %u, typeSize %u for a %zu-byte "
                          "type; H must be 32-B aligned); fill it with GetRmsNormTilingInfo",
                          t.bLength, t.sLength, t.hLength, t.typeSize, sizeof(T));
        return;
    }
    acemu::check_align(c, "RmsNorm", "dst", dst.acemu_ptr(), file, line);
    acemu::check_extent(c, "RmsNorm", "src", rows * h * sizeof(T), src.acemu_bytes(), file, line);
    acemu::check_extent(c, "RmsNorm", "dst", rows * h * sizeof(T), dst.acemu_bytes(), file, line);
    acemu::check_extent(c, "RmsNorm", "gamma", valid * sizeof(T), gamma.acemu_bytes(), file, line);
    acemu::check_read(c, "RmsNorm", "gamma", gamma.acemu_ptr(), valid * sizeof(T), file, line);
    const T* s = src.acemu_ptr();
    const T* g = gamma.acemu_ptr();
    T* d = dst.acemu_ptr();
    std::vector<float> sq(2 * valid + 2);
    for (uint64_t r = 0; r < rows; ++r) {
        const T* x = s + r * h;
        if (!acemu::in_ub(c, x + h - 1) || !acemu::in_ub(c, d + r * h + h - 1)) break;
        acemu::check_read(c, "RmsNorm", "src", x, valid * sizeof(T), file, line);
        for (uint64_t j = 0; j < valid; ++j) sq[j] = float(x[j]) * float(x[j]);
        const float mean = acemu::red::tree_sum<float>(sq.data(), uint32_t(valid)) / float(valid);
        const float inv = 1.0f / std::sqrt(mean + float(epsilon));
        for (uint64_t j = 0; j < valid; ++j) d[r * h + j] = T(float(x[j]) * inv * float(g[j]));
    }
    acemu::mark_written(c, d, rows * h * sizeof(T));
}
}  // namespace detail

template <typename T, bool isBasicBlock = false>
inline void RmsNorm(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LocalTensor<T>& gammaLocal,
                    const LocalTensor<uint8_t>& sharedTmpBuffer, const T epsilon, const acemu::api_tiling::RmsNormTiling& tiling, ACEMU_SITE_PARAMS) {
    (void)sharedTmpBuffer;
    detail::rms_norm(dstLocal, srcLocal, gammaLocal, epsilon, tiling, ACEMU_SITE);
}
template <typename T, bool isBasicBlock = false>
inline void RmsNorm(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LocalTensor<T>& gammaLocal, const T epsilon,
                    const acemu::api_tiling::RmsNormTiling& tiling, ACEMU_SITE_PARAMS) {
    detail::rms_norm(dstLocal, srcLocal, gammaLocal, epsilon, tiling, ACEMU_SITE);
}

}  // namespace AscendC
