// torch_npu's umbrella header, on the emulator.
#pragma once
#include "csrc/core/npu/NPUStream.h"
