"""Short rows move as blocks of whole rows (issue 17, normalization on multi-row tiles): a layer
norm, a softmax or an RMS norm of rows that fit UB is one strided copy in and one out per block of
rows, every per-row reduction one value per row broadcast back against them, in one compute stage
(the row-blocks template). The rows template swept each row once per reduction level, a copy each."""
from __future__ import annotations

import pytest

from ascendcraft_lab.backends.emulator.verify import render_run
from ascendcraft_lab.drafter import draft_reference
from ascendcraft_lab.dsl.parser import parse
from ascendcraft_lab.dsl.verifier import verify
from ascendcraft_lab.reference import load_reference

from drafter_helpers import check_draft_on_emulator, write_ref

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

CASES = [  # (name, forward, inputs, init, lines the draft must hold)
    ("layer_norm", "def forward(self, x):\n    return self.ln(x)", "[torch.randn(300, 64)]",
     "|self.ln = nn.LayerNorm(64)\nwith torch.no_grad():\n"
     "    self.ln.weight.uniform_(0.5, 1.5)\n    self.ln.bias.uniform_(-1, 1)",
     ["ln_weightu = load(ln_weight[:])", "xu = load(x[c, :])", "reduce_sum(xu, axis=1, keepdim=True) / N"]),
    ("log_softmax_half", "def forward(self, x):\n    return torch.log_softmax(x, dim=-1)",
     "[torch.randn(130, 37).half()]", "",
     ["xh = load(x[c, :])", "reduce_max(xu, axis=1, keepdim=True)"]),
    ("softmax_3d", "def forward(self, x):\n    return torch.softmax(x * 2.0, dim=-1)", "[torch.randn(3, 70, 40)]", "",
     ["for part in core_chunk(t.per_core, B * M):", "store(y[c, :], yu)"]),
]


@pytest.mark.parametrize("name,forward,inputs,init,lines", CASES, ids=[c[0] for c in CASES])
def test_short_rows_are_drafted_as_blocks_of_rows_and_match_pytorch_on_the_emulator(ref_dir, name, forward, inputs,
                                                                                      init, lines):
    path = write_ref(ref_dir, f"{name}_ref", forward, inputs, init)
    draft = draft_reference(path)
    assert draft.template == "row_blocks", draft.text
    for line in lines:
        assert line in draft.text, draft.text
    assert draft.text.count("with copyin:") == (2 if "ln_weightu" in draft.text else 1)   # no sweep per level
    verdict, emu, program = check_draft_on_emulator(draft.text, load_reference(path))
    assert emu.findings == [], render_run(emu, program)
    assert verdict.correct, verdict.summary() + "\n" + draft.text


def test_a_block_draft_fits_ub_when_the_rows_per_core_are_many(ref_dir):
    # tile_rows is bounded by UB (or one copy's 4095 rows), not by the traced shape
    path = write_ref(ref_dir, "rms_ref",
                     "def forward(self, x):\n    return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-6)",
                     "[torch.randn(8, 1000)]")
    draft = draft_reference(path)
    assert draft.template == "row_blocks", draft.text
    program = verify(parse(draft.text, "rms.dsl.py"), shapes={"x": (1 << 22, 1000), "y": (1 << 22, 1000)})
    assert program.plan is not None


def test_a_row_longer_than_a_repeat_stride_keeps_the_row_sweeps(ref_dir):
    path = write_ref(ref_dir, "long_ref", "def forward(self, x):\n    return torch.softmax(x, dim=-1)",
                     "[torch.randn(4, 2041)]")
    assert draft_reference(path).template == "rows"
