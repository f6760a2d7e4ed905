"""The LLM drafter's feedback names every case a draft does not serve: which case, its dtypes and shapes, why."""
from __future__ import annotations
import pytest

from ascendcraft_lab.engines.llm.draft import check_draft
from ascendcraft_lab.reference import load_cases

from case_helpers import RELU_DSL, case_line

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

PLAIN_F32 = RELU_DSL.replace("@kernel(T=(f32, f16, bf16))", "@kernel").replace("[T,", "[f32,")


def _cases(relu_task):
    path = relu_task([case_line("float32", [4, 8]), case_line("float16", [3, 5, 7]), case_line("float32", [2, 3, 4])])
    return path, [c for c in load_cases(path)]


def test_a_draft_that_serves_one_case_hears_of_each_case_it_fails(relu_task):
    path, runs = _cases(relu_task)
    checked = check_draft(PLAIN_F32, path, runs[0], "Ascend910B2", runs)
    assert not checked.ok and checked.stage == "cases"
    lines = checked.feedback.splitlines()
    assert lines[0].startswith("case 0 passes, but 1 of the 3 cases fail")
    assert lines[1].startswith("case 1 (float16 [3, 5, 7]): ") and "f32" in lines[1]


def test_a_generic_draft_that_serves_every_case_passes(relu_task):
    path, runs = _cases(relu_task)
    checked = check_draft(RELU_DSL, path, runs[0], "Ascend910B2", runs)
    assert checked.ok, checked.feedback
