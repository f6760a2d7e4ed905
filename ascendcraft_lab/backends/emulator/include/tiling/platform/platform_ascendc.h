// PlatformAscendC for host tiling functions.
#pragma once
#include "acemu/host/platform.h"
