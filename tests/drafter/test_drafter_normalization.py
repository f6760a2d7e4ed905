"""The normalization suite drafted end to end at small shapes: draft -> four passes -> emulator -> PyTorch.

Batch norm's statistics over the non-adjacent axes (N, H, W) and group norm's over a split channel
axis take the planes template; instance and layer norm the rows template (layer norm with its
weight tiled beside the row); the Frobenius norm one global sum shared through a GM workspace and
sync_all(). Plus the one-line refusals the normalization rules add.
"""
from __future__ import annotations

import pytest

from ascendcraft_lab.drafter import DraftError, draft_from_trace, draft_reference
from ascendcraft_lab.drafter.trace import run_jobs
from ascendcraft_lab.passes.verify import render_run
from ascendcraft_lab.suite import ROOT as SUITE

from drafter_helpers import check_draft_on_emulator, write_ref

SMALL = {"batch_size": 3, "features": 5, "dim1": 9, "dim2": 13}
CASES = [  # (suite op, overrides, template, a phrase the draft must contain)
    ("batch_norm", SMALL, "planes", "load(x[p * C + g, c])"),
    ("group_norm", {"batch_size": 2, "features": 6, "num_groups": 3, "dim1": 7, "dim2": 11}, "planes",
     "load(gn_weight[(g % num_groups) * t.per_group + p])"),
    ("instance_norm", {"batch_size": 2, "features": 3, "dim1": 90, "dim2": 101}, "rows", "reduce_sum(v * v)"),
    ("layer_norm", {"batch_size": 3, "features": 4, "dim1": 50, "dim2": 51}, "rows", "load(ln_weight[c])"),
    ("frobenius_norm", SMALL, "rows", "sync_all()"),
    ("l1_norm", {"batch_size": 3, "dim": 1003}, "rows", "abs("),
    ("l2_norm", {"batch_size": 3, "dim": 1003}, "rows", "sqrt("),
    ("rms_norm", SMALL, "cols", "for m in range(1, C)"),
]


@pytest.fixture(scope="module")
def traced_and_runs():
    jobs = []
    for op, ov, _, _ in CASES:
        path = str(SUITE / "normalization" / f"{op}.py")
        jobs.append({"mode": "trace", "path": path, "overrides": ov})
        jobs.append({"mode": "run", "path": path, "overrides": ov, "seed": 2})
    answers = run_jobs(jobs)
    return {case[0]: (answers[2 * i], answers[2 * i + 1]) for i, case in enumerate(CASES)}


@pytest.mark.parametrize("op,overrides,template,phrase", CASES, ids=[c[0] for c in CASES])
def test_normalization_draft_matches_pytorch_on_the_emulator(traced_and_runs, op, overrides, template, phrase):
    traced, run = traced_and_runs[op]
    assert isinstance(traced, dict), traced
    assert isinstance(run, dict), run
    draft = draft_from_trace(traced["graph"], name=op, source=f"{op}.py")
    assert draft.template == template
    assert phrase in draft.text, draft.text
    verdict, emu, program = check_draft_on_emulator(draft.text, run["run"])
    assert emu.findings == [], render_run(emu, program)
    assert verdict.correct, verdict.summary() + "\n" + draft.text


def test_the_frobenius_sum_is_split_over_the_cores_not_swept_by_each(traced_and_runs):
    traced, _ = traced_and_runs["frobenius_norm"]
    text = draft_from_trace(traced["graph"], name="frobenius_norm").text
    assert "Workspace[f32, ()]" in text and "store(partial, s, accumulate=True)" in text
    assert text.count("core_chunk(") == 2          # the sum and the output both over this core's chunk
    assert "for c in tiles(B * C * H * W" not in text


def test_a_batch_norm_in_eval_mode_is_refused_in_one_line(ref_dir):
    path = write_ref(ref_dir, "bn_eval", "def forward(self, x):\n    return self.bn(x)", "[torch.randn(2, 3, 4, 5)]",
                     init="|self.bn = nn.BatchNorm2d(3)\nself.bn.eval()")
    with pytest.raises(DraftError) as exc:
        draft_reference(path)
    msg = str(exc.value)
    assert "\n" not in msg and "unsupported" in msg and "without a reduction" in msg


def test_a_mean_over_non_adjacent_axes_with_a_reduced_output_is_refused_in_one_line(ref_dir):
    path = write_ref(ref_dir, "mean_02", "def forward(self, x):\n    return x.mean(dim=(0, 2))",
                     "[torch.randn(3, 4, 5)]")
    with pytest.raises(DraftError) as exc:
        draft_reference(path)
    msg = str(exc.value)
    assert "\n" not in msg and "non-adjacent axes (0, 2)" in msg
