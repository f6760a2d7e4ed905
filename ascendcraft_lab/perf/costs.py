"""The cost table of the pipe model: per SoC (the names of ``soc.py``), what one unit of work costs.

Every number says where it comes from: a public document (``source``) or ``guess`` with the
reasoning. Nothing here is a measurement of our kernels on an NPU; results computed from it are
ESTIMATES. A public measurement that pins a parameter is cited beside it (`calibration.py` lists them
with the model's error): torch.matmul's cube rates per dtype, the HBM bandwidth, the launch of a kernel and the
fixed cost of an eager op (FlagGems' swiglu timings); the platform file's per-core rates.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..soc import SOCS

NOTES = "shared/design/ASCENDC_NOTES.md (the project's digest of Huawei's public AscendC documentation)"
ARCH = "https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/83RC1alpha002/opdevg/Ascendcopdevg/atlas_ascendc_10_0007.html"
BIG_COPY = "https://www.hiascend.com/document/detail/en/canncommercial/850/opdevg/Ascendcopdevg/atlas_ascendc_best_practices_10_0016.html"
MATMUL = "https://github.com/zzc0721/torch-performance-test-data/issues/109; perf/calibration.py"
REPEAT = "AscendC API reference, vector instructions: one repeat reads 256 bytes (8 blocks of 32 B)"
# CANN's platform file for the SoC (public mirror of the CANN 8.1.RC1 toolkit's data/platform_config/):
# [AICoreSpec] cube_freq and [AICoreMemoryRates] in bytes per cycle per core (ddr_rate=32 on every 910B part).
INI = ("https://github.com/leideng/CANN-8.1.RC1/blob/4332a0134a96cfea4a4f6673690a81075c1e4dfb/Ascend/ascend-toolkit/"
       "8.1.RC1/aarch64-linux/data/platform_config/{soc}.ini")
# FlagGems' Ascend benchmarks (mode=kernel): torch_npu's swiglu and a Triton-Ascend swiglu timed per shape, one harness.
SWIGLU = "https://github.com/flagos-ai/FlagGems/pull/6424; perf/calibration.py"


@dataclass(frozen=True)
class Param:
    value: float
    unit: str
    source: str  # a document, or "guess: ..." with the reasoning

    @property
    def guess(self) -> bool:
        return self.source.startswith("guess")


# Vector op classes: the APIs whose repeats cost more than one simple element-wise pass.
TRANSCENDENTAL = frozenset({"Exp", "Ln", "Log", "Sqrt", "Rsqrt", "Reciprocal", "Tanh", "Sigmoid",
                            "Sin", "Cos", "Erf", "Power",
                            "Div", "Gelu", "FasterGelu", "Silu", "Softplus"})
REDUCE = frozenset({"ReduceSum", "ReduceMax", "ReduceMin",
                    "WholeReduceSum", "WholeReduceMax", "WholeReduceMin", "BlockReduceSum",
                    "BlockReduceMax", "BlockReduceMin", "PairReduceSum", "RepeatReduceSum", "SoftMax", "RmsNorm"})
GATHER = frozenset({"Gather", "GatherMask", "BroadCast", "Broadcast", "Pad", "UnPad"})


def op_class(api: str) -> str:
    if api in TRANSCENDENTAL:
        return "transcendental"
    if api in REDUCE:
        return "reduce"
    if api in GATHER:
        return "gather"
    if api == "Cast":
        return "cast"
    return "simple"


@dataclass(frozen=True)
class Costs:
    soc: str
    clock_hz: Param
    gm_bandwidth: Param          # the chip's HBM bandwidth, shared by the active cores (reads + writes)
    core_gm_bandwidth: Param     # the most one core's MTE2/MTE3 draw when it has the HBM to itself
    copy_setup_cycles: Param     # fixed cost of one DataCopy on MTE2 / MTE3 (descriptor, first bytes)
    block_setup_cycles: Param    # per extra block of a strided DataCopy (blockCount > 1)
    issue_cycles: Param          # scalar-unit cycles to issue one pipe instruction
    sync_cycles: Param           # scalar-unit cycles of one queue op / flag / barrier
    scalar_ub_cycles: Param      # GetValue / SetValue on UB
    scalar_gm_cycles: Param      # GetValue / SetValue on GM (through the data cache)
    vector_start_cycles: Param   # fixed cost of one vector instruction on V
    vector_repeat_cycles: dict = field(default_factory=dict)  # (op class, dtype) -> Param, cycles per 256-B repeat
    local_bandwidth: Param | None = None   # MTE1 / FIX bytes per cycle (L1 -> L0, L0C -> GM/UB)
    cube_fractal_cycles: dict = field(default_factory=dict)   # dtype -> Param: cycles of one 16x16xK0 fractal MAC
    launch_s: Param | None = None          # launch of one kernel of ours, as a per-call timing sees it
    eager_op_s: Param | None = None        # the fixed cost of one eager aten op (dispatch, host tiling, launch)

    def repeat_cycles(self, api: str, dtype: str) -> float:
        cls = op_class(api)
        p = self.vector_repeat_cycles.get((cls, dtype)) or self.vector_repeat_cycles[(cls, "*")]
        return p.value

    def table(self) -> dict[str, dict]:
        """Every parameter's value, unit and kind (guess / fitted / cited), as a results document records them."""
        return {name: {"value": p.value, "unit": p.unit,
                       "kind": "guess" if p.guess else ("fitted" if p.source.startswith("fitted") else "cited")}
                for name, p in self.params().items()}

    def params(self) -> dict[str, Param]:
        """Every parameter by a readable name (for the assumptions a report states)."""
        out = {}
        for name in ("clock_hz", "gm_bandwidth", "core_gm_bandwidth", "copy_setup_cycles", "block_setup_cycles",
                     "issue_cycles", "sync_cycles", "scalar_ub_cycles", "scalar_gm_cycles", "vector_start_cycles",
                     "local_bandwidth", "launch_s", "eager_op_s"):
            p = getattr(self, name)
            if p is not None:
                out[name] = p
        for (cls, dt), p in self.vector_repeat_cycles.items():
            out[f"vector_repeat_cycles[{cls},{dt}]"] = p
        for dt, p in self.cube_fractal_cycles.items():
            out[f"cube_fractal_cycles[{dt}]"] = p
        return out


def _vector_table() -> dict:
    one = Param(1, "cycles/repeat",
                f"guess: one 256-B repeat per cycle for element-wise ops ({REPEAT}; the issue rate is not published)")
    return {
        ("simple", "*"): one,
        ("cast", "*"): Param(2, "cycles/repeat",
                             "guess: a conversion reads one width and writes another (two passes of the datapath)"),
        ("reduce", "*"): Param(2, "cycles/repeat", "guess: a reduction tree per repeat plus the cross-repeat step"),
        ("transcendental", "*"): Param(4, "cycles/repeat", "guess: exp/ln/sqrt/div are multi-cycle on SIMD units"),
        ("transcendental", "float32"): Param(8, "cycles/repeat", "guess: fp32 transcendentals at half the fp16 rate"),
        ("gather", "*"): Param(4, "cycles/repeat", "guess: index-driven reads cannot use the full 256-B bank width"),
    }


def _a2(name: str, clock_mhz: int = 1800) -> Costs:
    """Atlas A2 (910B): 24 cube cores (1.8 GHz) and 48 vector cores, HBM2e."""
    ini = INI.format(soc="Ascend910B2")
    return Costs(
        soc=name,
        clock_hz=Param(clock_mhz * 1e6, "Hz", f"cube_freq={clock_mhz} in {INI.format(soc=name)}" if clock_mhz != 1800
                       else f"{NOTES}: 'about 1.8 GHz'; cube_freq=1800 in {ini}"),
        gm_bandwidth=Param(1.23e12, "B/s",
                           "fitted: torch_npu's swiglu streams 1.97 GB in 1.603 ms and 0.81 GB in 0.658 ms, 1.23 TB/s "
                           f"read + write beyond the L2 ({SWIGLU}); {NOTES} says 'roughly 1.6 TB/s', the interface's "
                           "peak"),
        core_gm_bandwidth=Param(32 * clock_mhz * 1e6, "B/s",
                                f"ddr_rate=32 (bytes per cycle per core) x cube_freq in {ini}: 57.6 GB/s at 1.8 GHz; "
                                "48 cores oversubscribe the HBM, so many-core streaming is HBM-bound, few-core is "
                                "core-bound"),
        copy_setup_cycles=Param(500, "cycles",
                                f"guess, fitted to the public rule that a single transfer of 16 KB or more reaches "
                                f"near-best bandwidth ({BIG_COPY}): 16 KB at the core's 64 GB/s is ~460 cycles "
                                f"of data, so ~500 cycles of set-up gives ~50% at 16 KB on an idle chip and ~85% when "
                                f"48 cores share the HBM"),
        block_setup_cycles=Param(10, "cycles", "guess: each extra block of a strided copy is one more burst"),
        issue_cycles=Param(10, "cycles",
                           "guess: the scalar unit computes addresses and parameters for each instruction"),
        sync_cycles=Param(6, "cycles", "guess: a queue op is a SetFlag/WaitFlag plus bookkeeping"),
        scalar_ub_cycles=Param(10, "cycles", "guess: a scalar load/store to UB"),
        scalar_gm_cycles=Param(200, "cycles",
                               "guess: a scalar GM access through the 64-B line data cache (" + ARCH + ")"),
        vector_start_cycles=Param(20, "cycles",
                                  "guess: vector instruction start-up (operand fetch) before the first repeat"),
        vector_repeat_cycles=_vector_table(),
        local_bandwidth=Param(256, "B/cycle",
                              f"l1_to_l0_b_rate=256 and l0_c_to_ub_rate=256 in {ini} (l1_to_l0_a_rate is 512: the "
                              "trace does not tell L0A loads from L0B ones, so both are charged the slower rate)"),
        cube_fractal_cycles={
            "float16": Param(1, "cycles/fractal",
                             "one 16x16 by 16x16 float16 multiply per execution (" + ARCH + "); "
                             "one per cycle is a guess"),
            "bfloat16": Param(1, "cycles/fractal",
                              "as float16: torch.matmul 4096^3 on a 910B2 reaches 315.36 TFLOPS in "
                              "bfloat16 and 314.52 in float16 (" + MATMUL + ")"),
            "float32": Param(3.7, "cycles/fractal",
                             "fitted: torch.matmul 4096^3 on a 910B2 reaches 314.52 TFLOPS in float16 "
                             "and 84.53 in float32, 3.7x fewer (" + MATMUL + ")"),
            "int8": Param(0.5, "cycles/fractal", "guess: int8 at twice the float16 rate (16x16x32 per cycle)"),
        },
        launch_s=Param(1.5e-6, "s",
                       "fitted: the shortest custom kernels measured, Triton-Ascend swiglu of 4 x 32 and 256 x 128 "
                       f"elements, take 1.46-2.04 us per call, some of it their own copies ({SWIGLU})"),
        eager_op_s=Param(3.6e-6, "s",
                         "fitted: torch_npu's swiglu of 4 x 32 to 256 x 128 elements takes 2.65-4.60 us per call "
                         f"(geo-mean 3.6 us; {SWIGLU}): an aten op's host dispatch, tiling and launch"),
    )


def _310p(name: str) -> Costs:
    base = _a2(name)
    return Costs(**{**base.__dict__,
                    "clock_hz": Param(1.0e9, "Hz", "guess: Atlas inference (310P) AI core clock"),
                    "gm_bandwidth": Param(204.8e9, "B/s", "guess: LPDDR4X card bandwidth of the Atlas 300I Pro class"),
                    "core_gm_bandwidth": Param(40e9, "B/s", "guess"),
                    "launch_s": Param(base.launch_s.value, "s", "guess: as fitted on the 910B"),
                    "eager_op_s": Param(base.eager_op_s.value, "s", "guess: as fitted on the 910B")})


# Every A2 / A3 part (the same dav-2201 core) gets the A2 model; their HBM bandwidths are not told apart. The
# 910B4 runs at 1.5 GHz (its platform file); soc.py has its 20 / 40 cores and 96 MiB L2.
COSTS: dict[str, Costs] = {
    **{name: _a2(name) for name in ("Ascend910B1", "Ascend910B2", "Ascend910B3", "Ascend910_9392")},
    "Ascend910B4": _a2("Ascend910B4", clock_mhz=1500),
    "Ascend310P": _310p("Ascend310P"),
}
assert set(COSTS) == set(SOCS), "every SoC of soc.py needs a cost table (and no other)"


def costs_for(soc: str) -> Costs:
    try:
        return COSTS[soc]
    except KeyError:
        raise ValueError(f"no cost table for SoC {soc!r} (known: {', '.join(COSTS)})") from None
