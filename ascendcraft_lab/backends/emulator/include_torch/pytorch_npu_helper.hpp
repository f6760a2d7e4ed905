// torch_npu's helper for calling aclnn operators from a torch extension, on the emulator:
// EXEC_NPU_CMD runs the registered op (OpDef, TilingFunc, kernel) on the CPU tensors.
#pragma once
#include "acemu_torch.h"

#define EXEC_NPU_CMD(aclnn_api, ...) acemu_torch::exec_cmd(#aclnn_api, __VA_ARGS__)
