// Sorting on the vector unit (Atlas A2/A3): Sort32, MrgSort (the MrgSort4Info form) and Extract.
//
// From the API reference pages:
// - Sort32(dst, src0, src1, repeatTime): each repeat sorts 32 scores of src0 (half / float) with their
//   uint32_t indices from src1, largest score first, into 32 (score, index) structures of 8 bytes each
//   in dst: the score in the low bytes (a half score in the low 2 bytes, 2 reserved bytes), the index
//   in the high 4 bytes. Equal scores: the one at the lower position comes first. Repeats do not sort
//   against each other: repeat r reads elements 32r.. of src0 / src1 and writes 32 * 8 bytes at 256r.
//   repeatTime in [0, 255]; the three tensors start 32-B aligned.
// - MrgSort(dst, MrgSortSrcList{src1..src4}, MrgSort4Info{elementLengths[4], ifExhaustedSuspension,
//   validBit, repeatTimes}): merges up to 4 queues of (score, index) structures, each already sorted
//   largest first, into one queue sorted largest first. elementLengths counts structures (each in
//   [0, 4095]); validBit says which queues take part: 0b11 (src1, src2), 0b111 (src1..src3) or 0b1111
//   (all four); ifExhaustedSuspension stops the merge when a queue runs out. repeatTimes in [1, 255]
//   repeats the merge over the next 4 queues, and only takes effect when four queues of equal length
//   lie one after another in UB (validBit 0b1111, ifExhaustedSuspension false). dst starts 32-B
//   aligned, the sources 8-B aligned.
//   The page does not say which queue wins on equal scores; the emulator takes the lower-numbered
//   queue first, the same rule Sort32 documents for positions, so a merge of queues in input order
//   keeps input order on ties (a kernel should not depend on more than that).
// - Extract(dstValue, dstIndex, sorted, repeatTime): splits (score, index) structures back into the
//   scores (half / float) and the uint32_t indices; a repeat handles 64 floats or 128 halves (256 B
//   of scores; every CANN version of the page from 8.0 to 9.0 says so for A2/A3, and the same for
//   the 950; only pyasc's one-line example, whose tile sizes fit no per-repeat count, suggests
//   otherwise); repeatTime in [0, 255]; all tensors start 32-B aligned.
#pragma once
#include "vec_core.h"
#include "dtypes.h"

namespace acemu {
namespace sort {

// A (score, index) structure's score and index, for half and float scores (8 bytes either way).
template <typename T> inline float score_at(const uint8_t* base, uint64_t i) {
    T s;
    std::memcpy(&s, base + i * 8, sizeof(T));
    return float(s);
}
inline uint32_t index_at(const uint8_t* base, uint64_t i) {
    uint32_t v;
    std::memcpy(&v, base + i * 8 + 4, 4);
    return v;
}
template <typename T> inline void put(uint8_t* base, uint64_t i, T score, uint32_t index) {
    std::memset(base + i * 8, 0, 8);
    std::memcpy(base + i * 8, &score, sizeof(T));
    std::memcpy(base + i * 8 + 4, &index, 4);
}

inline bool check_repeat(const char* api, int64_t repeat, int64_t lo, const char* file, int line) {
    if (repeat < lo || repeat > kMaxRepeat) {
        rt::report(REPEAT_OVERFLOW, api, file, line, "%s: repeatTime %lld is outside [%lld, 255] (API reference: %s)", api,
                   (long long)repeat, (long long)lo, api);
        return false;
    }
    return true;
}

inline void check_align8(BlockCtx* c, const char* api, const char* what, const void* p, const char* file, int line) {
    if (in_ub(c, p) && ub_offset(c, p) % 8 != 0) {
        rt::report(UNALIGNED_UB, api, file, line, "%s: %s starts at UB offset %llu, which is not 8-B aligned (API reference: %s)", api,
                   what, (unsigned long long)ub_offset(c, p), api);
    }
}

}  // namespace sort
}  // namespace acemu

// @api Sort32, MrgSort, MrgSort4Info, MrgSortSrcList, Extract | partial: the A2/A3 layout ((score, index) structures); no region proposals | Sort32
namespace AscendC {

template <typename T>
inline void Sort32(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<uint32_t>& src1, const int32_t repeatTime,
                   ACEMU_SITE_PARAMS) {
    ACEMU_REQUIRE_DTYPE(Sort32, T);
    acemu::BlockCtx* c = acemu::ctx();
    acemu::enter(c, "Sort32", ACEMU_SITE);
    if (!acemu::sort::check_repeat("Sort32", repeatTime, 0, ACEMU_SITE) || repeatTime == 0) return;
    const uint64_t n = uint64_t(repeatTime) * 32;
    acemu::check_align(c, "Sort32", "dst", dst.acemu_ptr(), ACEMU_SITE);
    acemu::check_align(c, "Sort32", "src0", src0.acemu_ptr(), ACEMU_SITE);
    acemu::check_align(c, "Sort32", "src1", src1.acemu_ptr(), ACEMU_SITE);
    acemu::check_extent(c, "Sort32", "dst", n * 8, dst.acemu_bytes(), ACEMU_SITE);
    acemu::check_extent(c, "Sort32", "src0", n * sizeof(T), src0.acemu_bytes(), ACEMU_SITE);
    acemu::check_extent(c, "Sort32", "src1", n * 4, src1.acemu_bytes(), ACEMU_SITE);
    acemu::check_read(c, "Sort32", "src0", src0.acemu_ptr(), n * sizeof(T), ACEMU_SITE);
    acemu::check_read(c, "Sort32", "src1", src1.acemu_ptr(), n * 4, ACEMU_SITE);
    acemu::trace::pipe_op(c, acemu::trace::P_V, "Sort32", ACEMU_SITE, acemu::dtype_of<T>(), uint64_t(repeatTime), n);
    const T* s = src0.acemu_ptr();
    const uint32_t* ix = src1.acemu_ptr();
    std::vector<std::pair<T, uint32_t>> group(32);
    uint8_t* d = reinterpret_cast<uint8_t*>(dst.acemu_ptr());
    for (int32_t r = 0; r < repeatTime; ++r) {
        for (int k = 0; k < 32; ++k) group[k] = {s[r * 32 + k], ix[r * 32 + k]};
        // largest first; equal scores keep their positions' order (the page's rule for ties)
        std::stable_sort(group.begin(), group.end(), [](const auto& a, const auto& b) { return float(a.first) > float(b.first); });
        for (int k = 0; k < 32; ++k) acemu::sort::put<T>(d, uint64_t(r) * 32 + k, group[k].first, group[k].second);
    }
    acemu::mark_written(c, d, n * 8);
}

struct MrgSort4Info {
    MrgSort4Info() = default;
    MrgSort4Info(const uint16_t elementLengthsIn[4], const bool ifExhaustedSuspensionIn, const uint16_t validBitIn,
                 const uint16_t repeatTimesIn)
        : ifExhaustedSuspension(ifExhaustedSuspensionIn), validBit(validBitIn), repeatTimes(repeatTimesIn) {
        for (int i = 0; i < 4; ++i) elementLengths[i] = elementLengthsIn[i];
    }
    uint16_t elementLengths[4] = {0, 0, 0, 0};
    bool ifExhaustedSuspension = false;
    uint16_t validBit = 0;
    uint16_t repeatTimes = 1;
};

template <typename T> struct MrgSortSrcList {
    MrgSortSrcList() = default;
    MrgSortSrcList(const LocalTensor<T>& src1In, const LocalTensor<T>& src2In, const LocalTensor<T>& src3In, const LocalTensor<T>& src4In)
        : src1(src1In[0]), src2(src2In[0]), src3(src3In[0]), src4(src4In[0]) {}
    LocalTensor<T> src1;
    LocalTensor<T> src2;
    LocalTensor<T> src3;
    LocalTensor<T> src4;
};

template <typename T>
inline void MrgSort(const LocalTensor<T>& dst, const MrgSortSrcList<T>& src, const MrgSort4Info& params, ACEMU_SITE_PARAMS) {
    ACEMU_REQUIRE_DTYPE(MrgSort, T);
    acemu::BlockCtx* c = acemu::ctx();
    acemu::enter(c, "MrgSort", ACEMU_SITE);
    int queues = 0;
    switch (params.validBit) {
        case 0b11: queues = 2; break;
        case 0b111: queues = 3; break;
        case 0b1111: queues = 4; break;
        default:
            acemu::rt::report(acemu::API_MISUSE, "MrgSort", ACEMU_SITE,
                              "MrgSort: validBit 0x%x is none of 0b11, 0b111, 0b1111 (2, 3 or 4 queues; API reference: MrgSort)",
                              unsigned(params.validBit));
            return;
    }
    if (!acemu::sort::check_repeat("MrgSort", params.repeatTimes, 1, ACEMU_SITE)) return;
    const LocalTensor<T>* list[4] = {&src.src1, &src.src2, &src.src3, &src.src4};
    static const char* names[4] = {"src1", "src2", "src3", "src4"};
    for (int q = 0; q < queues; ++q) {
        if (params.elementLengths[q] > 4095) {
            acemu::rt::report(acemu::API_MISUSE, "MrgSort", ACEMU_SITE,
                              "MrgSort: elementLengths[%d] = %u structures; a queue holds at most 4095 (API reference: MrgSort)", q,
                              unsigned(params.elementLengths[q]));
            return;
        }
    }
    uint64_t per_repeat = 0;
    for (int q = 0; q < queues; ++q) per_repeat += params.elementLengths[q];
    if (params.repeatTimes > 1) {
        // the page: repeats take effect only for four equal, contiguous queues without suspension
        bool contiguous = queues == 4 && !params.ifExhaustedSuspension;
        for (int q = 1; q < 4 && contiguous; ++q) {
            contiguous = params.elementLengths[q] == params.elementLengths[0] &&
                         reinterpret_cast<const uint8_t*>(list[q]->acemu_ptr()) ==
                             reinterpret_cast<const uint8_t*>(list[0]->acemu_ptr()) + uint64_t(q) * params.elementLengths[0] * 8;
        }
        if (!contiguous) {
            acemu::rt::report(acemu::API_MISUSE, "MrgSort", ACEMU_SITE,
                              "MrgSort: repeatTimes %u needs four queues of equal length stored one after another, validBit 0b1111 and "
                              "ifExhaustedSuspension false (API reference: MrgSort)",
                              unsigned(params.repeatTimes));
            return;
        }
    }
    acemu::check_align(c, "MrgSort", "dst", dst.acemu_ptr(), ACEMU_SITE);
    acemu::check_extent(c, "MrgSort", "dst", per_repeat * params.repeatTimes * 8, dst.acemu_bytes(), ACEMU_SITE);
    for (int q = 0; q < queues; ++q) {
        acemu::sort::check_align8(c, "MrgSort", names[q], list[q]->acemu_ptr(), ACEMU_SITE);
        // repeated merges read on from src1 through every repeat's four queues
        const uint64_t bytes = params.repeatTimes > 1 ? (q == 0 ? per_repeat * params.repeatTimes * 8 : 0)
                                                      : uint64_t(params.elementLengths[q]) * 8;
        acemu::check_extent(c, "MrgSort", names[q], bytes, list[q]->acemu_bytes(), ACEMU_SITE);
        acemu::check_read(c, "MrgSort", names[q], list[q]->acemu_ptr(), bytes, ACEMU_SITE);
    }
    acemu::trace::pipe_op(c, acemu::trace::P_V, "MrgSort", ACEMU_SITE, acemu::dtype_of<T>(), params.repeatTimes,
                          per_repeat * params.repeatTimes);
    // The merged result is built apart and copied last, so a destination the sources overlap reads
    // the sources as they were (the page does not allow it; the result is defined here, not there).
    std::vector<uint8_t> out(per_repeat * params.repeatTimes * 8);
    uint64_t written = 0;
    for (uint32_t r = 0; r < params.repeatTimes; ++r) {
        const uint8_t* base[4] = {nullptr, nullptr, nullptr, nullptr};
        uint64_t pos[4] = {0, 0, 0, 0};
        for (int q = 0; q < queues; ++q) {
            base[q] = reinterpret_cast<const uint8_t*>(list[q]->acemu_ptr()) + uint64_t(r) * per_repeat * 8;
        }
        while (true) {
            int best = -1;
            float best_score = 0.0f;
            bool exhausted = false;
            for (int q = 0; q < queues; ++q) {
                if (pos[q] >= params.elementLengths[q]) {
                    exhausted = true;
                    continue;
                }
                const float s = acemu::sort::score_at<T>(base[q], pos[q]);
                if (best < 0 || s > best_score) {  // strictly larger: a lower queue wins ties
                    best = q;
                    best_score = s;
                }
            }
            if (best < 0 || (exhausted && params.ifExhaustedSuspension)) break;
            std::memcpy(out.data() + written * 8, base[best] + pos[best] * 8, 8);
            ++pos[best];
            ++written;
        }
    }
    std::memcpy(dst.acemu_ptr(), out.data(), written * 8);
    acemu::mark_written(c, dst.acemu_ptr(), written * 8);
}

template <typename T>
inline void Extract(const LocalTensor<T>& dstValue, const LocalTensor<uint32_t>& dstIndex, const LocalTensor<T>& sorted, const int32_t repeatTime,
                    ACEMU_SITE_PARAMS) {
    ACEMU_REQUIRE_DTYPE(Extract, T);
    acemu::BlockCtx* c = acemu::ctx();
    acemu::enter(c, "Extract", ACEMU_SITE);
    if (!acemu::sort::check_repeat("Extract", repeatTime, 0, ACEMU_SITE) || repeatTime == 0) return;
    // a repeat is 64 floats or 128 halves
    const uint64_t count = uint64_t(repeatTime) * (sizeof(T) == 4 ? 64 : 128);
    acemu::check_align(c, "Extract", "dstValue", dstValue.acemu_ptr(), ACEMU_SITE);
    acemu::check_align(c, "Extract", "dstIndex", dstIndex.acemu_ptr(), ACEMU_SITE);
    acemu::check_align(c, "Extract", "sorted", sorted.acemu_ptr(), ACEMU_SITE);
    acemu::check_extent(c, "Extract", "dstValue", count * sizeof(T), dstValue.acemu_bytes(), ACEMU_SITE);
    acemu::check_extent(c, "Extract", "dstIndex", count * 4, dstIndex.acemu_bytes(), ACEMU_SITE);
    acemu::check_extent(c, "Extract", "sorted", count * 8, sorted.acemu_bytes(), ACEMU_SITE);
    acemu::check_read(c, "Extract", "sorted", sorted.acemu_ptr(), count * 8, ACEMU_SITE);
    acemu::trace::pipe_op(c, acemu::trace::P_V, "Extract", ACEMU_SITE, acemu::dtype_of<T>(), uint64_t(repeatTime), count);
    const uint8_t* s = reinterpret_cast<const uint8_t*>(sorted.acemu_ptr());
    T* v = dstValue.acemu_ptr();
    uint32_t* ix = dstIndex.acemu_ptr();
    for (uint64_t i = 0; i < count; ++i) {
        std::memcpy(&v[i], s + i * 8, sizeof(T));
        ix[i] = acemu::sort::index_at(s, i);
    }
    acemu::mark_written(c, v, count * sizeof(T));
    acemu::mark_written(c, ix, count * 4);
}


// ---- the high-level sort (reference pages Concat, Sort, GetSortLen; A2/A3 layout) ----------------
// Sort<T, isFullSort>(dst, concat, index, tmp, repeatTime) sorts repeatTime * 32 scores of `concat`
// with their uint32_t indices from `index`, largest first, into (score, index) structures of 8 bytes
// (Sort32's layout): each repeat's 32 on their own, or with isFullSort all of them; equal scores keep
// their positions' order (the page's rule). On A2/A3 the scores go into `concat` unchanged: Concat
// copies repeatTime * 32 of them (its page describes the region proposals of other products; for
// A2/A3 it only prepares the data). GetSortLen<T>(n) is the sort structure's length in T for n
// elements (8 bytes each), GetSortOffset<T>(i) an element's offset in it. `tmp` is accepted and
// left alone.
// @api Concat, Sort, GetSortLen, GetSortOffset | yes: the A2/A3 layout; Concat copies the scores (no region proposals) | Sort
template <typename T> __aicore__ inline constexpr uint32_t GetSortLen(const uint32_t elemCount) { return elemCount * 8 / sizeof(T); }
template <typename T> __aicore__ inline constexpr uint32_t GetSortOffset(const uint32_t elemOffset) { return elemOffset * 8 / sizeof(T); }

template <typename T>
inline void Concat(LocalTensor<T>& concat, const LocalTensor<T>& src, const LocalTensor<T>& tmp, const int32_t repeatTime, ACEMU_SITE_PARAMS) {
    ACEMU_REQUIRE_DTYPE(Sort32, T);
    (void)tmp;
    acemu::BlockCtx* c = acemu::ctx();
    acemu::enter(c, "Concat", ACEMU_SITE);
    if (!acemu::sort::check_repeat("Concat", repeatTime, 0, ACEMU_SITE) || repeatTime == 0) return;
    const uint64_t n = uint64_t(repeatTime) * 32;
    acemu::check_align(c, "Concat", "concat", concat.acemu_ptr(), ACEMU_SITE);
    acemu::check_align(c, "Concat", "src", src.acemu_ptr(), ACEMU_SITE);
    acemu::check_extent(c, "Concat", "concat", n * sizeof(T), concat.acemu_bytes(), ACEMU_SITE);
    acemu::check_extent(c, "Concat", "src", n * sizeof(T), src.acemu_bytes(), ACEMU_SITE);
    acemu::check_read(c, "Concat", "src", src.acemu_ptr(), n * sizeof(T), ACEMU_SITE);
    acemu::trace::pipe_op(c, acemu::trace::P_V, "Concat", ACEMU_SITE, acemu::dtype_of<T>(), uint64_t(repeatTime), n);
    if (!acemu::in_ub(c, concat.acemu_ptr() + n - 1) || !acemu::in_ub(c, src.acemu_ptr() + n - 1)) return;
    std::memmove(concat.acemu_ptr(), src.acemu_ptr(), n * sizeof(T));
    acemu::mark_written(c, concat.acemu_ptr(), n * sizeof(T));
}

template <typename T, bool isFullSort>
inline void Sort(const LocalTensor<T>& dst, const LocalTensor<T>& concat, const LocalTensor<uint32_t>& index, LocalTensor<T>& tmp,
                 const int32_t repeatTime, ACEMU_SITE_PARAMS) {
    ACEMU_REQUIRE_DTYPE(Sort32, T);
    (void)tmp;
    acemu::BlockCtx* c = acemu::ctx();
    acemu::enter(c, "Sort", ACEMU_SITE);
    if (!acemu::sort::check_repeat("Sort", repeatTime, 0, ACEMU_SITE) || repeatTime == 0) return;
    const uint64_t n = uint64_t(repeatTime) * 32;
    acemu::check_align(c, "Sort", "dst", dst.acemu_ptr(), ACEMU_SITE);
    acemu::check_align(c, "Sort", "concat", concat.acemu_ptr(), ACEMU_SITE);
    acemu::check_align(c, "Sort", "index", index.acemu_ptr(), ACEMU_SITE);
    acemu::check_extent(c, "Sort", "dst", n * 8, dst.acemu_bytes(), ACEMU_SITE);
    acemu::check_extent(c, "Sort", "concat", n * sizeof(T), concat.acemu_bytes(), ACEMU_SITE);
    acemu::check_extent(c, "Sort", "index", n * 4, index.acemu_bytes(), ACEMU_SITE);
    const bool fits = n * 8 <= dst.acemu_bytes() && n * sizeof(T) <= concat.acemu_bytes() && n * 4 <= index.acemu_bytes();
    acemu::check_read(c, "Sort", "concat", concat.acemu_ptr(), n * sizeof(T), ACEMU_SITE);
    acemu::check_read(c, "Sort", "index", index.acemu_ptr(), n * 4, ACEMU_SITE);
    acemu::trace::pipe_op(c, acemu::trace::P_V, "Sort", ACEMU_SITE, acemu::dtype_of<T>(), uint64_t(repeatTime), n);
    if (!fits) return;
    std::vector<std::pair<T, uint32_t>> all(n);
    for (uint64_t i = 0; i < n; ++i) all[i] = {concat.acemu_ptr()[i], index.acemu_ptr()[i]};
    const auto larger = [](const std::pair<T, uint32_t>& a, const std::pair<T, uint32_t>& b) { return float(a.first) > float(b.first); };
    if (isFullSort) {
        std::stable_sort(all.begin(), all.end(), larger);
    } else {
        for (uint64_t r = 0; r < n; r += 32) std::stable_sort(all.begin() + r, all.begin() + r + 32, larger);
    }
    uint8_t* d = reinterpret_cast<uint8_t*>(dst.acemu_ptr());
    for (uint64_t i = 0; i < n; ++i) acemu::sort::put<T>(d, i, all[i].first, all[i].second);
    acemu::mark_written(c, d, n * 8);
}

}  // namespace AscendC
