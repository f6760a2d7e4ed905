// The high-level reductions over one axis of a 2-D tile: ReduceSum / ReduceMax / ReduceMin with a
// Pattern::Reduce (AR: reduce each row, RA: reduce each column), as their reference pages describe.
#pragma once
#include "reduce.h"

namespace AscendC {
namespace Pattern {
namespace Reduce {
// The pages: "pattern currently takes only AR and RA" (A = a kept axis, R = the reduced one). Other
// patterns are not declared, so a kernel naming one does not compile.
struct AR {};
struct RA {};
}  // namespace Reduce
}  // namespace Pattern
}  // namespace AscendC

namespace acemu {
namespace red {

// src is srcShape = {first, last} laid out row by row, each row padded to whole 32-B blocks (the
// layout a DataCopyPad of the rows gives); AR writes `first` results, RA `last`, contiguous in dst.
template <class T, class pattern, Kind kind>
inline void reduce_pattern(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                           const AscendC::LocalTensor<uint8_t>* tmp, const uint32_t srcShape[], const char* file, int line) {
    static_assert(std::is_same<pattern, AscendC::Pattern::Reduce::AR>::value || std::is_same<pattern, AscendC::Pattern::Reduce::RA>::value,
                  "the pattern reductions take Pattern::Reduce::AR or Pattern::Reduce::RA (API reference: ReduceSum)");
    // The A2/A3 types of each page: ReduceSum's pattern form takes float only, ReduceMax / ReduceMin half and float.
    static_assert(std::is_same<T, float>::value || (kind != SUM && std::is_same<T, half>::value),
                  "the pattern forms take float (ReduceSum) or half and float (ReduceMax, ReduceMin) on Atlas A2/A3 "
                  "(API reference: ReduceSum, ReduceMax, ReduceMin)");
    constexpr bool ar = std::is_same<pattern, AscendC::Pattern::Reduce::AR>::value;
    BlockCtx* c = ctx();
    enter(c, api, file, line);
    const uint64_t first = srcShape[0], last = srcShape[1];
    if (first == 0 || last == 0) return;
    const uint64_t per_block = kBlock / sizeof(T);
    const uint64_t stride = (last + per_block - 1) / per_block * per_block;
    const uint64_t src_bytes = ((first - 1) * stride + last) * sizeof(T);
    const uint64_t n_out = ar ? first : last;
    trace::pipe_op(c, trace::P_V, api, file, line, dtype_of<T>(), trace::repeats(first * stride, sizeof(T)), first * stride);
    check_align(c, api, "dstTensor", dst.acemu_ptr(), file, line);
    check_align(c, api, "srcTensor", src.acemu_ptr(), file, line);
    check_extent(c, api, "srcTensor", src_bytes, src.acemu_bytes(), file, line);
    check_extent(c, api, "dstTensor", n_out * sizeof(T), dst.acemu_bytes(), file, line);
    auto overlaps = [](const void* a, uint64_t na, const void* b, uint64_t nb) {
        auto pa = reinterpret_cast<uintptr_t>(a), pb = reinterpret_cast<uintptr_t>(b);
        return pa < pb + nb && pb < pa + na;
    };
    // The pages' constraints: source and destination do not overlap, nor does the temporary buffer with either.
    if (overlaps(src.acemu_ptr(), src_bytes, dst.acemu_ptr(), n_out * sizeof(T)))
        rt::report(API_MISUSE, api, file, line,
                   "%s: srcTensor and dstTensor overlap; the page does not allow the source and destination addresses to overlap "
                   "(write the result to its own buffer)", api);
    if (tmp != nullptr && tmp->acemu_bytes() > 0 &&
        (overlaps(tmp->acemu_ptr(), tmp->acemu_bytes(), src.acemu_ptr(), src_bytes) ||
         overlaps(tmp->acemu_ptr(), tmp->acemu_bytes(), dst.acemu_ptr(), n_out * sizeof(T))))
        rt::report(API_MISUSE, api, file, line,
                   "%s: sharedTmpBuffer overlaps srcTensor or dstTensor; the page does not allow the temporary buffer to share "
                   "their addresses", api);
    const T* s = src.acemu_ptr();
    for (uint64_t r = 0; r < first; ++r) check_read(c, api, "srcTensor", s + r * stride, last * sizeof(T), file, line);
    std::vector<float> out(n_out);
    if (ar) {
        for (uint64_t r = 0; r < first; ++r) {
            const T* row = s + r * stride;
            if (kind == SUM) {  // pairs within a row, as the vector unit adds
                std::vector<float> w(size_t(1) << (64 - __builtin_clzll(last)));
                for (uint64_t k = 0; k < last; ++k) w[k] = float(row[k]);
                out[r] = tree_sum<T>(w.data(), uint32_t(last));
            } else {
                Acc<T> acc{kind};
                for (uint64_t k = 0; k < last; ++k) acc.add(float(row[k]), uint32_t(k));
                out[r] = acc.best;
            }
        }
    } else {
        for (uint64_t k = 0; k < last; ++k) out[k] = float(s[k]);
        for (uint64_t r = 1; r < first; ++r) {
            const T* row = s + r * stride;
            for (uint64_t k = 0; k < last; ++k) {
                float x = float(row[k]);
                out[k] = kind == SUM ? add_round<T>(out[k], x) : kind == MAX ? (x > out[k] ? x : out[k]) : (x < out[k] ? x : out[k]);
            }
        }
    }
    T* d = dst.acemu_ptr();
    if (!in_ub(c, d)) return;
    for (uint64_t i = 0; i < n_out; ++i) d[i] = T(out[i]);
    mark_written(c, d, n_out * sizeof(T));
}

}  // namespace red
}  // namespace acemu

namespace AscendC {

// @api ReduceSum, ReduceMax, ReduceMin with Pattern::Reduce::AR / RA | yes: srcShape {first, last}, rows padded to 32 B; ReduceSum float, Max / Min half and float; overlapping operands are api-misuse | ReduceSum
#define ACEMU_REDUCE_PATTERN(NAME, KIND)                                                                                            \
    template <class T, class pattern, bool isReuseSource = false>                                                                   \
    inline void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer, \
                     const uint32_t srcShape[], bool srcInnerPad, ACEMU_SITE_PARAMS) {                                              \
        (void)srcInnerPad;                                                                                                          \
        acemu::red::reduce_pattern<T, pattern, KIND>(#NAME, dstTensor, srcTensor, &sharedTmpBuffer, srcShape, ACEMU_SITE);          \
    }                                                                                                                               \
    template <class T, class pattern, bool isReuseSource = false>                                                                   \
    inline void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const uint32_t srcShape[], bool srcInnerPad, \
                     ACEMU_SITE_PARAMS) {                                                                                           \
        (void)srcInnerPad;                                                                                                          \
        acemu::red::reduce_pattern<T, pattern, KIND>(#NAME, dstTensor, srcTensor, nullptr, srcShape, ACEMU_SITE);                   \
    }
ACEMU_REDUCE_PATTERN(ReduceSum, acemu::red::SUM)
ACEMU_REDUCE_PATTERN(ReduceMax, acemu::red::MAX)
ACEMU_REDUCE_PATTERN(ReduceMin, acemu::red::MIN)
#undef ACEMU_REDUCE_PATTERN

}  // namespace AscendC
