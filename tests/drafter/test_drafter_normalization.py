"""The normalization suite drafted end to end at small shapes: draft -> four passes -> emulator -> PyTorch.

Batch norm's statistics over the non-adjacent axes (N, H, W) and group norm's over a split channel
axis take the planes template; instance and layer norm the rows template (layer norm with its
weight tiled beside the row); the Frobenius norm one global sum shared through a GM workspace and
sync_all(). Batch norm also in eval mode (running statistics), without affine parameters, and as
BatchNorm1d on (N, C) (cols template) and (N, C, L). Plus the one-line refusals the normalization
rules add.
"""
from __future__ import annotations

import pytest

from ascendcraft_lab.drafter import DraftError, draft_from_trace, draft_reference
from ascendcraft_lab.drafter.trace import run_jobs
from ascendcraft_lab.backends.emulator.verify import render_run
from ascendcraft_lab.suite import ROOT as SUITE

from drafter_helpers import check_draft_on_emulator, write_ref

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

SMALL = {"batch_size": 3, "features": 5, "dim1": 9, "dim2": 13}
CASES = [  # (suite op, overrides, template, a phrase the draft must contain)
    ("batch_norm", SMALL, "planes", "load(x[p * C + g, c])"),
    ("group_norm", {"batch_size": 2, "features": 6, "num_groups": 3, "dim1": 7, "dim2": 11}, "planes",
     "load(gn_weight[(g % num_groups) * t.per_group + p])"),
    ("instance_norm", {"batch_size": 2, "features": 3, "dim1": 90, "dim2": 101}, "rows", "reduce_sum(v * v)"),
    ("layer_norm", {"batch_size": 3, "features": 4, "dim1": 50, "dim2": 51}, "rows", "load(ln_weight[c])"),
    ("frobenius_norm", SMALL, "rows", "sync_all()"),
    ("l1_norm", {"batch_size": 3, "dim": 3001}, "rows", "abs("),          # a row past a repeat stride: sweeps
    ("l2_norm", {"batch_size": 3, "dim": 1003}, "row_blocks", "sqrt(reduce_sum(xu * xu, axis=1, keepdim=True))"),
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
    _draft_matches_pytorch(*traced_and_runs[op], op, template, (phrase,))


def _draft_matches_pytorch(traced, run, name: str, template: str, phrases) -> None:
    """Draft the traced reference, check its template and phrases, run it on the emulator vs PyTorch."""
    assert isinstance(traced, dict), traced
    assert isinstance(run, dict), run
    draft = draft_from_trace(traced["graph"], name=name, source=f"{name}.py")
    assert draft.template == template
    for phrase in phrases:
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


# BatchNorm beyond the suite's fresh BatchNorm2d: eval mode (the running statistics, set to random
# values so that using the batch's statistics instead would fail), affine=False, BatchNorm1d on
# (N, C) and (N, C, L). Either mode folds per channel into y = x * scale + shift.
BN_STATS = """with torch.no_grad():
    self.bn.running_mean.copy_(0.5 * torch.randn(C))
    self.bn.running_var.copy_(0.5 + torch.rand(C))
    if self.bn.affine:
        self.bn.weight.copy_(1.0 + 0.1 * torch.randn(C))
        self.bn.bias.copy_(0.1 * torch.randn(C))"""
BN_CASES = [  # (name, module, input shape, eval mode, affine, template, phrases the draft must contain)
    ("bn2d_eval", "BatchNorm2d", (3, 5, 9, 13), True, True, "planes",
     ("for g in core_rows(t.rows, B * C)", "load(bn_running_mean[g % C])", "yu = xu * k + k1")),
    ("bn2d_eval_plain", "BatchNorm2d", (2, 3, 7, 11), True, False, "planes", ("(xu - bn_running_mean_v) * k",)),
    ("bn2d_train_plain", "BatchNorm2d", (2, 3, 7, 11), False, False, "planes", ("for p in range(B)",)),
    ("bn1d_nc_eval", "BatchNorm1d", (6, 37), True, True, "cols", ("load(bn_running_var[c])", "yu = xu * d + d1")),
    ("bn1d_nc_train", "BatchNorm1d", (6, 37), False, True, "cols", ("load(bn_weight[c])", "acc = acc + xu")),
    ("bn1d_ncl_eval", "BatchNorm1d", (4, 5, 23), True, True, "planes", ("load(bn_bias[g % M])",)),
    ("bn1d_ncl_train", "BatchNorm1d", (4, 5, 23), False, True, "planes", ("load(x[p * M + g, c])",)),
]


@pytest.fixture(scope="module")
def bn_traced_and_runs(ref_dir):
    jobs = []
    for name, module, shape, eval_mode, affine, _, _ in BN_CASES:
        init = f"|C = {shape[1]}\nself.bn = nn.{module}(C{'' if affine else ', affine=False'})\n{BN_STATS}"
        path = write_ref(ref_dir, name, "def forward(self, x):\n    return self.bn(x)", f"[torch.randn{shape}]",
                         init=init + ("\nself.bn.eval()" if eval_mode else ""))
        jobs += [{"mode": "trace", "path": str(path)}, {"mode": "run", "path": str(path), "seed": 3}]
    answers = run_jobs(jobs)
    return {case[0]: (answers[2 * i], answers[2 * i + 1]) for i, case in enumerate(BN_CASES)}


@pytest.mark.parametrize("name,template,phrases", [(c[0], c[5], c[6]) for c in BN_CASES], ids=[c[0] for c in BN_CASES])
def test_batch_norm_variants_match_pytorch_on_the_emulator(bn_traced_and_runs, name, template, phrases):
    _draft_matches_pytorch(*bn_traced_and_runs[name], name, template, phrases)


def test_an_eval_mode_batch_norm_reads_its_running_statistics_once_per_plane(bn_traced_and_runs):
    traced, _ = bn_traced_and_runs["bn2d_eval"]
    text = draft_from_trace(traced["graph"], name="bn2d_eval").text
    assert "reduce_sum" not in text and text.count("for c in tiles(H * W, t.tile)") == 1
    assert 'Param[f32, (C,), "bn.running_var"]' in text and 'Param[f32, (C,), "bn.running_mean"]' in text
    # scale and shift are numbers computed before the plane's tiles, not per tile
    assert text.index("k1 = bn_bias_v - bn_running_mean_v * k") < text.index("for c in tiles")


def test_an_instance_norm_in_eval_mode_with_running_statistics_is_refused_in_one_line(ref_dir):
    path = write_ref(ref_dir, "in_eval", "def forward(self, x):\n    return self.inorm(x)",
                     "[torch.randn(2, 3, 4, 5)]",
                     init="|self.inorm = nn.InstanceNorm2d(3, track_running_stats=True)\nself.inorm.eval()")
    with pytest.raises(DraftError) as exc:
        draft_reference(path)
    msg = str(exc.value)
    assert "\n" not in msg and "unsupported" in msg and "eval mode with running statistics" in msg


def test_a_mean_over_non_adjacent_axes_is_one_value_per_group_of_the_planes_template(ref_dir):
    # refused until issue 33 (a reduced output of a grouped reduction); now stored per statistics group
    from ascendcraft_lab.reference.bind import check_interpreter
    path = write_ref(ref_dir, "mean_02", "def forward(self, x):\n    return x.mean(dim=(0, 2))",
                     "[torch.randn(3, 4, 5)]")
    d = draft_reference(path)
    assert d.template == "planes"
    verdict = check_interpreter(d.text, path)
    assert verdict.correct, verdict.summary()
