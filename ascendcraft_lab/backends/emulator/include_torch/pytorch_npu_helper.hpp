// torch_npu's helper for calling aclnn operators from a torch extension, on the emulator:
// EXEC_NPU_CMD runs the registered op (OpDef, TilingFunc, kernel) on the CPU tensors.
#pragma once
#include "acemu_torch.h"

// @api EXEC_NPU_CMD | yes: runs the registered op on the emulator | torch_npu
#define EXEC_NPU_CMD(aclnn_api, ...) acemu_torch::exec_cmd(#aclnn_api, __VA_ARGS__)
