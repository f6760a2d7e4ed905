"""Shared fixtures for the drafter tests (helpers in drafter_helpers.py)."""
from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def ref_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("refs")
