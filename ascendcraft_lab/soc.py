"""The SoC table: the one place that knows the numbers of each Ascend chip we target.

Figures come from ASCENDC_NOTES.md (Huawei's public AscendC documentation). Everything that
needs a core count, a buffer size or an alignment rule reads it from here: the DSL verifier,
the interpreter, the host pass, the emulator's UB check.
"""
from __future__ import annotations

from dataclasses import dataclass

KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB


@dataclass(frozen=True)
class Soc:
    name: str
    arch: str                  # bisheng --npu-arch / CMAKE_ASC_ARCHITECTURES
    vector_cores: int          # AIV cores (separate from cube on 910B; one AI core on 310P)
    cube_cores: int
    ub_bytes: int              # physical Unified Buffer per vector core
    ub_reserved: int           # bytes the runtime keeps for itself
    l1_bytes: int
    l0a_bytes: int
    l0b_bytes: int
    l0c_bytes: int
    has_datacopypad: bool      # DataCopyPad exists on A2/A3 only
    family: str                # the SoC family an op registers for: OpDef AICore().AddConfig(family)
    bt_bytes: int = 0          # bias table (TPosition::C2) on A2/A3; 0: no bias table
    l2_bytes: int = 0          # GetCoreMemSize(L2) / (HBM) report these
    hbm_bytes: int = 0
    ub_headroom: int = 0       # UB the lowering leaves free on top of ub_reserved (see ub_for_tiles)
    lib_api_workspace: int = 16 * 1024 * 1024  # system workspace of the library APIs (GetLibApiWorkSpaceSize)
    block_bytes: int = 32      # UB/L1 address and DataCopy length granularity
    repeat_bytes: int = 256    # one vector repeat
    max_repeat: int = 255

    @property
    def ub_usable(self) -> int:
        """Bytes a kernel may give to InitBuffer in total: what PlatformAscendC's
        GetCoreMemSize(UB) reports (the emulator's limit and its GetCoreMemSize read this)."""
        return self.ub_bytes - self.ub_reserved

    @property
    def ub_for_tiles(self) -> int:
        """What the DSL's tiles may take (`UB_BYTES`, `ub_elems`): the usable UB less the
        headroom the lowering keeps and a small reserve for the buffers it adds beside the tiles
        (a scalar staging block, one block per scalar output, Compare's 256-byte padding)."""
        return self.ub_usable - self.ub_headroom - LOWERING_RESERVE

    def emulator_line(self) -> str:
        """The SoC as the emulator runtime reads it (acemu/soc.h: parse_soc_line)."""
        return " ".join(str(v) for v in (self.name, self.ub_bytes, self.ub_usable, self.vector_cores, self.cube_cores,
                                         self.l1_bytes, self.l0a_bytes, self.l0b_bytes, self.l0c_bytes, self.l2_bytes,
                                         self.hbm_bytes, self.lib_api_workspace, self.bt_bytes))


LOWERING_RESERVE = 1024


# Where each figure comes from. The [SoCInfo] / [AICoreSpec] lines are CANN's platform file
# <toolkit>/<arch>-linux/data/platform_config/<SoC>.ini, quoted in public repositories (no copy of the
# files themselves is public):
#   Ascend910B1    cube_core_cnt=24 vector_core_cnt=48 memory_size=68719476736 l2_size=201326592 ub_size=196608
#                  l1_size=524288 l0_a_size=l0_b_size=65536 l0_c_size=131072 NpuArch=2201 (the ini quoted whole
#                  in a public test fixture of an Ascend capability reader)
#   Ascend910B2    ai_core_cnt=24 cube_core_cnt=24 vector_core_cnt=48 memory_size=68719476736 l2_size=201326592
#                  (quoted by pto-isa's tutorials, with l0_a/b 64 KiB and l0_c 128 KiB)
#   Ascend910B3    cube 20 / vector 40 / 64 GiB (a public hardware-configuration table); its ini's L2 line
#                  was not found: 192 MiB is 910B2's, kept
#   Ascend910B4    ai_core_cnt=20 cube_core_cnt=20 vector_core_cnt=40 memory_size=34359738368 l2_size=100663296
#                  (quoted by pto-isa's tutorials: "910B4's HBM and L2 are half of 910B2's")
#   Ascend910_9392 ai_core_cnt=24 cube_core_cnt=24 vector_core_cnt=48 ub_size=196608,
#                  Short_SoC_version=Ascend910_93 (an A3 part; quoted in a public benchmark's hardware.txt);
#                  its L1 / L0 sizes, L2 and HBM were not in the excerpt: the A2 figures are kept, as A2 and A3
#                  share the core (dav-2201, asc-devkit 00_basic_compile README)
# Other A3 parts (Ascend910_9391, _9381, _9382, _9372, _9362) exist (aclrtGetSocName returns such names)
# but no public source gave their counts: a device reporting one is not looked up, only its core count
# is checked. The op-project family names (OpDef AICore().AddConfig) are "ascend910b" for A2 and
# "ascend910_93" for A3 (public op definitions add both).
_A2 = dict(has_datacopypad=True, bt_bytes=1 * KIB, ub_headroom=8 * KIB)
SOCS: dict[str, Soc] = {
    s.name: s
    for s in (
        # 192 KiB UB of which the runtime keeps 256 B: GetCoreMemSize(UB) reports 196352 B. Kernels may
        # reserve more themselves (PlatformAscendC::ReserveLocalMemory, 8/16/32 KiB). The lowering
        # leaves 8 KiB of headroom, the reserve older CANN releases kept by default, so its tilings
        # hold there too. The bias table is 1 KiB (CCE intrinsic reference, copy_cbuf_to_bt:
        # "偏置表缓冲区的大小为1KB").
        Soc("Ascend910B1", "dav-2201", 48, 24, 192 * KIB, 256, 512 * KIB, 64 * KIB, 64 * KIB, 128 * KIB,
            family="ascend910b", l2_bytes=192 * MIB, hbm_bytes=64 * GIB, **_A2),
        Soc("Ascend910B2", "dav-2201", 48, 24, 192 * KIB, 256, 512 * KIB, 64 * KIB, 64 * KIB, 128 * KIB,
            family="ascend910b", l2_bytes=192 * MIB, hbm_bytes=64 * GIB, **_A2),
        Soc("Ascend910B3", "dav-2201", 40, 20, 192 * KIB, 256, 512 * KIB, 64 * KIB, 64 * KIB, 128 * KIB,
            family="ascend910b", l2_bytes=192 * MIB, hbm_bytes=64 * GIB, **_A2),
        Soc("Ascend910B4", "dav-2201", 40, 20, 192 * KIB, 256, 512 * KIB, 64 * KIB, 64 * KIB, 128 * KIB,
            family="ascend910b", l2_bytes=96 * MIB, hbm_bytes=32 * GIB, **_A2),
        Soc("Ascend910_9392", "dav-2201", 48, 24, 192 * KIB, 256, 512 * KIB, 64 * KIB, 64 * KIB, 128 * KIB,
            family="ascend910_93", l2_bytes=192 * MIB, hbm_bytes=64 * GIB, **_A2),
        # 256 KiB UB of which 248 KiB usable for vector locals; cube and vector share one AI core.
        Soc("Ascend310P", "dav-2002", 8, 8, 256 * KIB, 8 * KIB, 1024 * KIB, 64 * KIB, 64 * KIB, 256 * KIB,
            False, "ascend310p"),
    )
}

DEFAULT_SOC = "Ascend910B2"


def soc_of_device(name: str | None) -> Soc | None:
    """The table's entry for the SoC name a device reports (aclrtGetSocName, e.g. "Ascend910B3"); None when
    the table has no such part."""
    return SOCS.get((name or "").strip()) if name else None


def get_soc(name: str | None = None) -> Soc:
    """Look a SoC up by name; an unknown name is a ValueError naming the known ones."""
    key = name or DEFAULT_SOC
    try:
        return SOCS[key]
    except KeyError:
        raise ValueError(f"unknown SoC {key!r}; known: {', '.join(SOCS)}") from None
