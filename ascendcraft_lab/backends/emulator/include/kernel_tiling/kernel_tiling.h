// Kernel-side tiling structs of the high-level APIs (TCubeTiling for Matmul).
#pragma once
#include "../acemu/cube_tiling.h"
