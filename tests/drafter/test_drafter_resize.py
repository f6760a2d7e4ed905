"""Resampling (issue 17): F.interpolate / nn.Upsample and grid_sample by affine_grid drafted and checked
on the emulator in spellings the suite does not reach; what the resize template cannot express is
refused in one line naming the construct and the reference line."""
from __future__ import annotations

import pytest

from ascendcraft_lab.drafter import DraftError, draft_reference
from ascendcraft_lab.reference import load_reference

from drafter_helpers import check_draft_on_emulator, write_ref

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

CASES = {  # name -> (forward, inputs, init, template)
    "nearest_module_3x_1d": ("def forward(self, x):\n    return self.up(x)", "[torch.randn(2, 3, 41)]",
                             "|self.up = nn.Upsample(scale_factor=3)", "resize"),
    "bicubic_down_size": ("def forward(self, x):\n    return F.interpolate(x, size=(7, 30), mode='bicubic')",
                          "[torch.randn(1, 2, 19, 13)]", "", "resize"),
    # antialias: a cubic filter (A = -0.5) twice as wide, a fixed number of taps from the scale factor; 9 output
    # columns, so a compare pads the tile to a whole repeat and the padding lanes gather too
    "bicubic_antialias_half": ("def forward(self, x):\n    return F.interpolate(x, scale_factor=0.5, mode='bicubic', "
                               "antialias=True)", "[torch.randn(1, 2, 12, 18)]", "", "resize"),
    # a grid input reaching past the border: the plane read in blocks, corners outside weighted 0
    "grid_sample_input_grid": ("def forward(self, x, g):\n    return F.grid_sample(x, g, align_corners=True)",
                               "[torch.randn(1, 2, 9, 14), torch.rand(1, 6, 11, 2) * 2.4 - 1.2]", "", "gridinput"),
    # adaptive average pooling (mode='area'): windows [floor(o * n / out), ceil((o + 1) * n / out)) of 3-4 rows
    # and columns, the rows one strided copy folded by reduce_sum(axis=0), the columns Gathers weighted 0 past
    # their window
    "adaptive_avg_module": ("def forward(self, x):\n    return self.pool(x)", "[torch.randn(2, 3, 17, 23)]",
                            "|self.pool = nn.AdaptiveAvgPool2d((5, 7))", "resize"),
    # a window of 2000 rows, longer than the rows one tile holds: the rest come win_rows at a time
    "area_long_window": ("def forward(self, x):\n    return F.adaptive_avg_pool2d(x, (1, 3))",
                         "[torch.randn(1, 2, 2000, 8)]", "", "resize"),
    "area_up_and_down": ("def forward(self, x):\n    return F.interpolate(x, size=(4, 30), mode='area')",
                         "[torch.randn(1, 2, 9, 11)]", "", "resize"),
    "grid_sample_identity_size": (
        "def forward(self, x, theta):\n    g = F.affine_grid(theta, x.size(), align_corners=True)\n"
        "    return F.grid_sample(x, g, align_corners=True)",
        "[torch.randn(2, 3, 11, 17), torch.tensor([[[1.2, 0.3, 0.1], [-0.2, 0.9, 0.0]]] * 2)]", "", "gridsample"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_resize_reference_is_drafted_and_matches_pytorch_on_the_emulator(name, tmp_path):
    forward, inputs, init, template = CASES[name]
    ref_path = write_ref(tmp_path, name, forward, inputs, init)
    d = draft_reference(ref_path)
    assert d.template == template
    verdict, run_, program = check_draft_on_emulator(d.text, load_reference(ref_path))
    assert run_.findings == [] and verdict.correct, verdict.summary()


X = "[torch.randn(2, 3, 8, 8)]"


@pytest.mark.parametrize("forward, inputs, construct", [
    ("def forward(self, x, g):\n    return F.grid_sample(x, g, mode='nearest')",
     "[torch.randn(2, 3, 8, 8), torch.rand(2, 4, 4, 2)]", "F.grid_sample mode='nearest'"),
])
def test_what_the_resize_template_cannot_express_is_refused_in_one_line(forward, inputs, construct, tmp_path):
    ref = write_ref(tmp_path, "bad", forward, inputs)
    with pytest.raises(DraftError) as e:
        draft_reference(ref)
    text = str(e.value)
    assert "\n" not in text and construct in text, text


def test_an_interpolation_refusal_names_the_mode_and_its_reference_line(tmp_path):
    ref = write_ref(tmp_path, "bad", "def forward(self, x):\n    return F.interpolate(x, size=4, mode='area')",
                    "[torch.randn(2, 3, 8)]")
    with pytest.raises(DraftError) as e:
        draft_reference(ref)
    line = 1 + next(i for i, l in enumerate(ref.read_text().splitlines()) if l.strip().startswith("return "))
    assert "mode='area' (adaptive average pooling) of a rank-3 tensor" in str(e.value), str(e.value)
    assert f"reference line {line}" in str(e.value)


def test_global_average_pooling_is_a_mean_over_the_plane(tmp_path):
    ref = write_ref(tmp_path, "gap", "def forward(self, x):\n    return F.adaptive_avg_pool2d(x, 1)",
                    "[torch.randn(2, 3, 9, 11)]")
    d = draft_reference(ref)
    # a tile is a block of whole planes, each summed along its last axis (H * W values) and scaled
    assert d.template == "windows" and "reduce_sum(xu, axis=-1)" in d.text, d.text
    verdict, run_, _ = check_draft_on_emulator(d.text, load_reference(ref))
    assert run_.findings == [] and verdict.correct, verdict.summary()
