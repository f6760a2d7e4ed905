"""Every rule the verifier enforces carries its one-line statement, and the DSL reference states it."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from ascendcraft_lab.dsl.docs import render_reference
from ascendcraft_lab.dsl.errors import DslError
from ascendcraft_lab.dsl.parser import parse
from ascendcraft_lab.dsl.rules import RULES
from ascendcraft_lab.dsl.verifier import verify
from ascendcraft_lab.examples import get_example

DSL = Path(__file__).resolve().parents[2] / "ascendcraft_lab" / "dsl"
# the verifier proper: every refusal there names its rule
VERIFIER = ("verifier.py", "typerules.py")


def refusal_sites(path: Path):
    """(line, rule id or None) of every err(...) / DslError(...) call, but the helpers' own."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    helpers = {id(n) for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) and f.name in ("err", "fail")
               for n in ast.walk(f)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and id(node) not in helpers:
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in ("err", "DslError"):
                rule = next((k.value for k in node.keywords if k.arg == "rule"), None)
                yield node.lineno, rule.value if isinstance(rule, ast.Constant) else None


@pytest.mark.parametrize("module", VERIFIER)
def test_every_refusal_of_the_verifier_names_a_rule(module):
    sites = list(refusal_sites(DSL / module))
    assert sites
    unnamed = [line for line, rule in sites if rule is None]
    assert not unnamed, f"{module}: refusals without rule= at lines {unnamed}"
    unknown = [(line, rule) for line, rule in sites if rule not in RULES]
    assert not unknown, f"{module}: rules not in dsl/rules.py: {unknown}"


def test_every_rule_has_a_refusal_that_names_it():
    named = {rule for path in DSL.glob("*.py") for _, rule in refusal_sites(path) if rule}
    named |= {k.value.value for path in DSL.glob("*.py") for k in ast.walk(ast.parse(path.read_text()))
              if isinstance(k, ast.keyword) and k.arg == "rule" and isinstance(k.value, ast.Constant)}
    assert named <= set(RULES), named - set(RULES)
    assert set(RULES) <= named, f"rules no refusal names: {sorted(set(RULES) - named)}"


def test_the_reference_states_every_rule():
    text = render_reference()
    for rule in RULES.values():
        assert f"- {rule.statement} (`{rule.id}`)" in text, rule.id


@pytest.mark.parametrize("topic", ["`ge`", "`ne`", "one layout", "output queue", "fit_tile", "`exp`, `log`",
                                   "(n, 1) tile", "several views", "input shape", "`//`", "acc = xu * 0.0",
                                   "two vector cores"])
def test_the_reference_states_what_models_had_to_learn_from_errors(topic):
    rules = render_reference().split("## Rules the verifier enforces", 1)[1]
    assert topic in rules


GELU = get_example("gelu").dsl.read_text(encoding="utf-8")


@pytest.mark.parametrize("edit, rule", [
    (("inner = (xu", "ge = 1.0\n                inner = (xu"), "names.reserved"),
    (("rows = cdiv(B, cores)      #", "rows = cdiv(B / 1, cores)  #"), "host.expressions"),
    (("x: GM[f32, (B, N)]", "x: GM[f32, (B, N * 2)]"), "params.dims-bound"),
    (("store(y[r, c], yu)", "store(y[r, c], xu)"), "stage.flow"),
])
def test_a_refusal_carries_the_rule_it_breaks(edit, rule):
    text = GELU.replace(*edit)
    assert text != GELU
    with pytest.raises(DslError) as exc:
        verify(parse(text, "k.dsl.py"), shapes={"x": (4, 300)})
    assert exc.value.rule == rule
