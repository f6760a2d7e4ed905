// Element-wise vector instructions, Duplicate, Cast, Compare and Select.
#pragma once
#include <cmath>
#include <limits>
#include "vec_core.h"
#include "dtypes.h"

namespace acemu {
namespace m {
// exp in float without a libm call, so the loop vectorises (Cody-Waite reduction, degree-6 polynomial, ~1 ulp).
inline float fexp(float x) {
    float xc = x < -87.33654f ? -87.33654f : (x > 88.72283f ? 88.72283f : x);
    float kf = xc * 1.44269504088896341f + 12582912.0f;
    kf -= 12582912.0f;  // round to nearest without a call
    float r = xc - kf * 0.693359375f;
    r = r + kf * 2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    float y = p * r * r + r + 1.0f;
    int32_t ki = int32_t(kf);
    uint32_t sb = uint32_t(ki + 127) << 23;
    float scale;
    std::memcpy(&scale, &sb, 4);
    y *= scale;
    y = x > 88.72283f ? __builtin_inff() : y;
    y = x < -87.33654f ? 0.0f : y;
    return x != x ? x : y;
}

template <typename T> struct Bits { using type = uint16_t; };
template <> struct Bits<float> { using type = uint32_t; };
template <typename T> inline typename Bits<T>::type bits_of(T v) { typename Bits<T>::type b; std::memcpy(&b, &v, sizeof(T)); return b; }
template <typename T> inline T from_bits(typename Bits<T>::type b) { T v; std::memcpy(&v, &b, sizeof(T)); return v; }
// Neighbouring representable values (finite, non-NaN input).
template <typename T> inline T next_up(T v) {
    auto b = bits_of(v);
    using B = decltype(b);
    const B sign = B(B(1) << (sizeof(T) * 8 - 1));
    if (b == sign) return from_bits<T>(B(1));       // -0 -> smallest positive
    return from_bits<T>((b & sign) ? B(b - 1) : B(b + 1));
}
template <typename T> inline T next_down(T v) {
    auto b = bits_of(v);
    using B = decltype(b);
    const B sign = B(B(1) << (sizeof(T) * 8 - 1));
    if (b == 0) return from_bits<T>(B(sign | 1));
    return from_bits<T>((b & sign) ? B(b + 1) : B(b - 1));
}

template <typename T> constexpr bool is_fp() {
    return std::is_same<T, float>::value || std::is_same<T, half>::value || std::is_same<T, bfloat16_t>::value || std::is_same<T, double>::value;
}

inline float round_int(float x, AscendC::RoundMode mode) {
    using AscendC::RoundMode;
    switch (mode) {
        case RoundMode::CAST_FLOOR: return std::floor(x);
        case RoundMode::CAST_CEIL: return std::ceil(x);
        case RoundMode::CAST_TRUNC: return std::trunc(x);
        case RoundMode::CAST_ROUND: return std::round(x);  // half away from zero
        default: return std::nearbyint(x);                 // CAST_RINT / CAST_NONE: half to even
    }
}

// float -> half or bfloat16 with an explicit rounding direction.
template <typename D> inline D narrow(float x, AscendC::RoundMode mode) {
    using AscendC::RoundMode;
    D h = D(x);
    float hf = float(h);
    if (hf == x || x != x || std::isinf(x) || std::isinf(hf)) return h;
    D lo = h, hi = h;
    if (hf < x) hi = next_up(h); else lo = next_down(h);
    switch (mode) {
        case RoundMode::CAST_FLOOR: return lo;
        case RoundMode::CAST_CEIL: return hi;
        case RoundMode::CAST_TRUNC: return x > 0 ? lo : hi;
        case RoundMode::CAST_ROUND: {
            float dl = x - float(lo), dh = float(hi) - x;
            if (dl == dh) return x > 0 ? hi : lo;
            return h;
        }
        case RoundMode::CAST_ODD: return (bits_of(lo) & 1) ? lo : hi;
        default: return h;
    }
}

// The Cast page's table pairs int8_t with half alone (half -> int8_t by a RoundMode, saturating;
// int8_t -> half exactly): any other pair with an int8_t side does not compile.
template <typename D, typename S> constexpr bool cast_int8_pair_ok() {
    if constexpr (std::is_same<D, int8_t>::value) return std::is_same<S, half>::value;
    else if constexpr (std::is_same<S, int8_t>::value) return std::is_same<D, half>::value;
    else return true;
}

template <typename D, typename S> inline D cast_one(S v, AscendC::RoundMode mode) {
    if constexpr (is_fp<D>() && is_fp<S>()) {
        float x = float(v);
        if constexpr (std::is_same<D, S>::value) {
            return mode == AscendC::RoundMode::CAST_NONE ? v : D(round_int(x, mode));
        } else if constexpr (sizeof(D) < sizeof(S) || (std::is_same<D, bfloat16_t>::value && std::is_same<S, half>::value) ||
                             (std::is_same<D, half>::value && std::is_same<S, bfloat16_t>::value)) {
            return narrow<D>(x, mode);
        } else {
            return D(x);
        }
    } else if constexpr (!is_fp<D>() && is_fp<S>()) {
        float x = float(v);
        if (x != x) return D(0);
        double r = double(round_int(x, mode));
        double lo = double(std::numeric_limits<D>::min()), hi = double(std::numeric_limits<D>::max());
        return D(r < lo ? lo : (r > hi ? hi : r));  // saturate
    } else if constexpr (is_fp<D>() && !is_fp<S>()) {
        if constexpr (std::is_same<D, float>::value) return D(v);
        else return narrow<D>(float(v), mode == AscendC::RoundMode::CAST_NONE ? AscendC::RoundMode::CAST_RINT : mode);
    } else {
        return D(v);
    }
}

template <typename T> inline bool cmp(T a, T b, AscendC::CMPMODE mode) {
    using AscendC::CMPMODE;
    switch (mode) {
        case CMPMODE::LT: return a < b;
        case CMPMODE::GT: return a > b;
        case CMPMODE::EQ: return a == b;
        case CMPMODE::LE: return a <= b;
        case CMPMODE::GE: return a >= b;
        default: return a != b;
    }
}
template <typename T> inline T band(T a, T b) { static_assert(std::is_integral<T>::value, "And needs an integer type"); return T(a & b); }
template <typename T> inline T bor(T a, T b) { static_assert(std::is_integral<T>::value, "Or needs an integer type"); return T(a | b); }
template <typename T> inline T bnot(T a) { static_assert(std::is_integral<T>::value, "Not needs an integer type"); return T(~a); }
}  // namespace m
}  // namespace acemu

namespace AscendC {

// Count form, bit-mode mask and continuous mask forms of one binary instruction.
// @api Add, Sub, Mul, Div, Max, Min, And, Or | yes: count, bit-mask and continuous-mask forms; not the operator overloads | Binary operations
#define ACEMU_BINARY_OP(NAME, EXPR)                                                                                                    \
    template <typename T>                                                                                                              \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, const int32_t& count,          \
                     ACEMU_SITE_PARAMS) {                                                                                              \
        ACEMU_REQUIRE_DTYPE(NAME, T);                                                                                                  \
        acemu::count_binary(#NAME, dst, src0, src1, count, [](T a, T b) -> T { return EXPR; }, ACEMU_SITE);                           \
    }                                                                                                                                  \
    template <typename T, bool isSetMask = true>                                                                                       \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, uint64_t mask,                \
                     int64_t repeatTimes, const BinaryRepeatParams& params, ACEMU_SITE_PARAMS) {                                       \
        ACEMU_REQUIRE_DTYPE(NAME, T);                                                                                                  \
        acemu::BlockCtx* c = acemu::ctx();                                                                                             \
        acemu::Mask m = acemu::mask_cont<256 / sizeof(T)>(c, #NAME, isSetMask, mask, ACEMU_SITE);                                      \
        acemu::repeat_binary(#NAME, dst.acemu_ptr(), src0.acemu_ptr(), src1.acemu_ptr(), m,                                           \
                             acemu::repeat_times(#NAME, repeatTimes, ACEMU_SITE), params, [](T a, T b) -> T { return EXPR; }, ACEMU_SITE); \
    }                                                                                                                                  \
    template <typename T, bool isSetMask = true>                                                                                       \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, const uint64_t mask[],        \
                     int64_t repeatTimes, const BinaryRepeatParams& params, ACEMU_SITE_PARAMS) {                                       \
        ACEMU_REQUIRE_DTYPE(NAME, T);                                                                                                  \
        acemu::BlockCtx* c = acemu::ctx();                                                                                             \
        acemu::Mask m = acemu::mask_bits<256 / sizeof(T)>(c, #NAME, isSetMask, mask, ACEMU_SITE);                                      \
        acemu::repeat_binary(#NAME, dst.acemu_ptr(), src0.acemu_ptr(), src1.acemu_ptr(), m,                                           \
                             acemu::repeat_times(#NAME, repeatTimes, ACEMU_SITE), params, [](T a, T b) -> T { return EXPR; }, ACEMU_SITE); \
    }

ACEMU_BINARY_OP(Add, a + b)
ACEMU_BINARY_OP(Sub, a - b)
ACEMU_BINARY_OP(Mul, a * b)
ACEMU_BINARY_OP(Div, a / b)
ACEMU_BINARY_OP(Max, a > b ? a : b)
ACEMU_BINARY_OP(Min, a < b ? a : b)
ACEMU_BINARY_OP(And, acemu::m::band(a, b))
ACEMU_BINARY_OP(Or, acemu::m::bor(a, b))
#undef ACEMU_BINARY_OP

// Tensor-scalar instructions: count form and repeat forms.
// @api Adds, Muls, Maxs, Mins, LeakyRelu | yes | Scalar binary operations
#define ACEMU_SCALAR_OP(NAME, EXPR)                                                                                                    \
    template <typename T>                                                                                                              \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const acemu::nd<T>& scalarValue, const int32_t& count,     \
                     ACEMU_SITE_PARAMS) {                                                                                              \
        ACEMU_REQUIRE_DTYPE(NAME, T);                                                                                                  \
        const T s = scalarValue;                                                                                                       \
        acemu::count_unary(#NAME, dst, src, count, [s](T a) -> T { return EXPR; }, ACEMU_SITE);                                       \
    }                                                                                                                                  \
    template <typename T, bool isSetMask = true>                                                                                       \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const acemu::nd<T>& scalarValue, uint64_t mask,            \
                     int64_t repeatTimes, const UnaryRepeatParams& params, ACEMU_SITE_PARAMS) {                                        \
        ACEMU_REQUIRE_DTYPE(NAME, T);                                                                                                  \
        acemu::BlockCtx* c = acemu::ctx();                                                                                             \
        const T s = scalarValue;                                                                                                       \
        acemu::Mask m = acemu::mask_cont<256 / sizeof(T)>(c, #NAME, isSetMask, mask, ACEMU_SITE);                                      \
        acemu::repeat_unary(#NAME, dst.acemu_ptr(), src.acemu_ptr(), m, acemu::repeat_times(#NAME, repeatTimes, ACEMU_SITE), params,  \
                            [s](T a) -> T { return EXPR; }, ACEMU_SITE);                                                               \
    }                                                                                                                                  \
    template <typename T, bool isSetMask = true>                                                                                       \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const acemu::nd<T>& scalarValue, const uint64_t mask[],    \
                     int64_t repeatTimes, const UnaryRepeatParams& params, ACEMU_SITE_PARAMS) {                                        \
        ACEMU_REQUIRE_DTYPE(NAME, T);                                                                                                  \
        acemu::BlockCtx* c = acemu::ctx();                                                                                             \
        const T s = scalarValue;                                                                                                       \
        acemu::Mask m = acemu::mask_bits<256 / sizeof(T)>(c, #NAME, isSetMask, mask, ACEMU_SITE);                                      \
        acemu::repeat_unary(#NAME, dst.acemu_ptr(), src.acemu_ptr(), m, acemu::repeat_times(#NAME, repeatTimes, ACEMU_SITE), params,  \
                            [s](T a) -> T { return EXPR; }, ACEMU_SITE);                                                               \
    }

ACEMU_SCALAR_OP(Adds, a + s)
ACEMU_SCALAR_OP(Muls, a * s)
ACEMU_SCALAR_OP(Maxs, a > s ? a : s)
ACEMU_SCALAR_OP(Mins, a < s ? a : s)
ACEMU_SCALAR_OP(LeakyRelu, a >= T(0) ? a : T(a * s))
#undef ACEMU_SCALAR_OP

// @api Exp, Ln, Abs, Sqrt, Rsqrt, Reciprocal, Relu, Not | yes | Unary operations
#define ACEMU_UNARY_OP(NAME, EXPR)                                                                                                     \
    template <typename T>                                                                                                              \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count, ACEMU_SITE_PARAMS) {                 \
        ACEMU_REQUIRE_DTYPE(NAME, T);                                                                                                  \
        acemu::count_unary(#NAME, dst, src, count, [](T a) -> T { return EXPR; }, ACEMU_SITE);                                        \
    }                                                                                                                                  \
    template <typename T, bool isSetMask = true>                                                                                       \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask, int64_t repeatTimes,                        \
                     const UnaryRepeatParams& params, ACEMU_SITE_PARAMS) {                                                             \
        ACEMU_REQUIRE_DTYPE(NAME, T);                                                                                                  \
        acemu::BlockCtx* c = acemu::ctx();                                                                                             \
        acemu::Mask m = acemu::mask_cont<256 / sizeof(T)>(c, #NAME, isSetMask, mask, ACEMU_SITE);                                      \
        acemu::repeat_unary(#NAME, dst.acemu_ptr(), src.acemu_ptr(), m, acemu::repeat_times(#NAME, repeatTimes, ACEMU_SITE), params,  \
                            [](T a) -> T { return EXPR; }, ACEMU_SITE);                                                                \
    }                                                                                                                                  \
    template <typename T, bool isSetMask = true>                                                                                       \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[], int64_t repeatTimes,                \
                     const UnaryRepeatParams& params, ACEMU_SITE_PARAMS) {                                                             \
        ACEMU_REQUIRE_DTYPE(NAME, T);                                                                                                  \
        acemu::BlockCtx* c = acemu::ctx();                                                                                             \
        acemu::Mask m = acemu::mask_bits<256 / sizeof(T)>(c, #NAME, isSetMask, mask, ACEMU_SITE);                                      \
        acemu::repeat_unary(#NAME, dst.acemu_ptr(), src.acemu_ptr(), m, acemu::repeat_times(#NAME, repeatTimes, ACEMU_SITE), params,  \
                            [](T a) -> T { return EXPR; }, ACEMU_SITE);                                                                \
    }

ACEMU_UNARY_OP(Exp, T(acemu::m::fexp(float(a))))
ACEMU_UNARY_OP(Ln, T(std::log(float(a))))
ACEMU_UNARY_OP(Abs, a < T(0) ? T(-a) : a)
ACEMU_UNARY_OP(Sqrt, T(std::sqrt(float(a))))
ACEMU_UNARY_OP(Rsqrt, T(1.0f / std::sqrt(float(a))))
ACEMU_UNARY_OP(Reciprocal, T(1.0f / float(a)))
ACEMU_UNARY_OP(Relu, a > T(0) ? a : T(0))
ACEMU_UNARY_OP(Not, acemu::m::bnot(a))
#undef ACEMU_UNARY_OP

// @api Axpy | yes | Axpy
// dst = src * scalar + dst (dst may be wider than src, e.g. float += half * scalar).
template <typename T, typename U>
inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const acemu::nd<U> scalarValue, const int32_t& count, ACEMU_SITE_PARAMS) {
    ACEMU_REQUIRE_DTYPE(Axpy, U);
    static_assert(std::is_same<T, U>::value || (std::is_same<T, float>::value && std::is_same<U, half>::value),
                  "Axpy takes half += half, float += float or float += half (API reference: Axpy)");
    acemu::BlockCtx* c = acemu::ctx();
    acemu::enter(c, "Axpy", ACEMU_SITE);
    if (!acemu::count_prologue(c, "Axpy", dst, &src, 1, count, ACEMU_SITE)) return;
    acemu::trace::pipe_op(c, acemu::trace::P_V, "Axpy", ACEMU_SITE, acemu::dtype_of<U>(),
                          acemu::trace::repeats(uint64_t(count), sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U)), uint64_t(count));
    acemu::check_read(c, "Axpy", "dst (accumulated into)", dst.acemu_ptr(), uint64_t(count) * sizeof(T), ACEMU_SITE);
    T* d = dst.acemu_ptr();
    const U* s = src.acemu_ptr();
    const float k = float(scalarValue);
    for (int32_t i = 0; i < count; ++i) d[i] = T(float(s[i]) * k + float(d[i]));
    acemu::mark_written(c, d, uint64_t(count) * sizeof(T));
}
template <typename T, typename U, bool isSetMask = true>
inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const acemu::nd<U> scalarValue, uint64_t mask, int64_t repeatTimes,
                 const UnaryRepeatParams& params, ACEMU_SITE_PARAMS) {
    ACEMU_REQUIRE_DTYPE(Axpy, U);
    static_assert(std::is_same<T, U>::value || (std::is_same<T, float>::value && std::is_same<U, half>::value),
                  "Axpy takes half += half, float += float or float += half (API reference: Axpy)");
    acemu::BlockCtx* c = acemu::ctx();
    acemu::enter(c, "Axpy", ACEMU_SITE);
    constexpr uint32_t per = 256 / (sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U));
    acemu::Mask m = acemu::mask_cont<per>(c, "Axpy", isSetMask, mask, ACEMU_SITE);
    int rep = acemu::repeat_times("Axpy", repeatTimes, ACEMU_SITE);
    acemu::trace::pipe_op(c, acemu::trace::P_V, "Axpy", ACEMU_SITE, acemu::dtype_of<U>(), acemu::mask_repeats<per>(m, rep));
    acemu::Operand<T> D{dst.acemu_ptr(), params.dstBlkStride, params.dstRepStride};
    acemu::Operand<const U> S{src.acemu_ptr(), params.srcBlkStride, params.srcRepStride};
    const float k = float(scalarValue);
    bool rs = false, rd = false;
    acemu::for_each_active<per>(m, rep, [&](uint32_t r, uint32_t e) {
        const U* x = S.at(r, e);
        T* z = D.at(r, e);
        acemu::check_read_elem(c, "Axpy", "src", x, rs, ACEMU_SITE);
        acemu::check_read_elem(c, "Axpy", "dst (accumulated into)", static_cast<const T*>(z), rd, ACEMU_SITE);
        *z = T(float(*x) * k + float(*z));
    });
}

// @api Duplicate | yes | Duplicate
// ---- Duplicate ---------------------------------------------------------------------------
template <typename T> inline void Duplicate(const LocalTensor<T>& dst, const acemu::nd<T>& scalarValue, const int32_t& count, ACEMU_SITE_PARAMS) {
    ACEMU_REQUIRE_DTYPE(Duplicate, T);
    acemu::BlockCtx* c = acemu::ctx();
    acemu::enter(c, "Duplicate", ACEMU_SITE);
    if (!acemu::count_prologue<T, T>(c, "Duplicate", dst, nullptr, 0, count, ACEMU_SITE)) return;
    acemu::trace::pipe_op(c, acemu::trace::P_V, "Duplicate", ACEMU_SITE, acemu::dtype_of<T>(), acemu::trace::repeats(uint64_t(count), sizeof(T)),
                          uint64_t(count));
    T* d = dst.acemu_ptr();
    const T v = scalarValue;
    for (int32_t i = 0; i < count; ++i) d[i] = v;
    acemu::mark_written(c, d, uint64_t(count) * sizeof(T));
}
namespace detail {
template <typename T>
inline void duplicate_repeat(const LocalTensor<T>& dst, T v, const acemu::Mask& m, int rep, uint16_t dstBlk, uint8_t dstRep, const char* file, int line) {
    acemu::BlockCtx* c = acemu::ctx();
    acemu::enter(c, "Duplicate", file, line);
    acemu::trace::pipe_op(c, acemu::trace::P_V, "Duplicate", file, line, acemu::dtype_of<T>(), acemu::mask_repeats<256 / sizeof(T)>(m, rep));
    acemu::check_align(c, "Duplicate", "dst", dst.acemu_ptr(), file, line);
    acemu::Operand<T> D{dst.acemu_ptr(), dstBlk, dstRep};
    acemu::for_each_active<256 / sizeof(T)>(m, rep, [&](uint32_t r, uint32_t k) {
        T* z = D.at(r, k);
        if (!acemu::in_ub(c, z)) return;
        *z = v;
        acemu::mark_written(c, z, sizeof(T));
    });
}
}  // namespace detail
template <typename T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T>& dst, const acemu::nd<T>& scalarValue, uint64_t mask, int64_t repeatTimes, uint16_t dstBlockStride,
                      uint8_t dstRepeatStride, ACEMU_SITE_PARAMS) {
    ACEMU_REQUIRE_DTYPE(Duplicate, T);
    acemu::BlockCtx* c = acemu::ctx();
    acemu::Mask m = acemu::mask_cont<256 / sizeof(T)>(c, "Duplicate", isSetMask, mask, ACEMU_SITE);
    detail::duplicate_repeat(dst, T(scalarValue), m, acemu::repeat_times("Duplicate", repeatTimes, ACEMU_SITE), dstBlockStride, dstRepeatStride, ACEMU_SITE);
}
template <typename T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T>& dst, const acemu::nd<T>& scalarValue, const uint64_t mask[], int64_t repeatTimes, uint16_t dstBlockStride,
                      uint8_t dstRepeatStride, ACEMU_SITE_PARAMS) {
    ACEMU_REQUIRE_DTYPE(Duplicate, T);
    acemu::BlockCtx* c = acemu::ctx();
    acemu::Mask m = acemu::mask_bits<256 / sizeof(T)>(c, "Duplicate", isSetMask, mask, ACEMU_SITE);
    detail::duplicate_repeat(dst, T(scalarValue), m, acemu::repeat_times("Duplicate", repeatTimes, ACEMU_SITE), dstBlockStride, dstRepeatStride, ACEMU_SITE);
}

// @api Cast | yes: every RoundMode; of the pairs of element types, the int8_t ones are checked against the page (int8_t <-> half only) | Cast
// ---- Cast --------------------------------------------------------------------------------
template <typename T1, typename T2>
inline void Cast(const LocalTensor<T1>& dst, const LocalTensor<T2>& src, const RoundMode& roundMode, const uint32_t count, ACEMU_SITE_PARAMS) {
    static_assert(acemu::m::cast_int8_pair_ok<T1, T2>(), "Cast: int8_t converts to and from half only (API page Cast)");
    const RoundMode mode = roundMode;
    acemu::count_unary("Cast", dst, src, int64_t(count), [mode](T2 a) -> T1 { return acemu::m::cast_one<T1, T2>(a, mode); }, ACEMU_SITE);
}
template <typename T1, typename T2, bool isSetMask = true>
inline void Cast(const LocalTensor<T1>& dst, const LocalTensor<T2>& src, const RoundMode& roundMode, uint64_t mask, int64_t repeatTimes,
                 const UnaryRepeatParams& params, ACEMU_SITE_PARAMS) {
    static_assert(acemu::m::cast_int8_pair_ok<T1, T2>(), "Cast: int8_t converts to and from half only (API page Cast)");
    acemu::BlockCtx* c = acemu::ctx();
    constexpr uint32_t per = 256 / (sizeof(T1) > sizeof(T2) ? sizeof(T1) : sizeof(T2));
    acemu::Mask m = acemu::mask_cont<per>(c, "Cast", isSetMask, mask, ACEMU_SITE);
    const RoundMode mode = roundMode;
    acemu::repeat_unary("Cast", dst.acemu_ptr(), src.acemu_ptr(), m, acemu::repeat_times("Cast", repeatTimes, ACEMU_SITE), params,
                        [mode](T2 a) -> T1 { return acemu::m::cast_one<T1, T2>(a, mode); }, ACEMU_SITE);
}
template <typename T1, typename T2, bool isSetMask = true>
inline void Cast(const LocalTensor<T1>& dst, const LocalTensor<T2>& src, const RoundMode& roundMode, const uint64_t mask[], int64_t repeatTimes,
                 const UnaryRepeatParams& params, ACEMU_SITE_PARAMS) {
    static_assert(acemu::m::cast_int8_pair_ok<T1, T2>(), "Cast: int8_t converts to and from half only (API page Cast)");
    acemu::BlockCtx* c = acemu::ctx();
    constexpr uint32_t per = 256 / (sizeof(T1) > sizeof(T2) ? sizeof(T1) : sizeof(T2));
    acemu::Mask m = acemu::mask_bits<per>(c, "Cast", isSetMask, mask, ACEMU_SITE);
    const RoundMode mode = roundMode;
    acemu::repeat_unary("Cast", dst.acemu_ptr(), src.acemu_ptr(), m, acemu::repeat_times("Cast", repeatTimes, ACEMU_SITE), params,
                        [mode](T2 a) -> T1 { return acemu::m::cast_one<T1, T2>(a, mode); }, ACEMU_SITE);
}

// @api Compare, CompareScalar, Select | partial: count forms only | Compare
// ---- Compare / Select: one mask bit per element (bit i of byte i/8) ------------------------
namespace detail {
template <typename T, typename U, class Pred>
inline void compare_bits(const char* api, const LocalTensor<U>& dst, const LocalTensor<T>* srcs, int nsrc, uint32_t count, Pred pred, bool need_repeat,
                         const char* file, int line) {
    acemu::BlockCtx* c = acemu::ctx();
    acemu::enter(c, api, file, line);
    acemu::trace::pipe_op(c, acemu::trace::P_V, api, file, line, acemu::dtype_of<T>(), acemu::trace::repeats(count, sizeof(T)), count);
    if (need_repeat && (uint64_t(count) * sizeof(T)) % acemu::kRepeat != 0) {
        acemu::rt::report(acemu::REPEAT_OVERFLOW, api, file, line,
                          "%s of %u %s elements = %llu B does not fill whole 256-B repeats; the hardware compares whole repeats "
                          "(%llu B, reading past the data and writing extra mask bits). Use a count that is a multiple of %u",
                          api, count, acemu::type_name<T>(), (unsigned long long)(uint64_t(count) * sizeof(T)),
                          (unsigned long long)((uint64_t(count) * sizeof(T) + 255) / 256 * 256), unsigned(256 / sizeof(T)));
    }
    acemu::check_align(c, api, "dst", dst.acemu_ptr(), file, line);
    uint64_t out_bytes = (uint64_t(count) + 7) / 8;
    acemu::check_extent(c, api, "dst (the bit mask)", out_bytes, dst.acemu_bytes(), file, line);
    static const char* names[2] = {"src0", "src1"};
    for (int i = 0; i < nsrc; ++i) {
        acemu::check_align(c, api, names[i], srcs[i].acemu_ptr(), file, line);
        acemu::check_extent(c, api, names[i], uint64_t(count) * sizeof(T), srcs[i].acemu_bytes(), file, line);
        acemu::check_read(c, api, names[i], srcs[i].acemu_ptr(), uint64_t(count) * sizeof(T), file, line);
    }
    uint8_t* out = reinterpret_cast<uint8_t*>(dst.acemu_ptr());
    std::memset(out, 0, out_bytes);
    for (uint32_t i = 0; i < count; ++i)
        if (pred(i)) out[i >> 3] |= uint8_t(1u << (i & 7));
    acemu::mark_written(c, out, out_bytes);
}
}  // namespace detail

template <typename T, typename U>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode, uint32_t count, ACEMU_SITE_PARAMS) {
    ACEMU_REQUIRE_DTYPE(Compare, T);
    const T* a = src0.acemu_ptr();
    const T* b = src1.acemu_ptr();
    LocalTensor<T> s[2] = {src0, src1};
    detail::compare_bits("Compare", dst, s, 2, count, [&](uint32_t i) { return acemu::m::cmp(a[i], b[i], cmpMode); }, true, ACEMU_SITE);
}
template <typename T, typename U>
inline void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const acemu::nd<T> src1Scalar, CMPMODE cmpMode, uint32_t count,
                          ACEMU_SITE_PARAMS) {
    ACEMU_REQUIRE_DTYPE(CompareScalar, T);
    const T* a = src0.acemu_ptr();
    const T s = src1Scalar;
    detail::compare_bits("CompareScalar", dst, &src0, 1, count, [&](uint32_t i) { return acemu::m::cmp(a[i], s, cmpMode); }, false, ACEMU_SITE);
}

namespace detail {
template <typename T, typename U, class Pick>
inline void select_impl(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>* srcs, int nsrc, SELMODE mode, uint32_t count,
                        Pick pick, const char* file, int line) {
    acemu::BlockCtx* c = acemu::ctx();
    acemu::enter(c, "Select", file, line);
    if (!acemu::count_prologue(c, "Select", dst, srcs, nsrc, count, file, line)) return;
    acemu::trace::pipe_op(c, acemu::trace::P_V, "Select", file, line, acemu::dtype_of<T>(), acemu::trace::repeats(count, sizeof(T)), count);
    constexpr uint32_t per = 256 / sizeof(T);
    // VSEL_CMPMASK_SPR reuses the first repeat's worth of mask bits for every repeat.
    uint64_t mask_bits_used = mode == SELMODE::VSEL_CMPMASK_SPR ? (count < per ? count : per) : count;
    acemu::check_read(c, "Select", "selMask", selMask.acemu_ptr(), (mask_bits_used + 7) / 8, file, line);
    const uint8_t* mb = reinterpret_cast<const uint8_t*>(selMask.acemu_ptr());
    T* d = dst.acemu_ptr();
    for (uint32_t i = 0; i < count; ++i) {
        uint32_t bit = mode == SELMODE::VSEL_CMPMASK_SPR ? i % per : i;
        d[i] = pick(i, (mb[bit >> 3] >> (bit & 7)) & 1);
    }
    acemu::mark_written(c, d, uint64_t(count) * sizeof(T));
}
}  // namespace detail

template <typename T, typename U>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0, const LocalTensor<T>& src1, SELMODE selMode,
                   uint32_t count, ACEMU_SITE_PARAMS) {
    ACEMU_REQUIRE_DTYPE(Select, T);
    const T* a = src0.acemu_ptr();
    const T* b = src1.acemu_ptr();
    LocalTensor<T> s[2] = {src0, src1};
    detail::select_impl(dst, selMask, s, 2, selMode, count, [&](uint32_t i, bool take0) { return take0 ? a[i] : b[i]; }, ACEMU_SITE);
}
template <typename T, typename U>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0, const acemu::nd<T> src1Scalar, SELMODE selMode,
                   uint32_t count, ACEMU_SITE_PARAMS) {
    ACEMU_REQUIRE_DTYPE(Select, T);
    const T* a = src0.acemu_ptr();
    const T s = src1Scalar;
    detail::select_impl(dst, selMask, &src0, 1, selMode, count, [&](uint32_t i, bool take0) { return take0 ? a[i] : s; }, ACEMU_SITE);
}

// ---- Copy: UB -> UB on the vector unit ---------------------------------------------------------
// (reference: Copy) VECIN / VECCALC / VECOUT to VECIN / VECCALC / VECOUT, in the repeat form: a mask
// per repeat, block strides dstStride / srcStride (32-B blocks within a repeat, 0..65535) and
// repeat strides dstRepeatSize / srcRepeatSize (32-B blocks between repeats, 0..4095). The count
// form Copy(dst, src, count) is on the 950's page only: on A2 it does not compile.
// @api Copy, CopyRepeatParams | yes: the mask / repeat forms of A2 (no count form) | Copy
struct CopyRepeatParams {
    CopyRepeatParams() = default;
    CopyRepeatParams(uint16_t dstStrideIn, uint16_t srcStrideIn, uint16_t dstRepeatSizeIn, uint16_t srcRepeatSizeIn)
        : dstStride(dstStrideIn), srcStride(srcStrideIn), dstRepeatSize(dstRepeatSizeIn), srcRepeatSize(srcRepeatSizeIn) {}
    uint16_t dstStride = 1;
    uint16_t srcStride = 1;
    uint16_t dstRepeatSize = 8;
    uint16_t srcRepeatSize = 8;
};
namespace detail {
template <typename T>
inline void copy_repeat(const LocalTensor<T>& dst, const LocalTensor<T>& src, const acemu::Mask& m, int repeat, const CopyRepeatParams& p,
                        const char* file, int line) {
    acemu::BlockCtx* c = acemu::ctx();
    if (p.dstRepeatSize > 4095 || p.srcRepeatSize > 4095) {
        acemu::rt::report(acemu::API_MISUSE, "Copy", file, line,
                          "Copy: dstRepeatSize %u / srcRepeatSize %u; the page allows 0..4095", unsigned(p.dstRepeatSize),
                          unsigned(p.srcRepeatSize));
    }
    acemu::enter(c, "Copy", file, line);
    acemu::check_align(c, "Copy", "dst", dst.acemu_ptr(), file, line);
    acemu::check_align(c, "Copy", "src", src.acemu_ptr(), file, line);
    constexpr uint32_t per = 256 / sizeof(T);
    acemu::trace::pipe_op(c, acemu::trace::P_V, "Copy", file, line, acemu::dtype_of<T>(), acemu::mask_repeats<per>(m, repeat));
    acemu::Operand<T> D{dst.acemu_ptr(), p.dstStride, p.dstRepeatSize};
    acemu::Operand<const T> S{src.acemu_ptr(), p.srcStride, p.srcRepeatSize};
    bool reported = false;
    acemu::for_each_active<per>(m, repeat, [&](uint32_t r, uint32_t k) {
        const T* x = S.at(r, k);
        acemu::check_read_elem(c, "Copy", "src", x, reported, file, line);
        T* z = D.at(r, k);
        if (!acemu::in_ub(c, z)) return;
        *z = *x;
        acemu::mark_written(c, z, sizeof(T));
    });
}
}  // namespace detail
template <typename T, bool isSetMask = true>
inline void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask, const uint8_t repeatTime,
                 const CopyRepeatParams& repeatParams, ACEMU_SITE_PARAMS) {
    ACEMU_REQUIRE_DTYPE(Copy, T);
    acemu::Mask m = acemu::mask_cont<256 / sizeof(T)>(acemu::ctx(), "Copy", isSetMask, mask, ACEMU_SITE);
    detail::copy_repeat(dst, src, m, repeatTime, repeatParams, ACEMU_SITE);
}
template <typename T, bool isSetMask = true>
inline void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[], const uint8_t repeatTime,
                 const CopyRepeatParams& repeatParams, ACEMU_SITE_PARAMS) {
    ACEMU_REQUIRE_DTYPE(Copy, T);
    acemu::Mask m = acemu::mask_bits<256 / sizeof(T)>(acemu::ctx(), "Copy", isSetMask, mask, ACEMU_SITE);
    detail::copy_repeat(dst, src, m, repeatTime, repeatParams, ACEMU_SITE);
}

// ---- ShiftLeft / ShiftRight ------------------------------------------------------------------
// (reference: ShiftLeft, ShiftRight; the vshr intrinsic's page for roundEn) Each element shifted by
// scalarValue bits: unsigned types logically; signed types arithmetically (right: the sign bit
// copied in; left: the sign bit kept, the bit below it dropped, as the page's int16 example shows).
// roundEn (ShiftRight, signed types only) adds 1 when the last bit shifted out is 1. A shift
// beyond the type's width (16 / 32) is api-misuse, as the intrinsic's page bounds it.
// @api ShiftLeft, ShiftRight | yes: count and mask / repeat forms; roundEn for signed types | ShiftLeft
namespace detail {
template <typename T> inline T shift_left(T a, T s) {
    using U = typename std::make_unsigned<T>::type;
    constexpr int bits = int(sizeof(T) * 8);
    const int n = int(s);
    if (n <= 0) return a;
    if (n >= bits) return std::is_signed<T>::value ? T(U(a) & (U(1) << (bits - 1))) : T(0);
    U v = U(U(a) << n);
    if (std::is_signed<T>::value) v = U((v & ~(U(1) << (bits - 1))) | (U(a) & (U(1) << (bits - 1))));
    return T(v);
}
template <typename T> inline T shift_right(T a, T s, bool round) {
    constexpr int bits = int(sizeof(T) * 8);
    const int n = int(s);
    if (n <= 0) return a;
    if (n >= bits) return std::is_signed<T>::value ? T(a < 0 ? -1 : 0) : T(0);
    T r = T(a >> n);  // arithmetic for signed (C++20 defines it; g++ does so in C++17 too), logical for unsigned
    if (std::is_signed<T>::value && round && ((a >> (n - 1)) & 1)) r = T(r + 1);
    return r;
}
template <typename T> inline void check_shift(const char* api, T s, const char* file, int line) {
    if (int64_t(s) < 0 || int64_t(s) > int64_t(sizeof(T) * 8)) {
        acemu::rt::report(acemu::API_MISUSE, api, file, line, "%s by %lld bits: the distance is 0..%d for this type (vshr / vshl pages)",
                          api, (long long)s, int(sizeof(T) * 8));
    }
}
}  // namespace detail
template <typename T, bool isSetMask = true>
inline void ShiftLeft(const LocalTensor<T>& dst, const LocalTensor<T>& src, const acemu::nd<T>& scalarValue, const int32_t& count,
                      ACEMU_SITE_PARAMS) {
    ACEMU_REQUIRE_DTYPE(ShiftLeft, T);
    const T s = scalarValue;
    detail::check_shift("ShiftLeft", s, ACEMU_SITE);
    acemu::count_unary("ShiftLeft", dst, src, count, [s](T a) -> T { return detail::shift_left(a, s); }, ACEMU_SITE);
}
template <typename T, bool isSetMask = true>
inline void ShiftRight(const LocalTensor<T>& dst, const LocalTensor<T>& src, const acemu::nd<T>& scalarValue, const int32_t& count,
                       ACEMU_SITE_PARAMS) {
    ACEMU_REQUIRE_DTYPE(ShiftRight, T);
    const T s = scalarValue;
    detail::check_shift("ShiftRight", s, ACEMU_SITE);
    acemu::count_unary("ShiftRight", dst, src, count, [s](T a) -> T { return detail::shift_right(a, s, false); }, ACEMU_SITE);
}
#define ACEMU_SHIFT_REPEAT(NAME, MASKT, MASKFN, EXTRA, EXPR)                                                                         \
    template <typename T, bool isSetMask = true>                                                                                     \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const acemu::nd<T>& scalarValue, MASKT mask,              \
                     const uint8_t repeatTime, const UnaryRepeatParams& repeatParams EXTRA, ACEMU_SITE_PARAMS) {                      \
        ACEMU_REQUIRE_DTYPE(NAME, T);                                                                                                \
        const T s = scalarValue;                                                                                                     \
        detail::check_shift(#NAME, s, ACEMU_SITE);                                                                                   \
        acemu::Mask m = acemu::MASKFN<256 / sizeof(T)>(acemu::ctx(), #NAME, isSetMask, mask, ACEMU_SITE);                            \
        acemu::repeat_unary(#NAME, dst.acemu_ptr(), src.acemu_ptr(), m, repeatTime, repeatParams, [&](T a) -> T { return EXPR; },    \
                            ACEMU_SITE);                                                                                             \
    }
#define ACEMU_COMMA ,
ACEMU_SHIFT_REPEAT(ShiftLeft, uint64_t, mask_cont, , detail::shift_left(a, s))
ACEMU_SHIFT_REPEAT(ShiftLeft, const uint64_t*, mask_bits, , detail::shift_left(a, s))
ACEMU_SHIFT_REPEAT(ShiftRight, uint64_t, mask_cont, ACEMU_COMMA bool roundEn = false, detail::shift_right(a, s, roundEn))
ACEMU_SHIFT_REPEAT(ShiftRight, const uint64_t*, mask_bits, ACEMU_COMMA bool roundEn = false, detail::shift_right(a, s, roundEn))
#undef ACEMU_COMMA
#undef ACEMU_SHIFT_REPEAT

}  // namespace AscendC
