"""What the bench counts as correct: the tolerance scales with the reference, degenerate outputs
and kernels that write into their inputs are rejected."""
from __future__ import annotations

import numpy as np
import pytest

from ascendcraft_lab.bench.metrics import check_output, inputs_unchanged, summarise


def test_an_all_zero_output_is_rejected_when_the_reference_is_not():
    rng = np.random.default_rng(0)
    want = rng.random((16, 4096)).astype(np.float32) * 1e-5      # tiny but not zero: allclose(1e-4) would pass zeros
    check = check_output("y", np.zeros_like(want), want)
    assert not check.correct
    assert "all zeros" in check.reason
    assert check.mkb_allclose          # the plain MultiKernelBench allclose would have counted it


def test_a_constant_output_is_rejected_when_the_reference_is_not():
    want = np.linspace(0.5, 0.5001, 1000, dtype=np.float32)
    check = check_output("y", np.full_like(want, want.mean()), want)
    assert not check.correct and "constant" in check.reason


def test_zero_output_of_a_zero_reference_is_correct():
    want = np.zeros((8, 8), np.float32)
    assert check_output("y", want.copy(), want).correct


def test_the_absolute_tolerance_scales_with_the_reference_magnitude():
    rng = np.random.default_rng(1)
    big = (rng.standard_normal(4096) * 1000).astype(np.float32)
    small = (rng.standard_normal(4096) * 1e-3).astype(np.float32)
    assert check_output("y", big + 0.05, big).correct              # 0.05 is ~5e-5 of the values' scale
    assert not check_output("y", small + 5e-5, small).correct      # 5e-5 is 5% of these values
    assert check_output("y", small * (1 + 1e-6), small).correct


def test_fp16_uses_the_1e_2_tolerance():
    want = np.linspace(-1, 1, 100).astype(np.float16)
    got = (want.astype(np.float32) * 1.004).astype(np.float16)
    check = check_output("y", got, want, "float16")
    assert check.correct and check.rtol == 1e-2


def test_a_wrong_shape_or_a_missing_output_is_rejected():
    want = np.ones((4, 4), np.float32)
    assert not check_output("y", np.ones((16,), np.float32), want).correct
    assert not check_output("y", None, want).correct


def test_a_kernel_that_writes_into_its_input_is_caught():
    x = np.arange(10, dtype=np.float32)
    assert inputs_unchanged({"x": x}, {"x": x.copy()}) == ""
    touched = x.copy()
    touched[3] = -1
    assert "`x`" in inputs_unchanged({"x": x}, {"x": touched})


def test_summary_counts_comp_and_pass_per_category_and_shape():
    def op(cat, ref_ok, tail_ok, compiled=True):
        return {"category": cat, "op": "o", "shapes": {
            "reference": {"compiled": compiled, "correct": ref_ok, "speed_ratio": 0.5 if ref_ok else None},
            "tail": {"compiled": compiled, "correct": tail_ok}}}
    s = summarise([op("a", True, True), op("a", True, False), op("b", False, False, compiled=False)],
                  ["reference", "tail"])
    assert s["categories"]["a"]["reference"]["pass@1"] == 1.0
    assert s["categories"]["a"]["tail"]["pass@1"] == 0.5
    assert s["overall"]["reference"]["comp@1"] == 2 / 3
    assert s["overall"]["tail"]["correct"] == 1
    assert s["overall"]["reference"]["emu_vs_eager>0.2"] == 2 / 3


def test_summary_gives_the_roofline_fraction_per_category_and_fast_1_under_each_scaled_parameter():
    def op(cat, roof, kernel, eager, launch_half, ok=True):
        est = {"kernel_s": kernel, "eager_s": eager, "speedup": eager / kernel, "roofline_fraction": roof,
               "sensitivity": {"launch_s": {"0.5": launch_half, "2": [kernel * 2, eager * 2]}}}
        return {"category": cat, "op": "o", "shapes": {"reference": {"compiled": True, "correct": ok, "estimate": est}}}
    s = summarise([op("a", 0.25, 2.0, 1.0, [1.0, 1.5]), op("a", 1.0, 1.0, 2.0, [0.5, 1.5]),
                   op("b", 0.5, 1.0, 1.0, [0.5, 0.4], ok=False)], ["reference"])
    a = s["categories"]["a"]["reference"]
    assert a["roofline_geomean"] == pytest.approx(0.5) and a["roofline_median"] == 0.625
    assert s["categories"]["b"]["reference"]["roofline_geomean"] is None     # an incorrect kernel has no fraction
    launch = s["sensitivity"]["reference"]["launch_s"]
    assert launch["0.5"]["est_fast>1.0"] == 2 / 3       # both correct ops faster than eager with half the launch
    assert launch["2"]["est_fast>1.0"] == 1 / 3
    assert launch["0.5"]["est_speedup_geomean"] == pytest.approx((1.5 * 3) ** 0.5)
