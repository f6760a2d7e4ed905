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


def test_the_interpreter_check_runs_each_case_on_its_own_variant_and_names_a_dtype_none_serves(relu_task):
    ref = relu_task([case_line("bfloat16", [4, 9]), case_line("int32", [6])])
    runs = case_runs(ref)
    verdict = check_interpreter(RELU_DSL, ref, reference=runs[0])          # the bf16 variant, not T's first
    assert verdict.correct, verdict.message
    with pytest.raises(VariantMismatch, match=r"case 1 has a int32 `x`, a dtype this kernel does not serve"):
        check_interpreter(RELU_DSL, ref, reference=runs[1])
