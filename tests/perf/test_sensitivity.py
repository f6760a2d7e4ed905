"""The sensitivity of an estimate to the uncertain cost parameters: each scaled alone, by name."""
from __future__ import annotations

import pytest

from ascendcraft_lab.perf import costs_for
from ascendcraft_lab.perf.sensitivity import scaled, uncertain

SOC = "Ascend910B2"


def test_every_guess_and_the_uncertain_hbm_bandwidth_are_scaled_and_nothing_cited_else():
    costs = costs_for(SOC)
    names = uncertain(costs)
    assert "gm_bandwidth" in names and "launch_s" in names and "vector_repeat_cycles[simple,*]" in names
    assert "clock_hz" not in names and "cube_fractal_cycles[float32]" not in names   # cited / fitted


@pytest.mark.parametrize("name", ["launch_s", "vector_repeat_cycles[transcendental,float32]",
                                  "cube_fractal_cycles[int8]"])
def test_scaling_a_parameter_changes_that_one_alone(name):
    costs = costs_for(SOC)
    doubled = scaled(costs, name, 2.0)
    before, after = costs.params(), doubled.params()
    assert after[name].value == 2 * before[name].value
    assert {n for n in before if before[n].value != after[n].value} == {name}
    assert costs.params()[name].value == before[name].value      # the shared table is left as it was
