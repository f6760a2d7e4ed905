"""The LLM engine lowering passes: each reply checked (format, checker, compiler) and fed back."""
from __future__ import annotations

import pytest

from fake_openai import reply
from llm_engine_support import gelu_program, pass_asked, rule_reply

from ascendcraft_lab.backends.emulator.verify import compile_errors
from ascendcraft_lab.engines.llm import LlmEngine, LlmEngineError
from ascendcraft_lab.engines.rule import RuleEngine, render
from ascendcraft_lab.passes.manager import LowerOptions, run_pipeline
from ascendcraft_lab.passes.pipeline import get_pass

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

OPTIONS = LowerOptions()
KERNEL = "kernel/gelu_kernel.cpp"


@pytest.fixture(scope="module")
def gelu():
    return gelu_program(OPTIONS)


def drop_free(path: str, text: str) -> str:
    assert "xuQueue.FreeTensor(xu);" in text
    return text.replace("        xuQueue.FreeTensor(xu);\n", "", 1)


def test_a_broken_constraint_goes_back_and_the_second_reply_passes(fake_openai, make_client, gelu):
    fake_openai.push(reply(rule_reply(gelu, OPTIONS, 3, edit=drop_free), tokens_in=5000, tokens_out=1200),
                     reply(rule_reply(gelu, OPTIONS, 3), tokens_in=6500, tokens_out=1300))
    engine = LlmEngine(make_client(), compiler=compile_errors)
    previous = render(gelu, OPTIONS, 2)
    bundle = engine.run_pass(get_pass("compute"), gelu, previous, OPTIONS)

    second = fake_openai.chat_requests[1].messages[-1]["content"]
    assert "tensor allocated from `xuQueue` is never freed" in second and "[compute/queue-balance]" in second
    report = engine.last_report
    assert engine.reports["compute"] is report and report.engine == "llm" and report.best_round == 2
    first, final = report.attempts
    assert (first.ok, first.stage, final.ok) == (False, "checker", True)
    assert first.files == (KERNEL,) and "-        xuQueue.FreeTensor(xu);" not in first.diffs[0].text
    assert bundle.files == render(gelu, OPTIONS, 3).files == report.bundle.files
    # The rule engine's step sits beside the model's, for side-by-side comparison.
    assert report.rule_bundle.files == bundle.files and report.vs_rule == []
    assert (report.tokens_in, report.tokens_out, report.requests) == (11500, 2500, 2)


def test_a_compiler_error_goes_back_with_its_line(fake_openai, make_client, gelu):
    typo = lambda path, text: text.replace("Muls(yu, xu, 0.5f, cLen);", "Mulz(yu, xu, 0.5f, cLen);", 1)  # noqa: E731
    fake_openai.push(reply(rule_reply(gelu, OPTIONS, 3, edit=typo)), reply(rule_reply(gelu, OPTIONS, 3)))
    engine = LlmEngine(make_client(), compiler=compile_errors)
    engine.run_pass(get_pass("compute"), gelu, render(gelu, OPTIONS, 2), OPTIONS)

    kernel_lines = render(gelu, OPTIONS, 3)[KERNEL].splitlines()
    bad_line = next(i for i, line in enumerate(kernel_lines, 1) if "Muls(yu, xu" in line)
    second = fake_openai.chat_requests[1].messages[-1]["content"]
    assert f"{KERNEL}:{bad_line}:" in second and "Mulz" in second and "/tmp" not in second
    assert [a.stage for a in engine.last_report.attempts] == ["compile", "ok"]


def test_a_reply_outside_the_project_or_with_a_placeholder_left_is_refused(fake_openai, make_client, gelu):
    fake_openai.push(reply("// file: ../../etc/passwd\n```\nroot::0:0\n```"),
                     reply(rule_reply(gelu, OPTIONS, 3, edit=lambda p, t: t + "// TODO(pass 3 compute): later\n")))
    engine = LlmEngine(make_client(), compiler=compile_errors, rounds=2)
    with pytest.raises(LlmEngineError) as err:
        engine.run_pass(get_pass("compute"), gelu, render(gelu, OPTIONS, 2), OPTIONS)

    assert err.value.kind == "unverified" and "no verified candidate" in str(err.value)
    assert [a.stage for a in err.value.report.attempts] == ["reply", "placeholder"]
    assert "is not a project path" in fake_openai.chat_requests[1].messages[-1]["content"]
    assert len(fake_openai.chat_requests) == 2


def test_one_pass_by_the_model_inside_a_rule_pipeline(fake_openai, make_client, gelu):
    fake_openai.push(reply(rule_reply(gelu, OPTIONS, 2)))
    llm = LlmEngine(make_client(), compiler=compile_errors)
    steps = run_pipeline(gelu, RuleEngine(), OPTIONS, engines={"init": llm})

    assert [s.engine for s in steps] == ["rule", "llm", "rule", "rule"]
    assert not any(s.failed for s in steps) and len(fake_openai.chat_requests) == 1
    assert steps[-1].bundle.files == render(gelu, OPTIONS, 4).files
    prompt = fake_openai.chat_requests[0].messages[1]["content"]
    # The prompt: the pass's rules and checker, the plan's names, API notes, a worked example of
    # the same pass from the rule engine on a category example, the DSL, the previous bundle.
    for section in ("# Pass 2 of 4: init", "every DSL tile has a queue or TBuf",
                    "`TQue<TPosition::VECIN, 1> xuQueue;`", "AscendC `Mul`; with a scalar operand `Muls`",
                    "pass 2 (init) on the category example `activation/softmax`",
                    "# The DSL kernel `gelu.dsl.py`", "# The project after pass 1", "// file: kernel/gelu_kernel.cpp"):
        assert section in prompt, section


def test_the_whole_pipeline_by_the_model_and_again_from_the_cache(fake_openai, make_client, gelu):
    fake_openai.default = lambda request: reply(rule_reply(gelu, OPTIONS, pass_asked(request)))
    steps = run_pipeline(gelu, LlmEngine(make_client(), compiler=compile_errors), OPTIONS)
    assert [s.engine for s in steps] == ["llm"] * 4 and not any(s.failed for s in steps)
    assert steps[-1].bundle.files == render(gelu, OPTIONS, 4).files
    assert len(fake_openai.chat_requests) == 4

    engine = LlmEngine(make_client(), compiler=compile_errors)  # a new client on the same cache
    again = run_pipeline(gelu, engine, OPTIONS)
    assert len(fake_openai.chat_requests) == 4, "the repeated run reached the server"
    assert [s.bundle.files for s in again] == [s.bundle.files for s in steps]
    assert all(r.requests == 0 and r.cached_calls == 1 for r in engine.reports.values())


def test_a_pass_the_model_cannot_do_fails_as_a_step_and_the_pipeline_stops_there(fake_openai, make_client, gelu):
    fake_openai.default = reply(rule_reply(gelu, OPTIONS, 3, edit=drop_free))
    llm = LlmEngine(make_client(), compiler=compile_errors, rounds=2)
    steps = run_pipeline(gelu, RuleEngine(), OPTIONS, engines={"compute": llm})

    assert [s.spec.name for s in steps] == ["host", "init", "compute"] and steps[-1].failed
    assert steps[-1].errors[0].message.startswith("pass 3 compute: no verified candidate after 2 round(s) (bound 2)")
    assert len(fake_openai.chat_requests) == 2 and [a.stage for a in llm.last_report.attempts] == ["checker"] * 2


def test_an_unverified_pass_can_be_kept_for_the_user_to_fix(fake_openai, make_client, gelu):
    fake_openai.default = reply(rule_reply(gelu, OPTIONS, 3, edit=drop_free))
    llm = LlmEngine(make_client(), compiler=compile_errors, rounds=1, on_failure="keep")
    bundle = llm.run_pass(get_pass("compute"), gelu, render(gelu, OPTIONS, 2), OPTIONS)

    assert llm.last_report.engine == "llm-unverified" and not llm.last_report.verified
    assert "xuQueue.FreeTensor(xu);" not in bundle[KERNEL] and "yuQueue.FreeTensor(yu);" in bundle[KERNEL]


def test_cancelling_a_pass_ends_it_with_a_clear_message(fake_openai, make_client, gelu):
    fake_openai.default = reply(rule_reply(gelu, OPTIONS, 3, edit=drop_free))
    client = make_client()
    # on_attempt is the stop button
    llm = LlmEngine(client, compiler=compile_errors, rounds=3, on_attempt=lambda pass_name, attempt: llm.cancel())
    steps = run_pipeline(gelu, RuleEngine(), OPTIONS, engines={"compute": llm})

    assert steps[-1].failed and len(fake_openai.chat_requests) == 1
    assert steps[-1].errors[0].message == ("pass 3 compute: cancelled after 1 round(s); "
                                           "nothing more was sent to the model")
