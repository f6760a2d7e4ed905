"""The API key never reaches disk or text: a full record session, then grep for it everywhere."""
from __future__ import annotations

import pytest

from ascendcraft_lab.engines.llm import LlmClient, LlmConfig, LlmError
from fake_openai import garbage, json_body, reply, status, truncated

KEY = "sk-test-DO-NOT-LEAK-0123456789"
FRAGMENTS = (KEY, "DO-NOT-LEAK", "0123456789")


def test_the_key_never_reaches_disk_or_any_text(fake_openai, isolated_env, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)  # the usual way a key arrives
    log_dir = isolated_env / "session"
    cache_root = isolated_env / "cache"
    # A hostile or chatty server echoes the key back in every place it can.
    fake_openai.push(
        reply("```python\nok = 1\n```"),
        status(500, f"upstream failed for key {KEY}"), reply(f"the key is {KEY}"),
        status(401, f"Incorrect API key provided: {KEY}"),
        garbage(f"<html>{KEY}</html>".encode()), garbage(b"x" * 40 + KEY.encode()),
        json_body({"error": {"message": f"bad key {KEY}"}}),
        truncated(f"cut {KEY}"),
        status(400, "x" * 190 + KEY),  # would leave a key prefix if cut before scrubbing
    )
    config = LlmConfig.resolve(base_url=fake_openai.base_url, mode="record", max_retries=0)
    client = LlmClient(config, log_dir=log_dir, sleep=lambda s: None)
    errors, replies = [], []
    for i in range(9):
        try:
            # Someone pasted the key into two prompts (one that fails, one that is cached).
            prompt = f"task {i} {KEY}" if i in (1, 2) else f"task {i}"
            replies.append(client.chat([{"role": "user", "content": prompt}], purpose=f"step {i}"))
        except LlmError as exc:
            errors.append(exc)

    # The session really used the key (so the scan below is meaningful) and really failed often.
    assert all(r.headers["authorization"] == f"Bearer {KEY}" for r in fake_openai.chat_requests)
    assert len(fake_openai.chat_requests) == 9 and len(errors) == 7 and len(replies) == 2
    # Replay the recording too: reading must not write the key either.
    replay = LlmClient(config.with_(mode="replay"), log_dir=log_dir)
    replay.chat([{"role": "user", "content": "task 0"}], purpose="step 0")

    files = [p for root in (cache_root, log_dir) for p in root.rglob("*") if p.is_file()]
    assert len([p for p in files if p.suffix == ".json"]) == 2 and (log_dir / "llm-calls.jsonl") in files
    for path in files:
        data = path.read_bytes()
        for fragment in FRAGMENTS:
            assert fragment.encode() not in data, f"{fragment!r} leaked into {path}"

    texts = [repr(config), str(config), repr(config.to_dict()), repr(client), str(client),
             repr(replay), repr(client.summary()), repr(config.api_key), str(config.api_key)]
    texts += [repr(rec) for rec in client.calls + replay.calls]
    texts += [repr(rec.to_dict()) for rec in client.calls]
    texts += [repr(r) for r in replies] + [str(e) + repr(e) + repr(e.reply_text) for e in errors]
    for text in texts:
        for fragment in FRAGMENTS:
            assert fragment not in text, f"{fragment!r} leaked into {text[:120]!r}"


def test_the_key_cannot_be_pickled():
    import pickle
    with pytest.raises(TypeError):
        pickle.dumps(LlmConfig.resolve(api_key=KEY))
