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
