// torch_npu's op adapter header, on the emulator: what extensions include it for.
#pragma once
#include "../../../../pytorch_npu_helper.hpp"
#include "../../core/npu/NPUStream.h"
