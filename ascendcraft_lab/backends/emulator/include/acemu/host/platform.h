// platform_ascendc::PlatformAscendC / PlatformAscendCManager: the SoC a host tiling function asks
// about. Every number comes from the emulated SoC (acemu/soc.h, i.e. ascendcraft_lab/soc.py), so
// a kernel sized from GetCoreMemSize(UB) fits the emulator's UB check exactly.
// Clean-room implementation from Huawei's public PlatformAscendC reference pages.
#pragma once
#include <cstdint>
#include <cstring>
#include "../soc.h"

namespace fe {
class PlatFormInfos {};  // opaque: TilingContext::GetPlatformInfo hands one to PlatformAscendC
}  // namespace fe

namespace platform_ascendc {

enum class CoreMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6, FB = 7, BT = 8, RESERVED };
enum class SocVersion { ASCEND910 = 0, ASCEND910B, ASCEND910_93, ASCEND310P, ASCEND310B, ASCEND610, ASCEND910_95, RESERVED_VERSION = 99999 };
enum class ReservedSize { RESERVED_SIZE_8K, RESERVED_SIZE_16K, RESERVED_SIZE_32K };

// @api PlatformAscendC, PlatformAscendCManager, GetCoreNum, GetCoreNumAic, GetCoreNumAiv, GetCoreMemSize, GetSocVersion, GetLibApiWorkSpaceSize, CalcTschBlockDim, ReserveLocalMemory | yes: the SoC table's numbers | PlatformAscendC
class PlatformAscendC {
public:
    PlatformAscendC() = default;
    explicit PlatformAscendC(fe::PlatFormInfos* platformInfo) { (void)platformInfo; }

    // Vector cores on the separated (910B) architecture, AI cores on 310P: the cores a vector kernel uses.
    uint32_t GetCoreNum() const { return soc().vector_cores; }
    uint32_t GetCoreNumAic() const { return soc().cube_cores; }
    uint32_t GetCoreNumAiv() const { return soc().vector_cores; }
    uint32_t GetCoreNumVector() const { return 0; }  // the separate Vector Cores of Atlas inference cards; none here
    void GetCoreMemSize(const CoreMemType& memType, uint64_t& size) const {
        const acemu::SocInfo& s = soc();
        switch (memType) {
            case CoreMemType::UB: size = s.ub_usable - reserved_; break;
            case CoreMemType::L1: size = s.l1_bytes; break;
            case CoreMemType::L0_A: size = s.l0a_bytes; break;
            case CoreMemType::L0_B: size = s.l0b_bytes; break;
            case CoreMemType::L0_C: size = s.l0c_bytes; break;
            case CoreMemType::L2: size = s.l2_bytes; break;
            case CoreMemType::HBM: size = s.hbm_bytes; break;
            default: size = 0; break;
        }
    }
    SocVersion GetSocVersion() const {
        const char* n = soc().name;
        if (std::strncmp(n, "Ascend910B", 10) == 0) return SocVersion::ASCEND910B;
        if (std::strncmp(n, "Ascend310P", 10) == 0) return SocVersion::ASCEND310P;
        return SocVersion::RESERVED_VERSION;
    }
    uint32_t GetLibApiWorkSpaceSize() const { return uint32_t(soc().lib_api_workspace); }
    // The blockDim of a launch of sliceNum slices: for a mixed cube/vector kernel each block is an
    // AI core with aivCoreNum / aicCoreNum vector cores.
    uint32_t CalcTschBlockDim(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const {
        if (aicCoreNum == 0 || aivCoreNum == 0 || aivCoreNum <= aicCoreNum) return sliceNum;
        const uint32_t ratio = aivCoreNum / aicCoreNum;
        return (sliceNum + ratio - 1) / ratio;
    }
    // Keeps part of the UB for the kernel's own use: GetCoreMemSize(UB) reports what is left.
    void ReserveLocalMemory(ReservedSize size) {
        reserved_ = size == ReservedSize::RESERVED_SIZE_8K ? 8 * 1024 : size == ReservedSize::RESERVED_SIZE_16K ? 16 * 1024 : 32 * 1024;
    }

private:
    static const acemu::SocInfo& soc() { return acemu::rt::soc_info(); }
    uint64_t reserved_ = 0;
};

class PlatformAscendCManager {
public:
    static PlatformAscendC* GetInstance() {
        static PlatformAscendC instance;
        return &instance;
    }
    static PlatformAscendC* GetInstance(const char* customSocVersion) {
        (void)customSocVersion;
        return GetInstance();
    }
};

}  // namespace platform_ascendc
