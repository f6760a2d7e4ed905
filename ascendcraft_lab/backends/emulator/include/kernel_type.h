// A header name of the device toolchain that kernels include directly for the kernel's types and qualifiers (half, GM_ADDR, __aicore__ ...):
// the emulator has it all in kernel_operator.h.
#pragma once
#include "kernel_operator.h"
