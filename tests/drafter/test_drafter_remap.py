"""Elements moved within rows (issue 17): F.pad in every mode, a flip along the last axis,
torch.roll and repeats along several axes are index maps per axis; the remap template loads each
output row's source row whole and reads its columns with one Gather at positions computed on the
vector unit. Each case runs on the emulator at a shape whose rows are not whole vector repeats, so
padding lanes are exercised."""
from __future__ import annotations

import pytest

from ascendcraft_lab.backends.emulator.verify import render_run
from ascendcraft_lab.drafter import DraftError, draft_reference
from ascendcraft_lab.reference import load_reference

from drafter_helpers import check_draft_on_emulator, write_ref

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

CASES = [  # (name, forward body, inputs, a line the draft must hold)
    ("reflect_relu", "F.pad(torch.relu(x), (2, 3, 1, 2), mode='reflect') + 1.0", "[torch.randn(2, 3, 9, 17)]",
     "src = (W - 1) - abs((W - 1) - abs(col - 2.0))"),
    ("constant_crop", "F.pad(x, (-2, 3, 2, 1), value=1.5)", "[torch.randn(3, 5, 21)]",
     "where(off + out > 0.0, 1.5, g)"),
    ("roll_circular", "F.pad(torch.roll(x, shifts=(2, -3), dims=(1, 2)), (4, 3), mode='circular')",
     "[torch.randn(2, 7, 13)]", "src1 = where(src1 < 0.0, src1 + W, src1)"),
    ("flip_half", "x.flip(-1, 0)", "[torch.randn(5, 19).half()]", "= (W - 1) - col"),
    ("repeat_two_axes", "x.repeat(2, 3) * 2.0", "[torch.randn(5, 13)]", "src = col - W * floor((col + 0.5) / W)"),
    ("repeat_new_axes", "x.repeat(3, 2, 1)", "[torch.randn(6, 19)]", "y: Out[f32, (3, H * 2, W)]"),
]


@pytest.mark.parametrize("name,body,inputs,line", CASES, ids=[c[0] for c in CASES])
def test_a_pad_flip_or_roll_is_one_gather_per_tile_and_matches_pytorch_on_the_emulator(ref_dir, name, body, inputs,
                                                                                          line):
    path = write_ref(ref_dir, f"{name}_ref", f"def forward(self, x):\n    return {body}", inputs)
    draft = draft_reference(path)
    assert draft.template == "remap" and line in draft.text, draft.text
    verdict, emu, program = check_draft_on_emulator(draft.text, load_reference(path))
    assert emu.findings == [], render_run(emu, program)
    assert verdict.correct, verdict.summary() + "\n" + draft.text


def test_a_pad_beside_another_input_is_refused_in_one_line_with_its_reference_line(ref_dir):
    path = write_ref(ref_dir, "pad_two_ref", "def forward(self, x, y):\n    return F.pad(x, (1, 1)) + y",
                     "[torch.randn(4, 8), torch.randn(4, 10)]")
    with pytest.raises(DraftError) as exc:
        draft_reference(path)
    msg = str(exc.value)
    assert "\n" not in msg and "beside another tensor input" in msg and "(reference line 13)" in msg, msg


def test_a_reflect_pad_as_wide_as_the_axis_is_refused_as_pytorch_refuses_it(ref_dir):
    path = write_ref(ref_dir, "pad_wide_ref", "def forward(self, x):\n    return F.pad(x, (1, 5), mode='reflect')",
                     "[torch.randn(4, 5)]")
    with pytest.raises(DraftError) as exc:       # PyTorch itself raises: the trace fails first
        draft_reference(path)
    assert "\n" not in str(exc.value)


STACKS = [  # (name, forward body, inputs, a line the draft must hold)
    ("three_parts", "torch.stack([x, x * y, y], dim=-1)", "[torch.randn(2, 3, 7), torch.randn(2, 3, 7)]",
     "g1 = where(which == 1.0, take(p, src), g)"),
    ("int32_pair", "torch.stack([x, y], -1)",
     "[torch.randint(-2**31, 2**31 - 1, (3, 13), dtype=torch.int32), torch.randint(-2**31, 2**31 - 1, (3, 13), "
     "dtype=torch.int32)]", "(take(yu, src) - g0) * cast(which, i32)"),
]


@pytest.mark.parametrize("name,body,inputs,line", STACKS, ids=[c[0] for c in STACKS])
def test_a_stack_along_the_last_axis_interleaves_by_gathers_and_matches_pytorch_on_the_emulator(ref_dir, name, body,
                                                                                                 inputs, line):
    # an int32 pair is blended g0 + (g1 - g0) * s, exact only if the i32 arithmetic wraps: the extreme
    # values of randint make (g1 - g0) overflow in most lanes
    path = write_ref(ref_dir, f"{name}_ref", f"def forward(self, x, y):\n    return {body}", inputs)
    draft = draft_reference(path)
    assert draft.template == "interleave_last" and line in draft.text, draft.text
    verdict, emu, program = check_draft_on_emulator(draft.text, load_reference(path))
    assert emu.findings == [], render_run(emu, program)
    assert verdict.correct, verdict.summary() + "\n" + draft.text
