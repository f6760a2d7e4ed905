// Kernel-side tiling structs of the high-level APIs under their reference names: TCubeTiling for
// Matmul, PadTiling, UnPadTiling, SoftMaxTiling and RmsNormTiling.
#pragma once
#include "../acemu/cube_tiling.h"
#include "../acemu/adv_tiling_names.h"
