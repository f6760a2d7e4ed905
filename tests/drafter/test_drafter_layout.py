"""Views as kernel inputs and outputs (issue 17): a slice or narrow of an input along any axis is
that input loaded at an offset (a strided copy that starts further on), torch.cat as the output is
one loop nest per part stored at its offset, both composed with broadcasting; what the layouts
cannot copy is refused in one line (test_drafter_refusals)."""
from __future__ import annotations

import pytest

from ascendcraft_lab.backends.emulator.verify import render_run
from ascendcraft_lab.drafter import DraftError, draft_reference
from ascendcraft_lab.reference import load_reference
from ascendcraft_lab.reference.bind import check_interpreter

from drafter_helpers import check_draft_on_emulator, write_ref

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

CASES = [  # (name, forward, inputs, a line the draft must hold)
    ("columns", "x[:, 3:20] + s", "[torch.randn(6, 33), torch.randn(17)]",
     "xu = load(x[c, k.start + 3:k.start + 3 + k.len])"),
    ("planes", "x.narrow(0, 2, 3) * s", "[torch.randn(7, 5, 40), torch.randn(3, 1, 1)]",
     "xu = load(x[c.start + 2:c.start + 2 + c.len, k])"),
]


@pytest.mark.parametrize("name,forward,inputs,line", CASES, ids=[c[0] for c in CASES])
def test_a_slice_of_an_input_is_a_load_at_an_offset_and_matches_pytorch(ref_dir, name, forward, inputs, line):
    path = write_ref(ref_dir, f"{name}_ref", f"def forward(self, x, s):\n    return {forward}", inputs)
    draft = draft_reference(path)
    assert draft.template == "bcast_fold" and line in draft.text, draft.text
    verdict, emu, program = check_draft_on_emulator(draft.text, load_reference(path))
    assert emu.findings == [], render_run(emu, program)
    assert verdict.correct, verdict.summary() + "\n" + draft.text


def test_a_concatenation_is_stores_at_offsets_and_the_draft_holds_on_another_shape():
    # drafted on the reference shape, run on the tail shape: the parts' lengths and offsets are dims
    from ascendcraft_lab.bench.suite import read_tail
    from ascendcraft_lab.suite import ROOT
    path = ROOT / "layout" / "cat_features.py"
    draft = draft_reference(path)
    assert (draft.template == "bcast_fold"
            and "store(y1[c, k.start + N1:k.start + N1 + k.len], y1u)" in draft.text), draft.text
    verdict, emu, program = check_draft_on_emulator(draft.text, load_reference(path, overrides=read_tail(path)[0]))
    assert emu.findings == [], render_run(emu, program)
    assert verdict.correct, verdict.summary() + "\n" + draft.text


def test_an_input_read_through_two_slices_of_one_length_is_two_windows_of_it(ref_dir):
    # issue 33: x[:, :16] * x[:, 16:] (GLU's halves) loads x twice, at offsets 0 and 16
    path = write_ref(ref_dir, "halves_ref", "def forward(self, x):\n    return x[:, :16] * x[:, 16:]",
                     "[torch.randn(8, 32)]")
    draft = draft_reference(path)
    assert draft.text.count(": GM[") == 1 and "k.start + 16:" in draft.text, draft.text
    verdict = check_interpreter(draft.text, path)
    assert verdict.correct, verdict.summary()


def test_an_input_read_through_two_slices_of_different_lengths_is_refused_in_one_line_naming_its_line(ref_dir):
    path = write_ref(ref_dir, "uneven_ref", "def forward(self, x):\n    return x[:, :1] * x[:, 16:]",
                     "[torch.randn(8, 32)]")
    with pytest.raises(DraftError) as exc:
        draft_reference(path)
    msg = str(exc.value)
    assert "\n" not in msg and "`x` read through two different slices" in msg and "(reference line 13)" in msg, msg


@pytest.mark.parametrize("name", ["stack_branches", "stack_planes_scale"])
def test_a_stack_is_stores_at_the_index_along_the_new_axis_and_holds_on_the_tail_shape(name):
    # each part viewed with a new axis of 1 is a part of a cat: stored at its index, the cores split its rows
    from ascendcraft_lab.bench.suite import read_tail
    from ascendcraft_lab.suite import ROOT
    path = ROOT / "layout" / f"{name}.py"
    draft = draft_reference(path)
    line = "store(y1[c, 2, k], y1u)" if name == "stack_branches" else "store(y[i01 + 1, i11, c, k], yu)"
    assert draft.template == "bcast_fold" and line in draft.text, draft.text
    verdict, emu, program = check_draft_on_emulator(draft.text, load_reference(path, overrides=read_tail(path)[0]))
    assert emu.findings == [], render_run(emu, program)
    assert verdict.correct, verdict.summary() + "\n" + draft.text


def test_a_stack_of_slices_along_the_last_axis_is_refused_in_one_line_with_its_reference_line(ref_dir):
    # stacked tensors interleave (test_drafter_remap); slices of one input as the parts do not
    path = write_ref(ref_dir, "interleave_ref",
                     "def forward(self, x):\n    return torch.stack([x[:, :4], x[:, 4:]], dim=-1)",
                     "[torch.randn(4, 8)]")
    with pytest.raises(DraftError) as exc:
        draft_reference(path)
    msg = str(exc.value)
    assert "\n" not in msg and "a part of a stack along the last axis" in msg and "(reference line 13)" in msg, msg


@pytest.mark.parametrize("name,line", [
    ("repeat_columns_bias", "store(y[c, k.start + N1 + N1:k.start + N1 + N1 + k.len], yu)"),
    ("tile_batch", "store(y[c.start + B1:c.start + B1 + c.len, k], yu)")])
def test_a_repeat_or_tile_is_one_copy_stored_per_offset_and_holds_on_the_tail_shape(name, line):
    from ascendcraft_lab.bench.suite import read_tail
    from ascendcraft_lab.suite import ROOT
    path = ROOT / "layout" / f"{name}.py"
    draft = draft_reference(path)
    assert draft.template == "bcast_fold" and line in draft.text, draft.text
    verdict, emu, program = check_draft_on_emulator(draft.text, load_reference(path, overrides=read_tail(path)[0]))
    assert emu.findings == [], render_run(emu, program)
    assert verdict.correct, verdict.summary() + "\n" + draft.text


@pytest.mark.parametrize("name,line", [("flip_channels_bias", "xu = load(x[c, M - 1 - q, k])"),
                                       ("flip_batch_scale", "xu = load(x[B - 1 - q, c, k])")])
def test_a_flip_along_an_outer_axis_is_a_reversed_scalar_offset_and_holds_on_the_tail_shape(name, line):
    from ascendcraft_lab.bench.suite import read_tail
    from ascendcraft_lab.suite import ROOT
    path = ROOT / "layout" / f"{name}.py"
    draft = draft_reference(path)
    assert draft.template == "bcast_fold" and line in draft.text, draft.text
    verdict, emu, program = check_draft_on_emulator(draft.text, load_reference(path, overrides=read_tail(path)[0]))
    assert emu.findings == [], render_run(emu, program)
    assert verdict.correct, verdict.summary() + "\n" + draft.text


@pytest.mark.parametrize("first", [False, True], ids=["last_part", "first_part"])
def test_a_cat_part_one_long_along_the_axis_is_stored_at_a_scalar_index(ref_dir, first):
    # the part's tile has no axis of its own along the cat: its store indexes the axis by a number
    shapes = ["torch.randn(3, 5, 7)", "torch.randn(3, 1, 7)"][::-1 if first else 1]
    path = write_ref(ref_dir, "cat_one_ref", "def forward(self, x, y):\n    return torch.cat([x, y], dim=1)",
                     f"[{', '.join(shapes)}]")
    draft = draft_reference(path)
    assert draft.template == "bcast_fold", draft.text
    verdict, emu, program = check_draft_on_emulator(draft.text, load_reference(path))
    assert emu.findings == [], render_run(emu, program)
    assert verdict.correct, verdict.summary() + "\n" + draft.text
