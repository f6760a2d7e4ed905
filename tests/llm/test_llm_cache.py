"""The reply cache and the live / record / replay / off modes."""
from __future__ import annotations

import json

import pytest

from ascendcraft_lab.engines.llm import LlmClient, LlmConfig, LlmError, ReplyCache, request_hash
from fake_openai import reply

MSGS = [{"role": "user", "content": "write relu in the DSL"}]


def client_for(base_url, cache_dir, mode, **settings):
    settings.setdefault("model", "fake-model")
    return LlmClient(LlmConfig.resolve(base_url=base_url, mode=mode, **settings),
                     cache_dir=cache_dir, sleep=lambda s: None)


@pytest.mark.heavy
def test_a_repeated_run_is_served_from_the_cache_with_zero_requests(fake_openai, tmp_path):
    fake_openai.push(reply("```python\nrelu\n```", tokens_in=5, tokens_out=3))
    first = client_for(fake_openai.base_url, tmp_path / "c", "live", price_in_per_1k=1.0).chat(MSGS, purpose="draft")
    assert len(fake_openai.chat_requests) == 1

    # A new client, as in a re-run notebook: same request -> no request reaches the server.
    again = client_for(fake_openai.base_url, tmp_path / "c", "live", price_in_per_1k=1.0)
    second = again.chat(MSGS, purpose="draft")

    assert len(fake_openai.chat_requests) == 1
    assert (second.text, second.tokens_in, second.tokens_out) == (first.text, 5, 3)
    assert second.cached and not first.cached
    assert second.attempts == 0 and second.cost_estimate == 0.0
    assert again.calls[0].cached and again.calls[0].attempts == 0


def test_the_cache_key_covers_model_messages_temperature_and_max_tokens(fake_openai, tmp_path):
    fake_openai.default = reply("x")
    client = client_for(fake_openai.base_url, tmp_path, "live")
    client.chat(MSGS, purpose="p")
    client.chat(MSGS, purpose="p", temperature=0.7)
    client.chat(MSGS, purpose="p", max_tokens=99)
    client.chat([{"role": "user", "content": "write gelu"}], purpose="p")
    client_for(fake_openai.base_url, tmp_path, "live", model="other-model").chat(MSGS, purpose="p")
    assert len(fake_openai.chat_requests) == 5
    client.chat(MSGS, purpose="a different purpose is the same request")
    assert len(fake_openai.chat_requests) == 5


def test_the_cache_key_ignores_the_base_url_and_the_key(fake_openai, tmp_path, closed_port_url):
    fake_openai.push(reply("from server A"))
    client_for(fake_openai.base_url, tmp_path, "live", api_key="sk-a").chat(MSGS, purpose="p")
    other = client_for(closed_port_url, tmp_path, "live", api_key="sk-b")
    assert other.chat(MSGS, purpose="p").text == "from server A"


def test_cache_entries_are_json_files_named_by_the_request_hash(fake_openai, tmp_path):
    fake_openai.push(reply("hi"))
    r = client_for(fake_openai.base_url, tmp_path, "live").chat(MSGS, purpose="p", max_tokens=50)
    key = request_hash("fake-model", MSGS, 0.0, 50)
    assert r.request_hash == key
    entry = json.loads((tmp_path / key[:2] / f"{key}.json").read_text())
    assert entry["text"] == "hi" and entry["messages"] == MSGS and entry["model"] == "fake-model"
    assert [p.name for p in tmp_path.rglob("*") if p.is_file()] == [f"{key}.json"]  # no temp files left


def test_the_default_cache_root_follows_ascendcraft_cache_dir(fake_openai, isolated_env):
    fake_openai.push(reply("hi"))
    client = LlmClient(LlmConfig.resolve(base_url=fake_openai.base_url))
    client.chat(MSGS, purpose="p")
    assert client.cache.root == isolated_env / "cache" / "llm"
    assert len(list(client.cache.root.rglob("*.json"))) == 1


def test_replay_miss_errors_without_any_request(fake_openai, tmp_path):
    client = client_for(fake_openai.base_url, tmp_path, "replay")
    with pytest.raises(LlmError) as info:
        client.chat(MSGS, purpose="draft relu")
    assert info.value.kind == "not_recorded" and info.value.attempts == 0
    assert "was not recorded" in str(info.value) and "draft relu" in str(info.value)
    assert fake_openai.requests == []
    assert client.calls[0].error_kind == "not_recorded"


def test_record_then_replay_with_the_server_shut_down(fake_openai, tmp_path):
    fake_openai.push(reply("first answer"), reply("second answer"))
    recorder = client_for(fake_openai.base_url, tmp_path, "record")
    recorder.chat(MSGS, purpose="draft")
    recorder.chat(MSGS + [{"role": "user", "content": "now gelu"}], purpose="draft")
    url = fake_openai.base_url
    fake_openai.close()

    player = client_for(url, tmp_path, "replay")
    a = player.chat(MSGS, purpose="draft")
    b = player.chat(MSGS + [{"role": "user", "content": "now gelu"}], purpose="draft")

    assert (a.text, b.text) == ("first answer", "second answer")
    assert a.cached and b.cached
    assert len(fake_openai.requests) == 2


def test_record_mode_always_asks_the_server_and_overwrites(fake_openai, tmp_path):
    fake_openai.push(reply("old"), reply("new"))
    client_for(fake_openai.base_url, tmp_path, "live").chat(MSGS, purpose="p")
    assert client_for(fake_openai.base_url, tmp_path, "record").chat(MSGS, purpose="p").text == "new"
    assert len(fake_openai.chat_requests) == 2
    assert client_for(fake_openai.base_url, tmp_path, "replay").chat(MSGS, purpose="p").text == "new"


def test_off_mode_neither_reads_nor_writes_the_cache(fake_openai, tmp_path):
    fake_openai.default = reply("x")
    client = client_for(fake_openai.base_url, tmp_path, "off")
    client.chat(MSGS, purpose="p")
    client.chat(MSGS, purpose="p")
    assert len(fake_openai.chat_requests) == 2
    assert not any(p.is_file() for p in tmp_path.rglob("*"))


def test_failed_calls_are_not_cached(fake_openai, tmp_path):
    from fake_openai import truncated
    fake_openai.push(truncated(), reply("complete"))
    client = client_for(fake_openai.base_url, tmp_path, "live")
    with pytest.raises(LlmError):
        client.chat(MSGS, purpose="p")
    assert client.chat(MSGS, purpose="p").text == "complete"
    assert len(fake_openai.chat_requests) == 2


def test_a_damaged_entry_is_a_miss(fake_openai, tmp_path):
    fake_openai.push(reply("fresh"))
    key = request_hash("fake-model", MSGS, 0.0, 4096)
    ReplyCache(tmp_path).path_for(key).parent.mkdir(parents=True)
    ReplyCache(tmp_path).path_for(key).write_text("{not json")
    assert client_for(fake_openai.base_url, tmp_path, "live").chat(MSGS, purpose="p").text == "fresh"
    assert ReplyCache(tmp_path).get(key).text == "fresh"
