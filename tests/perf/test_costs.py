"""The cost table: one per SoC of soc.py, and every parameter cites its source or says it is a guess."""
from __future__ import annotations

from ascendcraft_lab.perf import COSTS
from ascendcraft_lab.soc import SOCS


def test_every_soc_has_a_cost_table_and_every_parameter_cites_a_document_or_is_marked_a_guess():
    assert set(COSTS) == set(SOCS)
    for soc, costs in COSTS.items():
        for name, p in costs.params().items():
            assert p.value > 0, f"{soc} {name}"
            cited = "http" in p.source or "ASCENDC_NOTES.md" in p.source or "API reference" in p.source
            assert p.guess or cited, f"{soc} {name}: {p.source!r} neither cites a document nor says guess"


def test_a_fitted_parameter_says_so_and_names_the_measurements_it_was_fitted_to():
    for soc in ("Ascend910B2", "Ascend910B4"):
        table, params = COSTS[soc].table(), COSTS[soc].params()
        for name in ("gm_bandwidth", "launch_s", "eager_op_s", "cube_fractal_cycles[float32]"):
            assert table[name]["kind"] == "fitted" and "http" in params[name].source, f"{soc} {name}"
        assert table["core_gm_bandwidth"]["kind"] == "cited" and "ddr_rate=32" in params["core_gm_bandwidth"].source
    assert COSTS["Ascend910B4"].clock_hz.value == 1.5e9 and COSTS["Ascend910B2"].clock_hz.value == 1.8e9
    assert COSTS["Ascend310P"].table()["launch_s"]["kind"] == "guess"      # fitted on the 910B only
