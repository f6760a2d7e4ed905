"""`ascendcraft draft` on an NPUKernelBench task drafts one kernel for every case (as the bench
does), and `--check` runs the draft on the interpreter against every case."""
from __future__ import annotations

import sys

import pytest

from ascendcraft_lab.cli import main
from ascendcraft_lab.dsl.generic import VariantMismatch
from ascendcraft_lab.reference import check_interpreter
from ascendcraft_lab.session import case_runs

from case_helpers import RELU_DSL, case_line

session_draft = sys.modules["ascendcraft_lab.session.draft"]     # the module (the package exports its draft())


@pytest.mark.heavy
def test_draft_of_a_task_is_generic_over_its_dtypes_and_ranks_and_checks_every_case_loaded_once(
        relu_task, tmp_path, capsys, monkeypatch):
    ref = relu_task([case_line("float32", []), case_line("float16", [3, 5, 7]),
                     case_line("bfloat16", [2, 3, 4, 5]), case_line("float32", [16, 40])])
    out = tmp_path / "relu.dsl.py"
    loads = []
    real = session_draft.load_cases
    monkeypatch.setattr(session_draft, "load_cases", lambda *a, **k: loads.append(a) or real(*a, **k))
    assert main(["draft", str(ref), "-o", str(out), "--check"]) == 0
    assert len(loads) == 1          # the check reuses the cases the draft was made from (one reference child)
    err = capsys.readouterr().err
    text = out.read_text()
    assert "@kernel(T=(f32, f16, bf16))" in text and "(*S" in text      # one source, any rank
    assert "correct on the interpreter on all 4 cases" in err


@pytest.mark.heavy
def test_the_interpreter_check_runs_each_case_on_its_own_variant_and_names_a_dtype_none_serves(relu_task):
    ref = relu_task([case_line("bfloat16", [4, 9]), case_line("int32", [6])])
    runs = case_runs(ref)
    verdict = check_interpreter(RELU_DSL, ref, reference=runs[0])          # the bf16 variant, not T's first
    assert verdict.correct, verdict.message
    with pytest.raises(VariantMismatch, match=r"case 1 has a int32 `x`, a dtype this kernel does not serve"):
        check_interpreter(RELU_DSL, ref, reference=runs[1])


def _run(case, *shapes, dtype="float32"):
    import numpy as np
    from ascendcraft_lab.reference import ReferenceRun
    inputs = [np.zeros(s, np.float32) for s in shapes]
    return ReferenceRun("t.py", inputs, [], [np.zeros(np.broadcast_shapes(*shapes), np.float32)],
                        input_dtypes=[dtype] * len(shapes), case=case)


def test_a_draft_is_traced_from_the_way_of_broadcasting_most_cases_share_then_a_float32_case():
    from ascendcraft_lab.session.draft import trace_case
    runs = [_run(0, (2, 1, 5), (1, 4, 5)), _run(1, (), (3, 4)), _run(2, (16, 64), (64,), dtype="float16"),
            _run(3, (8, 33), (33,)), _run(4, (5, 7), (7,), dtype="int32")]
    assert trace_case(runs).case == 3


def test_an_integer_case_is_traced_in_float32_with_its_index_and_mask_tensors_left_alone():
    import torch
    from ascendcraft_lab.reference.child import cast
    x, i, m = torch.ones(3, dtype=torch.int16), torch.zeros(3, dtype=torch.int64), torch.ones(3, dtype=torch.bool)
    out = cast([x, i, m, 2], "float32:integers", torch)
    assert [v.dtype for v in out[:3]] == [torch.float32, torch.int64, torch.bool] and out[3] == 2
    assert cast([x], "float32", torch)[0].dtype == torch.int16
