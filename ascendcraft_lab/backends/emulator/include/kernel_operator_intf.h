// A header name of the device toolchain that kernels include directly for the kernel API:
// the emulator has it all in kernel_operator.h.
// @api kernel_type.h, kernel_tensor_impl.h, kernel_operator_intf.h | yes: header names kernels include; each includes kernel_operator.h | -
#pragma once
#include "kernel_operator.h"
