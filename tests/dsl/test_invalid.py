"""Negative fixtures: every file in tests/dsl_invalid is rejected at the line marked `# error: ...`.

The marker's text must appear in the DslError's message; a `# shapes: {...}` first line makes
the check concrete (launch, UB budget) and runs the interpreter on random data of those shapes.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from ascendcraft_lab.dsl import DslError, parse, verify
from ascendcraft_lab.dsl.interp import run

FIXTURES = sorted((Path(__file__).resolve().parents[1] / "dsl_invalid").glob("*.dsl.py"))
MARK = re.compile(r"#\s*error:\s*(.+?)\s*$")


def expectation(text: str):
    for i, line in enumerate(text.splitlines(), 1):
        m = MARK.search(line)
        if m:
            return i, m.group(1)
    raise AssertionError("fixture has no `# error:` marker")


def shapes_of(text: str):
    first = text.splitlines()[0]
    if first.startswith("# shapes:"):
        return {k: tuple(v) for k, v in json.loads(first.split(":", 1)[1]).items()}
    return None


def test_there_are_many_negative_fixtures():
    assert len(FIXTURES) >= 30


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name.replace(".dsl.py", ""))
def test_invalid_draft_is_rejected_at_the_marked_line(path):
    text = path.read_text()
    line, wanted = expectation(text)
    shapes = shapes_of(text)
    with pytest.raises(DslError) as info:
        program = parse(text, path.name)
        typed = verify(program, shapes=shapes)
        if shapes is not None:
            rng = np.random.default_rng(0)
            run(typed, {k: rng.standard_normal(v).astype(np.float32) for k, v in shapes.items()})
    err = info.value
    assert wanted in err.message, err.render()
    assert err.line == line, err.render()
    rendered = err.render()
    assert rendered.startswith("error: ") and f" --> {path.name}:{line}:" in rendered
    assert "= help: " in rendered and "Traceback" not in rendered
