// Host tiling of the high-level APIs, and the tiling-data macros and PlatformAscendC they go with.
#pragma once
#include "acemu/tiling.h"
#include "acemu/host/tiling_api.h"
