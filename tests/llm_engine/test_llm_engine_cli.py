"""`ascendcraft lower --engine llm` through `engine_for("llm")`, and the key never reaching disk."""
from __future__ import annotations
import pytest

import json

from fake_openai import reply
from llm_engine_support import GELU_DSL, GELU_REFERENCE, fenced, gelu_program, pass_asked, rule_reply

from ascendcraft_lab.engines.llm import LlmClient, LlmConfig, draft_with_llm
from ascendcraft_lab.cli.lower import main as lower_main
from ascendcraft_lab.passes.manager import LowerOptions

KEY = "sk-test-DO-NOT-LEAK-0123456789"
FRAGMENTS = (KEY, "DO-NOT-LEAK", "0123456789")


def echo_rule_engine(server):
    """The fake model answers every lowering request with the rule engine's pass."""
    program, options = gelu_program(), LowerOptions()
    server.default = lambda request: reply(rule_reply(program, options, pass_asked(request)))


def test_lower_with_the_llm_engine_and_no_endpoint_is_one_clear_message(tmp_path, capsys):
    dsl = tmp_path / "gelu.dsl.py"
    dsl.write_text(GELU_DSL)
    code = lower_main([str(dsl), "--engine", "llm", "-o", str(tmp_path / "out")])

    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert err.startswith("error: the LLM engine has no endpoint: set OPENAI_BASE_URL")


@pytest.mark.heavy
def test_lower_with_the_llm_engine_writes_the_session_and_reruns_from_the_cache(
        fake_openai, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_BASE_URL", fake_openai.base_url)
    monkeypatch.setenv("ASCENDCRAFT_MODEL", "fake-model-cli")  # its own entries in the session-wide cache
    echo_rule_engine(fake_openai)
    dsl = tmp_path / "gelu.dsl.py"
    dsl.write_text(GELU_DSL)
    out = tmp_path / "session"

    assert lower_main([str(dsl), "--engine", "llm", "-o", str(out)]) == 0, capsys.readouterr()
    manifest = json.loads((out / "ascendcraft.json").read_text())
    assert [s["engine"] for s in manifest["steps"].values()] == ["llm"] * 4
    for step in manifest["steps"].values():   # the workbench shows who made each step and what it cost
        report = step["report"]
        assert report["attempts"] >= 1 and report["requests"] >= 1
        assert report["tokens_in"] > 0 and report["tokens_out"] > 0
    assert (out / "ascendc" / "kernel" / "gelu_kernel.cpp").is_file()
    assert len(fake_openai.chat_requests) == 4

    assert lower_main([str(dsl), "--engine", "llm", "-o", str(out)]) == 0
    assert len(fake_openai.chat_requests) == 4, "the repeated run reached the server"


@pytest.mark.heavy
def test_the_key_never_reaches_disk(fake_openai, tmp_path, monkeypatch, session_cache, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", fake_openai.base_url)
    monkeypatch.setenv("ASCENDCRAFT_MODEL", "fake-model-key")
    fake_openai.require_key = KEY
    session = tmp_path / "session"
    ref = tmp_path / "gelu.py"
    ref.write_text(GELU_REFERENCE)

    # A draft (two rounds, so feedback flows) logged into the session folder, then the lowering.
    fake_openai.push(reply(fenced(GELU_DSL.replace("rows = cdiv(B, cores)", "rows = cdiv(B, cores", 1))),
                     reply(fenced(GELU_DSL)))
    client = LlmClient(LlmConfig.resolve(), log_dir=session)
    drafted = draft_with_llm(ref, client=client)
    assert drafted.verified
    echo_rule_engine(fake_openai)
    dsl = tmp_path / "gelu.dsl.py"
    dsl.write_text(drafted.dsl)
    assert lower_main([str(dsl), "--engine", "llm", "-o", str(session)]) == 0, capsys.readouterr()

    # The key was really used (so the scan means something) ...
    assert len(fake_openai.chat_requests) == 6
    assert all(r.headers["authorization"] == f"Bearer {KEY}" for r in fake_openai.chat_requests)
    # ... and is nowhere on disk: session folder (stages, manifest, call log), caches, anything else.
    files = [p for root in (tmp_path, session_cache) for p in root.rglob("*") if p.is_file()]
    assert (session / "llm-calls.jsonl") in files
    assert any(p.suffix == ".json" for p in (session_cache / "llm").rglob("*"))
    for path in files:
        data = path.read_bytes()
        for fragment in FRAGMENTS:
            assert fragment.encode() not in data, f"{fragment!r} leaked into {path}"
    shown = repr(drafted) + json.dumps(drafted.to_json()) + capsys.readouterr().out
    assert not any(f in shown for f in FRAGMENTS)
