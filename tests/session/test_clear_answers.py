"""Unclear answers, by class (issue 39): each says what happened, where (the argument, the path) and
what to do, in one line, before any work starts."""
from __future__ import annotations

import pytest

from ascendcraft_lab.cli import main


def run(capsys, *argv) -> tuple[int, str]:
    capsys.readouterr()
    try:
        rc = main([str(a) for a in argv])
    except SystemExit as exc:          # argparse refuses with exit 2
        rc = exc.code
    captured = capsys.readouterr()
    return rc, captured.out + captured.err


# -------------------------------------------------------------- invalid numeric arguments
@pytest.mark.parametrize("argv, names", [
    (["check", "s", "--rtol", "-1"], "argument --rtol: must be a finite number of at least 0, not -1"),
    (["check", "s", "--atol", "nan"], "argument --atol: must be a finite number of at least 0, not nan"),
    (["check", "s", "--seed", "-1"], "argument --seed: must be a whole number from 0, not -1"),
    (["profile", "s", "--blocks", "-1"], "argument --blocks: must be a whole number from 0, not -1"),
    (["profile", "s", "--timeout", "0"], "argument --timeout: must be a positive number of seconds, not 0"),
    (["build", "s", "-j", "0"], "argument -j/--jobs: must be a whole number from 1, not 0"),
    (["check", "s", "--override", "=5"], "override '=5' names no constant: NAME=VALUE"),
], ids=lambda v: " ".join(v) if isinstance(v, list) else "")
def test_an_invalid_number_is_refused_naming_its_argument(argv, names, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    rc, out = run(capsys, *argv)
    assert rc == 2 and names in out and "Traceback" not in out
