"""The drafter's cube templates (drafter/cube.py): every spelling of a matrix product meets in one
draft; transposed operands, leading axes, nn.Linear's own weight and bias, an elementwise epilogue
and a triangular mask are drafted and match PyTorch on the interpreter (tail-sized shapes: M, N, K
not multiples of 16); a matrix-vector product and diag(v) @ B go to the vector unit; what the
templates cannot express is refused in one line naming the construct and its reference line (two
products, a reduction after one and computed or permuted operands are phases of one kernel:
test_drafter_phases.py)."""
from __future__ import annotations

import re

import pytest

from ascendcraft_lab.drafter import DraftError, draft_from_trace
from ascendcraft_lab.drafter.trace import run_jobs
from ascendcraft_lab.reference.bind import check_interpreter

from drafter_helpers import check_draft_on_emulator, write_ref

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

AB = "[torch.randn(37, 45), torch.randn(45, 29)]"
LINEAR = {"init": ", i: int, o: int|self.fc = nn.Linear(i, o)", "init_inputs": "[40, 27]"}
FORMS = {"mm_base": "torch.matmul(a, b)", "mm_mm": "torch.mm(a, b)", "mm_at_op": "a @ b",
         "mm_einsum": "torch.einsum('ij,jk->ik', a, b)"}
MASKS = [("triu", 0), ("tril", 1), ("triu", -2), ("tril", 0)]
REFUSED = {
    "no_masked_operand": ("def forward(self, a, b):\n    return torch.triu(a) @ b",
                          "[torch.randn(37, 37), torch.randn(37, 29)]",
                          ["triu-masked left operand", "reference line"]),
    "no_causal_sdpa": ("def forward(self, q, k, v):\n"
                       "    return F.scaled_dot_product_attention(q, k, v, is_causal=True)",
                       "[torch.randn(2, 8, 16), torch.randn(2, 8, 16), torch.randn(2, 8, 16)]",
                       ["is_causal=True", "reference line"]),
    "no_shared_heads": ("def forward(self, q, k, v):\n    return F.scaled_dot_product_attention(q, k, v)",
                        "[torch.randn(1, 4, 8, 16), torch.randn(1, 1, 8, 16), torch.randn(1, 1, 8, 16)]",
                        ["GQA / MQA", "reference line"]),
    "no_lone_transpose": ("def forward(self, a):\n    return a.t().sum(dim=0)", "[torch.randn(4, 5)]",
                          ["`permute` (a transpose) combined with other operations", "reference line"]),
}
CASES = {  # name -> (forward, get_inputs, write_ref keywords)
    **{name: (f"def forward(self, a, b):\n    return {form}", AB, {}) for name, form in FORMS.items()},
    "mm_at": ("def forward(self, a, b):\n    return a.t() @ b", "[torch.randn(45, 37), torch.randn(45, 29)]", {}),
    "mm_bt": ("def forward(self, a, b):\n    return torch.matmul(a, b.transpose(-1, -2))",
              "[torch.randn(37, 45), torch.randn(29, 45)]", {}),
    "mm_bmm": ("def forward(self, a, b):\n    return torch.bmm(a, b)",
               "[torch.randn(3, 20, 33), torch.randn(3, 33, 18)]", {}),
    "mm_4d": ("def forward(self, q, k):\n    return torch.einsum('bhik,bhjk->bhij', q, k)",
              "[torch.randn(2, 3, 20, 24), torch.randn(2, 3, 17, 24)]", {}),
    "mm_4d_weight": ("def forward(self, a, w):\n    return torch.einsum('bijl,lk->bijk', a, w)",
                     "[torch.randn(2, 3, 7, 24), torch.randn(24, 19)]", {}),
    "mm_linear": ("def forward(self, x):\n    return self.fc(x)", "[torch.randn(2, 21, 40)]", LINEAR),
    "mm_linear_relu": ("def forward(self, x):\n    return torch.relu(self.fc(x))", "[torch.randn(37, 40)]", LINEAR),
    "mm_bmm_bias_relu": ("def forward(self, a, b, c):\n    return torch.relu(torch.bmm(a, b) + c)",
                         "[torch.randn(3, 20, 33), torch.randn(3, 33, 18), torch.randn(18)]", {}),
    "mm_relu": ("def forward(self, a, b):\n    return torch.relu(torch.mm(a, b) * 0.5)", AB, {}),
    **{f"mm_{m}{d + 2}": (f"def forward(self, a, b):\n    return torch.{m}(torch.matmul(a, b), diagonal={d})",
                          "[torch.randn(37, 23), torch.randn(23, 41)]", {}) for m, d in MASKS},
    "mv": ("def forward(self, a, x):\n    return torch.matmul(a, x)", "[torch.randn(37, 1003), torch.randn(1003)]", {}),
    "diag_mm": ("def forward(self, v, b):\n    return torch.diag(v) @ b",
                "[torch.randn(37), torch.randn(37, 1003)]", {}),
    "mm_diag": ("def forward(self, a, v):\n    return a @ torch.diag(v)",
                "[torch.randn(37, 1003), torch.randn(1003)]", {}),
    "mm_f16": ("def forward(self, a, b):\n    return a @ b",
               "[torch.randn(37, 45).half(), torch.randn(45, 29).half()]", {}),
    **{name: (fwd, inputs, {}) for name, (fwd, inputs, _) in REFUSED.items()},
}


@pytest.fixture(scope="module")
def traced(ref_dir):
    """Every case traced and run in one reference child (one torch start-up for the module)."""
    paths = {name: write_ref(ref_dir, name, fwd, inputs, **kw) for name, (fwd, inputs, kw) in CASES.items()}
    jobs = []
    for path in paths.values():
        jobs += [{"mode": "trace", "path": str(path)}, {"mode": "run", "path": str(path), "seed": 0}]
    answers = run_jobs(jobs)
    return {name: (paths[name], answers[2 * i], answers[2 * i + 1]) for i, name in enumerate(paths)}


def draft_reference(traced_cases, name):
    path, trace, _ = traced_cases[name]
    assert isinstance(trace, dict), trace
    return draft_from_trace(trace["graph"], name=name, source=path.name)


def _body(text: str) -> str:
    """The draft without its kernel name and docstring (forms of one product compare equal)."""
    text = re.sub(r'^""".*?"""\n', "", text, flags=re.S)
    return re.sub(r"def \w+\(", "def K(", text)


def _correct(traced_cases, name):
    path, _, run = traced_cases[name]
    draft = draft_reference(traced_cases, name)
    verdict = check_interpreter(draft.text, path, reference=run["run"])
    assert verdict.correct, verdict.summary()
    return draft


@pytest.mark.parametrize("name", [n for n in FORMS if n != "mm_base"])
def test_every_spelling_of_a_product_gives_the_same_cube_draft(traced, name):
    base, draft = draft_reference(traced, "mm_base"), _correct(traced, name)
    assert draft.template == base.template == "matmul"
    assert _body(draft.text) == _body(base.text)
    assert "mmad(a0, b0, acc)" in draft.text and "core_tiles((K, M, N), (t.kc, t.base_m, t.base_n))" in draft.text
    # split-K (issue 35): each block's partial sum over its K chunk is added atomically into the zeroed result
    assert "for ki in tiles(kr, t.base_k)" in draft.text and "store(y[mi, ni], acc, accumulate=True)" in draft.text


def test_a_transposed_left_operand_is_loaded_as_it_lies_and_transposed_in_the_split(traced):
    draft = _correct(traced, "mm_at")
    assert "a[ki, mi]" in draft.text and "load(a1, L0A, transpose=True)" in draft.text


def test_a_transposed_right_operand_needs_no_transpose_on_its_way_to_l0b(traced):
    draft = _correct(traced, "mm_bt")
    assert "b[ni, ki]" in draft.text and "load(b1, L0B, transpose=True)" in draft.text


def test_bmm_puts_the_batch_on_the_block_grid(traced):
    draft = _correct(traced, "mm_bmm")
    assert "for gi, mi, ni in core_tiles((B, M, N), (1, t.base_m, t.base_n))" in draft.text


def test_a_4d_einsum_with_a_transposed_operand_is_a_batched_product(traced):
    draft = _correct(traced, "mm_4d")
    assert "((B, H), M, K)" in draft.text and "transpose=True" in draft.text


def test_an_einsum_with_several_free_axes_of_a_over_one_matrix_is_more_rows_of_a(traced):
    draft = _correct(traced, "mm_4d_weight")
    assert "a: GM[f32, ((B, H, M), K)]" in draft.text and "core_tiles((K, B * H * M, N)" in draft.text


def test_linear_on_a_3d_input_uses_the_models_weight_and_bias_and_its_leading_axes_as_rows(traced):
    draft = _correct(traced, "mm_linear")
    assert draft.template == "epilogue"
    assert 'Param[f32, (N, K), "fc.weight"]' in draft.text and 'Param[f32, (N,), "fc.bias"]' in draft.text
    assert "x: GM[f32, ((B, M), K)]" in draft.text and "sync_all()" in draft.text


def test_a_batched_product_with_a_bias_and_relu_reads_its_workspace_per_batch(traced):
    draft = _correct(traced, "mm_bmm_bias_relu")
    assert "load(prod[r // M, r % M, c])" in draft.text and "store(y[r, c], yu)" in draft.text


def test_an_activation_and_a_scale_after_the_product_run_on_the_vector_cores(traced):
    draft = _correct(traced, "mm_relu")
    assert draft.template == "epilogue" and "relu(" in draft.text and "Workspace[f32, (M, N)]" in draft.text


@pytest.mark.parametrize("mask, diagonal", MASKS)
def test_a_triangular_mask_of_the_result_is_two_column_ranges_per_row(traced, mask, diagonal):
    draft = _correct(traced, f"mm_{mask}{diagonal + 2}")
    assert "z = min(max(" in draft.text and draft.text.count("for c in tiles(") == 2


def test_a_matrix_times_a_vector_is_drafted_for_the_vector_unit_and_says_why(traced):
    draft = _correct(traced, "mv")
    assert draft.template == "matvec" and "mmad" not in draft.text and "reduce_sum(au * xu)" in draft.text
    assert any("vector unit" in n for n in draft.notes)


def test_a_diagonal_left_operand_is_a_row_scaling_with_no_product(traced):
    draft = _correct(traced, "diag_mm")
    assert draft.template == "rowscale" and "mmad" not in draft.text and "yu = mu * s" in draft.text


def test_a_diagonal_right_operand_scales_the_columns(traced):
    draft = _correct(traced, "mm_diag")
    assert draft.template == "colscale" and "mmad" not in draft.text


def test_an_f16_product_sums_in_f32_and_keeps_f16_in_gm(traced):
    draft = _correct(traced, "mm_f16")
    assert "GM[f16, (M, K)]" in draft.text and "Out[f16, (M, N)]" in draft.text


@pytest.mark.parametrize("name", list(REFUSED))
def test_what_the_cube_templates_cannot_express_is_refused_in_one_line(traced, name):
    with pytest.raises(DraftError) as exc:
        draft_reference(traced, name)
    text = str(exc.value)
    assert "\n" not in text and "unsupported" in text
    for w in REFUSED[name][2]:
        assert w in text, text


def test_a_linear_relu_draft_runs_on_the_emulator_without_findings(traced):
    draft = draft_reference(traced, "mm_linear_relu")
    verdict, run, _ = check_draft_on_emulator(draft.text, traced["mm_linear_relu"][2]["run"])
    assert verdict.correct, verdict.summary()
    assert not run.findings
