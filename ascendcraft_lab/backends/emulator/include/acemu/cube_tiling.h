// TCubeTiling: the Matmul API's tiling, shared by the host (matmul_tiling::...::GetTiling fills it)
// and the kernel (Matmul::Init reads it). Fields as the reference page "TCubeTiling结构体" lists them
// (07_0673); all int32_t, a plain C struct, so the host's SaveToBuffer bytes are what the kernel
// copies back (GET_TILING_DATA, or a CopyTiling loop over uint32_t words). The layout is the
// emulator's own: both sides compile against this one definition.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#define ACEMU_CUBE_TILING_FIELDS(X)                                                                        \
    X(usedCoreNum) X(M) X(N) X(Ka) X(Kb) X(singleCoreM) X(singleCoreN) X(singleCoreK) X(baseM) X(baseN)    \
    X(baseK) X(depthA1) X(depthB1) X(stepM) X(stepN) X(isBias) X(transLength) X(iterateOrder) X(shareMode) \
    X(shareL1Size) X(shareL0CSize) X(shareUbSize) X(batchM) X(batchN) X(singleBatchM) X(singleBatchN)      \
    X(stepKa) X(stepKb) X(depthAL1CacheUB) X(depthBL1CacheUB) X(dbL0A) X(dbL0B) X(dbL0C)                   \
    X(ALayoutInfoB) X(ALayoutInfoS) X(ALayoutInfoN) X(ALayoutInfoG) X(ALayoutInfoD)                        \
    X(BLayoutInfoB) X(BLayoutInfoS) X(BLayoutInfoN) X(BLayoutInfoG) X(BLayoutInfoD)                        \
    X(CLayoutInfoB) X(CLayoutInfoS1) X(CLayoutInfoN) X(CLayoutInfoG) X(CLayoutInfoS2) X(BatchNum)

struct TCubeTiling {
#define ACEMU_FIELD(f) int32_t f = 0;
    ACEMU_CUBE_TILING_FIELDS(ACEMU_FIELD)
#undef ACEMU_FIELD
    // The host side's accessors (optiling::TCubeTiling in the device toolkit).
#define ACEMU_ACCESSORS(f) \
    void set_##f(int32_t v) { f = v; } \
    int32_t get_##f() const { return f; }
    ACEMU_CUBE_TILING_FIELDS(ACEMU_ACCESSORS)
#undef ACEMU_ACCESSORS
    void SaveToBuffer(void* buf, size_t cap) const { std::memcpy(buf, this, sizeof(*this) < cap ? sizeof(*this) : cap); }
    size_t GetDataSize() const { return sizeof(*this); }
};

namespace optiling {
using ::TCubeTiling;
}
namespace AscendC {
namespace tiling {
using ::TCubeTiling;
}
}  // namespace AscendC
