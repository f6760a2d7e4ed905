"""`ascendcraft profile` of a session whose reference is an NPUKernelBench task: the estimate of its
first case, saying that eager is not estimated for such references."""
from __future__ import annotations
import pytest

from ascendcraft_lab.cli import main

from case_helpers import RELU_DSL, case_line

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy


def test_profile_of_a_cases_session_estimates_its_first_case_and_says_eager_is_not_estimated(
        relu_task, tmp_path, capsys):
    ref = relu_task([case_line("float32", [64, 1024]), case_line("float16", [4096])])
    dsl = tmp_path / "relu.dsl.py"
    dsl.write_text(RELU_DSL)
    assert main(["lower", str(dsl), "--ref", str(ref), "-o", str(tmp_path / "s")]) == 0
    capsys.readouterr()
    assert main(["profile", str(tmp_path / "s")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("ESTIMATED profile of relu")
    assert "GM traffic   512.0 KiB" in out          # the first case: 64 x 1024 float32 in and out
    assert "no eager estimate for an NPUKernelBench reference yet" in out and "speedup" not in out
