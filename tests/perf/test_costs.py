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
