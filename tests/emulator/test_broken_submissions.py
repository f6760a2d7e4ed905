"""Broken MultiKernelBench submissions (issue 39): a file cut short or missing a string is judged
invalid, with what is wrong with it, by the submission checker; never read as a DSL draft, never
skipped beside valid ones. None of them gets as far as a build."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import ascendcraft_lab
from ascendcraft_lab.backends.emulator.submission import is_submission_target, submissions_in
from ascendcraft_lab.cli import main

# tests/emulator's fixtures build the emulator's runtime: not in `make test-fast`.
pytestmark = pytest.mark.heavy

GELU_REF = Path(ascendcraft_lab.__file__).parent / "examples" / "activation" / "gelu.py"
SIX_STRING_HEAD = "# MultiKernelBench AscendC submission\n\nproject_json_src = r'''[\n    {\n        \"op\": \"Ge"
DIRECT_HEAD = '{\n  "name": "ascendcraft_gelu",\n  "problem": "gelu",\n  "format_version": "0.1",\n  "descr'


def run(capsys, *argv) -> tuple[int, str]:
    capsys.readouterr()
    try:
        rc = main([str(a) for a in argv])
    except SystemExit as exc:
        rc = exc.code
    captured = capsys.readouterr()
    return rc, captured.out + captured.err


@pytest.fixture
def broken(tmp_path) -> Path:
    folder = tmp_path / "subs"
    folder.mkdir()
    (folder / "cut.py").write_text(SIX_STRING_HEAD)
    (folder / "cut.json").write_text(DIRECT_HEAD)
    (folder / "list.json").write_text("[1, 2]")
    return folder


def test_a_folder_of_broken_submissions_takes_the_documented_flags_and_judges_each_invalid(broken, tmp_path,
                                                                                           capsys):
    rc, out = run(capsys, "check", broken, "--ref", GELU_REF, "-j", "1", "-o", tmp_path / "v.json")
    assert rc == 1 and "unrecognized arguments" not in out, out
    assert "invalid: cut.py: the submission is not Python" in out
    assert "invalid: cut.json: cut.json is not JSON" in out
    assert "0/2 correct; 2 invalid" in out          # list.json holds no submission key: not one of them
    assert [v["status"] for v in json.loads((tmp_path / "v.json").read_text())] == ["invalid"] * 2


@pytest.mark.parametrize("name, says", [("cut.py", "the submission is not Python"), ("cut.json", "is not JSON"),
                                        ("list.json", "a direct-launch submission is a JSON object")])
def test_one_broken_submission_is_invalid_not_a_dsl_syntax_error(name, says, broken, capsys):
    rc, out = run(capsys, "check", broken / name, "--ref", GELU_REF)
    assert rc == 1 and f"invalid: {name}: " in out and says in out, out
    assert "the DSL is Python syntax" not in out


def test_broken_submissions_beside_valid_ones_are_listed_not_skipped(broken):
    assert [p.name for p in submissions_in(broken)] == ["cut.json", "cut.py"]


def test_dsl_drafts_references_and_cases_files_are_not_submissions(tmp_path):
    (tmp_path / "k.dsl.py").write_text((GELU_REF.parent / "gelu.dsl.py").read_text())
    (tmp_path / "gelu.py").write_text(GELU_REF.read_text())
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "1_Relu.json").write_text('{"inputs": [{"name": "x", "shape": [4]}]}\n')
    assert not any(is_submission_target(p) for p in (tmp_path / "k.dsl.py", tmp_path / "gelu.py", tmp_path))
