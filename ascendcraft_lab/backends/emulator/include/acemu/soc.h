// The SoC a run emulates. The numbers come from ascendcraft_lab/soc.py, the project's one SoC table:
// the runner passes them in the run's spec (or the ACEMU_SOC environment variable for host
// programs and extensions), and bakes the default SoC's line into the runtime object.
#pragma once
#include <cstdint>

namespace acemu {

struct SocInfo {
    char name[32];
    uint64_t ub_bytes;        // physical Unified Buffer per vector core
    uint64_t ub_usable;       // what InitBuffer may hand out, and GetCoreMemSize(UB)
    uint32_t vector_cores;
    uint32_t cube_cores;
    uint64_t l1_bytes, l0a_bytes, l0b_bytes, l0c_bytes;
    uint64_t l2_bytes, hbm_bytes;
    uint64_t lib_api_workspace;  // GetLibApiWorkSpaceSize: the system workspace at the start of a launch's
    uint64_t bt_bytes;           // bias table (0: none)
};

namespace rt {
// "NAME UB USABLE VECTOR_CORES CUBE_CORES L1 L0A L0B L0C L2 HBM SYS_WORKSPACE BT", as soc.py writes it.
bool parse_soc_line(const char* line, SocInfo* out);
const SocInfo& soc_info();
void set_soc(const SocInfo& soc);
}  // namespace rt

}  // namespace acemu
