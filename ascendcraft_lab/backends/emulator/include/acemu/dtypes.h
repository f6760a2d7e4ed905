// The element types each vector API takes on Atlas A2/A3, as its API reference page lists them
// ("支持的数据类型"). An API instantiated with another type is a compile error naming the page; the
// emulator README's compatibility table is generated from these lines.
#pragma once
#include <type_traits>

// ACEMU_DT_<API>: the page's types, in its order.
#define ACEMU_DT_Add half, float, int16_t, int32_t
#define ACEMU_DT_Sub half, float, int16_t, int32_t
#define ACEMU_DT_Mul half, float, int16_t, int32_t
#define ACEMU_DT_Div half, float
#define ACEMU_DT_Max half, float, int16_t, int32_t
#define ACEMU_DT_Min half, float, int16_t, int32_t
#define ACEMU_DT_And int16_t, uint16_t
#define ACEMU_DT_Or int16_t, uint16_t
#define ACEMU_DT_Adds half, float, int16_t, int32_t
#define ACEMU_DT_Muls half, float, int16_t, int32_t
#define ACEMU_DT_Maxs half, float, int16_t, int32_t
#define ACEMU_DT_Mins half, float, int16_t, int32_t
#define ACEMU_DT_LeakyRelu half, float
#define ACEMU_DT_Exp half, float
#define ACEMU_DT_Ln half, float
#define ACEMU_DT_Abs half, float
#define ACEMU_DT_Sqrt half, float
#define ACEMU_DT_Rsqrt half, float
#define ACEMU_DT_Reciprocal half, float
#define ACEMU_DT_Relu half, float, int32_t
#define ACEMU_DT_Not int16_t, uint16_t
#define ACEMU_DT_Axpy half, float
#define ACEMU_DT_Duplicate half, bfloat16_t, float, int16_t, uint16_t, int32_t, uint32_t
#define ACEMU_DT_Copy uint16_t, int16_t, half, bfloat16_t, uint32_t, int32_t, float
#define ACEMU_DT_ShiftLeft uint16_t, int16_t, uint32_t, int32_t
#define ACEMU_DT_ShiftRight uint16_t, int16_t, uint32_t, int32_t
#define ACEMU_DT_Compare half, float, int32_t
#define ACEMU_DT_CompareScalar half, float, int32_t
#define ACEMU_DT_Select half, float
#define ACEMU_DT_ReduceSum half, float
#define ACEMU_DT_ReduceMax half, float
#define ACEMU_DT_ReduceMin half, float
#define ACEMU_DT_WholeReduceSum half, float
#define ACEMU_DT_WholeReduceMax half, float
#define ACEMU_DT_WholeReduceMin half, float
#define ACEMU_DT_BlockReduceSum half, float
#define ACEMU_DT_BlockReduceMax half, float
#define ACEMU_DT_BlockReduceMin half, float
#define ACEMU_DT_PairReduceSum half, float
#define ACEMU_DT_RepeatReduceSum half, float
#define ACEMU_DT_CreateVecIndex half, float, int16_t, int32_t
#define ACEMU_DT_Gather half, bfloat16_t, float, int16_t, uint16_t, int32_t, uint32_t
#define ACEMU_DT_Sort32 half, float
#define ACEMU_DT_MrgSort half, float
#define ACEMU_DT_Extract half, float
#define ACEMU_DT_Brcb int16_t, uint16_t, int32_t, uint32_t, half, bfloat16_t, float
#define ACEMU_DT_GatherMask half, bfloat16_t, uint16_t, int16_t, float, uint32_t, int32_t
#define ACEMU_DT_BroadCast uint8_t, int8_t, half, float
#define ACEMU_DT_Broadcast uint8_t, int8_t, half, float
#define ACEMU_DT_Pad int16_t, uint16_t, half, int32_t, uint32_t, float
#define ACEMU_DT_UnPad int16_t, uint16_t, half, int32_t, uint32_t, float
#define ACEMU_DT_SoftMax half, float
#define ACEMU_DT_RmsNorm half, float
#define ACEMU_DT_Fill uint16_t, int16_t, half, uint32_t, int32_t, float
#define ACEMU_DT_InitGlobalMemory uint16_t, int16_t, half, uint32_t, int32_t, float

namespace acemu {
template <typename T, typename... Allowed> constexpr bool one_of() { return (std::is_same<T, Allowed>::value || ...); }
}  // namespace acemu

#define ACEMU_STR_(...) #__VA_ARGS__
#define ACEMU_STR(...) ACEMU_STR_(__VA_ARGS__)
// In an API's body: its element type T must be on its page.
#define ACEMU_REQUIRE_DTYPE(API, T)                                                                   \
    static_assert(acemu::one_of<T, ACEMU_DT_##API>(), #API " supports only " ACEMU_STR(ACEMU_DT_##API) \
                  " on Atlas A2/A3 (API reference: " #API ")")
