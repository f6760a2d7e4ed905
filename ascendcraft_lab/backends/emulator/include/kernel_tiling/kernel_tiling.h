// The kernel-side tiling structures of the high-level APIs (PadTiling, UnPadTiling, SoftMaxTiling,
// RmsNormTiling) under their reference names.
#pragma once
#include "acemu/adv_tiling_names.h"
