"""docs/dsl-reference.md is generated from the grammar and the tables, and committed as generated."""
from pathlib import Path

from ascendcraft_lab.dsl import OPS
from ascendcraft_lab.dsl.docs import render_reference
from ascendcraft_lab.dsl.host import HOST_BUILTINS, SOC_CONSTANTS
from ascendcraft_lab.dsl.parser import GRAMMAR

DOC = Path(__file__).resolve().parents[2] / "docs" / "dsl-reference.md"


def test_committed_reference_equals_the_generated_one():
    assert DOC.read_text(encoding="utf-8") == render_reference(), \
        "regenerate: python -m ascendcraft_lab.dsl.docs > docs/dsl-reference.md"


def test_reference_documents_every_operation_builtin_and_constant():
    text = render_reference()
    assert GRAMMAR in text
    for name in list(OPS) + list(HOST_BUILTINS) + list(SOC_CONSTANTS):
        assert f"`{name}" in text, name
    for op in OPS.values():
        assert op.ascendc.replace("|", "\\|") in text


def test_reference_documents_programs_from_their_grammar_and_rules():
    from ascendcraft_lab.dsl.program import PROGRAM_GRAMMAR
    from ascendcraft_lab.dsl.program_check import PROGRAM_RULES
    text = render_reference()
    assert PROGRAM_GRAMMAR in text and "## Programs of kernels" in text
    for rule in PROGRAM_RULES:
        assert f"- {rule}" in text
    assert "error: `scaled` reads `h` before `scaled`" in text
