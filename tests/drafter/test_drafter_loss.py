"""Losses, end to end at small shapes: draft -> four passes -> g++ on the emulator -> PyTorch.

Every loss reference of the suite, plus the rules and layouts the suite does not reach (a long-row
cross entropy that picks the target with a scalar load, nll_loss of a computed log_softmax with a
sum, module spellings with their attributes), the one-line refusals, and the emulator's Gather.
"""
from __future__ import annotations

import numpy as np
import pytest

from ascendcraft_lab.backends.emulator.runner import Arg, pack_tiling, run_kernel
from ascendcraft_lab.drafter import DraftError, draft_from_trace
from ascendcraft_lab.drafter.trace import run_jobs
from ascendcraft_lab.reference.bind import bind
from ascendcraft_lab.dsl.parser import parse
from ascendcraft_lab.dsl.verifier import verify
from ascendcraft_lab.engines.rule import render
from ascendcraft_lab.passes.manager import LowerOptions
from ascendcraft_lab.backends.emulator.verify import check_emulator, render_run
from ascendcraft_lab.suite import ROOT as SUITE

from drafter_helpers import write_ref

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

SUITE_CASES = [  # (suite op, overrides, template)
    ("cosine_similarity_loss", {"batch_size": 5, "input_dim": 1003}, "rows_total"),
    ("cross_entropy", {"batch_size": 203, "num_classes": 7}, "windows_total"),
    ("hinge_loss", {"batch_size": 5, "input_dim": 1003}, "total"),
    ("huber_loss", {"batch_size": 5, "input_dim": 1003}, "total"),
    ("kl_div_loss", {"batch_size": 5, "input_dim": 1003}, "total"),
    ("mse_loss", {"batch_size": 5, "input_dim": 1003}, "total"),
    ("triplet_margin_loss", {"batch_size": 5, "input_dim": 1003}, "rows_total"),
]

# (name, forward, inputs, init "PARAMS|BODY", init_inputs, template)
WRITTEN = [
    ("ce_long_rows", "def forward(self, x, t):\n    return F.cross_entropy(x, t, reduction='sum')",
     "[torch.randn(9, 301), torch.randint(0, 301, (9,))]", "", "[]", "rows_total"),
    ("nll_of_log_softmax", "def forward(self, x, t):\n    return F.nll_loss(torch.log_softmax(x, dim=1), t)",
     "[torch.randn(77, 5), torch.randint(0, 5, (77,))]", "", "[]", "windows_total"),
    ("smooth_l1_module", "def forward(self, a, b):\n    return self.loss(a, b)",
     "[torch.randn(3, 1003), torch.randn(3, 1003)]", "|self.loss = nn.SmoothL1Loss(beta=0.5, reduction='sum')", "[]",
     "total"),
    ("kl_log_target_batchmean", "def forward(self, a, b):\n"
     "    return F.kl_div(a, b, reduction='batchmean', log_target=True)",
     "[torch.randn(6, 333), torch.randn(6, 333)]", "", "[]", "total"),
    ("triplet_swap_l1_module", "def forward(self, a, p, n):\n    return self.loss(a, p, n)",
     "[torch.randn(7, 300), torch.randn(7, 300), torch.randn(7, 300)]",
     "|self.loss = nn.TripletMarginLoss(margin=0.5, p=1, swap=True)", "[]", "rows_total"),
]


def _emulate(traced, run, name):
    draft = draft_from_trace(traced["graph"], name=name, source=f"{name}.py")
    program = verify(parse(draft.text, "draft.dsl.py"))
    inputs, _ = bind(program, run["run"])
    options = LowerOptions(shapes={n: v.shape for n, v in inputs.items() if hasattr(v, "shape")},
                           scalars={p.name: inputs[p.name] for p in program.scalars})
    verdict, emu = check_emulator(program, render(program, options, 4), run["run"])
    return draft, verdict, emu, program


@pytest.fixture(scope="module")
def suite_runs():
    jobs = []
    for op, ov, _ in SUITE_CASES:
        path = str(SUITE / "loss" / f"{op}.py")
        jobs += [{"mode": "trace", "path": path, "overrides": ov},
                 {"mode": "run", "path": path, "overrides": ov, "seed": 5}]
    answers = run_jobs(jobs)
    return {case[0]: (answers[2 * i], answers[2 * i + 1]) for i, case in enumerate(SUITE_CASES)}


@pytest.mark.parametrize("op,overrides,template", SUITE_CASES, ids=[c[0] for c in SUITE_CASES])
def test_suite_loss_is_drafted_and_matches_pytorch_on_the_emulator(suite_runs, op, overrides, template):
    traced, run = suite_runs[op]
    draft, verdict, emu, program = _emulate(traced, run, op)
    assert draft.template == template
    assert "accumulate=True" in draft.text and "cores = 1" not in draft.text, draft.text
    assert emu.findings == [], render_run(emu, program)
    assert verdict.correct, verdict.summary() + "\n" + draft.text


@pytest.fixture(scope="module")
def written_runs(ref_dir):
    jobs = []
    for name, forward, inputs, init, init_inputs, _ in WRITTEN:
        path = str(write_ref(ref_dir, name, forward, inputs, init, init_inputs))
        jobs += [{"mode": "trace", "path": path}, {"mode": "run", "path": path, "seed": 2}]
    answers = run_jobs(jobs)
    return {case[0]: (answers[2 * i], answers[2 * i + 1]) for i, case in enumerate(WRITTEN)}


@pytest.mark.parametrize("case", WRITTEN, ids=[c[0] for c in WRITTEN])
def test_loss_rule_and_layout_match_pytorch_on_the_emulator(written_runs, case):
    name, *_, template = case
    traced, run = written_runs[name]
    draft, verdict, emu, program = _emulate(traced, run, name)
    assert draft.template == template
    assert emu.findings == [], render_run(emu, program)
    assert verdict.correct, verdict.summary() + "\n" + draft.text


def test_cross_entropy_batches_short_rows_and_gathers_the_target(suite_runs):
    """10 classes are 40 bytes a row: whole rows share a tile; the row max comes back with
    repeat(), the target logit with pick(), and the int64 targets become i32 on the vector unit."""
    traced, _ = suite_runs["cross_entropy"]
    text = draft_from_trace(traced["graph"], name="cross_entropy").text
    assert "windows(c, N, N)" in text and "window_max(" in text and "repeat(mu, N)" in text
    assert "cast(targetsu, i32)" in text and "pick(predictionsu, targetsi, N)" in text


REFUSALS = [  # (forward, inputs, words the one-line message must contain)
    ("def forward(self, x, t):\n    return F.cross_entropy(x, t, label_smoothing=0.1)",
     "[torch.randn(8, 5), torch.randint(0, 5, (8,))]", ["label_smoothing=0.1"]),
    ("def forward(self, x, t):\n    return F.cross_entropy(x, t, ignore_index=0)",
     "[torch.randn(8, 5), torch.randint(0, 5, (8,))]", ["ignore_index=0"]),
    ("def forward(self, x, t):\n    return F.cross_entropy(x, t, reduction='none')",
     "[torch.randn(8, 5), torch.randint(0, 5, (8,))]", ["reduction='none'"]),
    ("def forward(self, x, t):\n    return F.cross_entropy(x, t.softmax(-1))",
     "[torch.randn(8, 5), torch.randn(8, 5)]", ["class-probability targets"]),
    ("def forward(self, x, t, w):\n    return F.cross_entropy(x, t, weight=w)",
     "[torch.randn(8, 5), torch.randint(0, 5, (8,)), torch.rand(5)]", ["weight"]),
    ("def forward(self, a, p, n):\n    return F.triplet_margin_loss(a, p, n, p=3)",
     "[torch.randn(8, 5), torch.randn(8, 5), torch.randn(8, 5)]", ["p=3"]),
    ("def forward(self, a, b):\n    return F.mse_loss(a, b, size_average=False)",
     "[torch.randn(8, 5), torch.randn(8, 5)]", ["deprecated size_average"]),
    ("def forward(self, a, b):\n    return F.cosine_similarity(a, b).max()",
     "[torch.randn(8, 300), torch.randn(8, 300)]", ["max over all rows"]),
    ("def forward(self, a, b):\n    return torch.sqrt(F.mse_loss(a, b))",
     "[torch.randn(8, 300), torch.randn(8, 300)]", []),
]


@pytest.fixture(scope="module")
def refusal_traces(ref_dir):
    paths = [write_ref(ref_dir, f"loss_refusal_{i}", fwd, inputs) for i, (fwd, inputs, _) in enumerate(REFUSALS)]
    return run_jobs([{"mode": "trace", "path": str(p)} for p in paths])


@pytest.mark.parametrize("i", range(len(REFUSALS)), ids=[r[2][0] if r[2] else "sqrt-of-mean" for r in REFUSALS])
def test_unsupported_loss_variants_are_refused_in_one_line(refusal_traces, i):
    words = REFUSALS[i][2]
    traced = refusal_traces[i]
    if not words:
        # sqrt of a mean is not linear in the sum: it stays one core (a correct but serial draft)
        assert "cores = 1" in draft_from_trace(traced["graph"], name="rmse").text
        return
    with pytest.raises(DraftError) as exc:
        draft_from_trace(traced["graph"], name="refused")
    msg = str(exc.value)
    assert "\n" not in msg and "unsupported" in msg
    for w in words:
        assert w in msg, msg


GATHER = """// Gather by byte offsets, with CreateVecIndex building them: y[i] = x[(i * 3) % n]
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void gather_test(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
    const uint32_t n = *reinterpret_cast<__gm__ uint32_t *>(tiling);
    const uint32_t shift = *(reinterpret_cast<__gm__ uint32_t *>(tiling) + 1);   // 0 or 2 (a bad offset)
    TPipe pipe;
    TBuf<TPosition::VECCALC> xb, ob, yb;
    pipe.InitBuffer(xb, n * sizeof(float));
    pipe.InitBuffer(ob, n * sizeof(int32_t));
    pipe.InitBuffer(yb, n * sizeof(float));
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, n);
    yGm.SetGlobalBuffer((__gm__ float *)y, n);
    LocalTensor<float> xl = xb.Get<float>();
    LocalTensor<int32_t> off = ob.Get<int32_t>();
    LocalTensor<float> yl = yb.Get<float>();
    DataCopy(xl, xGm, n);
    PipeBarrier<PIPE_ALL>();
    CreateVecIndex(off, static_cast<int32_t>(0), n);
    for (uint32_t i = 0; i < n; ++i) {
        off.SetValue(i, static_cast<int32_t>(((i * 3) % n) * sizeof(float) + shift));
    }
    Gather(yl, xl, off.ReinterpretCast<uint32_t>(), 0, n);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yGm, yl, n);
}
"""


@pytest.mark.parametrize("shift", [0, 2], ids=["aligned-offsets", "misaligned-offset"])
def test_emulator_gather_reads_by_byte_offset_and_reports_a_misaligned_one(tmp_path, shift):
    src = tmp_path / "gather_test.cpp"
    src.write_text(GATHER)
    n = 64
    x = np.arange(n, dtype=np.float32) * 0.5
    report = run_kernel([src], "gather_test", 1, [Arg.input(x), Arg.output("float32", n),
                                                  Arg.tiling(pack_tiling([("uint32", n), ("uint32", shift)]))])
    if shift == 0:
        assert report.status == "ok", report.summary()
        np.testing.assert_array_equal(report.outputs[1], x[(np.arange(n) * 3) % n])
    else:
        assert any(f["kind"] == "unaligned-ub-address" and f["api"] == "Gather" for f in report.findings), \
            report.summary()
