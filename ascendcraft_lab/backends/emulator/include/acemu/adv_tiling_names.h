// The reference names of the high-level APIs' tiling structs (see adv_tiling.h): global, as kernels
// write them, and under optiling:: and AscendC::tiling::, as host code does.
#pragma once
#include "adv_tiling.h"

using acemu::api_tiling::PadTiling;  // also in acemu/toolchain.h
using acemu::api_tiling::RmsNormTiling;
using acemu::api_tiling::SoftMaxTiling;
using acemu::api_tiling::UnPadTiling;
namespace optiling {
using acemu::api_tiling::PadTiling;
using acemu::api_tiling::RmsNormTiling;
using acemu::api_tiling::SoftMaxTiling;
using acemu::api_tiling::UnPadTiling;
}  // namespace optiling
namespace AscendC {
namespace tiling {
using acemu::api_tiling::PadTiling;
using acemu::api_tiling::RmsNormTiling;
using acemu::api_tiling::SoftMaxTiling;
using acemu::api_tiling::UnPadTiling;
}  // namespace tiling
}  // namespace AscendC
