"""Fixtures of the case tests: NPUKernelBench-format tasks written into a temporary folder."""
from __future__ import annotations

from pathlib import Path

import pytest

from case_helpers import RELU_REFERENCE


@pytest.fixture
def relu_task(tmp_path):
    """write(lines) -> the path of a ReLU task whose relu.json holds `lines` (strings, as written)."""
    def write(lines: list[str]) -> Path:
        (tmp_path / "relu.py").write_text(RELU_REFERENCE)
        (tmp_path / "relu.json").write_text("\n".join(lines) + "\n")
        return tmp_path / "relu.py"
    return write
