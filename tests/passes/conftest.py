from pathlib import Path

import pytest

from ascendcraft_lab.dsl.parser import parse
from ascendcraft_lab.dsl.verifier import verify
from ascendcraft_lab.engines.rule import RuleEngine
from ascendcraft_lab.passes.manager import LowerOptions, run_pipeline

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="session")
def gelu_text() -> str:
    return (DATA / "gelu.dsl.py").read_text()


@pytest.fixture(scope="session")
def gelu(gelu_text):
    return verify(parse(gelu_text, "gelu.dsl.py"))


@pytest.fixture(scope="session")
def gelu_steps(gelu):
    return run_pipeline(gelu, RuleEngine(), LowerOptions())
