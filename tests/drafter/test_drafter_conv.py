"""Convolution (issue 34): the conv node's sizes, the conv template's draft on the interpreter, refusals.

The fast tests build the canonical conv node directly (no trace, no child process), draft it with
the conv template and run the draft on the numpy interpreter against torch's own convolution in
this process. The heavy test takes suite references the whole way: traced, drafted, lowered by the
four passes and run on the emulator.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from ascendcraft_lab.drafter.conv import conv_node, plan_conv
from ascendcraft_lab.drafter.graph import Graph, Node, Unsupported
from ascendcraft_lab.dsl import parse, verify
from ascendcraft_lab.dsl.interp import run

# (name, dims, transposed, C, K, kernel, stride, padding, dilation, groups, output_padding, bias, input spatial)
CASES = [
    ("2d_pad_stride", 2, False, 3, 5, (3, 3), 2, 1, 1, 1, 0, True, (11, 9)),
    ("2d_same_even", 2, False, 2, 3, (4, 2), 1, "same", 1, 1, 0, False, (7, 8)),
    ("2d_valid_dilated", 2, False, 2, 4, (3, 3), 1, "valid", 2, 1, 0, True, (10, 9)),
    ("2d_grouped", 2, False, 4, 6, (3, 3), 1, 1, 1, 2, 0, True, (6, 7)),
    ("2d_depthwise", 2, False, 4, 4, (3, 3), 2, 1, 1, 4, 0, False, (9, 8)),
    ("2d_blocks", 2, False, 1, 2, (3, 3), (2, 1), 1, 1, 1, 0, False, (131, 70)),   # several blocks of rows
    ("3d_blocks", 3, False, 1, 1, (2, 3, 2), (1, 3, 1), (1, 2, 0), 1, 1, 0, False, (2, 100, 90)),
    ("1d_strided", 1, False, 3, 4, (5,), 3, 2, 1, 1, 0, True, (23,)),
    ("3d", 3, False, 2, 3, (2, 3, 3), (1, 2, 1), 1, 1, 1, 0, True, (4, 7, 6)),
    ("t1d", 1, True, 3, 2, (4,), 2, 1, 1, 1, 0, True, (9,)),
    ("t2d_outpad", 2, True, 4, 3, (3, 3), 2, 1, 1, 1, 1, True, (5, 6)),
    ("t2d_grouped_dilated", 2, True, 4, 4, (3, 2), 2, 0, 2, 2, 0, False, (4, 5)),
    ("t3d", 3, True, 2, 2, (3, 3, 3), 2, 1, 1, 1, 0, False, (3, 4, 3)),
]


def _nodes(dims, transposed, C, K, kernel, groups, bias, spatial, N=2):
    x = Node("input", (), {"index": 0}, (N, C, *spatial), "float32", name="x")
    wshape = (C, K // groups, *kernel) if transposed else (K, C // groups, *kernel)
    w = Node("param", (), {"name": "conv.weight"}, wshape, "float32", name="conv.weight")
    b = Node("param", (), {"name": "conv.bias"}, (K,), "float32", name="conv.bias") if bias else None
    return x, w, b


def _torch(dims, transposed, x, w, b, stride, padding, dilation, groups, output_padding):
    if transposed:
        fn = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[dims - 1]
        return fn(x, w, b, stride=stride, padding=padding, output_padding=output_padding, groups=groups,
                  dilation=dilation)
    fn = (F.conv1d, F.conv2d, F.conv3d)[dims - 1]
    return fn(x, w, b, stride=stride, padding=padding, dilation=dilation, groups=groups)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_conv_node_has_pytorchs_output_shape(case):
    _, dims, tr, C, K, kernel, s, p, d, g, op, bias, spatial = case
    x, w, b = _nodes(dims, tr, C, K, kernel, g, bias, spatial)
    node = conv_node(x, w, b, dims, s, p, d, g, tr, op)
    want = _torch(dims, tr, torch.zeros(x.shape), torch.zeros(w.shape), None, s, p, d, g, op)
    assert node.shape == tuple(want.shape)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_conv_draft_computes_pytorchs_convolution_on_the_interpreter(case):
    _, dims, tr, C, K, kernel, s, p, d, g, op, bias, spatial = case
    x, w, b = _nodes(dims, tr, C, K, kernel, g, bias, spatial)
    node = conv_node(x, w, b, dims, s, p, d, g, tr, op)
    graph = Graph([node], [], [], [], ["x"], {}, {}, "fx", False)
    program = verify(parse(plan_conv(graph, "conv").text, "conv.dsl.py"))
    rng = np.random.default_rng(7)
    arrays = {"x": rng.standard_normal(x.shape, dtype=np.float32), "w": rng.standard_normal(w.shape, dtype=np.float32)}
    if bias:
        arrays["bias"] = rng.standard_normal((K,), dtype=np.float32)
    typed = verify(program, shapes={n: a.shape for n, a in arrays.items()}, scalars={})
    got = run(typed, arrays)["y"]
    want = _torch(dims, tr, *(torch.from_numpy(arrays[n]) for n in ("x", "w")),
                  torch.from_numpy(arrays["bias"]) if bias else None, s, p, d, g, op).numpy()
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_a_padded_plane_is_skipped_not_read():
    """The draft guards the input plane of a 3-d conv's depth tap with ifs: a plane in the padding is never
    loaded (the rows of a plane are masked by where() in the blocked gather instead)."""
    x, w, b = _nodes(3, False, 1, 1, (3, 3, 3), 1, False, (5, 5, 5))
    text = plan_conv(Graph([conv_node(x, w, b, 3, 1, 1, 1, 1)], [], [], [], ["x"], {}, {}, "fx", False), "c").text
    assert "if d0 >= 0:" in text and "if d0 < D:" in text


def test_im2col_stores_a_block_of_output_rows_per_tap():
    """A 2-d conv's im2col stores one tap of a whole block of output rows with one copy (a contiguous run of
    col's positions), not one copy per output row: the only store sits in the tiles() loop over the plane."""
    x, w, b = _nodes(2, False, 2, 3, (3, 3), 1, False, (9, 8))
    text = plan_conv(Graph([conv_node(x, w, b, 2, 1, 1, 1, 1)], [], [], [], ["x"], {}, {}, "fx", False), "c").text
    assert "for c in tiles(OH * OW, t.blk):" in text
    assert "store(col[nc, nc * 9 + kh * 3 + kw, c], v)" in text.replace("nc // C", "nc").replace("(nc % C)", "nc")


@pytest.mark.parametrize("kwargs, words", [
    (dict(x=(2, 3, 8, 8), dt="bfloat16"), "float32 and float16"),
    (dict(x=(3, 8, 8)), "rank-3 input"),
    (dict(x=(2, 3, 8, 8), stride=2, padding="same"), "padding='same' with a stride"),
    (dict(x=(2, 4, 8, 8), channels=3), "does not match 4 input channels"),
])
def test_conv_node_refuses_in_one_line(kwargs, words):
    dt = kwargs.get("dt", "float32")
    x = Node("input", (), {"index": 0}, kwargs["x"], dt)
    w = Node("param", (), {"name": "w"}, (5, kwargs.get("channels", 3), 3, 3), dt)
    with pytest.raises(Unsupported, match=words.replace("(", r"\(")):
        conv_node(x, w, None, 2, kwargs.get("stride", 1), kwargs.get("padding", 0), 1, 1)


def test_a_conv_with_more_work_is_refused_as_a_program():
    x, w, b = _nodes(2, False, 2, 2, (3, 3), 1, False, (5, 5))
    conv = conv_node(x, w, b, 2, 1, 1, 1, 1)
    relu = Node("relu", (conv,), {}, conv.shape, "float32")
    with pytest.raises(Unsupported, match="programs"):
        plan_conv(Graph([relu], [], [], [], ["x"], {}, {}, "fx", False), "c")


# -- the whole way on the emulator (heavy) -------------------------------------------------------------
EMULATED = [  # (suite op, small overrides): one of each route through the template
    ("conv2d_grouped", {"batch_size": 1, "height": 7, "width": 9}),           # groups, bias epilogue
    ("conv_transpose2d", {"batch_size": 1, "height": 4, "width": 5}),         # the adjoint's masks
    ("conv3d_stride", {"batch_size": 1, "depth": 3, "height": 7, "width": 6}),  # 3-d, no bias: stored from L0C
    ("conv1d_dilated_grouped", {"batch_size": 1, "length": 19}),
]


@pytest.fixture(scope="module")
def emulated_runs():
    from ascendcraft_lab.drafter.trace import run_jobs
    from ascendcraft_lab.suite import ROOT as SUITE
    jobs = []
    for op, ov in EMULATED:
        path = str(SUITE / "convolution" / f"{op}.py")
        jobs += [{"mode": "trace", "path": path, "overrides": ov}, {"mode": "run", "path": path, "overrides": ov,
                                                                     "seed": 3}]
    answers = iter(run_jobs(jobs))
    return {op: (next(answers), next(answers)) for op, _ in EMULATED}


@pytest.mark.heavy
@pytest.mark.parametrize("op", [c[0] for c in EMULATED])
def test_suite_conv_draft_matches_pytorch_on_the_emulator(emulated_runs, op):
    from ascendcraft_lab.backends.emulator.verify import render_run
    from ascendcraft_lab.drafter import draft_from_trace
    from drafter_helpers import check_draft_on_emulator
    traced, run = emulated_runs[op]
    draft = draft_from_trace(traced["graph"], name=op, source=f"{op}.py")
    assert draft.template == "conv"
    verdict, emu, program = check_draft_on_emulator(draft.text, run["run"])
    assert emu.findings == [], render_run(emu, program)
    assert verdict.correct, verdict.summary() + "\n" + draft.text


@pytest.mark.parametrize("op", ["conv_transpose2d", "conv1d_basic", "conv3d_stride", "conv2d_functional"])
def test_the_llm_prompt_shows_a_convolution_the_convolution_examples(op):
    from pathlib import Path

    from ascendcraft_lab.engines.llm.prompts import closest_examples, guess_category
    from ascendcraft_lab.suite import ROOT as SUITE
    path = Path(SUITE / "convolution" / f"{op}.py")
    assert guess_category(path.read_text(), path.stem) == "convolution"
    assert all(e.category == "convolution" for e in closest_examples("convolution", [4]))
