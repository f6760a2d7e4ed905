"""Pooling (issue 10): the pool rule and template, end to end on the emulator, and what they refuse.

Every suite pooling reference at a small shape, plus the spellings and corners the suite does not
reach (functional calls with per-axis tuples, an unbatched input, a ceil-mode average whose last
window hangs past the padding, fp16), goes draft -> four passes -> g++ on the emulator and is
compared with PyTorch. The window ops' numpy meaning is checked against PyTorch directly.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from ascendcraft_lab.drafter import DraftError, draft_from_trace
from ascendcraft_lab.drafter.trace import run_jobs
from ascendcraft_lab.dsl import DslError, parse, verify
from ascendcraft_lab.reference.bind import check_interpreter
from ascendcraft_lab.dsl.ops import OPS
from ascendcraft_lab.backends.emulator.verify import render_run
from ascendcraft_lab.suite import ROOT as SUITE

from drafter_helpers import check_draft_on_emulator, write_ref

SUITE_CASES = [  # (suite op, small overrides)
    ("max_pool_1d", {"batch_size": 2, "features": 3, "sequence_length": 101}),
    ("max_pool_2d", {"batch_size": 2, "channels": 3, "height": 21, "width": 27}),
    ("max_pool_3d", {"batch_size": 1, "channels": 3, "dim1": 13, "dim2": 11, "dim3": 15}),
    ("avg_pool_1d", {"batch_size": 2, "in_channels": 3, "input_length": 99}),
    ("avg_pool_2d", {"batch_size": 2, "channels": 3, "height": 20, "width": 29}),
    ("avg_pool_3d", {"batch_size": 1, "channels": 3, "depth": 9, "height": 12, "width": 13}),
]

CUSTOM = {  # name -> (forward, inputs, cast inputs)
    # per-axis tuples, asymmetric padding and ceil mode, through the functional spelling
    "fmax_tuple": ("def forward(self, x):\n    return F.max_pool2d(x, (3, 2), stride=(2, 3), padding=(1, 0), "
                   "dilation=(1, 2), ceil_mode=True)", "[torch.randn(2, 3, 17, 23)]", None),
    # a ceil-mode average whose last window hangs past the padding divides by fewer positions
    "favg_ceil": ("def forward(self, x):\n    return F.avg_pool1d(x, 4, 3, 1, ceil_mode=True)",
                  "[torch.randn(2, 3, 10)]", None),
    "favg2d_ceil": ("def forward(self, x):\n    return F.avg_pool2d(x, 3, 2, 1, ceil_mode=True)",
                    "[torch.randn(2, 3, 10, 12)]", None),
    # an unbatched (C, H, W) input, in fp16 (computed in f32, checked at 1e-2)
    "unbatched_half": ("def forward(self, x):\n    return F.max_pool2d(x, 2, 2, 1)", "[torch.randn(3, 9, 11)]",
                       "float16"),
}


REFUSED = [  # (forward, the words of the one-line refusal)
    ("return F.max_pool2d(x, 2, return_indices=True)[1].float()", "return_indices=True"),
    ("return F.avg_pool2d(x, 3, 2, 1, count_include_pad=False)", "count_include_pad=False"),
    ("return F.avg_pool2d(x, 2, divisor_override=3)", "divisor_override=3"),
    ("return F.adaptive_max_pool2d(x, 4)", "adaptive_max_pool2d"),
    ("return torch.relu(F.max_pool2d(x, 2))", "pooling combined with other operations"),
]
SPELLINGS = {  # one pooling, written as a module and as a function call
    "mod_pool": ("def forward(self, x):\n    return self.p(x)", "|self.p = nn.AvgPool1d(3, 2, 1)"),
    "fn_pool": ("def forward(self, x):\n    return F.avg_pool1d(x, 3, stride=2, padding=1)", ""),
}


@pytest.fixture(scope="module")
def runs(ref_dir):
    """Every reference of this file traced (and the drafted ones run) in one child process."""
    cases = [(op, str(SUITE / "pooling" / f"{op}.py"), ov, None, True) for op, ov in SUITE_CASES]
    for name, (forward, inputs, cast) in CUSTOM.items():
        cases.append((name, str(write_ref(ref_dir, name, forward, inputs)), {}, cast, True))
    for i, (forward, _) in enumerate(REFUSED):
        path = write_ref(ref_dir, f"refused{i}", f"def forward(self, x):\n    {forward}", "[torch.randn(2, 3, 8, 8)]")
        cases.append((f"refused{i}", str(path), {}, None, False))
    for name, (forward, init) in SPELLINGS.items():
        path = str(write_ref(ref_dir, name, forward, "[torch.randn(2, 3, 16)]", init=init))
        cases.append((name, path, {}, None, False))
    jobs = []
    for _, path, ov, cast, run in cases:
        jobs.append({"mode": "trace", "path": path, "overrides": ov, "cast_inputs": cast})
        if run:
            jobs.append({"mode": "run", "path": path, "overrides": ov, "seed": 5, "cast_inputs": cast})
    answers = iter(run_jobs(jobs))
    return {name: (next(answers), next(answers) if run else None) for name, _, _, _, run in cases}


def _draft_and_check(runs, name):
    traced, run = runs[name]
    assert isinstance(traced, dict), traced
    assert isinstance(run, dict), run
    draft = draft_from_trace(traced["graph"], name=name, source=f"{name}.py")
    assert draft.template == "pool"
    verdict, emu, program = check_draft_on_emulator(draft.text, run["run"])
    assert emu.findings == [], render_run(emu, program)
    assert verdict.correct, verdict.summary() + "\n" + draft.text
    return draft, run["run"]


@pytest.mark.heavy
@pytest.mark.parametrize("op", [c[0] for c in SUITE_CASES])
def test_suite_pooling_draft_matches_pytorch_on_the_emulator(runs, op):
    draft, _ = _draft_and_check(runs, op)
    if not op.endswith("1d"):     # one strided copy per window (3-D: per window plane), never one per row
        assert "load(x[bc, " in draft.text and ", axis=0)" in draft.text, draft.text


@pytest.mark.heavy
@pytest.mark.parametrize("name", list(CUSTOM))
def test_pooling_corner_matches_pytorch_on_the_emulator_and_interpreter(runs, name):
    draft, ref = _draft_and_check(runs, name)
    verdict = check_interpreter(draft.text, None, reference=ref)
    assert verdict.correct, verdict.summary()


@pytest.mark.heavy
def test_ceil_mode_output_size_drops_a_window_that_would_start_in_the_padding(runs):
    # k=2, s=2, p=1 with ceil mode: PyTorch keeps at most (X + p - 1) // s + 1 windows
    draft, _ = _draft_and_check(runs, "max_pool_2d")
    assert "window_max(acc, 2, 2, pad=1, dilation=3, count=(W - 1) // 2 + 1)" in draft.text
    # the window's rows along H, 3 apart, come in as one tile (a stepped slice) and fold on chip
    assert "xw = load(x[bc, h0 + jh0 * 3:h0 + jh1 * 3:3, :])" in draft.text
    assert "acc = reduce_max(xw, axis=0)" in draft.text and "for jh in range" not in draft.text
    traced, _ = runs["fmax_tuple"]
    text = draft_from_trace(traced["graph"], name="f").text
    assert "min(" in text                   # the rule binds for (k, s, p) = (2, 3, 0) along W with dilation 2


# -- refusals: one line naming what is not drafted ----------------------------------------------------
@pytest.mark.heavy
@pytest.mark.parametrize("i", range(len(REFUSED)), ids=[w for _, w in REFUSED])
def test_pooling_the_template_does_not_cover_is_refused_in_one_line(runs, i):
    traced, _ = runs[f"refused{i}"]
    with pytest.raises(DraftError) as exc:
        draft_from_trace(traced["graph"], name="pool", source=f"refused{i}.py")
    words = REFUSED[i][1]
    assert "\n" not in str(exc.value) and words in str(exc.value), str(exc.value)


@pytest.mark.heavy
def test_module_and_functional_spellings_give_one_draft(runs):
    a, b = (draft_from_trace(runs[n][0]["graph"], name="pool").text for n in SPELLINGS)
    assert a.split('"""')[2] == b.split('"""')[2]


# -- the window ops' meaning is PyTorch's -----------------------------------------------------------
@pytest.mark.parametrize("k, s, p, d, ceil", [(3, 2, 1, 1, False), (4, 2, 2, 3, False), (2, 2, 1, 3, True),
                                              (3, 3, 0, 1, True), (4, 3, 1, 1, True), (5, 1, 2, 2, False)])
def test_window_ops_are_pytorch_pooling_of_one_row(k, s, p, d, ceil):
    x = torch.randn(1, 1, 23)
    want_max = F.max_pool1d(x, k, s, p, d, ceil_mode=ceil)[0, 0].numpy()
    n = want_max.shape[0]
    row = x[0, 0].numpy()
    got = OPS["window_max"].numpy(row, k, s, p, d, n)
    np.testing.assert_array_equal(got, want_max)
    if d == 1:
        want_avg = F.avg_pool1d(x, k, s, p, ceil_mode=ceil)[0, 0].numpy()
        got = OPS["window_avg"].numpy(row, k, s, p, 1, want_avg.shape[0])
        np.testing.assert_allclose(got, want_avg, rtol=1e-6, atol=1e-6)


def test_window_op_parameters_are_checked_with_a_line_and_column():
    text = '''
@host
def tiling(x: Tensor[f32, (B, N)]):
    return Launch(1, rows=B)


@kernel
def pool(x: GM[f32, (B, N)], y: Out[f32, (B, N - 2)], t: Tiling):
    for r in core_rows(t.rows, B):
        with copyin:
            xu = load(x[r, :])
        with compute:
            yu = window_max(xu, 3, 1, dilation=0, count=N - 2)
        with copyout:
            store(y[r, :], yu)
'''
    with pytest.raises(DslError) as exc:
        verify(parse(text, "pool.dsl.py"))
    assert exc.value.span.line == 13 and "a window dilation of 0" in exc.value.message


def test_a_window_entirely_in_the_padding_is_a_run_time_error():
    with pytest.raises(ValueError, match="lies entirely in the padding"):
        OPS["window_max"].numpy(np.zeros(4, np.float32), 2, 1, 3, 1, 0)


# -- the emulator's Gather, which the window ops lower to -------------------------------------------
GATHER_KERNEL = """
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void gather_odd(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    (void)workspace;
    const uint32_t base = *reinterpret_cast<const __gm__ uint32_t *>(tiling);
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQueue;
    TQue<TPosition::VECOUT, 1> outQueue;
    TBuf<TPosition::VECCALC> offBuf;
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, 64);
    yGm.SetGlobalBuffer((__gm__ float *)y, 32);
    pipe.InitBuffer(inQueue, 1, 64 * sizeof(float));
    pipe.InitBuffer(outQueue, 1, 32 * sizeof(float));
    pipe.InitBuffer(offBuf, 32 * sizeof(int32_t));
    LocalTensor<float> a = inQueue.AllocTensor<float>();
    DataCopy(a, xGm, 64);
    inQueue.EnQue(a);
    a = inQueue.DeQue<float>();
    LocalTensor<int32_t> idx = offBuf.Get<int32_t>();
    CreateVecIndex(idx, static_cast<int32_t>(0), 32);
    Muls(idx, idx, static_cast<int32_t>(2 * sizeof(float)), 32);
    LocalTensor<float> b = outQueue.AllocTensor<float>();
    Gather(b, a, idx.ReinterpretCast<uint32_t>(), base, 32);  // GATHER
    outQueue.EnQue(b);
    inQueue.FreeTensor(a);
    b = outQueue.DeQue<float>();
    DataCopy(yGm, b, 32);
    outQueue.FreeTensor(b);
}
"""


@pytest.mark.heavy
@pytest.mark.parametrize("base, finding", [(4, None), (16, "ub-overflow"), (2, "unaligned-ub-address")])
def test_emulator_gather_reads_by_byte_offset_and_reports_a_bad_one(tmp_path, base, finding):
    from ascendcraft_lab.backends.emulator.runner import Arg, pack_tiling, run_kernel
    src = tmp_path / "gather_odd.cpp"
    src.write_text(GATHER_KERNEL)
    x = np.arange(64, dtype=np.float32)
    report = run_kernel([src], "gather_odd", 1, [Arg.input(x), Arg.output("float32", 32), Arg.workspace(0),
                                                  Arg.tiling(pack_tiling([("uint32", base)]))])
    if finding is None:
        assert report.findings == [], report.summary()
        np.testing.assert_array_equal(report.outputs[1], x[1::2])       # base 4 B: the odd elements
    else:
        line = next(i for i, l in enumerate(GATHER_KERNEL.splitlines(), 1) if "// GATHER" in l)
        hits = [f for f in report.findings if f["kind"] == finding]
        assert hits and all(f["line"] == line and f["api"] == "Gather" for f in hits), report.summary()
