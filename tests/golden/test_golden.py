"""Golden AscendC: the rule engine's final project for every expert example, checked in.

Any change to the generated code shows up as a reviewed diff of these files. After an
intended change, regenerate with `pytest tests/golden --update-golden` and read the diff.
"""
from pathlib import Path

import pytest

from ascendcraft_lab.dsl.parser import parse
from ascendcraft_lab.dsl.verifier import verify
from ascendcraft_lab.engines.rule import render
from ascendcraft_lab.examples import EXAMPLES
from ascendcraft_lab.passes.manager import LowerOptions

GOLDEN = Path(__file__).parent / "data"


@pytest.mark.parametrize("ex", EXAMPLES, ids=[e.name for e in EXAMPLES])
def test_generated_project_matches_golden(ex, request):
    program = verify(parse(ex.dsl.read_text(), ex.dsl.name))
    bundle = render(program, LowerOptions(), 4)
    folder = GOLDEN / ex.category / ex.op
    if request.config.getoption("--update-golden"):
        for old in folder.rglob("*") if folder.exists() else []:
            if old.is_file():
                old.unlink()
        for path, text in bundle.files.items():
            (folder / path).parent.mkdir(parents=True, exist_ok=True)
            (folder / path).write_text(text)
    expected = {p.relative_to(folder).as_posix(): p.read_text() for p in folder.rglob("*") if p.is_file()}
    assert sorted(expected) == sorted(bundle.files), "files differ; run with --update-golden after review"
    for path, text in bundle.files.items():
        assert text == expected[path], (f"{ex.name}: {path} differs from the golden copy "
                                        "(pytest tests/golden --update-golden)")
