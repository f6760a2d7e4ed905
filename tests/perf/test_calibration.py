"""The model against public measurements on Ascend NPUs (perf/calibration.py): torch.matmul and swiglu, estimated by
eager.py, and the launch of a custom kernel."""
from __future__ import annotations

from ascendcraft_lab.perf.calibration import MATMUL_POINTS, POINTS, SWIGLU_POINTS, table


def test_the_eager_estimate_of_a_measured_matmul_is_generous_but_within_a_quarter_once_the_cube_is_busy():
    checked = [p for p in MATMUL_POINTS if not p.fitted]
    assert len(checked) >= 5
    # eager.py puts every aten op at its roofline: never slower than the chip measured
    assert all(p.error < 0 for p in checked), table(checked)
    # large enough to fill the cube cores, within 25 %; a 1024^3 matmul is short enough for set-up to weigh
    assert all(abs(p.error) < 0.25 for p in checked if p.n >= 2048), table(checked)
    assert all(abs(p.error) < 0.6 for p in checked), table(checked)


def test_the_model_stays_within_2x_of_every_public_point_it_claims_to_cover():
    checked = [p for p in POINTS if not p.unchecked]
    assert len([p for p in checked if not p.fitted]) >= 10
    assert all(0.5 <= p.estimated_s() / p.measured_s <= 2.0 for p in checked), table(checked)


def test_the_fitted_bandwidth_and_launch_reproduce_the_streams_and_the_smallest_kernels_they_come_from():
    fitted = [p for p in SWIGLU_POINTS if p.fitted]
    streams = [p for p in fitted if p.measured_s > 1e-4]
    assert len(streams) == 2 and all(abs(p.error) < 0.02 for p in streams), table(streams)
    assert all(abs(p.error) < 0.4 for p in fitted), table(fitted)


def test_the_calibration_table_says_which_point_a_parameter_was_fitted_to_and_which_it_does_not_check():
    lines = table()
    assert len(lines) == len(POINTS)
    assert all(("(fitted)" in line) == p.fitted for line, p in zip(lines, POINTS))
    assert all(("(not checked: " in line) == bool(p.unchecked) for line, p in zip(lines, POINTS))
    assert all("measured" in line and "estimated" in line and "error" in line for line in lines)
