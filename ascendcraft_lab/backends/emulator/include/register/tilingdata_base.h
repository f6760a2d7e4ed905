// The tiling-data macros of a registered op's host side (BEGIN_TILING_DATA_DEF ...).
#pragma once
#include "acemu/tiling.h"
#include "acemu/host/graph.h"
