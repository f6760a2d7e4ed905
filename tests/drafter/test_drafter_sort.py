"""Sorting (issue 18): torch.sort / argsort / topk / kthvalue / msort drafted by the sort template
(argsort() of a whole row, values by take()) and checked against PyTorch; what the template does
not cover is refused in one line naming the construct and the reference line."""
from __future__ import annotations

import pytest

from ascendcraft_lab.drafter import DraftError, draft_reference
from ascendcraft_lab.reference import load_reference
from ascendcraft_lab.reference.bind import check_interpreter

from drafter_helpers import check_draft_on_emulator, write_ref

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

CASES = {  # name -> (forward, inputs, init, init_inputs): spellings and dtypes the suite does not all reach
    "sort_bf16": ("def forward(self, x):\n    return torch.sort(x, stable=True)",
                  "[torch.randn(2, 3, 100).bfloat16()]", "", "[]"),
    "topk_init_k_indices": ("def forward(self, x):\n    return x.topk(self.k, largest=False).indices",
                            "[torch.randn(5, 64)]", ", k: int|self.k = k", "[7]"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_sort_reference_is_drafted_and_matches_pytorch_on_the_interpreter(name, tmp_path):
    forward, inputs, init, init_inputs = CASES[name]
    ref_path = write_ref(tmp_path, name, forward, inputs, init, init_inputs)
    d = draft_reference(ref_path)
    assert d.template == "sort" and "argsort(" in d.text
    draft = tmp_path / "k.dsl.py"
    draft.write_text(d.text)
    verdict = check_interpreter(draft, ref_path)
    assert verdict.correct, verdict.summary()


def test_kthvalue_with_keepdim_of_bf16_rows_matches_pytorch_on_the_emulator(tmp_path):
    # the inputs are distinct: kthvalue picks any of equal values
    ref_path = write_ref(tmp_path, "kth",
                         "def forward(self, x):\n    return torch.kthvalue(x, 5, dim=-1, keepdim=True)",
                         "[torch.randperm(252).reshape(9, 28).bfloat16()]")
    d = draft_reference(ref_path)
    verdict, run_, _ = check_draft_on_emulator(d.text, load_reference(ref_path))
    assert run_.findings == [] and verdict.correct, verdict.summary()


@pytest.mark.parametrize("forward, inputs, construct", [
    ("def forward(self, x):\n    return torch.sort(x, dim=0)", "[torch.randn(8, 5)]",
     "`sort` along dim 0, not the last"),
    ("def forward(self, x):\n    return torch.sort(x)", "[torch.randint(0, 9, (4, 8), dtype=torch.int32)]",
     "Sort32 sorts half and float scores only"),
])
def test_what_the_sort_template_cannot_express_is_refused_in_one_line(forward, inputs, construct, tmp_path):
    ref = write_ref(tmp_path, "bad", forward, inputs)
    with pytest.raises(DraftError) as e:
        draft_reference(ref)
    text = str(e.value)
    assert "\n" not in text and construct in text, text
