"""torch.round / floor / ceil / trunc: the DSL's rint / floor / ceil / trunc, a Cast to the same float type
with that RoundMode (ties to even, as torch.round)."""
from __future__ import annotations

import pytest

from ascendcraft_lab.drafter import DraftError, draft_from_trace
from ascendcraft_lab.drafter.trace import run_jobs

from drafter_helpers import check_draft_on_emulator, write_ref

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

# exact ties (x.5) and both signs: where the four rounding modes differ
TIES = "[torch.tensor([[0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49, -0.51, 3.0, 7.75] * 13])]"


def test_the_four_roundings_draft_and_run_on_the_emulator_as_pytorch_rounds_ties(ref_dir):
    path = write_ref(ref_dir, "roundings", "def forward(self, x):\n"
                     "    return torch.round(x) + 10 * torch.floor(x) + 100 * torch.ceil(x) + 1000 * torch.trunc(x)",
                     TIES)
    t, run = run_jobs([{"mode": "trace", "path": str(path)}, {"mode": "run", "path": str(path), "seed": 0}])
    draft = draft_from_trace(t["graph"], name="k", source=path.name)
    assert all(f"{op}(xu)" in draft.text for op in ("rint", "floor", "ceil", "trunc"))
    verdict, emu, _ = check_draft_on_emulator(draft.text, run["run"])
    assert emu.findings == [] and verdict.correct and verdict.max_abs_err == 0, verdict.summary()


def test_round_with_decimals_is_refused_in_one_line(ref_dir):
    path = write_ref(ref_dir, "round_decimals", "def forward(self, x):\n    return torch.round(x, decimals=2)",
                     "[torch.randn(4, 64)]")
    [t] = run_jobs([{"mode": "trace", "path": str(path)}])
    with pytest.raises(DraftError) as err:
        draft_from_trace(t["graph"], name="k", source=path.name)
    assert "decimals=2" in str(err.value) and "\n" not in str(err.value)
