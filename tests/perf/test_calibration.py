"""The model against public measurements on a 910B (perf/calibration.py): torch.matmul, estimated by eager.py."""
from __future__ import annotations

from ascendcraft_lab.perf.calibration import POINTS, table


def test_the_eager_estimate_of_a_measured_matmul_is_generous_but_within_a_quarter_once_the_cube_is_busy():
    checked = [p for p in POINTS if not p.fitted]
    assert len(checked) >= 5
    # eager.py puts every aten op at its roofline: never slower than the chip measured
    assert all(p.error < 0 for p in checked), table()
    # large enough to fill the cube cores, within 25 %; a 1024^3 matmul is short enough for set-up to weigh
    assert all(abs(p.error) < 0.25 for p in checked if p.n >= 2048), table()
    assert all(abs(p.error) < 0.6 for p in checked), table()


def test_the_calibration_table_says_which_point_a_parameter_was_fitted_to():
    lines = table()
    assert len(lines) == len(POINTS)
    assert all(("(fitted)" in line) == p.fitted for line, p in zip(lines, POINTS))
    assert all("measured" in line and "estimated" in line and "error" in line for line in lines)
