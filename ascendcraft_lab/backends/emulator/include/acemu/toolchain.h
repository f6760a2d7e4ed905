// Names the device toolchain provides at global scope, which kernels use without AscendC:: and
// without `using namespace AscendC` (production kernels of serving stacks do): the scalar min / max
// builtins, GetBlockIdx / GetBlockNum, the Pad / UnPad tiling structs. The Matmul configurations
// CFG_NORM / CFG_MDL are global too, from lib/matmul_intf.h (acemu/matmul.h).
//
// Each global name is the AscendC one itself (a using-declaration), so a kernel that also writes
// `using namespace AscendC` sees one entity, not two. min / max take two scalars of possibly
// different types, as the builtins do (the result has their common type); a same-type call with
// std::min in scope picks std::min, which is more specialised.
#pragma once
#include <type_traits>
#include "adv_tiling.h"
#include "pipe.h"

// @api min, max, GetBlockIdx, GetBlockNum, PadTiling, UnPadTiling (global) | yes: supplied by the toolchain at global scope, not on an API page | -
template <typename T, typename U>
__aicore__ inline constexpr std::common_type_t<T, U> min(T a, U b) {
    using R = std::common_type_t<T, U>;
    return R(b) < R(a) ? R(b) : R(a);
}
template <typename T, typename U>
__aicore__ inline constexpr std::common_type_t<T, U> max(T a, U b) {
    using R = std::common_type_t<T, U>;
    return R(a) < R(b) ? R(b) : R(a);
}
using AscendC::GetBlockIdx;
using AscendC::GetBlockNum;
using acemu::api_tiling::PadTiling;
using acemu::api_tiling::UnPadTiling;

// ---- unqualified calls with explicit template arguments ------------------------------------------
// Kernels call the API unqualified with explicit template arguments and no `using namespace AscendC`
// (`ReduceSum<float>(dst, src, work, n)`): the device compiler (clang-based) finds AscendC::ReduceSum
// by argument-dependent lookup, as C++20 does. C++17 (g++ -std=c++17, the emulator's mode) does that
// only when a function template of that name is visible at the call; otherwise `ReduceSum < float`
// is a comparison. So each such API name has a global anchor template here: it takes a type no
// kernel can name, so it is never chosen, and with it visible ADL finds the AscendC function.
// Chosen over -std=c++20, which would also change what else kernels mean (aggregates with declared
// constructors, comparison rewriting) and what the torch extensions build with. Short generic
// names a kernel may well declare itself at global scope (And, Or, Not, Fill, Gather, Pad, Extract)
// have no anchor: write AscendC:: for those, or `using namespace AscendC`.
namespace acemu {
struct adl_anchor_only {};  // never constructed: the anchors are never viable
}  // namespace acemu
#define ACEMU_ADL_ANCHOR(name) \
    template <typename... Ts>  \
    void name(acemu::adl_anchor_only);
// @api ReduceSum<T>(...) and the other API names called unqualified | yes: ADL with explicit template arguments, by global anchors (C++17 kept); not And, Or, Not, Fill, Gather, Pad, Extract | -
ACEMU_ADL_ANCHOR(Add)
ACEMU_ADL_ANCHOR(Sub)
ACEMU_ADL_ANCHOR(Mul)
ACEMU_ADL_ANCHOR(Div)
ACEMU_ADL_ANCHOR(Max)
ACEMU_ADL_ANCHOR(Min)
ACEMU_ADL_ANCHOR(Adds)
ACEMU_ADL_ANCHOR(Muls)
ACEMU_ADL_ANCHOR(Maxs)
ACEMU_ADL_ANCHOR(Mins)
ACEMU_ADL_ANCHOR(LeakyRelu)
ACEMU_ADL_ANCHOR(Exp)
ACEMU_ADL_ANCHOR(Ln)
ACEMU_ADL_ANCHOR(Abs)
ACEMU_ADL_ANCHOR(Sqrt)
ACEMU_ADL_ANCHOR(Rsqrt)
ACEMU_ADL_ANCHOR(Reciprocal)
ACEMU_ADL_ANCHOR(Relu)
ACEMU_ADL_ANCHOR(Axpy)
ACEMU_ADL_ANCHOR(Duplicate)
ACEMU_ADL_ANCHOR(Cast)
ACEMU_ADL_ANCHOR(Compare)
ACEMU_ADL_ANCHOR(CompareScalar)
ACEMU_ADL_ANCHOR(Select)
ACEMU_ADL_ANCHOR(Brcb)
ACEMU_ADL_ANCHOR(GatherMask)
ACEMU_ADL_ANCHOR(CreateVecIndex)
ACEMU_ADL_ANCHOR(ReduceSum)
ACEMU_ADL_ANCHOR(ReduceMax)
ACEMU_ADL_ANCHOR(ReduceMin)
ACEMU_ADL_ANCHOR(WholeReduceSum)
ACEMU_ADL_ANCHOR(WholeReduceMax)
ACEMU_ADL_ANCHOR(WholeReduceMin)
ACEMU_ADL_ANCHOR(BlockReduceSum)
ACEMU_ADL_ANCHOR(BlockReduceMax)
ACEMU_ADL_ANCHOR(BlockReduceMin)
ACEMU_ADL_ANCHOR(PairReduceSum)
ACEMU_ADL_ANCHOR(RepeatReduceSum)
ACEMU_ADL_ANCHOR(Sort32)
ACEMU_ADL_ANCHOR(MrgSort)
ACEMU_ADL_ANCHOR(BroadCast)
ACEMU_ADL_ANCHOR(Broadcast)
ACEMU_ADL_ANCHOR(SoftMax)
ACEMU_ADL_ANCHOR(RmsNorm)
ACEMU_ADL_ANCHOR(DataCopy)
ACEMU_ADL_ANCHOR(DataCopyPad)
ACEMU_ADL_ANCHOR(Mmad)
ACEMU_ADL_ANCHOR(LoadData)
ACEMU_ADL_ANCHOR(Fixpipe)
#undef ACEMU_ADL_ANCHOR
