"""F.layer_norm, F.rms_norm and F.normalize: the functional spellings of two normalizations. Rows of 301
fit UB whole: the row-blocks template (a block of rows per copy, one compute stage)."""
from __future__ import annotations

import pytest

from ascendcraft_lab.drafter import draft_from_trace
from ascendcraft_lab.drafter.trace import run_jobs
from ascendcraft_lab.reference import check_interpreter

from drafter_helpers import write_ref

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

SPELLINGS = {
    "ln_functional": ("def forward(self, x):\n    return F.layer_norm(x, x.shape[-1:])", "[torch.randn(6, 301)]"),
    "ln_module": ("def forward(self, x):\n    return self.ln(x)", "[torch.randn(6, 301)]",
                  "|self.ln = nn.LayerNorm(301, elementwise_affine=False)"),
    "normalize": ("def forward(self, x):\n    return F.normalize(x, dim=-1)", "[torch.randn(6, 301)]"),
    "ln_weighted": ("def forward(self, x, w):\n    return F.layer_norm(x, (301,), w)",
                    "[torch.randn(6, 301), torch.randn(301)]"),
    "rms_weighted": ("def forward(self, x, res, w):\n    s = x + res\n    return F.rms_norm(s, (301,), w, 1e-6), s",
                     "[torch.randn(2, 3, 301), torch.randn(2, 3, 301), torch.randn(301)]"),
    "gn_weighted": ("def forward(self, x, w, b, groups):\n    return F.group_norm(x, groups, w, b, 1e-5)",
                    "[torch.randn(2, 6, 5, 7), torch.randn(6), torch.randn(6), 3]"),
}


@pytest.fixture(scope="module")
def traced(ref_dir):
    paths = {name: write_ref(ref_dir, name, spec[0], spec[1], spec[2] if len(spec) > 2 else "")
             for name, spec in SPELLINGS.items()}
    runs = run_jobs([{"mode": "trace", "path": str(p)} for p in paths.values()])
    return {name: (paths[name], t) for name, t in zip(paths, runs)}


def _draft(traced, name):
    path, t = traced[name]
    assert isinstance(t, dict), t
    return path, draft_from_trace(t["graph"], name="k", source="ref.py")


def test_functional_layer_norm_drafts_as_the_module_without_affine_does(traced):
    _, functional = _draft(traced, "ln_functional")
    _, module = _draft(traced, "ln_module")
    assert functional.text.split('"""', 2)[2] == module.text.split('"""', 2)[2]


@pytest.mark.parametrize("name", ["ln_functional", "normalize"])
def test_the_functional_normalizations_draft_correct_kernels(traced, name):
    path, d = _draft(traced, name)
    assert d.template == "row_blocks"
    assert check_interpreter(d.text, path).correct


def test_functional_layer_norm_with_a_weight_tensor_reads_it_as_a_row_beside_each_tile(traced):
    path, d = _draft(traced, "ln_weighted")
    assert d.template == "row_blocks" and "w: GM[f32, (N,)]" in d.text and "wu = load(w[:])" in d.text   # once per core
    assert check_interpreter(d.text, path).correct


def test_a_fused_add_and_rms_norm_with_a_weight_input_returns_both_outputs_from_one_kernel(traced):
    path, d = _draft(traced, "rms_weighted")
    assert d.template == "row_blocks" and d.text.count(": Out[") == 2 and d.text.count("store(") == 2
    assert check_interpreter(d.text, path).correct


def test_functional_group_norm_reads_its_per_channel_weight_and_bias_inputs_once_per_plane(traced):
    path, d = _draft(traced, "gn_weighted")
    assert d.template == "planes" and "w: GM[f32, (C,)]" in d.text
    assert check_interpreter(d.text, path).correct


def test_a_per_row_operand_reads_one_scalar_per_row(ref_dir):
    """x * scale with scale of shape (..., 1): the rows template, scale loaded once per row."""
    path = write_ref(ref_dir, "row_scale", "def forward(self, x, s):\n    return x * s",
                     "[torch.randn(2, 3, 301), torch.randn(2, 3, 1)]")
    [t] = run_jobs([{"mode": "trace", "path": str(path)}])
    d = draft_from_trace(t["graph"], name="k", source="ref.py")
    assert d.template == "rows" and "= load(s[r])" in d.text
    assert check_interpreter(d.text, path).correct
