"""Fixtures of the session tests: the GELU example, and a session of it lowered and checked once.

Tests that change a session work on a copy (`session`); the emulator's compile cache makes
every check after the first cost a fraction of a second of g++.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "ascendcraft_lab" / "examples" / "activation"


@pytest.fixture(scope="session")
def gelu_dsl() -> str:
    return (EXAMPLES / "gelu.dsl.py").read_text()


@pytest.fixture(scope="session")
def gelu_ref() -> str:
    return (EXAMPLES / "gelu.py").read_text()


@pytest.fixture(scope="session")
def inputs(tmp_path_factory, gelu_dsl, gelu_ref) -> Path:
    d = tmp_path_factory.mktemp("inputs")
    (d / "gelu.dsl.py").write_text(gelu_dsl)
    (d / "gelu.py").write_text(gelu_ref)
    (d / "softmax.dsl.py").write_text((EXAMPLES / "softmax.dsl.py").read_text())
    return d


@pytest.fixture(scope="session")
def checked(tmp_path_factory, inputs) -> Path:
    """A GELU session lowered and checked by the CLI (do not change it: copy it with `session`)."""
    from ascendcraft_lab.cli import main
    folder = tmp_path_factory.mktemp("checked") / "gelu"
    assert main(["lower", str(inputs / "gelu.dsl.py"), "--ref", str(inputs / "gelu.py"), "-o", str(folder)]) == 0
    assert main(["check", str(folder)]) == 0
    return folder


@pytest.fixture
def session(checked, tmp_path) -> Path:
    folder = tmp_path / "s"
    shutil.copytree(checked, folder)
    return folder


@pytest.fixture
def cli(capsys):
    """`cli("check", DIR)` -> (exit status, stdout + stderr), in this process."""
    from ascendcraft_lab.cli import main

    def run(*argv):
        capsys.readouterr()
        rc = main([str(a) for a in argv])
        captured = capsys.readouterr()
        return rc, captured.out + captured.err
    return run
