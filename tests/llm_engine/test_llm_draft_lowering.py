"""A model's draft is accepted only when its lowering agrees with the interpreter on the emulator.

The session layer injects the check (`session/draft_lowering.py`): the draft lowered through the
four passes by the rule engine and run on the emulator with the reference's inputs. A draft the
interpreter accepts but the compiler disagrees with goes back to the model as an error naming the
store whose elements came out wrong.
"""
from __future__ import annotations

import numpy as np
import pytest

from fake_openai import reply
from llm_engine_support import GELU_DSL, fenced

from ascendcraft_lab.dsl.interp import run as interpret
from ascendcraft_lab.dsl.parser import parse
from ascendcraft_lab.dsl.verifier import verify
from ascendcraft_lab.engines.llm import draft_with_llm
from ascendcraft_lab.session.draft_lowering import lowering_check, wrong_stores

pytestmark = pytest.mark.heavy

DOUBLE_REFERENCE = '''\
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * 2.0


def get_inputs():
    return [torch.randn(4, 300)]


def get_init_inputs():
    return []
'''

GELU_COMPUTE = ("                inner = (xu + 0.044715 * xu * xu * xu) * 0.7978845608028654\n"
                "                yu = 0.5 * xu * (1.0 + tanh(inner))\n")
assert GELU_COMPUTE in GELU_DSL
SCALED = GELU_DSL.replace(GELU_COMPUTE, "                yu = xu * 2.0\n")
ADDED = GELU_DSL.replace(GELU_COMPUTE, "                yu = xu + xu\n")
POW_BY_LN = GELU_DSL.replace(GELU_COMPUTE, "                yu = xu ** 9\n")


def store_line(text: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if "store(y[r, c], yu)" in line)


@pytest.fixture(scope="module")
def double(tmp_path_factory):
    from ascendcraft_lab.reference import load_reference
    path = tmp_path_factory.mktemp("refs") / "double.py"
    path.write_text(DOUBLE_REFERENCE)
    return path, load_reference(path)


@pytest.fixture
def miscompiled(monkeypatch):
    """A lowering that computes something else than the interpreter: the generated kernel's scale 2.0f
    turned into 2.5f before it runs on the emulator (our rule engine has no known such form left: the
    fuzzer's findings are fixed or refused, so the test makes one)."""
    from ascendcraft_lab.passes.bundle import Bundle
    from ascendcraft_lab.session import draft_lowering
    real = draft_lowering.check_emulator

    def wrong(typed, bundle, ref, **kw):
        files = {p: t.replace("2.0f", "2.5f") if p.startswith("kernel/") else t for p, t in bundle.files.items()}
        return real(typed, Bundle(files, dict(bundle.source_map)), ref, **kw)
    monkeypatch.setattr(draft_lowering, "check_emulator", wrong)


def test_a_draft_the_emulator_disagrees_with_goes_back_and_round_2_fixes_it(fake_openai, make_client, double,
                                                                            miscompiled):
    path, ref = double
    fake_openai.push(reply(fenced(SCALED)), reply(fenced(ADDED)))
    result = draft_with_llm(path, client=make_client(), reference=ref, lowered=lowering_check(None))
    assert result.verified and result.best_round == 2 and result.dsl == ADDED
    assert [a.stage for a in result.attempts] == ["emulator", "ok"]
    assert result.attempts[0].verdict.correct          # round 1 passed the interpreter: only the lowering disagreed
    second = fake_openai.chat_requests[1].messages[-1]["content"]
    assert "The interpreter accepts this draft, but its lowering to AscendC computes something else" in second
    assert "incorrect: `y` differs at" in second
    # the store whose elements came out wrong, with its DSL line
    assert f"kernel.dsl.py:{store_line(SCALED)}:" in second and "of the wrong elements were stored here" in second


def test_without_the_lowering_check_the_interpreter_alone_accepts_that_draft(fake_openai, make_client, double,
                                                                             miscompiled):
    path, ref = double
    fake_openai.push(reply(fenced(SCALED)))
    result = draft_with_llm(path, client=make_client(), reference=ref)
    assert result.verified and result.best_round == 1


def test_a_power_the_vector_unit_takes_by_logarithms_fails_on_the_interpreter_too():
    """x ** 9 lowers as exp(9 ln x): nan for x < 0. The interpreter means the same (one meaning), so
    such a draft is wrong before it reaches the emulator (PyTorch's (-2) ** 9 is -512)."""
    program = verify(parse(POW_BY_LN, "kernel.dsl.py"), shapes={"x": (1, 3)})
    y = interpret(program, {"x": np.array([[-2.0, 0.5, 3.0]], np.float32)})["y"]
    assert np.isnan(y[0, 0]) and np.isfinite(y[0, 1:]).all()


def test_a_lowering_refusal_is_fed_back_at_its_line(fake_openai, make_client, double):
    path, ref = double
    calls = []

    def refusing(program, run):
        calls.append(program.kernel.name)
        return "lower", "the compiler refuses it: line 27"
    fake_openai.push(reply(fenced(ADDED)), reply(fenced(ADDED)))
    result = draft_with_llm(path, client=make_client(), reference=ref, lowered=refusing, rounds=2)

    assert not result.verified and [a.stage for a in result.attempts] == ["lower", "lower"]
    assert calls == ["gelu", "gelu"]
    assert "the compiler refuses it: line 27" in fake_openai.chat_requests[1].messages[-1]["content"]


def test_wrong_elements_are_counted_per_store_that_wrote_them():
    text = GELU_DSL.replace(GELU_COMPUTE, "                yu = xu * 2.0\n")
    program = verify(parse(text, "kernel.dsl.py"), shapes={"x": (4, 300)})
    x = np.arange(1200, dtype=np.float32).reshape(4, 300)
    want = interpret(program, {"x": x})
    got = {"y": want["y"].copy()}
    got["y"][2, 10:17] += 1.0

    found = wrong_stores(program, want, got)
    assert found.startswith("error: 7 of the wrong elements were stored here")
    assert f"kernel.dsl.py:{store_line(text)}:" in found
    assert wrong_stores(program, want, {"y": want["y"].copy()}) == ""
