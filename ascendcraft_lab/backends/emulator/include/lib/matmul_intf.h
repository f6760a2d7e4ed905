// The high-level Matmul API, as kernels include it: #include "lib/matmul_intf.h".
#pragma once
#include "../kernel_operator.h"
#include "../acemu/matmul.h"
