"""Permutes and splits as a kernel's whole forward (issue 17): every spelling (permute, transpose,
swapaxes, movedim, .t()) is one `permute` node; a permute that keeps the last axis is strided copies
only, one that moves it transposes blocks in UB (`transpose`: one vector Gather); split / chunk /
tensor_split / unbind return several outputs, each part a crop of the rows whose extent is a dim
expression; what the templates cannot draft is refused in one line naming the construct and its
reference line."""
from __future__ import annotations

import pytest

from ascendcraft_lab.backends.emulator.verify import render_run
from ascendcraft_lab.drafter import DraftError, draft_from_trace
from ascendcraft_lab.drafter.trace import run_jobs

from ascendcraft_lab.reference.bind import check_interpreter

from drafter_helpers import check_draft_on_emulator, write_ref

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

SPELLINGS = {"permute": "x.permute(0, 2, 1)", "transpose": "torch.transpose(x, 1, 2)", "swapaxes": "x.swapaxes(-1, 1)",
             "movedim": "torch.movedim(x, 2, 1)"}
CASES = {  # name -> (forward's expression, get_inputs)
    **{name: (expr, "[torch.randn(3, 20, 33)]") for name, expr in SPELLINGS.items()},
    "heads": ("x.permute(0, 2, 1, 3)", "[torch.randn(2, 5, 3, 40)]"),
    "nhwc": ("x.permute(0, 2, 3, 1).contiguous()", "[torch.randn(2, 5, 9, 37)]"),
    "mixed": ("x.permute(1, 0).sum(dim=-1)", "[torch.randn(8, 32)]"),
    "fused": ("torch.relu(torch.sigmoid(x).transpose(1, 2) * 2.0 + 1.0)", "[torch.randn(2, 37, 21)]"),
    "chunk": ("x.chunk(3, dim=1)", "[torch.randn(4, 7, 19)]"),
    "unbind": ("torch.unbind(x, dim=1)", "[torch.randn(6, 3, 5)]"),
    "unbind_last": ("torch.unbind(x, dim=-1)", "[torch.randn(6, 5, 3)]"),
}


@pytest.fixture(scope="module")
def traced(ref_dir):
    """Every case traced and run in one reference child (one torch start-up for the module)."""
    paths = {name: write_ref(ref_dir, f"{name}_ref", f"def forward(self, x):\n    return {expr}", inputs)
             for name, (expr, inputs) in CASES.items()}
    jobs = []
    for path in paths.values():
        jobs += [{"mode": "trace", "path": str(path)}, {"mode": "run", "path": str(path), "seed": 0}]
    answers = run_jobs(jobs)
    return {name: (paths[name], answers[2 * i], answers[2 * i + 1]) for i, name in enumerate(paths)}


def draft(traced, name):
    path, trace, _ = traced[name]
    assert isinstance(trace, dict), trace
    return draft_from_trace(trace["graph"], name="k", source=path.name)


def _kernel(text: str) -> str:
    return text[text.index("@kernel"):]


def test_every_spelling_of_one_permutation_gives_the_same_kernel(traced):
    drafts = [draft(traced, name) for name in SPELLINGS]
    assert {d.template for d in drafts} == {"permute"}
    assert len({_kernel(d.text) for d in drafts}) == 1, drafts[0].text


def test_a_permute_that_keeps_the_last_axis_copies_rows_and_never_transposes(traced):
    text = draft(traced, "heads").text
    assert "transpose(" not in _kernel(text) and "store(y[i0, i1, mi, ni], yu)" in text, text


def test_nchw_to_nhwc_transposes_blocks_in_ub_and_matches_pytorch_on_the_emulator(traced):
    text = draft(traced, "nhwc").text
    assert "yu = transpose(xu)" in text, text
    verdict, emu, program = check_draft_on_emulator(text, traced["nhwc"][2]["run"])
    assert emu.findings == [], render_run(emu, program)
    assert verdict.correct, verdict.summary() + "\n" + text


def test_elementwise_work_before_and_after_a_transpose_is_fused_into_its_compute_stage(traced):
    # sigmoid(x) before the transpose and the arithmetic after it run on the tile in UB, no GM round trip
    text = draft(traced, "fused").text
    assert "= transpose(" in text and "sigmoid(xu)" in text, text
    verdict, emu, program = check_draft_on_emulator(text, traced["fused"][2]["run"])
    assert emu.findings == [], render_run(emu, program)
    assert verdict.correct, verdict.summary() + "\n" + text


def test_a_permute_combined_with_other_operations_is_refused_in_one_line_with_its_reference_line(traced):
    with pytest.raises(DraftError) as exc:
        draft(traced, "mixed")
    msg = str(exc.value)
    assert "\n" not in msg and "`permute`" in msg and "combined with other operations" in msg \
        and "(reference line 13)" in msg, msg


def test_chunk_parts_are_dim_expressions_of_the_axis_and_match_pytorch(traced):
    # chunk(x, 3) of 7 channels: parts of cdiv(7, 3) = 3, 3 and 1, as PyTorch cuts them for any size
    d = draft(traced, "chunk")
    assert (d.template == "split"
            and "y2: Out[f32, (B, (min((M + 2) // 3, M - 2 * ((M + 2) // 3)), N))]" in d.text), d.text
    path, _, run = traced["chunk"]
    verdict = check_interpreter(d.text, path, reference=run["run"])
    assert verdict.correct, verdict.summary()


def test_unbind_along_a_middle_axis_gives_one_output_per_index_on_the_emulator(traced):
    text = draft(traced, "unbind").text
    assert "y2: Out[f32, (B, N)]" in text and "start2 = 2 * N" in text \
        and "load(x[c, k.start + start2:k.start + start2 + k.len])" in text, text
    verdict, emu, program = check_draft_on_emulator(text, traced["unbind"][2]["run"])
    assert emu.findings == [], render_run(emu, program)
    assert verdict.correct, verdict.summary() + "\n" + text


def test_unbind_along_the_last_axis_is_refused_in_one_line_with_its_reference_line(traced):
    with pytest.raises(DraftError) as exc:
        draft(traced, "unbind_last")
    msg = str(exc.value)
    assert "\n" not in msg and "`split` (unbind) along the last axis" in msg and "(reference line 13)" in msg, msg
