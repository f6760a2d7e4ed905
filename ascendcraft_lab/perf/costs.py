"""The cost table of the pipe model: per SoC (the names of ``soc.py``), what one unit of work costs.

Every number says where it comes from: a public document (``source``) or ``guess`` with the
reasoning. Nothing here is a measurement of our kernels on an NPU; results computed from it are
ESTIMATES. A public measurement that pins a parameter is cited beside it (`calibration.py` lists them
with the model's error): so far torch.matmul's cube rates per dtype.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..soc import SOCS

NOTES = "shared/design/ASCENDC_NOTES.md (the project's digest of Huawei's public AscendC documentation)"
ARCH = "https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/83RC1alpha002/opdevg/Ascendcopdevg/atlas_ascendc_10_0007.html"
BIG_COPY = "https://www.hiascend.com/document/detail/en/canncommercial/850/opdevg/Ascendcopdevg/atlas_ascendc_best_practices_10_0016.html"
MATMUL = "https://github.com/zzc0721/torch-performance-test-data/issues/109; perf/calibration.py"
REPEAT = "AscendC API reference, vector instructions: one repeat reads 256 bytes (8 blocks of 32 B)"


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
    launch_s: Param | None = None          # host-side launch of one kernel (ours, and every eager aten op)

    def repeat_cycles(self, api: str, dtype: str) -> float:
        cls = op_class(api)
        p = self.vector_repeat_cycles.get((cls, dtype)) or self.vector_repeat_cycles[(cls, "*")]
        return p.value

    def params(self) -> dict[str, Param]:
        """Every parameter by a readable name (for the assumptions a report states)."""
        out = {}
        for name in ("clock_hz", "gm_bandwidth", "core_gm_bandwidth", "copy_setup_cycles", "block_setup_cycles",
                     "issue_cycles", "sync_cycles", "scalar_ub_cycles", "scalar_gm_cycles", "vector_start_cycles",
                     "local_bandwidth", "launch_s"):
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


def _a2(name: str) -> Costs:
    """Atlas A2 (910B): 24 cube cores (1.8 GHz) and 48 vector cores, HBM2e."""
    return Costs(
        soc=name,
        clock_hz=Param(1.8e9, "Hz", NOTES + ": 'about 1.8 GHz'"),
        gm_bandwidth=Param(1.6e12, "B/s", NOTES + ": '64 GiB HBM at roughly 1.6 TB/s'"),
        core_gm_bandwidth=Param(64e9, "B/s", "guess: a single core cannot fill the HBM; 48 cores x 64 GB/s "
                                             "oversubscribe 1.6 TB/s about 2x, so many-core streaming is HBM-bound, "
                                             "few-core is core-bound"),
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
                              "guess: L1 -> L0 (MTE1) and L0C out (FIX) move one fractal row group per cycle"),
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
        launch_s=Param(5e-6, "s",
                       "guess: host launch of one kernel on the NPU stream (task submit + dispatch), per kernel"),
    )


def _310p(name: str) -> Costs:
    base = _a2(name)
    return Costs(**{**base.__dict__,
                    "clock_hz": Param(1.0e9, "Hz", "guess: Atlas inference (310P) AI core clock"),
                    "gm_bandwidth": Param(204.8e9, "B/s", "guess: LPDDR4X card bandwidth of the Atlas 300I Pro class"),
                    "core_gm_bandwidth": Param(40e9, "B/s", "guess")})


# Every A2 / A3 part (the same dav-2201 core) gets the A2 model; their HBM bandwidths are not told apart.
COSTS: dict[str, Costs] = {
    **{name: _a2(name) for name in ("Ascend910B1", "Ascend910B2", "Ascend910B3", "Ascend910B4", "Ascend910_9392")},
    "Ascend310P": _310p("Ascend310P"),
}
assert set(COSTS) == set(SOCS), "every SoC of soc.py needs a cost table (and no other)"


def costs_for(soc: str) -> Costs:
    try:
        return COSTS[soc]
    except KeyError:
        raise ValueError(f"no cost table for SoC {soc!r} (known: {', '.join(COSTS)})") from None
