"""LlmClient transport and robustness, against the fake server over real HTTP."""
from __future__ import annotations

import json
import threading
import time

import pytest

from ascendcraft_lab.engines.llm import LlmClient, LlmConfig, LlmError
from fake_openai import empty, garbage, json_body, raw, reply, sleep, status, truncated

MSGS = [{"role": "system", "content": "You write DSL."}, {"role": "user", "content": "relu please"}]


def client_for(base_url, sleeps=None, **settings):
    settings.setdefault("mode", "off")
    config = LlmConfig.resolve(base_url=base_url, model="fake-model", **settings)
    return LlmClient(config, sleep=sleeps)


def test_a_correct_reply_on_the_first_try(fake_openai, sleeps):
    fake_openai.push(reply("```python\nx = 1\n```", tokens_in=12, tokens_out=7))
    client = client_for(fake_openai.base_url, sleeps, price_in_per_1k=1.0, price_out_per_1k=2.0)

    r = client.chat(MSGS, purpose="draft", max_tokens=256, temperature=0.2)

    assert r.text == "```python\nx = 1\n```"
    assert (r.tokens_in, r.tokens_out, r.finish_reason, r.attempts, r.cached) == (12, 7, "stop", 1, False)
    assert r.cost_estimate == pytest.approx(12 / 1000 * 1.0 + 7 / 1000 * 2.0)
    assert r.latency_s > 0
    [req] = fake_openai.chat_requests
    assert req.path == "/v1/chat/completions"
    assert req.json["model"] == "fake-model"
    assert req.json["messages"] == MSGS
    assert req.json["max_tokens"] == 256 and req.json["temperature"] == 0.2
    assert sleeps.waits == []
    [rec] = client.calls
    assert (rec.purpose, rec.reply_text, rec.error, rec.attempts) == ("draft", r.text, None, 1)


def test_429_then_success_honours_retry_after(fake_openai, sleeps):
    fake_openai.push(status(429, "slow down", headers={"Retry-After": "2"}), reply("ok"))
    client = client_for(fake_openai.base_url, sleeps)

    r = client.chat(MSGS, purpose="draft")

    assert r.text == "ok" and r.attempts == 2
    assert len(fake_openai.chat_requests) == 2
    assert sleeps.waits == [2.0]
    assert "HTTP 429" in client.calls[0].retries[0]


def test_retry_after_is_capped(fake_openai, sleeps):
    fake_openai.push(status(429, headers={"Retry-After": "3600"}), reply("ok"))
    client = client_for(fake_openai.base_url, sleeps, backoff_cap_s=5.0)
    client.chat(MSGS, purpose="draft")
    assert sleeps.waits == [5.0]


def test_500_twice_then_success_with_exponential_backoff(fake_openai, sleeps):
    fake_openai.push(status(500), status(503), reply("ok"))
    client = client_for(fake_openai.base_url, sleeps, max_retries=2, backoff_base_s=0.5)

    r = client.chat(MSGS, purpose="lower")

    assert r.text == "ok" and r.attempts == 3
    assert len(fake_openai.chat_requests) == 3
    assert sleeps.waits == [0.5, 1.0]


def test_5xx_on_every_attempt_stops_at_the_bound(fake_openai, sleeps):
    fake_openai.default = status(502, "bad gateway")
    client = client_for(fake_openai.base_url, sleeps, max_retries=3)

    with pytest.raises(LlmError) as info:
        client.chat(MSGS, purpose="lower")

    assert info.value.kind == "server" and info.value.attempts == 4
    assert "HTTP 502" in str(info.value) and "gave up after 4 attempts" in str(info.value)
    assert len(fake_openai.chat_requests) == 4
    assert len(sleeps.waits) == 3


def test_timeout_ends_in_a_clear_error_after_bounded_retries(fake_openai, sleeps):
    fake_openai.default = sleep(3.0)
    client = client_for(fake_openai.base_url, sleeps, timeout=0.5, max_retries=1)

    with pytest.raises(LlmError) as info:
        client.chat(MSGS, purpose="draft")

    assert info.value.kind == "timeout"   # without the 0.5 s timeout the server's answer would come after 3 s
    assert str(info.value).startswith(f"the LLM endpoint at {fake_openai.base_url} did not answer within 0.5 s")
    assert "gave up after 2 attempts" in str(info.value)
    assert len(fake_openai.chat_requests) == 2
    assert client.calls[0].error_kind == "timeout"


@pytest.mark.parametrize("bad", [garbage(), garbage(b"<html>oops</html>", "text/html"),
                                 json_body({"hello": "world"}), json_body({"choices": []}), raw()],
                         ids=["bytes", "html", "wrong-schema", "no-choices", "not-http"])
def test_garbage_until_the_bound_never_exceeds_it(fake_openai, sleeps, bad):
    fake_openai.default = bad
    client = client_for(fake_openai.base_url, sleeps, max_retries=2)

    with pytest.raises(LlmError) as info:
        client.chat(MSGS, purpose="draft")

    assert len(fake_openai.chat_requests) == 3
    assert info.value.attempts == 3
    assert info.value.kind == "malformed"
    assert "gave up after 3 attempts" in str(info.value)
    assert len(str(info.value).splitlines()) == 1


def test_garbage_then_a_good_reply_recovers(fake_openai, sleeps):
    fake_openai.push(garbage(), reply("fine"))
    assert client_for(fake_openai.base_url, sleeps).chat(MSGS, purpose="draft").text == "fine"
    assert len(fake_openai.chat_requests) == 2


def test_connection_refused_names_the_base_url_and_does_not_retry(closed_port_url, sleeps):
    client = client_for(closed_port_url, sleeps, max_retries=3)

    with pytest.raises(LlmError) as info:
        client.chat(MSGS, purpose="draft")

    msg = str(info.value)
    assert info.value.kind == "connection" and info.value.attempts == 1
    assert msg.startswith(f"cannot connect to the LLM endpoint at {closed_port_url} (connection refused)")
    assert "OPENAI_BASE_URL" in msg
    assert sleeps.waits == []
    # one message, not a chain of openai/httpx tracebacks
    assert info.value.__cause__ is None
    assert info.value.__context__ is None or info.value.__suppress_context__


@pytest.mark.parametrize("code", [401, 403])
def test_auth_failure_is_clear_and_not_retried(fake_openai, sleeps, code):
    fake_openai.push(status(code, "Incorrect API key provided: sk-wrong-key"))
    client = client_for(fake_openai.base_url, sleeps, api_key="sk-wrong-key")

    with pytest.raises(LlmError) as info:
        client.chat(MSGS, purpose="draft")

    msg = str(info.value)
    assert info.value.kind == "auth" and info.value.status == code
    assert f"HTTP {code}" in msg and "OPENAI_API_KEY" in msg
    assert "sk-wrong-key" not in msg  # the server echoed it; we scrub it
    assert len(fake_openai.chat_requests) == 1


def test_the_key_is_sent_as_a_bearer_token_and_a_placeholder_when_absent(fake_openai, sleeps):
    fake_openai.push(reply("a"), reply("b"))
    client_for(fake_openai.base_url, sleeps, api_key="sk-real").chat(MSGS, purpose="p")
    client_for(fake_openai.base_url, sleeps).chat(MSGS, purpose="p")
    auth = [r.headers["authorization"] for r in fake_openai.chat_requests]
    assert auth == ["Bearer sk-real", "Bearer not-needed"]


def test_other_4xx_is_not_retried_and_404_hints_at_the_url(fake_openai, sleeps):
    fake_openai.push(status(404, "The model `nope` does not exist"))
    client = client_for(fake_openai.base_url, sleeps)
    with pytest.raises(LlmError) as info:
        client.chat(MSGS, purpose="draft")
    assert info.value.kind == "http" and "HTTP 404" in str(info.value) and "/v1" in str(info.value)
    assert "does not exist" in str(info.value)
    assert len(fake_openai.chat_requests) == 1


def test_truncated_reply_is_one_clear_error_with_the_partial_text(fake_openai, sleeps):
    fake_openai.push(truncated("def kernel(x):\n    return x +"))
    client = client_for(fake_openai.base_url, sleeps, max_tokens=64)

    with pytest.raises(LlmError) as info:
        client.chat(MSGS, purpose="draft")

    assert info.value.kind == "truncated"
    assert str(info.value).startswith("the reply was cut off at max_tokens=64 (finish_reason 'length'")
    assert info.value.reply_text == "def kernel(x):\n    return x +"
    assert len(fake_openai.chat_requests) == 1  # the same request would be cut again
    assert client.calls[0].reply_text == "def kernel(x):\n    return x +"


def test_endless_output_from_a_server_that_ignores_max_tokens(fake_openai, sleeps):
    fake_openai.push(reply("la " * 5000, tokens_out=5000))
    client = client_for(fake_openai.base_url, sleeps, max_tokens=100)
    with pytest.raises(LlmError) as info:
        client.chat(MSGS, purpose="draft")
    assert info.value.kind == "endless"
    assert "ignored max_tokens=100" in str(info.value) and "5000 tokens" in str(info.value)
    assert len(fake_openai.chat_requests) == 1


def test_empty_reply_is_retried_then_reported(fake_openai, sleeps):
    fake_openai.default = empty()
    client = client_for(fake_openai.base_url, sleeps, max_retries=1)
    with pytest.raises(LlmError) as info:
        client.chat(MSGS, purpose="draft")
    assert info.value.kind == "empty" and "empty reply" in str(info.value)
    assert len(fake_openai.chat_requests) == 2


def test_cancel_during_backoff_stops_before_the_next_request(fake_openai):
    fake_openai.default = status(500)
    client = LlmClient(LlmConfig.resolve(base_url=fake_openai.base_url, mode="off", max_retries=5,
                                         backoff_base_s=120.0, backoff_cap_s=120.0))
    threading.Timer(0.3, client.cancel).start()  # the notebook's stop button

    t0 = time.monotonic()
    with pytest.raises(LlmError) as info:
        client.chat(MSGS, purpose="draft")

    assert time.monotonic() - t0 < 60  # a hang guard, not a speed: only a back-off the cancel missed lasts 120 s
    assert info.value.kind == "cancelled" and info.value.attempts == 1
    assert len(fake_openai.chat_requests) == 1
    with pytest.raises(LlmError, match="cancelled before it started"):
        client.chat(MSGS, purpose="draft")
    client.reset_cancel()
    fake_openai.push(reply("again"))
    assert client.chat(MSGS, purpose="draft").text == "again"


def test_every_call_is_recorded_and_logged_as_jsonl(fake_openai, sleeps, tmp_path):
    fake_openai.push(reply("one"), status(400, "bad"))
    config = LlmConfig.resolve(base_url=fake_openai.base_url, mode="off")
    client = LlmClient(config, sleep=sleeps, log_dir=tmp_path / "session")

    client.chat(MSGS, purpose="draft")
    with pytest.raises(LlmError):
        client.chat(MSGS, purpose="lower pass 2")

    lines = (tmp_path / "session" / "llm-calls.jsonl").read_text().splitlines()
    logged = [json.loads(line) for line in lines]
    assert [e["purpose"] for e in logged] == ["draft", "lower pass 2"]
    assert logged[0]["reply_text"] == "one" and logged[0]["messages"] == MSGS
    assert logged[1]["error_kind"] == "http" and "HTTP 400" in logged[1]["error"]
    assert [c.to_dict() for c in client.calls] == logged
    assert client.summary()["calls"] == 2 and client.summary()["errors"] == 1


def test_list_models(fake_openai):
    fake_openai.models = ["b-model", "a-model"]
    client = LlmClient(LlmConfig.resolve(base_url=fake_openai.base_url))
    assert client.list_models() == ["a-model", "b-model"]
    assert fake_openai.requests[0].method == "GET" and fake_openai.chat_requests == []


def test_bad_messages_are_rejected_before_any_request(fake_openai):
    client = client_for(fake_openai.base_url)
    with pytest.raises(ValueError):
        client.chat([{"role": "wizard", "content": "x"}], purpose="draft")
    with pytest.raises(ValueError):
        client.chat(MSGS, purpose="")
    assert fake_openai.requests == []
