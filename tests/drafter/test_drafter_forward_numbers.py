"""A number among forward's inputs that a template needs when drafting (index_select's `dim`,
interpolate's `size`) is drafted as its traced value; the kernel takes no scalar for it (the bench
drafts again for a case passing another value: bench/worker.SplitByConstants)."""
from __future__ import annotations

from ascendcraft_lab.drafter import draft_reference
from ascendcraft_lab.dsl import parse

from drafter_helpers import write_ref


def test_index_select_with_a_forward_dim_is_drafted_for_that_dim(tmp_path):
    ref = write_ref(tmp_path, "index_select_dim", "def forward(self, x, dim, i):\n    return torch.index_select(x, dim, i)",
                    "[torch.randn(3, 20, 33), 1, torch.randint(0, 20, (7,))]")
    d = draft_reference(ref)
    assert d.template == "index" and not parse(d.text, "k.dsl.py").scalars
    assert "index_select along axis 1" in d.text


def test_interpolate_to_a_forward_size_is_drafted_to_that_size(tmp_path):
    ref = write_ref(tmp_path, "resize_size", "def forward(self, x, size):\n    return F.interpolate(x, size=size)",
                    "[torch.randn(2, 3, 16), 33]")
    d = draft_reference(ref)
    assert d.template == "resize" and "33" in d.text and not parse(d.text, "k.dsl.py").scalars
