"""A session of a generic kernel against an NPUKernelBench task: one project serving every case."""
from __future__ import annotations
import pytest

from ascendcraft_lab.cli import main

from case_helpers import RELU_DSL, case_line

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy


def test_a_generic_kernels_session_ships_every_variant_and_passes_every_case(relu_task, tmp_path, capsys):
    ref = relu_task([case_line("float32", [16, 40]), case_line("float16", [3, 5, 7]),
                     case_line("bfloat16", [2, 3, 4, 5, 6]), case_line("float32", []), case_line("float32", [0, 8])])
    dsl = tmp_path / "relu.dsl.py"
    dsl.write_text(RELU_DSL)
    folder = tmp_path / "session"
    assert main(["lower", str(dsl), "--ref", str(ref), "-o", str(folder)]) == 0
    assert (folder / "reference_files" / "relu.json").is_file()       # what the reference reads travels with it
    for v in ("f16", "bf16"):
        assert (folder / "ascendc" / "variants" / v / "kernel" / f"relu_{v}_kernel.cpp").is_file()
    capsys.readouterr()
    assert main(["check", str(folder)]) == 0
    captured = capsys.readouterr()
    out = captured.out + captured.err          # the case lines are progress, on stderr
    assert "correct on every one of the 5 cases" in out
    assert "float32 3/3" in out and "float16 1/1" in out and "bfloat16 1/1" in out
    assert "case 4 (float32 [0, 8]; empty output, no launch): ok" in out


def test_a_session_named_by_a_relative_path_finds_the_cases_its_reference_reads(relu_task, tmp_path, monkeypatch,
                                                                                  capsys):
    # The reference child runs in a folder of its own: a relative session path once made the
    # copied reference look for reference_files/relu.json there (FileNotFoundError).
    relu_task([case_line("float32", [16, 40]), case_line("float16", [3, 5])])
    (tmp_path / "relu.dsl.py").write_text(RELU_DSL)
    monkeypatch.chdir(tmp_path)
    assert main(["lower", "relu.dsl.py", "--ref", "relu.py", "-o", "rs"]) == 0
    capsys.readouterr()
    assert main(["check", "rs"]) == 0
    monkeypatch.chdir(tmp_path / "rs")
    assert main(["check", "."]) == 0
    captured = capsys.readouterr()
    assert "correct on every one of the 2 cases" in captured.out + captured.err
