// Host-side tiling of the high-level APIs (matmul_tiling::MatmulApiTiling / MultiCoreMatmulTiling,
// Pad / UnPad / SoftMax / RmsNorm / BroadCast tiling), with the tiling-data macros and
// PlatformAscendC they go with.
#pragma once
#include "../acemu/tiling.h"
#include "../acemu/matmul_tiling.h"
#include "../acemu/host/tiling_api.h"
