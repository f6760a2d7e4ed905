"""BoundedLoop: at most N rounds, and the best verified candidate is never lost."""
from __future__ import annotations

import threading

import pytest

from ascendcraft_lab.engines.llm import BoundedLoop, LlmClient, LlmConfig, LlmError, extract_code
from fake_openai import reply, status


def scripted_check(results):
    """check() answering from a {candidate: (ok, score, feedback)} table."""
    return lambda candidate: results[candidate]


def test_keeps_the_best_verified_candidate_against_later_worse_or_unverified_ones():
    proposals = iter(["a", "b", "c", "d", "e"])
    seen_feedback = []

    def propose(feedback):
        seen_feedback.append(feedback)
        return next(proposals)

    check = scripted_check({
        "a": (False, 9.0, "does not compile"),   # high score but unverified: never best
        "b": (True, 2.0, "ok, slow"),
        "c": (True, 1.0, "ok, slower"),          # verified but worse: does not replace b
        "d": (False, 50.0, "wrong numbers"),     # unverified: does not replace b
        "e": (True, 2.0, "ok, same speed"),      # tie: the earlier one stays
    })
    result = BoundedLoop(propose, check, max_rounds=5, stop_on_verified=False).run("start")

    assert result.best == "b" and result.best_round == 2 and result.verified
    assert [a.candidate for a in result.attempts] == ["a", "b", "c", "d", "e"]
    assert seen_feedback == ["start", "does not compile", "ok, slow", "ok, slower", "wrong numbers"]
    assert result.stopped == "bound"


def test_a_better_verified_candidate_replaces_the_best():
    proposals = iter(["a", "b"])
    check = scripted_check({"a": (True, 1.0, ""), "b": (True, 3.0, "")})
    result = BoundedLoop(lambda fb: next(proposals), check, max_rounds=2, stop_on_verified=False).run()
    assert result.best == "b"


def test_stops_at_the_first_verified_candidate_by_default():
    calls = []
    result = BoundedLoop(lambda fb: calls.append(fb) or f"c{len(calls)}",
                         lambda c: (c == "c2", 1.0, f"{c} checked")).run()
    assert result.best == "c2" and result.stopped == "verified" and len(calls) == 2


def test_never_more_rounds_than_the_bound_and_no_verified_means_no_best():
    calls = []
    result = BoundedLoop(lambda fb: calls.append(fb) or "bad", lambda c: (False, 0.0, "nope"), max_rounds=4).run()
    assert len(calls) == 4 and result.rounds == 4
    assert result.best is None and not result.verified and result.stopped == "bound"
    with pytest.raises(ValueError):
        BoundedLoop(lambda fb: "x", lambda c: (True, 0, ""), max_rounds=0)


def test_an_llm_loop_makes_at_most_n_requests_and_feeds_errors_back(fake_openai):
    # Round 1: server error (the client's own retries are off); round 2: prose without code;
    # round 3: code that fails the check. Three rounds, three requests, no verified result.
    fake_openai.push(status(500, "boom"), reply("I think you should tile it."), reply("```python\nbad = 1\n```"))
    client = LlmClient(LlmConfig.resolve(base_url=fake_openai.base_url, mode="off", max_retries=0))

    def propose(feedback):
        text = client.chat([{"role": "user", "content": f"write it. {feedback}"}], purpose="draft").text
        return extract_code(text)

    result = BoundedLoop(propose, lambda code: ("good" in code, 1.0, "NameError: good"), max_rounds=3).run()

    assert len(fake_openai.chat_requests) == 3
    assert [a.error is not None for a in result.attempts] == [True, True, False]
    assert "HTTP 500" in result.attempts[0].feedback
    assert result.attempts[1].feedback.startswith("reply has no code block")
    # each round's feedback reached the next prompt
    assert "HTTP 500" in fake_openai.chat_requests[1].last_user_content
    assert "reply has no code block" in fake_openai.chat_requests[2].last_user_content
    assert result.best is None


def test_cancel_stops_the_loop_between_rounds():
    cancel = threading.Event()

    def propose(feedback):
        cancel.set()  # the user presses stop while round 1 runs
        return "x"

    result = BoundedLoop(propose, lambda c: (False, 0.0, "no"), max_rounds=3, cancel=cancel).run()
    assert result.rounds == 1 and result.stopped == "cancelled"


def test_a_cancelled_llm_call_stops_the_loop():
    def propose(feedback):
        raise LlmError("LLM call cancelled", kind="cancelled")

    result = BoundedLoop(propose, lambda c: (True, 0.0, ""), max_rounds=3).run()
    assert result.rounds == 0 and result.stopped == "cancelled"
