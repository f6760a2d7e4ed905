// Reductions: ReduceSum/Max/Min (whole tensor), WholeReduce* (per repeat), BlockReduce* (per 32-B block),
// PairReduceSum and RepeatReduceSum.
#pragma once
#include "vec.h"

namespace acemu {
namespace red {

enum Kind { SUM, MAX, MIN };

// One addition of a reduction, rounded to T. For half the reference pages of ReduceSum and
// BlockReduceSum document saturation: a sum beyond 65504 is kept as 65504 (and below -65504 as
// -65504), so [60000, 60000, -30000, 100] sums to 35604, not inf.
template <typename T> inline float add_round(float a, float b) {
    float s = a + b;
    if constexpr (std::is_same<T, half>::value) {
        if (s > 65504.0f) return 65504.0f;
        if (s < -65504.0f) return -65504.0f;
    }
    return float(T(s));
}

// Adjacent pairs first, as the hardware adds (a0+a1, a2+a3, ...), rounding to T at every level.
template <typename T> inline float tree_sum(float* v, uint32_t n) {
    uint32_t p = 1;
    while (p < n) p <<= 1;
    for (uint32_t i = n; i < p; ++i) v[i] = 0.0f;
    while (p > 1) {
        for (uint32_t i = 0; i < p / 2; ++i) v[i] = add_round<T>(v[2 * i], v[2 * i + 1]);
        p /= 2;
    }
    return v[0];
}

// Stores an index in a value slot: the index's bits, as the hardware writes them.
template <typename T> inline T index_bits(uint32_t idx) {
    T r;
    std::memset(&r, 0, sizeof(T));
    if (sizeof(T) >= 4) { uint32_t v = idx; std::memcpy(&r, &v, 4); }
    else { uint16_t v = uint16_t(idx); std::memcpy(&r, &v, sizeof(T) < 2 ? sizeof(T) : 2); }
    return r;
}

template <typename T> struct Acc {
    Kind kind;
    float best = 0.0f;
    uint32_t idx = 0;
    bool any = false;
    void add(float v, uint32_t i) {
        if (!any) { best = v; idx = i; any = true; return; }
        if ((kind == MAX && v > best) || (kind == MIN && v < best)) { best = v; idx = i; }
    }
};

// Values of the active elements of every repeat, in order; calls done(r, vals, idxs, n).
template <typename T, class Done>
inline void per_repeat(BlockCtx* c, const char* api, const T* src, const Mask& m, int repeat, uint32_t srcBlk, uint32_t srcRep, Done done,
                       const char* file, int line) {
    constexpr uint32_t per = 256 / sizeof(T);
    Operand<const T> S{src, srcBlk, srcRep};
    bool reported = false;
    float vals[256];
    uint32_t idxs[256];
    uint64_t reps = m.counter ? (m.count + per - 1) / per : uint64_t(repeat);
    for (uint64_t r = 0; r < reps; ++r) {
        uint32_t n = 0;
        for (uint32_t k = 0; k < per; ++k) {
            bool on = m.counter ? (r * per + k < m.count) : m.on(k);
            if (!on) continue;
            const T* x = S.at(uint32_t(r), k);
            check_read_elem(c, api, "src", x, reported, file, line);
            vals[n] = float(*x);
            idxs[n] = k;
            ++n;
        }
        done(uint32_t(r), vals, idxs, n);
    }
}

template <typename T> inline void put(BlockCtx* c, T* p, T v) {
    if (!in_ub(c, p)) return;
    *p = v;
    mark_written(c, p, sizeof(T));
}

// ReduceSum/Max/Min over `count` contiguous elements (the count form).
template <typename T>
inline void reduce_count(const char* api, Kind kind, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src, int64_t count, bool calIndex,
                         const char* file, int line) {
    BlockCtx* c = ctx();
    enter(c, api, file, line);
    if (count <= 0) return;
    trace::pipe_op(c, trace::P_V, api, file, line, dtype_of<T>(), trace::repeats(uint64_t(count), sizeof(T)), uint64_t(count));
    check_align(c, api, "src", src.acemu_ptr(), file, line);
    check_extent(c, api, "src", uint64_t(count) * sizeof(T), src.acemu_bytes(), file, line);
    check_read(c, api, "src", src.acemu_ptr(), uint64_t(count) * sizeof(T), file, line);
    const T* s = src.acemu_ptr();
    constexpr uint32_t per = 256 / sizeof(T);
    T* d = dst.acemu_ptr();
    if (kind == SUM) {
        // Within a repeat a binary tree, across repeats in order.
        float total = 0.0f, v[256];
        int64_t base = 0;
        if constexpr (std::is_same<T, float>::value) {  // whole repeats: the same pairs, level by level, in two buffers
            for (; base + per <= count; base += per) {
                float w[per / 2];
                for (uint32_t k = 0; k < per / 2; ++k) w[k] = s[base + 2 * k] + s[base + 2 * k + 1];
                for (uint32_t h = per / 4; h >= 1; h /= 2) {
                    for (uint32_t k = 0; k < h; ++k) v[k] = w[2 * k] + w[2 * k + 1];
                    for (uint32_t k = 0; k < h; ++k) w[k] = v[k];
                }
                total = total + w[0];
            }
        }
        for (; base < count; base += per) {
            uint32_t n = uint32_t(count - base < per ? count - base : per);
            for (uint32_t k = 0; k < n; ++k) v[k] = float(s[base + k]);
            total = add_round<T>(total, tree_sum<T>(v, n));
        }
        put(c, d, T(total));
        return;
    }
    if constexpr (std::is_same<T, float>::value) {
        if (!calIndex && count >= 64 && s[0] == s[0]) {
            // The value alone, 16 lanes at a time. The loop below keeps the first element that no
            // later one beats (NaN never beats, and s[0] is no NaN): its value is the lanes' best,
            // unless that is a zero, where -0 and +0 tie and the first one seen counts: then the loop.
            float lane[16];
            for (int j = 0; j < 16; ++j) lane[j] = s[0];
            int64_t i = 0;
            if (kind == MAX)
                for (; i + 16 <= count; i += 16)
                    for (int j = 0; j < 16; ++j) lane[j] = s[i + j] > lane[j] ? s[i + j] : lane[j];
            else
                for (; i + 16 <= count; i += 16)
                    for (int j = 0; j < 16; ++j) lane[j] = s[i + j] < lane[j] ? s[i + j] : lane[j];
            float best = lane[0];
            for (int j = 1; j < 16; ++j) best = (kind == MAX ? lane[j] > best : lane[j] < best) ? lane[j] : best;
            for (; i < count; ++i) best = (kind == MAX ? s[i] > best : s[i] < best) ? s[i] : best;
            if (best != 0.0f) {
                put(c, d, best);
                return;
            }
        }
    }
    Acc<T> acc{kind};
    for (int64_t i = 0; i < count; ++i) acc.add(float(s[i]), uint32_t(i));
    put(c, d, T(acc.best));
    if (calIndex) put(c, d + 1, index_bits<T>(acc.idx));
}

template <typename T>
inline void reduce_repeat_all(const char* api, Kind kind, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src, const Mask& m,
                              int64_t repeat, int32_t srcRepStride, bool calIndex, const char* file, int line) {
    BlockCtx* c = ctx();
    enter(c, api, file, line);
    // Whole-tensor reductions loop over repeats inside the API, so more than 255 is fine here.
    if (repeat < 0) repeat = 0;
    constexpr uint32_t per = 256 / sizeof(T);
    trace::pipe_op(c, trace::P_V, api, file, line, dtype_of<T>(), m.counter ? (m.count + per - 1) / per : uint64_t(repeat));
    float partial_storage[1024];
    float* partial = partial_storage;
    Acc<T> acc{kind};
    uint64_t nrep = 0;
    float total = 0.0f;
    per_repeat<T>(c, api, src.acemu_ptr(), m, int(repeat > 0x7fffffff ? 0x7fffffff : repeat), 1, uint32_t(srcRepStride),
                  [&](uint32_t r, float* v, uint32_t* k, uint32_t n) {
                      if (kind == SUM) {
                          float t = tree_sum<T>(v, n);
                          if (nrep < 1024) partial[nrep] = t; else total = add_round<T>(total, t);
                      } else {
                          for (uint32_t i = 0; i < n; ++i) acc.add(v[i], r * per + k[i]);
                      }
                      ++nrep;
                  }, file, line);
    T* d = dst.acemu_ptr();
    if (kind == SUM) {
        uint32_t n = uint32_t(nrep < 1024 ? nrep : 1024);
        put(c, d, T(add_round<T>(total, n ? tree_sum<T>(partial, n) : 0.0f)));
        return;
    }
    put(c, d, T(acc.best));
    if (calIndex) put(c, d + 1, index_bits<T>(acc.idx));
}

}  // namespace red
}  // namespace acemu

namespace AscendC {

// @api ReduceSum, ReduceMax, ReduceMin | yes: half sums saturate at +-65504 as the page documents | ReduceSum
// ---- whole-tensor reductions (sharedTmpBuffer is scratch the hardware needs; the emulator does not) ----
template <typename T>
inline void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer, const int32_t count,
                      ACEMU_SITE_PARAMS) {
    (void)sharedTmpBuffer;
    ACEMU_REQUIRE_DTYPE(ReduceSum, T);
    acemu::red::reduce_count("ReduceSum", acemu::red::SUM, dst, src, count, false, ACEMU_SITE);
}
template <typename T>
inline void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer, const int32_t count,
                      bool calIndex = false, ACEMU_SITE_PARAMS) {
    (void)sharedTmpBuffer;
    ACEMU_REQUIRE_DTYPE(ReduceMax, T);
    acemu::red::reduce_count("ReduceMax", acemu::red::MAX, dst, src, count, calIndex, ACEMU_SITE);
}
template <typename T>
inline void ReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer, const int32_t count,
                      bool calIndex = false, ACEMU_SITE_PARAMS) {
    (void)sharedTmpBuffer;
    ACEMU_REQUIRE_DTYPE(ReduceMin, T);
    acemu::red::reduce_count("ReduceMin", acemu::red::MIN, dst, src, count, calIndex, ACEMU_SITE);
}

#define ACEMU_REDUCE_REPEAT(NAME, KIND)                                                                                                   \
    template <typename T, bool isSetMask = true>                                                                                          \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer, const int32_t mask,    \
                     const int32_t repeatTime, const int32_t srcRepStride, bool calIndex = false, ACEMU_SITE_PARAMS) {                    \
        ACEMU_REQUIRE_DTYPE(NAME, T);                                                                                                     \
        (void)sharedTmpBuffer;                                                                                                            \
        acemu::BlockCtx* c = acemu::ctx();                                                                                                \
        acemu::Mask m = acemu::mask_cont<256 / sizeof(T)>(c, #NAME, isSetMask, uint64_t(mask), ACEMU_SITE);                               \
        acemu::red::reduce_repeat_all(#NAME, KIND, dst, src, m, repeatTime, srcRepStride, calIndex, ACEMU_SITE);                         \
    }                                                                                                                                     \
    template <typename T, bool isSetMask = true>                                                                                          \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer, const uint64_t mask[], \
                     const int32_t repeatTime, const int32_t srcRepStride, bool calIndex = false, ACEMU_SITE_PARAMS) {                    \
        ACEMU_REQUIRE_DTYPE(NAME, T);                                                                                                     \
        (void)sharedTmpBuffer;                                                                                                            \
        acemu::BlockCtx* c = acemu::ctx();                                                                                                \
        acemu::Mask m = acemu::mask_bits<256 / sizeof(T)>(c, #NAME, isSetMask, mask, ACEMU_SITE);                                         \
        acemu::red::reduce_repeat_all(#NAME, KIND, dst, src, m, repeatTime, srcRepStride, calIndex, ACEMU_SITE);                         \
    }
ACEMU_REDUCE_REPEAT(ReduceSum, acemu::red::SUM)
ACEMU_REDUCE_REPEAT(ReduceMax, acemu::red::MAX)
ACEMU_REDUCE_REPEAT(ReduceMin, acemu::red::MIN)
#undef ACEMU_REDUCE_REPEAT

// @api WholeReduceSum, WholeReduceMax, WholeReduceMin, RepeatReduceSum | yes | WholeReduceSum
// ---- per-repeat reductions ---------------------------------------------------------------------
namespace detail {
template <typename T>
inline void whole_reduce(const char* api, acemu::red::Kind kind, const LocalTensor<T>& dst, const LocalTensor<T>& src, const acemu::Mask& m,
                         int64_t repeatTime, int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride, ReduceOrder order, const char* file,
                         int line) {
    acemu::BlockCtx* c = acemu::ctx();
    acemu::enter(c, api, file, line);
    acemu::check_align(c, api, "src", src.acemu_ptr(), file, line);
    int rep = acemu::repeat_times(api, repeatTime, file, line);
    acemu::trace::pipe_op(c, acemu::trace::P_V, api, file, line, acemu::dtype_of<T>(), acemu::mask_repeats<256 / sizeof(T)>(m, rep));
    T* d = dst.acemu_ptr();
    // dstRepStride counts reduced results: one value, or a value and an index.
    const bool pair = kind != acemu::red::SUM && (order == ReduceOrder::ORDER_VALUE_INDEX || order == ReduceOrder::ORDER_INDEX_VALUE);
    const uint64_t unit = pair ? 2 : 1;
    acemu::red::per_repeat<T>(c, api, src.acemu_ptr(), m, rep, uint32_t(srcBlkStride), uint32_t(srcRepStride),
                              [&](uint32_t r, float* v, uint32_t* k, uint32_t n) {
                                  T* o = d + uint64_t(r) * uint64_t(dstRepStride) * unit;
                                  if (kind == acemu::red::SUM) {
                                      acemu::red::put(c, o, T(n ? acemu::red::tree_sum<T>(v, n) : 0.0f));
                                      return;
                                  }
                                  acemu::red::Acc<T> acc{kind};
                                  for (uint32_t i = 0; i < n; ++i) acc.add(v[i], k[i]);
                                  T val = T(acc.best), idx = acemu::red::index_bits<T>(acc.idx);
                                  switch (order) {
                                      case ReduceOrder::ORDER_VALUE_INDEX: acemu::red::put(c, o, val); acemu::red::put(c, o + 1, idx); break;
                                      case ReduceOrder::ORDER_INDEX_VALUE: acemu::red::put(c, o, idx); acemu::red::put(c, o + 1, val); break;
                                      case ReduceOrder::ORDER_ONLY_VALUE: acemu::red::put(c, o, val); break;
                                      default: acemu::red::put(c, o, idx); break;
                                  }
                              }, file, line);
}
}  // namespace detail

template <typename T, bool isSetMask = true>
inline void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask, const int32_t repeatTime, const int32_t dstRepStride,
                           const int32_t srcBlkStride, const int32_t srcRepStride, ACEMU_SITE_PARAMS) {
    ACEMU_REQUIRE_DTYPE(WholeReduceSum, T);
    acemu::Mask m = acemu::mask_cont<256 / sizeof(T)>(acemu::ctx(), "WholeReduceSum", isSetMask, uint64_t(mask), ACEMU_SITE);
    detail::whole_reduce("WholeReduceSum", acemu::red::SUM, dst, src, m, repeatTime, dstRepStride, srcBlkStride, srcRepStride, ReduceOrder::ORDER_ONLY_VALUE, ACEMU_SITE);
}
template <typename T, bool isSetMask = true>
inline void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[], const int32_t repeatTime, const int32_t dstRepStride,
                           const int32_t srcBlkStride, const int32_t srcRepStride, ACEMU_SITE_PARAMS) {
    ACEMU_REQUIRE_DTYPE(WholeReduceSum, T);
    acemu::Mask m = acemu::mask_bits<256 / sizeof(T)>(acemu::ctx(), "WholeReduceSum", isSetMask, mask, ACEMU_SITE);
    detail::whole_reduce("WholeReduceSum", acemu::red::SUM, dst, src, m, repeatTime, dstRepStride, srcBlkStride, srcRepStride, ReduceOrder::ORDER_ONLY_VALUE, ACEMU_SITE);
}
#define ACEMU_WHOLE_MAXMIN(NAME, KIND)                                                                                                    \
    template <typename T, bool isSetMask = true>                                                                                          \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask, const int32_t repeatTime,                 \
                     const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride,                                 \
                     ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX, ACEMU_SITE_PARAMS) {                                             \
        ACEMU_REQUIRE_DTYPE(NAME, T);                                                                                                     \
        acemu::Mask m = acemu::mask_cont<256 / sizeof(T)>(acemu::ctx(), #NAME, isSetMask, uint64_t(mask), ACEMU_SITE);                    \
        detail::whole_reduce(#NAME, KIND, dst, src, m, repeatTime, dstRepStride, srcBlkStride, srcRepStride, order, ACEMU_SITE);          \
    }                                                                                                                                     \
    template <typename T, bool isSetMask = true>                                                                                          \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[], const int32_t repeatTime,              \
                     const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride,                                 \
                     ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX, ACEMU_SITE_PARAMS) {                                             \
        ACEMU_REQUIRE_DTYPE(NAME, T);                                                                                                     \
        acemu::Mask m = acemu::mask_bits<256 / sizeof(T)>(acemu::ctx(), #NAME, isSetMask, mask, ACEMU_SITE);                              \
        detail::whole_reduce(#NAME, KIND, dst, src, m, repeatTime, dstRepStride, srcBlkStride, srcRepStride, order, ACEMU_SITE);          \
    }
ACEMU_WHOLE_MAXMIN(WholeReduceMax, acemu::red::MAX)
ACEMU_WHOLE_MAXMIN(WholeReduceMin, acemu::red::MIN)
#undef ACEMU_WHOLE_MAXMIN

template <typename T, bool isSetMask = true>
inline void RepeatReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime, const int32_t mask, const int32_t dstBlkStride,
                            const int32_t srcBlkStride, const int32_t dstRepStride, const int32_t srcRepStride, ACEMU_SITE_PARAMS) {
    (void)dstBlkStride;  // documented as unused
    ACEMU_REQUIRE_DTYPE(RepeatReduceSum, T);
    acemu::Mask m = acemu::mask_cont<256 / sizeof(T)>(acemu::ctx(), "RepeatReduceSum", isSetMask, uint64_t(mask), ACEMU_SITE);
    detail::whole_reduce("RepeatReduceSum", acemu::red::SUM, dst, src, m, repeatTime, dstRepStride, srcBlkStride, srcRepStride, ReduceOrder::ORDER_ONLY_VALUE, ACEMU_SITE);
}

// @api BlockReduceSum, BlockReduceMax, BlockReduceMin, PairReduceSum | yes | BlockReduceSum
// ---- per-block and pairwise reductions ---------------------------------------------------------
namespace detail {
// group = elements reduced into one result (32 B worth for BlockReduce*, 2 for PairReduceSum).
template <typename T>
inline void group_reduce(const char* api, acemu::red::Kind kind, uint32_t group, const LocalTensor<T>& dst, const LocalTensor<T>& src, const acemu::Mask& m,
                         int64_t repeatTime, int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride, const char* file, int line) {
    acemu::BlockCtx* c = acemu::ctx();
    acemu::enter(c, api, file, line);
    acemu::check_align(c, api, "src", src.acemu_ptr(), file, line);
    int rep = acemu::repeat_times(api, repeatTime, file, line);
    constexpr uint32_t per = 256 / sizeof(T);
    acemu::trace::pipe_op(c, acemu::trace::P_V, api, file, line, acemu::dtype_of<T>(), acemu::mask_repeats<per>(m, rep));
    const uint32_t outs = per / group;  // results of one repeat; dstRepStride counts such runs
    T* d = dst.acemu_ptr();
    acemu::red::per_repeat<T>(c, api, src.acemu_ptr(), m, rep, uint32_t(srcBlkStride), uint32_t(srcRepStride),
                              [&](uint32_t r, float* v, uint32_t* k, uint32_t n) {
                                  T* o = d + uint64_t(r) * uint64_t(dstRepStride) * outs;
                                  float buf[128];
                                  uint32_t i = 0;
                                  for (uint32_t g = 0; g < outs; ++g) {
                                      uint32_t cnt = 0;
                                      acemu::red::Acc<T> acc{kind};
                                      while (i < n && k[i] / group == g) {
                                          buf[cnt++] = v[i];
                                          acc.add(v[i], k[i]);
                                          ++i;
                                      }
                                      float res = 0.0f;  // a group with no active element yields 0
                                      if (cnt) res = kind == acemu::red::SUM ? acemu::red::tree_sum<T>(buf, cnt) : acc.best;
                                      acemu::red::put(c, o + g, T(res));
                                  }
                              }, file, line);
}
}  // namespace detail

#define ACEMU_GROUP_REDUCE(NAME, KIND, GROUP)                                                                                             \
    template <typename T, bool isSetMask = true>                                                                                          \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime, const int32_t mask,                 \
                     const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride, ACEMU_SITE_PARAMS) {             \
        ACEMU_REQUIRE_DTYPE(NAME, T);                                                                                                     \
        acemu::Mask m = acemu::mask_cont<256 / sizeof(T)>(acemu::ctx(), #NAME, isSetMask, uint64_t(mask), ACEMU_SITE);                    \
        detail::group_reduce(#NAME, KIND, GROUP, dst, src, m, repeatTime, dstRepStride, srcBlkStride, srcRepStride, ACEMU_SITE);          \
    }                                                                                                                                     \
    template <typename T, bool isSetMask = true>                                                                                          \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime, const uint64_t mask[],              \
                     const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride, ACEMU_SITE_PARAMS) {             \
        ACEMU_REQUIRE_DTYPE(NAME, T);                                                                                                     \
        acemu::Mask m = acemu::mask_bits<256 / sizeof(T)>(acemu::ctx(), #NAME, isSetMask, mask, ACEMU_SITE);                              \
        detail::group_reduce(#NAME, KIND, GROUP, dst, src, m, repeatTime, dstRepStride, srcBlkStride, srcRepStride, ACEMU_SITE);          \
    }
ACEMU_GROUP_REDUCE(BlockReduceSum, acemu::red::SUM, uint32_t(32 / sizeof(T)))
ACEMU_GROUP_REDUCE(BlockReduceMax, acemu::red::MAX, uint32_t(32 / sizeof(T)))
ACEMU_GROUP_REDUCE(BlockReduceMin, acemu::red::MIN, uint32_t(32 / sizeof(T)))
ACEMU_GROUP_REDUCE(PairReduceSum, acemu::red::SUM, 2u)
#undef ACEMU_GROUP_REDUCE

}  // namespace AscendC
