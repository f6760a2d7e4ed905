// Host-side tiling of the high-level APIs: matmul_tiling::MatmulApiTiling / MultiCoreMatmulTiling.
#pragma once
#include "../acemu/matmul_tiling.h"
