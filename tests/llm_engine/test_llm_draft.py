"""Drafting DSL with an LLM: each reply checked (parse, verify, interpreter) and fed back, bounded."""
from __future__ import annotations

import pytest

from fake_openai import garbage, reply, sleep, status
from llm_engine_support import GELU_DSL, fenced

from ascendcraft_lab.dsl.ops import OPS
from ascendcraft_lab.dsl.parser import GRAMMAR
from ascendcraft_lab.engines.llm import draft_with_llm

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

SYNTAX_LINE = next(i for i, line in enumerate(GELU_DSL.splitlines(), 1) if "rows = cdiv(B, cores)" in line)
BROKEN_SYNTAX = GELU_DSL.replace("rows = cdiv(B, cores)", "rows = cdiv(B, cores", 1)
STORE_IN_COMPUTE = GELU_DSL.replace("                yu = 0.5 * xu * (1.0 + tanh(inner))\n",
                                    "                yu = 0.5 * xu * (1.0 + tanh(inner))\n"
                                    "                store(y[r, c], yu)\n", 1)
WRONG_RESULT = GELU_DSL.replace("yu = 0.5 * xu", "yu = 0.25 * xu", 1)


def user_text(request) -> str:
    return request.messages[-1]["content"]


def test_a_correct_draft_verifies_on_the_first_try(fake_openai, make_client, gelu_ref_path):
    fake_openai.push(reply(fenced(GELU_DSL), tokens_in=900, tokens_out=300))
    result = draft_with_llm(gelu_ref_path, client=make_client())

    assert result.verified and result.best_round == 1 and result.stopped == "verified"
    assert result.dsl == GELU_DSL and result.verdict.correct
    assert len(fake_openai.chat_requests) == 1 and result.requests == 1
    assert (result.tokens_in, result.tokens_out) == (900, 300)
    assert [a.stage for a in result.attempts] == ["ok"]
    # The prompt: the DSL spec generated from the grammar and the ops table, an expert example
    # of the same category (not the gelu example itself: it would be the answer), the reference
    # and the shapes a run of it gives.
    system, user = (m["content"] for m in fake_openai.chat_requests[0].messages)
    assert GRAMMAR.strip().splitlines()[1] in system and OPS["tanh"].ascendc in system
    assert result.category == "activation" and result.examples == ("activation/softmax",)
    assert "def softmax(" in user and "def gelu(" not in user.split("# The reference to implement")[0]
    assert 'approximate="tanh"' in user and "tensor float32 of shape (4, 300)" in user


def test_a_syntax_error_goes_back_with_its_line_number(fake_openai, make_client, gelu_ref_path, gelu_ref):
    fake_openai.push(reply(fenced(BROKEN_SYNTAX)), reply(fenced(GELU_DSL)))
    result = draft_with_llm(gelu_ref_path, client=make_client(), reference=gelu_ref)

    assert result.verified and result.best_round == 2
    assert [a.stage for a in result.attempts] == ["parse", "ok"]
    second = user_text(fake_openai.chat_requests[1])
    assert f"kernel.dsl.py:{SYNTAX_LINE}:" in second and "was never closed" in second
    # The conversation goes on: the model sees its own broken reply before the error.
    assert fake_openai.chat_requests[1].messages[-2] == {"role": "assistant", "content": fenced(BROKEN_SYNTAX)}


def test_a_verifier_finding_goes_back(fake_openai, make_client, gelu_ref_path, gelu_ref):
    fake_openai.push(reply(fenced(STORE_IN_COMPUTE)), reply(fenced(GELU_DSL)))
    result = draft_with_llm(gelu_ref_path, client=make_client(), reference=gelu_ref)

    assert result.verified and [a.stage for a in result.attempts] == ["verify", "ok"]
    second = user_text(fake_openai.chat_requests[1])
    assert "store() outside `with copyout:`" in second and "kernel.dsl.py:27:" in second


def test_an_interpreter_mismatch_goes_back(fake_openai, make_client, gelu_ref_path, gelu_ref):
    fake_openai.push(reply(fenced(WRONG_RESULT)), reply(fenced(GELU_DSL)))
    result = draft_with_llm(gelu_ref_path, client=make_client(), reference=gelu_ref)

    assert result.verified and [a.stage for a in result.attempts] == ["interpreter", "ok"]
    assert not result.attempts[0].verdict.correct
    second = user_text(fake_openai.chat_requests[1])
    assert "incorrect: `y` differs at" in second and "max abs err" in second


def test_a_rate_limit_is_retried_by_the_client_within_the_round(fake_openai, make_client, gelu_ref_path, gelu_ref):
    fake_openai.push(status(429, "slow down", headers={"Retry-After": "1"}), reply(fenced(GELU_DSL)))
    client = make_client(max_retries=2)
    result = draft_with_llm(gelu_ref_path, client=client, reference=gelu_ref)

    assert result.verified and len(result.attempts) == 1
    assert len(fake_openai.chat_requests) == 2 and result.requests == 2
    assert client.waits == [1.0] and "HTTP 429" in client.calls[0].retries[0]


def test_a_timeout_fails_the_round_and_the_next_round_asks_again(fake_openai, make_client, gelu_ref_path, gelu_ref):
    fake_openai.push(sleep(5, then=reply(fenced(GELU_DSL))), reply(fenced(GELU_DSL)))
    client = make_client(timeout=0.3)
    result = draft_with_llm(gelu_ref_path, client=client, reference=gelu_ref, rounds=2)

    first, second = result.attempts
    assert first.error_kind == "timeout" and "did not answer within 0.3 s" in first.feedback
    assert second.ok and result.best_round == 2
    # Nothing was added to the conversation for a round that got no reply: the same request again.
    assert fake_openai.chat_requests[0].messages == fake_openai.chat_requests[1].messages


@pytest.mark.parametrize("scripted, per_call", [(garbage(), 2), (reply("I would rather not write code."), 1)],
                         ids=["http-garbage", "no-code-block"])
def test_garbage_until_the_bound_never_exceeds_it(fake_openai, make_client, gelu_ref_path, gelu_ref, scripted,
                                                  per_call):
    fake_openai.default = scripted
    client = make_client(max_retries=1)
    result = draft_with_llm(gelu_ref_path, client=client, reference=gelu_ref, rounds=3)

    assert not result.verified and result.dsl is None and result.stopped == "bound"
    assert len(result.attempts) == 3
    # rounds x (max_retries + 1) transport attempts at most; a reply with no code is not retried.
    assert len(fake_openai.chat_requests) == 3 * per_call == result.requests
    assert "no verified candidate" in result.message
    if per_call == 1:
        assert all(a.stage == "reply" and "no code block" in a.feedback for a in result.attempts)
    else:
        assert all(a.error_kind == "malformed" for a in result.attempts)


def test_the_best_verified_draft_is_kept_when_later_rounds_are_worse(fake_openai, make_client, gelu_ref_path, gelu_ref):
    fake_openai.push(reply(fenced(GELU_DSL)), reply(fenced(BROKEN_SYNTAX)), reply(fenced(WRONG_RESULT)))
    result = draft_with_llm(gelu_ref_path, client=make_client(), reference=gelu_ref, rounds=3, keep_improving=True)

    assert [a.stage for a in result.attempts] == ["ok", "parse", "interpreter"]
    assert result.dsl == GELU_DSL and result.best_round == 1 and result.verdict.correct
    assert "This draft is correct" in user_text(fake_openai.chat_requests[1])


def test_a_verified_start_draft_is_kept_when_the_model_only_makes_it_worse(
        fake_openai, make_client, gelu_ref_path, gelu_ref):
    fake_openai.push(reply(fenced(WRONG_RESULT)), reply(fenced(BROKEN_SYNTAX)))
    result = draft_with_llm(gelu_ref_path, client=make_client(), reference=gelu_ref, rounds=2,
                            start_draft=GELU_DSL, keep_improving=True)

    assert [(a.round, a.source, a.ok) for a in result.attempts] == [(0, "drafter", True), (1, "llm", False),
                                                                    (2, "llm", False)]
    assert result.dsl == GELU_DSL and result.best_round == 0 and "drafter's draft is kept" in result.message


def test_a_verified_start_draft_costs_no_call(fake_openai, make_client, gelu_ref_path, gelu_ref):
    result = draft_with_llm(gelu_ref_path, client=make_client(), reference=gelu_ref, start_draft=GELU_DSL)
    assert result.stopped == "start-verified" and result.dsl == GELU_DSL
    assert fake_openai.chat_requests == []


def test_a_broken_start_draft_is_shown_to_the_model_with_its_findings(
        fake_openai, make_client, gelu_ref_path, gelu_ref):
    fake_openai.push(reply(fenced(GELU_DSL)))
    result = draft_with_llm(gelu_ref_path, client=make_client(), reference=gelu_ref, start_draft=WRONG_RESULT)

    assert result.best_round == 1 and [a.source for a in result.attempts] == ["drafter", "llm"]
    first = user_text(fake_openai.chat_requests[0])
    assert "A draft to improve (from the offline drafter)" in first and "yu = 0.25 * xu" in first
    assert "incorrect: `y` differs at" in first


def test_a_repeated_run_is_served_from_the_cache(fake_openai, make_client, gelu_ref_path, gelu_ref):
    fake_openai.push(reply(fenced(BROKEN_SYNTAX)), reply(fenced(GELU_DSL)))
    first = draft_with_llm(gelu_ref_path, client=make_client(), reference=gelu_ref)
    assert len(fake_openai.chat_requests) == 2

    again = draft_with_llm(gelu_ref_path, client=make_client(), reference=gelu_ref)  # a new client, same cache
    assert len(fake_openai.chat_requests) == 2, "the repeated run reached the server"
    assert again.dsl == first.dsl == GELU_DSL and again.requests == 0
    assert [a.cached for a in again.attempts] == [True, True]
    assert [a.feedback for a in again.attempts] == [a.feedback for a in first.attempts]


def test_cancelling_ends_the_loop_with_a_clear_message(fake_openai, make_client, gelu_ref_path, gelu_ref):
    fake_openai.default = reply(fenced(WRONG_RESULT))
    client = make_client()
    result = draft_with_llm(gelu_ref_path, client=client, reference=gelu_ref, rounds=3,
                            on_attempt=lambda attempt: client.cancel())  # the notebook's stop button

    assert result.stopped == "cancelled" and len(fake_openai.chat_requests) == 1
    assert "cancelled after 1 round(s)" in result.message


def test_an_unreachable_endpoint_stops_at_once(make_client, gelu_ref_path, gelu_ref, closed_port_url):
    result = draft_with_llm(gelu_ref_path, client=make_client(base_url=closed_port_url), reference=gelu_ref, rounds=3)
    assert result.stopped == "error" and len(result.attempts) == 1
    assert "cannot connect" in result.message and "Traceback" not in result.message
