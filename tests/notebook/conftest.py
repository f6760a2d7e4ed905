"""Fixtures for the notebook workbench: a small GELU draft and reference, fresh session folders,
and one in-process IPython shell with the extension loaded.

The emulator keeps compiled kernels in its cache (ASCENDCRAFT_CACHE_DIR, default
~/.cache/ascendcraft), so the tests that compile pay for one g++ build between them.
"""
from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="session")
def gelu_dsl() -> str:
    return (DATA / "gelu.dsl.py").read_text()


@pytest.fixture(scope="session")
def gelu_ref() -> Path:
    return DATA / "gelu_ref.py"


@pytest.fixture
def folder(tmp_path) -> Path:
    return tmp_path / "sessions" / "gelu"


@pytest.fixture
def lab(folder, gelu_dsl, gelu_ref):
    from ascendcraft_lab.notebook import LabSession
    return LabSession.open(folder, gelu_dsl, reference=gelu_ref)


@pytest.fixture(scope="session")
def shell():
    from IPython.core.interactiveshell import InteractiveShell
    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "ascendcraft_lab")
    return ip


@pytest.fixture
def magics(shell):
    """The registered magics object, with its settings restored after the test."""
    from ascendcraft_lab.notebook.magic import AscendCraftMagics
    m = next(c for c in shell.configurables if isinstance(c, AscendCraftMagics))
    saved = {n: getattr(m, n) for n in m.traits(config=True)}
    yield m
    for n, v in saved.items():
        setattr(m, n, v)

