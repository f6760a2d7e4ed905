// ListTensorDesc / TensorDesc (part of the kernel API).
#pragma once
#include "kernel_operator.h"
