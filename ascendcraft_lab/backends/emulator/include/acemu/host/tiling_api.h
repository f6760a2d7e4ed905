// Host tiling functions of the high-level APIs: Pad / UnPad (PadTilingFunc, UnPadTilingFunc and
// their temporary-space queries), SoftMax (SoftMaxTilingFunc, GetSoftMaxMax/MinTmpSize) and
// BroadCast's temporary-space query.
// Clean-room implementation from Huawei's public reference pages (Pad Tiling, UnPad Tiling,
// GetBroadCastMaxMinTmpSize). The emulated kernels need no temporary space; the sizes reported are
// the emulator's (one padded row at least, the whole padded tensor at most), never zero, so a
// kernel that reserves them keeps room for the device's own use.
#pragma once
#include "../adv_tiling_names.h"
#include "graph.h"
#include "platform.h"

namespace AscendC {
namespace detail {
inline uint32_t aligned_row_bytes(const ge::Shape& s, uint32_t typeSize) {
    const uint64_t w = s.GetDimNum() ? uint64_t(s.GetDim(s.GetDimNum() - 1)) : 0;
    return uint32_t((w * typeSize + 31) / 32 * 32);
}
inline uint32_t rows(const ge::Shape& s) { return s.GetDimNum() >= 2 ? uint32_t(s.GetDim(0)) : 1u; }
}  // namespace detail

// @api PadTilingFunc, GetPadMaxMinTmpSize, UnPadTilingFunc, GetUnPadMaxMinTmpSize, GetBroadCastMaxMinTmpSize | yes | Pad Tiling
inline void GetPadMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, uint32_t& maxValue, uint32_t& minValue) {
    minValue = detail::aligned_row_bytes(srcShape, typeSize);
    maxValue = minValue * detail::rows(srcShape);
}
inline void PadTilingFunc(const ge::Shape srcShape, const ge::Shape oriSrcShape, const uint32_t stackBufferSize, const uint32_t typeSize,
                          PadTiling& tiling) {
    tiling.srcHeight = detail::rows(srcShape);
    tiling.srcWidth = uint32_t(srcShape.GetDim(srcShape.GetDimNum() - 1));
    tiling.srcOriWidth = uint32_t(oriSrcShape.GetDim(oriSrcShape.GetDimNum() - 1));
    tiling.typeSize = typeSize;
    tiling.tmpBufferBytes = stackBufferSize;
}
inline void GetUnPadMaxMinTmpSize(const platform_ascendc::PlatformAscendC& ascendcPlatform, const ge::Shape& srcShape, const uint32_t typeSize,
                                  uint32_t& maxValue, uint32_t& minValue) {
    (void)ascendcPlatform;
    minValue = detail::aligned_row_bytes(srcShape, typeSize);
    maxValue = minValue * detail::rows(srcShape);
}
inline void UnPadTilingFunc(const ge::Shape srcShape, const uint32_t stackBufferSize, const uint32_t typeSize, UnPadTiling& tiling) {
    tiling.srcHeight = detail::rows(srcShape);
    tiling.srcWidth = uint32_t(srcShape.GetDim(srcShape.GetDimNum() - 1));
    tiling.typeSize = typeSize;
    tiling.tmpBufferBytes = stackBufferSize;
}
inline void GetBroadCastMaxMinTmpSize(const platform_ascendc::PlatformAscendC& ascendcPlatform, const ge::Shape& srcShape, const ge::Shape& dstShape,
                                      uint32_t typeSize, const bool isReuseSource, uint32_t& maxValue, uint32_t& minValue) {
    (void)ascendcPlatform;
    (void)srcShape;
    (void)isReuseSource;
    minValue = 32;
    maxValue = uint32_t((uint64_t(dstShape.GetShapeSize()) * typeSize + 31) / 32 * 32);
}

// SoftMax works on [m, k]: m the product of all but the last dimension. The emulated SoftMax needs
// no temporary space; the sizes reported are small (a block per row at least, the whole tensor at
// most) so that a kernel giving the minimum to InitBuffer beside its own tiles still fits.
// @api SoftMaxTilingFunc, GetSoftMaxMaxTmpSize, GetSoftMaxMinTmpSize | yes | SoftMax Tiling
namespace detail {
inline uint64_t softmax_rows(const ge::Shape& s) {
    uint64_t m = 1;
    for (size_t i = 0; i + 1 < s.GetDimNum(); ++i) m *= uint64_t(s.GetDim(i));
    return m;
}
inline uint64_t softmax_cols(const ge::Shape& s) { return s.GetDimNum() ? uint64_t(s.GetDim(s.GetDimNum() - 1)) : 1; }
}  // namespace detail
inline uint32_t GetSoftMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t dataTypeSize, const bool isReuseSource) {
    (void)dataTypeSize;
    (void)isReuseSource;
    return uint32_t(32 * detail::softmax_rows(srcShape));
}
inline uint32_t GetSoftMaxMaxTmpSize(const ge::Shape& srcShape, const uint32_t dataTypeSize, const bool isReuseSource) {
    (void)dataTypeSize;
    (void)isReuseSource;
    return uint32_t(detail::softmax_rows(srcShape) * ((detail::softmax_cols(srcShape) * sizeof(float) + 31) / 32 * 32 + 32));
}
inline void SoftMaxTilingFunc(const ge::Shape& srcShape, const uint32_t dataTypeSize, const uint32_t localWorkSpaceSize,
                              SoftMaxTiling& softmaxTiling) {
    softmaxTiling.srcM = uint32_t(detail::softmax_rows(srcShape));
    softmaxTiling.srcK = uint32_t(detail::softmax_cols(srcShape));
    softmaxTiling.srcSize = softmaxTiling.srcM * softmaxTiling.srcK;
    softmaxTiling.typeSize = dataTypeSize;
    softmaxTiling.tmpBufferBytes = localWorkSpaceSize;
}
inline bool IsBasicBlockInSoftMax(optiling::SoftMaxTiling& tiling, const uint32_t dataTypeSize = 2) {
    (void)dataTypeSize;
    return tiling.srcM % 8 == 0 && tiling.srcK % 64 == 0;
}

// RmsNorm works on [B, S, H], normalising over H. The sizes reported are small, as for SoftMax.
// @api GetRmsNormMaxMinTmpSize, GetRmsNormTilingInfo | yes | RmsNorm Tiling
inline bool GetRmsNormMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, uint32_t& maxValue, uint32_t& minValue,
                                    const bool isBasicBlock = false) {
    (void)isBasicBlock;
    if (srcShape.GetDimNum() != 3 || typeSize == 0) return false;
    const uint64_t rows = uint64_t(srcShape.GetDim(0)) * uint64_t(srcShape.GetDim(1));
    minValue = uint32_t(32 * rows);
    maxValue = uint32_t(rows * ((uint64_t(srcShape.GetDim(2)) * sizeof(float) + 31) / 32 * 32 + 32));
    return true;
}
inline bool GetRmsNormTilingInfo(const ge::Shape& srcShape, const ge::Shape& originSrcShape, const uint32_t stackBufferByteSize,
                                 const uint32_t typeSize, RmsNormTiling& tiling, const bool isBasicBlock = false) {
    (void)isBasicBlock;
    if (srcShape.GetDimNum() != 3 || originSrcShape.GetDimNum() != 3 || typeSize == 0) return false;
    tiling.bLength = uint32_t(srcShape.GetDim(0));
    tiling.sLength = uint32_t(srcShape.GetDim(1));
    tiling.hLength = uint32_t(srcShape.GetDim(2));
    tiling.originalHLength = uint32_t(originSrcShape.GetDim(2));
    tiling.typeSize = typeSize;
    tiling.tmpBufferBytes = stackBufferByteSize;
    return (uint64_t(tiling.hLength) * typeSize) % 32 == 0 && tiling.originalHLength <= tiling.hLength;
}
}  // namespace AscendC

// The reference lists these host functions both unqualified and under AscendC.
using AscendC::GetBroadCastMaxMinTmpSize;
using AscendC::GetPadMaxMinTmpSize;
using AscendC::GetUnPadMaxMinTmpSize;
using AscendC::PadTilingFunc;
using AscendC::GetSoftMaxMaxTmpSize;
using AscendC::GetSoftMaxMinTmpSize;
using AscendC::SoftMaxTilingFunc;
using AscendC::GetRmsNormMaxMinTmpSize;
using AscendC::GetRmsNormTilingInfo;
using AscendC::UnPadTilingFunc;
