// OpDef, OP_ADD and the gert contexts of a registered op's host side.
#pragma once
#include "acemu/host/op.h"
