"""Bad cases fail alone and say where: a dtype no variant serves, a JSON line that does not parse."""
from __future__ import annotations

import pytest

from ascendcraft_lab.dsl.parser import parse
from ascendcraft_lab.reference import ReferenceError, load_cases
from ascendcraft_lab.session import check_cases

from case_helpers import RELU_DSL, case_line

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy


def test_a_json_line_that_does_not_parse_names_its_file_and_line(relu_task):
    path = relu_task([case_line("float32", [4, 8]), case_line("float16", [3]), '{"inputs": [{"name": "x",'])
    with pytest.raises(ReferenceError) as err:
        load_cases(path)
    assert "relu.json line 3 is not valid JSON" in str(err.value)
    assert "\n" not in str(err.value)


def test_a_case_whose_dtype_no_variant_serves_fails_alone_in_one_line(relu_task):
    path = relu_task([case_line("float32", [4, 8]), case_line("int32", [5, 7]), case_line("float16", [3, 33])])
    report = check_cases(parse(RELU_DSL, "relu.dsl.py"), load_cases(path))
    ok, bad, half = report.cases
    assert ok.correct and half.correct
    assert (bad.stage, bad.correct) == ("dtype", False)
    line = bad.line()
    assert "case 1" in line and "int32" in line and "\n" not in line
    assert report.passed() == 2 and not report.correct


CAT_LIST = '''\
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, tensors: list, dim: int) -> torch.Tensor:
        return torch.cat(tensors, dim=dim)


def get_input_groups():
    return [[[torch.randn(16, 33), torch.randn(5, 33)], 0], [[torch.randn(7), torch.randn(13)], 0]]


def get_init_inputs():
    return []
'''


def test_a_list_of_tensors_as_one_argument_is_one_input_per_tensor(tmp_path):
    # comparing cases once compared their lists of arrays elementwise (a numpy error), then the drafter refused
    # the list in one line; since issue 33 a list of tensors is traced by torch.export, one GM tensor per item
    from ascendcraft_lab.session.draft import draft
    path = tmp_path / "cat_list.py"
    path.write_text(CAT_LIST)
    text = draft(path, how="drafter").text
    assert "tensors_0: GM[f32, (B1, N)]" in text and "tensors_1: GM[f32, (B2, N)]" in text, text


def test_each_case_run_gets_a_time_limit_scaled_with_its_work_unless_one_is_given(relu_task, monkeypatch):
    from ascendcraft_lab.session import cases as cases_mod
    seen = []
    real = cases_mod.emulate

    def spy(*args, **kw):
        seen.append(kw.get("timeout"))
        return real(*args, **kw)
    monkeypatch.setattr(cases_mod, "emulate", spy)
    path = relu_task([case_line("float32", [4, 8])])
    program = parse(RELU_DSL, "relu.dsl.py")
    assert check_cases(program, load_cases(path)).correct
    assert check_cases(program, load_cases(path), timeout=42.0).correct
    assert seen == [None, 42.0]      # None: verify.emulate scales it (work_timeout), no fixed 300 s
