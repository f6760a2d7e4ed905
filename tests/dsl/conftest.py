"""Shared fixtures for the DSL tests: every example's reference, loaded once per shape per session."""
from __future__ import annotations

import pytest

from ascendcraft_lab.examples import EXAMPLES
from ascendcraft_lab.reference import load_references

SHAPES = ("own", "tail")


@pytest.fixture(scope="session")
def reference_runs():
    """(op, "own" | "tail") -> ReferenceRun, all loaded in ONE child process (one torch import)."""
    requests, keys = [], []
    for ex in EXAMPLES:
        for shape in SHAPES:
            requests.append((ex.reference, None if shape == "own" else ex.tail_overrides))
            keys.append((ex.op, shape))
    return dict(zip(keys, load_references(requests, seed=0)))
