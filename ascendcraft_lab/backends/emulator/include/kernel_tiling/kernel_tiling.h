// The kernel-side tiling structures of the high-level APIs (PadTiling, UnPadTiling).
#pragma once
#include "acemu/adv_tiling.h"
