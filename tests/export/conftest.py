"""Fixtures of the export tests: the gelu session (lowered from tests/cann/fixtures)."""
from __future__ import annotations

from pathlib import Path

import pytest

FIXTURES = Path(__file__).parents[1] / "cann" / "fixtures"


@pytest.fixture(scope="session")
def gelu_session(tmp_path_factory) -> Path:
    from ascendcraft_lab.session import Session
    folder = tmp_path_factory.mktemp("export-session") / "gelu"
    session = Session.open(folder, (FIXTURES / "gelu.dsl.py").read_text(), reference=FIXTURES / "gelu.py",
                           accept_all=True, dsl_name="gelu.dsl.py")
    assert session.verify(reviewed=False).correct     # export ships only a checked project
    return folder
