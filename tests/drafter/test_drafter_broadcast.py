"""Broadcasting in the drafter (issue 17): inputs smaller than the output are loaded in their own
shape and stretched by the lowering, never materialised; end to end on the emulator."""
from __future__ import annotations

import pytest

from ascendcraft_lab.backends.emulator.verify import render_run
from ascendcraft_lab.drafter import DraftError, draft_from_trace, draft_reference
from ascendcraft_lab.drafter.trace import run_jobs
from ascendcraft_lab.reference import load_reference
from ascendcraft_lab.suite import ROOT as SUITE

from drafter_helpers import check_draft_on_emulator, write_ref

CASES = [  # (suite op, small overrides, the template, a line the draft must hold)
    ("broadcast/bias_add", {"batch_size": 5, "dim": 2100}, "bcast", "biasu = load(bias[k])"),       # two column tiles
    # one value per row: the rows layout reads it as one scalar per row (the (..., 1) rule of NPUKernelBench's
    # row ops), before any broadcast tile is considered
    ("broadcast/row_scale", {"batch_size": 37, "dim": 300}, "rows", "scalev = load(scale[r])"),
    ("broadcast/one_element_scale", {"batch_size": 3, "channels": 5, "dim": 77}, "bcast", "su = load(s[:])"),
    # a Model parameter bias composed with the GELU formula
    ("broadcast/linear_bias_gelu", {"batch_size": 7, "out_features": 1003}, "bcast", "biasu = load(bias[k])"),
]


@pytest.fixture(scope="module")
def runs():
    jobs = []
    for op, ov, _, _ in CASES:
        path = str(SUITE / f"{op}.py")
        jobs += [{"mode": "trace", "path": path, "overrides": ov},
                 {"mode": "run", "path": path, "overrides": ov, "seed": 2}]
    answers = run_jobs(jobs)
    return {case[0]: (answers[2 * i], answers[2 * i + 1]) for i, case in enumerate(CASES)}


@pytest.mark.heavy
@pytest.mark.parametrize("op,overrides,template,line", CASES, ids=[c[0] for c in CASES])
def test_a_broadcast_input_is_loaded_in_its_own_shape_and_the_draft_matches_pytorch(
        runs, op, overrides, template, line):
    traced, run = runs[op]
    draft = draft_from_trace(traced["graph"], name=op.split("/")[1], source=f"{op}.py")
    assert draft.template == template
    assert line in draft.text, draft.text
    verdict, emu, program = check_draft_on_emulator(draft.text, run["run"])
    assert emu.findings == [], render_run(emu, program)
    assert verdict.correct, verdict.summary() + "\n" + draft.text


@pytest.mark.heavy
def test_the_bias_tile_is_loaded_outside_the_loop_over_blocks_of_rows(runs):
    traced, _ = runs["broadcast/bias_add"]
    lines = draft_from_trace(traced["graph"], name="bias_add").text.splitlines()
    bias = next(i for i, l in enumerate(lines) if "load(bias[k])" in l)
    rows = next(i for i, l in enumerate(lines) if "for c in tiles(part, t.tile_rows)" in l)
    assert bias < rows


FOLDED = [  # (name, forward, inputs, a line the draft must hold): a middle axis, no input of the output's shape
    # (suite/broadcast runs more: a per-plane divisor, a middle-axis product)
    ("channel", "x + s.view(1, -1, 1, 1)", "[torch.randn(3, 5, 7, 40), torch.randn(5)]", "s: GM[f32, (C, 1)]"),
    ("both", "x * s", "[torch.randn(4, 1, 40), torch.randn(1, 4, 40)]", "su = load(s[c, k])"),
    ("outer", "torch.maximum(x, s)", "[torch.randn(3, 1, 50), torch.randn(1, 7, 1)]", "su = load(s[c, :])"),
]


@pytest.mark.heavy
@pytest.mark.parametrize("name,forward,inputs,line", FOLDED, ids=[c[0] for c in FOLDED])
def test_any_numpy_broadcast_folds_to_outer_indices_rows_and_columns_and_matches_pytorch(
        ref_dir, name, forward, inputs, line):
    path = write_ref(ref_dir, f"{name}_ref", f"def forward(self, x, s):\n    return {forward}", inputs)
    draft = draft_reference(path)
    assert draft.template == "bcast_fold" and line in draft.text, draft.text
    verdict, emu, program = check_draft_on_emulator(draft.text, load_reference(path))
    assert emu.findings == [], render_run(emu, program)
    assert verdict.correct, verdict.summary() + "\n" + draft.text


def test_the_output_folds_into_the_fewest_axes_of_one_pattern_per_operand():
    from ascendcraft_lab.drafter.layout import fold_axes
    # (B, C, H, W) against (1, C, 1, 1): H and W merge, B and C stay apart
    assert fold_axes((8, 5, 7, 9), [(8, 5, 7, 9), (1, 5, 1, 1)]) == [[0], [1], [2, 3]]
    # a size-1 axis of the output joins the group before it
    assert fold_axes((4, 1, 6), [(4, 1, 6), (4, 1, 1)]) == [[0, 1], [2]]


@pytest.mark.heavy
def test_a_broadcast_where_mask_is_one_bool_per_tile_and_the_kernel_loads_only_the_chosen_side(ref_dir):
    path = write_ref(ref_dir, "mask_ref", "def forward(self, cond, x, y):\n    return torch.where(cond, x, y + 1.0)",
                     "[torch.rand(1, 6, 1) > 0.5, torch.randn(4, 6, 40), torch.randn(4, 6, 40)]")
    draft = draft_reference(path)
    assert (draft.template == "bcast_fold" and "conds = load(cond[q])" in draft.text
            and "if conds:" in draft.text), draft.text
    verdict, emu, program = check_draft_on_emulator(draft.text, load_reference(path))
    assert emu.findings == [], render_run(emu, program)
    assert verdict.correct, verdict.summary() + "\n" + draft.text


@pytest.mark.heavy
def test_a_broadcast_where_mask_with_a_number_side_is_refused_in_one_line_naming_the_mask(ref_dir):
    path = write_ref(ref_dir, "mask_ref", "def forward(self, m, x):\n    return torch.where(m, x, 0.0)",
                     "[torch.rand(1, 6, 1) > 0.5, torch.randn(4, 6, 8)]")
    with pytest.raises(DraftError) as exc:
        draft_reference(path)
    msg = str(exc.value)
    assert "\n" not in msg and "a where() side that is a number beside a broadcast mask" in msg, msg


@pytest.mark.heavy
def test_a_zero_dimensional_tensor_is_the_one_element_of_its_declared_tensor(ref_dir):
    # torch.tensor(3.1415) has shape (): the draft declares it (1,), and binding reads it with a leading 1
    path = write_ref(ref_dir, "scalar_tensor_ref", "def forward(self, x, b):\n    return x + b",
                     "[torch.randn(5, 300), torch.tensor(3.1415)]")
    draft = draft_reference(path)
    assert draft.template == "bcast" and "b: GM[f32, (1,)]" in draft.text, draft.text
    verdict, emu, program = check_draft_on_emulator(draft.text, load_reference(path))
    assert emu.findings == [], render_run(emu, program)
    assert verdict.correct, verdict.summary()


def test_a_tensor_of_lower_rank_than_declared_dims_that_are_not_1_is_still_refused_at_binding():
    from ascendcraft_lab.dsl.errors import DslError
    from ascendcraft_lab.dsl.host import bind_dims
    from ascendcraft_lab.dsl.parser import parse
    program = parse(KERNEL_2D, "k.dsl.py")
    with pytest.raises(DslError, match=r"declared with 2 dims \(B, N\) but the reference tensor has 1"):
        bind_dims(program, {"x": (300,)})


KERNEL_2D = '''
@host
def tiling(x: Tensor[f32, (B, N)]):
    return Launch(1, n=N)


@kernel
def copy2d(x: GM[f32, (B, N)], y: Out[f32, (B, N)], t: Tiling):
    for r in range(B):
        for c in tiles(N, t.n):
            with copyin:
                xu = load(x[r, c])
            with copyout:
                store(y[r, c], xu)
'''
