// Tiling structures of the high-level Pad / UnPad / SoftMax / RmsNorm APIs, shared by the host (PadTilingFunc,
// UnPadTilingFunc, SoftMaxTilingFunc fill them) and the kernel (Pad, UnPad, SoftMax read them). A kernel's TilingData holds one
// as a TILING_DATA_FIELD_DEF_STRUCT field; the layout is the emulator's own (the reference leaves
// the fields unspecified), which is all both sides need.
//
// The structs live in acemu::api_tiling and get their reference names (global, optiling::,
// AscendC::tiling::) only from the headers a kernel or host file includes to use them:
// tiling/tiling_api.h and kernel_tiling/kernel_tiling.h (adv_tiling_names.h). kernel_operator.h
// alone declares only PadTiling and UnPadTiling globally (acemu/toolchain.h: kernels use them
// so), so a kernel's own struct of another name (RmsNormTiling for an op rms_norm) does not collide.
#pragma once
#include <cstdint>

namespace acemu {
namespace api_tiling {

struct PadTiling {
    uint32_t srcHeight = 0;
    uint32_t srcWidth = 0;     // elements per source row, valid and redundant
    uint32_t srcOriWidth = 0;  // valid elements per source row
    uint32_t typeSize = 0;
    uint32_t tmpBufferBytes = 0;
};
struct UnPadTiling {
    uint32_t srcHeight = 0;
    uint32_t srcWidth = 0;
    uint32_t typeSize = 0;
    uint32_t tmpBufferBytes = 0;
};
struct SoftMaxTiling {
    uint32_t srcM = 0;      // rows: the product of all but the last dimension
    uint32_t srcK = 0;      // elements per row
    uint32_t srcSize = 0;   // srcM * srcK
    uint32_t typeSize = 0;
    uint32_t tmpBufferBytes = 0;
};
struct RmsNormTiling {
    uint32_t bLength = 0;          // [B, S, H]: normalised over H
    uint32_t sLength = 0;
    uint32_t hLength = 0;          // elements per row in the tensor (32-B aligned)
    uint32_t originalHLength = 0;  // valid elements per row
    uint32_t typeSize = 0;
    uint32_t tmpBufferBytes = 0;
};

}  // namespace api_tiling
}  // namespace acemu
