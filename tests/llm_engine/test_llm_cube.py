"""The LLM engine on the cube: a matmul reference is drafted from the same tables and examples as
every other category (the DSL reference with the cube grammar and mmad / zeros rows, the matmul
expert examples), and the four lowering passes of a cube kernel go through the model, checked by
the same checkers and the compiler, as for the vector kernels."""
from __future__ import annotations

import pytest

from fake_openai import reply
from llm_engine_support import fenced, pass_asked, rule_reply

from ascendcraft_lab.backends.emulator.verify import compile_errors
from ascendcraft_lab.dsl.ops import OPS
from ascendcraft_lab.dsl.parser import parse
from ascendcraft_lab.dsl.verifier import verify
from ascendcraft_lab.engines.llm import LlmEngine, draft_with_llm
from ascendcraft_lab.engines.rule import render
from ascendcraft_lab.examples import get_example
from ascendcraft_lab.passes.manager import LowerOptions, run_pipeline

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

MATMUL = get_example("matmul/matmul")
OPTIONS = LowerOptions(shapes={"a": (40, 24), "b": (24, 50)})
REFERENCE = '''\
"""A product of rectangular matrices."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.matmul(a, b)


def get_inputs():
    return [torch.randn(40, 24), torch.randn(24, 50)]


def get_init_inputs():
    return []
'''
# the expert example's kernel under the name of the reference asked about
DSL = MATMUL.dsl.read_text(encoding="utf-8").replace("def matmul(", "def rect_mm(")


@pytest.fixture(scope="module")
def ref_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("refs") / "rect_mm.py"
    path.write_text(REFERENCE)
    return path


def test_a_matmul_is_drafted_from_the_cube_tables_and_the_matmul_examples(fake_openai, make_client, ref_path):
    fake_openai.push(reply(fenced(DSL)))
    result = draft_with_llm(ref_path, client=make_client())

    assert result.verified and result.best_round == 1 and result.verdict.correct
    assert result.category == "matmul" and all(e.startswith("matmul/") for e in result.examples)
    system, user = (m["content"] for m in fake_openai.chat_requests[0].messages)
    # the DSL reference the prompt carries is generated from the op table: the cube's rows are in it
    for text in ("L0A", "L0C", OPS["mmad"].ascendc, OPS["zeros"].doc):
        assert text in system, text
    assert "mmad(a0, b0, acc)" in user.split("# The reference to implement")[0]


def test_a_wrong_cube_draft_goes_back_and_the_fix_verifies(fake_openai, make_client, ref_path):
    bad = DSL.replace("b0 = load(b1, L0B)", "b0 = load(b1, L0A)", 1)
    fake_openai.push(reply(fenced(bad)), reply(fenced(DSL)))
    result = draft_with_llm(ref_path, client=make_client())

    assert result.verified and result.best_round == 2
    assert result.attempts[0].stage in ("parse", "verify")
    assert "L0A" in fake_openai.chat_requests[1].messages[-1]["content"]


def test_the_four_passes_of_a_cube_kernel_by_the_model_match_the_rule_engine(fake_openai, make_client):
    program = verify(parse(MATMUL.dsl.read_text(encoding="utf-8"), "matmul.dsl.py"), OPTIONS.soc)
    fake_openai.default = lambda request: reply(rule_reply(program, OPTIONS, pass_asked(request)))
    steps = run_pipeline(program, LlmEngine(make_client(), compiler=compile_errors), OPTIONS)

    assert [s.engine for s in steps] == ["llm"] * 4 and not any(s.failed for s in steps)
    assert steps[-1].bundle.files == render(program, OPTIONS, 4).files
    compute = next(r for r in fake_openai.chat_requests if pass_asked(r) == 3)
    prompt = "\n".join(m["content"] for m in compute.messages)
    assert OPS["mmad"].ascendc in prompt and "Mmad" in prompt
