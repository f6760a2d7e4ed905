"""Drafts of a representative subset, end to end: draft -> four passes -> g++ on the emulator -> PyTorch.

One op per template (map, rows, cols, windows) plus the patterns that need more than one node:
a reverse scan written with flips, an exclusive scan written with cat, a bool mask, scalars from
both get_inputs and get_init_inputs with several outputs, and an fp16 activation (at 1e-2).
Small shapes keep it quick; the whole suite belongs to `ascendcraft bench`.
"""
from __future__ import annotations

import pytest

from ascendcraft_lab.drafter import draft_from_trace
from ascendcraft_lab.drafter.trace import run_jobs
from ascendcraft_lab.dsl.parser import parse
from ascendcraft_lab.dsl.verifier import verify
from ascendcraft_lab.engines.rule import render
from ascendcraft_lab.passes.manager import LowerOptions
from ascendcraft_lab.backends.emulator.verify import check_emulator, render_run
from ascendcraft_lab.suite import ROOT as SUITE

from drafter_helpers import check_draft_on_emulator

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

CASES = [  # (suite op, overrides, expected template, cast inputs)
    ("activation/gelu", {"batch_size": 3, "dim": 1003}, "map", None),
    ("activation/log_softmax", {"batch_size": 3, "dim": 9001}, "rows", None),
    ("reduce/sum_dim", {"batch_size": 3, "dim1": 5, "dim2": 1003}, "cols", None),
    ("reduce/mean_dim", {"batch_size": 3, "dim1": 5, "dim2": 300}, "windows", None),
    ("reduce/mean_dim", {"batch_size": 3, "dim1": 5, "dim2": 300}, "windows", "float16"),    # f16: cast, reduce_sum
    # blocks of rows folded by reduce_*(axis=0); the reduced axis split over the cores (a workspace of partials,
    # sync_all, one combine) when the leading axis leaves cores idle; without leading axes, chunks of columns
    ("reduce/prod_dim", {"batch_size": 3, "dim1": 37, "dim2": 1003}, "cols", None),
    ("reduce/max_dim", {"batch_size": 2, "dim1": 100, "dim2": 33}, "cols", "float16"),
    ("reduce/min_dim", {"batch_size": 7, "dim1": 5, "dim2": 300}, "cols", None),
    ("math/cumsum_reverse", {"batch_size": 3, "input_shape": (9001,)}, "rows", None),
    ("math/cumsum_exclusive", {"batch_size": 3, "input_shape": (1003,)}, "rows", None),
    ("math/masked_cumsum", {"batch_size": 3, "input_shape": (1003,)}, "rows", None),
    ("optimizer/adam", {"n_params": 10007}, "map", None),
    # two global sums shared through the workspace: two scalar stores in one copy-out stage
    ("optimizer/lamb", {"n_rows": 5, "n_cols": 1003}, "rows", None),
    ("activation/softplus", {"batch_size": 3, "dim": 1003}, "map", "float16"),
]


@pytest.fixture(scope="module")
def traced_and_runs():
    jobs = []
    for op, ov, _, cast in CASES:
        path = str(SUITE / f"{op}.py")
        jobs.append({"mode": "trace", "path": path, "overrides": ov, "cast_inputs": cast})
        jobs.append({"mode": "run", "path": path, "overrides": ov, "seed": 3, "cast_inputs": cast})
    answers = run_jobs(jobs)
    return {case[0] + (case[3] or ""): (answers[2 * i], answers[2 * i + 1]) for i, case in enumerate(CASES)}


@pytest.mark.parametrize("op,overrides,template,cast", CASES, ids=[c[0] + (f"-{c[3]}" if c[3] else "") for c in CASES])
def test_draft_of_suite_op_matches_pytorch_on_the_emulator(traced_and_runs, op, overrides, template, cast):
    traced, run = traced_and_runs[op + (cast or "")]
    assert isinstance(traced, dict), traced
    assert isinstance(run, dict), run
    draft = draft_from_trace(traced["graph"], name=op.split("/")[1], source=f"{op}.py")
    assert draft.template == template
    verdict, emu, program = check_draft_on_emulator(draft.text, run["run"])
    assert emu.findings == [], render_run(emu, program)
    assert verdict.correct, verdict.summary() + "\n" + draft.text
    assert verdict.rtol == (1e-2 if cast else 1e-4)


def test_a_middle_axis_reduction_folds_blocks_of_rows_on_every_core(traced_and_runs):
    """Issue 35: sum over a middle axis reads blocks of rows (one strided copy each) and, the leading axis too
    short to fill the cores, splits the reduced axis over them: partials in a workspace, sync_all(), a combine."""
    traced, _ = traced_and_runs["reduce/sum_dim"]
    text = draft_from_trace(traced["graph"], name="sum_dim", source="sum_dim.py").text
    assert "acc = acc + reduce_sum(xuw, axis=0)" in text, text
    assert "sync_all()" in text and "reduce_sum(part1w, axis=0)" in text, text
    assert "splits = max(min(VECTOR_CORES // B, cdiv(M, 8)), 1)" in text, text


def test_an_f16_mean_of_short_rows_is_cast_and_reduced_per_row_on_the_vector_unit(traced_and_runs):
    """Issue 35: an f16 mean over a short last axis took the window_sum form (each window walked on the scalar
    unit); now a block of rows is one strided copy, cast to f32 and reduced along its last axis (WholeReduceSum)."""
    traced, _ = traced_and_runs["reduce/mean_dimfloat16"]
    text = draft_from_trace(traced["graph"], name="mean_dim", source="mean_dim.py").text
    assert "load(x[c, :])" in text and "cast(xh, f32)" in text and "reduce_sum(xu, axis=-1)" in text, text
    assert "window_sum" not in text, text


def test_where_on_a_bool_input_mask_lowers_to_a_bit_mask(ref_dir):
    """torch.where(mask, x, -x) with a bool tensor input: the draft selects on the loaded mask,
    and the rule engine turns its one byte per element into the bit mask Select reads."""
    from drafter_helpers import write_ref
    path = write_ref(ref_dir, "where_mask", "def forward(self, x, mask):\n    return torch.where(mask, x, -x) * 2.0",
                     "[torch.randn(3, 1003), torch.rand(3, 1003) > 0.5]")
    traced, run = run_jobs([{"mode": "trace", "path": str(path)}, {"mode": "run", "path": str(path), "seed": 1}])
    draft = draft_from_trace(traced["graph"], name="where_mask")
    assert "where(masku" in draft.text, draft.text
    program = verify(parse(draft.text, "draft.dsl.py"))
    verdict, emu = check_emulator(program, render(program, LowerOptions(), 4), run["run"])
    assert emu.findings == [], render_run(emu, program)
    assert verdict.correct, verdict.summary()


def test_masked_fill_with_minus_inf_drafts_lowers_and_verifies(ref_dir):
    """x.masked_fill(mask, -inf) over a bool mask of x's shape (issue 22): the draft the verifier
    accepts is one every pass lowers (one UB plan: the byte mask's widening slots included),
    and the -inf lands as IEEE -inf (equal infinities compare equal)."""
    from drafter_helpers import write_ref
    path = write_ref(ref_dir, "masked_fill",
                     "def forward(self, x, mask):\n    return x.masked_fill(mask, float('-inf'))",
                     "[torch.randn(128, 4096), torch.rand(128, 4096) > 0.5]")
    traced, run = run_jobs([{"mode": "trace", "path": str(path)}, {"mode": "run", "path": str(path), "seed": 0}])
    draft = draft_from_trace(traced["graph"], name="masked_fill")
    assert "where(masku, -inf, xu)" in draft.text, draft.text
    verdict, emu, program = check_draft_on_emulator(draft.text, run["run"])
    assert emu.findings == [], render_run(emu, program)
    assert verdict.correct, verdict.summary() + "\n" + draft.text
    from ascendcraft_lab.soc import get_soc
    assert emu.timings["ub_bytes"] <= get_soc().ub_usable      # what the plan promised
