"""Indexing (issue 17): argmax/argmin, gather, index_select, nn.Embedding drafted and checked on the
emulator; out-of-range indices are findings at the DSL line; what the drafter cannot express is
refused in one line naming the construct and the reference line."""
from __future__ import annotations

import numpy as np
import pytest

from ascendcraft_lab.backends.emulator.verify import emulate
from ascendcraft_lab.drafter import DraftError, draft_reference
from ascendcraft_lab.dsl import DslError, parse, verify
from ascendcraft_lab.dsl.interp import run
from ascendcraft_lab.engines.rule import render
from ascendcraft_lab.examples import get_example
from ascendcraft_lab.passes.manager import LowerOptions
from ascendcraft_lab.reference import load_reference

from drafter_helpers import check_draft_on_emulator, write_ref

CASES = {  # name -> (forward, inputs, init, init_inputs): spellings the suite does not all reach
    "argmax_mid_ties": ("def forward(self, x):\n    return torch.argmax(x, dim=1)",
                        "[torch.randint(0, 3, (3, 17, 45)).float()]", "", "[]"),
    "argmin_last_ties": ("def forward(self, x):\n    return x.argmin(-1)",
                         "[torch.randint(0, 3, (5, 300)).float()]", "", "[]"),
    "max_dim_indices": ("def forward(self, x):\n    return torch.max(x, 2)[1]", "[torch.randn(2, 3, 50)]", "", "[]"),
    "gather_1d": ("def forward(self, x, i):\n    return x.gather(0, i)",
                  "[torch.randn(77), torch.randint(0, 77, (130,))]", "", "[]"),
    "index_select_mid": ("def forward(self, x, i):\n    return x.index_select(1, i)",
                         "[torch.randn(3, 20, 33), torch.randint(0, 20, (7,))]", "", "[]"),
    "tensor_index": ("def forward(self, x, i):\n    return x[i]",
                     "[torch.randn(50, 24), torch.randint(0, 50, (4, 5))]", "", "[]"),
    "index_add_repeats": ("def forward(self, x, i, s):\n    return torch.index_add(x, 0, i, s)",
                          "[torch.randn(9, 4, 11), torch.tensor([3, 3, 0, 8, 3]), torch.randn(5, 4, 11)]", "", "[]"),
    "scatter_add_rows": ("def forward(self, x, i, s):\n    return torch.scatter_add(x, 0, i, s)",
                         "[torch.randn(6, 10), torch.randint(0, 6, (9, 10)), torch.randn(9, 10)]", "", "[]"),
    # writes by a repeated index keep the last one (PyTorch's loop on one thread)
    "index_copy_repeats": ("def forward(self, x, i, s):\n    return x.index_copy(0, i, s)",
                           "[torch.randn(9, 37), torch.tensor([3, 3, 0, 8, 3]), torch.randn(5, 37)]", "", "[]"),
    "setitem_repeats": ("def forward(self, x, i, v):\n    x[i] = v\n    return x",
                        "[torch.randn(7, 3, 5), torch.tensor([6, 1, 6, 2]), torch.randn(4, 3, 5)]", "", "[]"),
    "scatter_last_repeats": ("def forward(self, x, i, s):\n    return x.scatter(1, i, s)",
                             "[torch.randn(5, 12), torch.randint(0, 12, (5, 9)), torch.randn(5, 9)]", "", "[]"),
    "embedding_fn": ("def forward(self, i):\n    return F.embedding(i, self.w)",
                     "[torch.randint(0, 40, (6, 9))]", "|self.w = nn.Parameter(torch.randn(40, 13))", "[]"),
}


@pytest.mark.heavy
@pytest.mark.parametrize("name", sorted(CASES))
def test_index_reference_is_drafted_and_matches_pytorch_on_the_emulator(name, tmp_path):
    forward, inputs, init, init_inputs = CASES[name]
    ref_path = write_ref(tmp_path, name, forward, inputs, init, init_inputs)
    d = draft_reference(ref_path)
    assert d.template == "index"
    verdict, run_, program = check_draft_on_emulator(d.text, load_reference(ref_path))
    assert run_.findings == [] and verdict.correct, verdict.summary()


def _emulate_embedding(tokens: np.ndarray):
    ex = get_example("index/embedding")
    w = np.random.default_rng(0).standard_normal((10, 40)).astype(np.float32)
    shapes = {"tokens": tokens.shape, "w": w.shape}
    program = verify(parse(ex.dsl.read_text(), str(ex.dsl)), shapes=shapes)
    return emulate(program, render(program, LowerOptions(shapes=shapes), 4), {"tokens": tokens, "w": w}, {})


@pytest.mark.heavy
@pytest.mark.parametrize("bad", [10, -3])
def test_a_token_outside_the_table_is_a_gm_finding_at_the_load_line(bad):
    tokens = (np.arange(16, dtype=np.int64) % 10).reshape(2, 8)
    tokens[1, 3] = bad
    result = _emulate_embedding(tokens)
    assert result.status == "findings"
    expected = {("gm-out-of-bounds", _line_of("index/embedding", "wu = load(w[k, c])"))}
    assert {(f["kind"], f["dsl_line"]) for f in result.findings} == expected


def _line_of(example: str, text: str) -> int:
    lines = get_example(example).dsl.read_text().splitlines()
    return next(i for i, l in enumerate(lines, 1) if text in l)


def _emulate_gather(index: np.ndarray, n: int):
    ex = get_example("index/gather")
    x = np.random.default_rng(1).standard_normal((index.shape[0], n)).astype(np.float32)
    shapes = {"x": x.shape, "index": index.shape}
    program = verify(parse(ex.dsl.read_text(), str(ex.dsl)), shapes=shapes)
    return emulate(program, render(program, LowerOptions(shapes=shapes), 4), {"x": x, "index": index}, {}), x


@pytest.mark.heavy
@pytest.mark.parametrize("bad", [1003, 1010, -1])
def test_a_gather_index_outside_the_row_is_a_finding_at_the_take_line_even_inside_the_padding(bad):
    # a row of 1003 f32 lives in a 1008-element buffer: index 1003 reads DataCopyPad's padding
    index = np.random.default_rng(2).integers(0, 1003, (3, 40)).astype(np.int64)
    index[2, 7] = bad
    result, _ = _emulate_gather(index, 1003)
    assert result.status == "findings"
    assert {f["dsl_line"] for f in result.findings} == {_line_of("index/gather", "yu = take(")}


@pytest.mark.heavy
def test_a_gather_index_at_the_last_element_reads_it():
    index = np.full((3, 40), 1002, dtype=np.int64)
    result, x = _emulate_gather(index, 1003)
    assert result.status == "ok"
    np.testing.assert_array_equal(result.outputs["y"], np.take_along_axis(x, index, 1))


def test_the_interpreter_refuses_an_index_outside_the_tile_at_the_take_line():
    ex = get_example("index/gather")
    x = np.zeros((2, 16), np.float32)
    index = np.zeros((2, 4), np.int64)
    index[1, 2] = 16
    program = verify(parse(ex.dsl.read_text(), str(ex.dsl)), shapes={"x": x.shape, "index": index.shape})
    with pytest.raises(DslError) as e:
        run(program, {"x": x, "index": index})
    assert "take: index 16 at position 2 is outside the tile of 16 elements" in e.value.message
    assert e.value.span.line == _line_of("index/gather", "yu = take(")


THREE = "[torch.zeros(10, 4), torch.randint(0, 10, (6, 4)), torch.randn(6, 4)]"


@pytest.mark.heavy
@pytest.mark.parametrize("forward, inputs, construct", [
    ("def forward(self, x, i, s):\n    return x.scatter(0, i, s)", THREE, "scatter along dim 0"),
    ("def forward(self, x, i, s):\n    return x.index_copy(1, i, s)",
     "[torch.zeros(10, 4), torch.randint(0, 4, (6,)), torch.randn(10, 6)]", "index_copy along dim 1"),
    ("def forward(self, x, i, s):\n    return torch.gather(x, 0, i)", THREE, "torch.gather along dim 0"),
])
def test_what_the_drafter_cannot_express_is_refused_in_one_line_with_the_reference_line(forward, inputs, construct,
                                                                                         tmp_path):
    ref = write_ref(tmp_path, "bad", forward, inputs)
    with pytest.raises(DraftError) as e:
        draft_reference(ref)
    text = str(e.value)
    line = 1 + next(i for i, l in enumerate(ref.read_text().splitlines()) if l.strip().startswith("return "))
    assert "\n" not in text and construct in text and f"reference line {line}" in text, text
