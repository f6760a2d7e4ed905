// A header name of the device toolchain that kernels include directly for LocalTensor / GlobalTensor:
// the emulator has it all in kernel_operator.h.
#pragma once
#include "kernel_operator.h"
