"""A number among forward's inputs that a template needs when drafting (index_select's `dim`,
interpolate's `size`) is drafted as its traced value; the kernel takes no scalar for it (the bench
drafts again for a case passing another value: bench/worker.SplitByConstants)."""
from __future__ import annotations
import pytest

from ascendcraft_lab.drafter import draft_reference
from ascendcraft_lab.dsl import parse

from drafter_helpers import write_ref

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy


def test_index_select_with_a_forward_dim_is_drafted_for_that_dim(tmp_path):
    ref = write_ref(tmp_path, "index_select_dim",
                    "def forward(self, x, dim, i):\n    return torch.index_select(x, dim, i)",
                    "[torch.randn(3, 20, 33), 1, torch.randint(0, 20, (7,))]")
    d = draft_reference(ref)
    assert d.template == "index" and not parse(d.text, "k.dsl.py").scalars
    assert "index_select along axis 1" in d.text


def test_interpolate_to_a_forward_size_is_drafted_to_that_size(tmp_path):
    ref = write_ref(tmp_path, "resize_size", "def forward(self, x, size):\n    return F.interpolate(x, size=size)",
                    "[torch.randn(2, 3, 16), 33]")
    d = draft_reference(ref)
    assert d.template == "resize" and "33" in d.text and not parse(d.text, "k.dsl.py").scalars


def test_a_forward_dim_and_keepdim_of_a_reduction_are_their_traced_values(tmp_path):
    # keepdim=False passed by get_inputs(): the result drops the axis (it was kept: the argument's
    # node, not its value, was read as a truth value); dim=None reduces every axis
    forward = ("def forward(self, x, dim=None, keepdim: bool = False):\n"
               "    return torch.sum(x, dim=dim, keepdim=keepdim)")
    for inputs, out in (("[torch.randn(3, 1, 100), 1, False]", "y: Out[f32, (B, N)]"),
                        ("[torch.randn(4, 5, 37), [1, 2], True]", "y: Out[f32, ((B, 1, 1),)]"),
                        ("[torch.randn(2, 3, 4, 65), None, False]", "y: Out[f32, ()]")):
        d = draft_reference(write_ref(tmp_path, "sum_args", forward, inputs))
        assert out in d.text, (inputs, d.text)


def test_fliplr_and_flipud_draft_as_the_flips_they_are(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a = draft_reference(write_ref(tmp_path / "a", "flip",
                                  "def forward(self, x):\n    return torch.flipud(torch.fliplr(x))",
                                  "[torch.randn(5, 13)]"))
    b = draft_reference(write_ref(tmp_path / "b", "flip", "def forward(self, x):\n    return x.flip(0).flip(1)",
                                  "[torch.randn(5, 13)]"))
    assert a.template == b.template == "remap" and a.text.split('"""', 2)[2] == b.text.split('"""', 2)[2]


def test_a_reduction_of_every_axis_with_keepdim_keeps_ones(tmp_path):
    # sum (the total template, an atomic add) and max (one core's sweep) to shape (1,) / (1, 1)
    from ascendcraft_lab.reference import check_interpreter
    for body, inputs, out in (("torch.sum(x, 0, keepdim=True)", "[torch.randn(1000)]", "y: Out[f32, (1,)]"),
                              ("torch.amax(x, (0, 1), keepdim=True)", "[torch.randn(16, 33)]",
                               "y: Out[f32, ((1, 1),)]")):
        ref = write_ref(tmp_path, "keep_all", f"def forward(self, x):\n    return {body}", inputs)
        d = draft_reference(ref)
        assert out in d.text, d.text
        assert check_interpreter(d.text, ref).correct
