"""What `ascendcraft bench --draft llm / --engine llm` reports per op: calls and tokens, read
from the call log the LLM client writes into the op's folder."""
from __future__ import annotations
import pytest

from fake_openai import reply

from ascendcraft_lab.bench.worker import llm_usage
from ascendcraft_lab.engines.llm.engine import client_from_environment


def test_the_client_logs_into_the_folder_the_bench_names_and_usage_adds_it_up(fake_openai, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", fake_openai.base_url)
    monkeypatch.setenv("ASCENDCRAFT_LLM_LOG_DIR", str(tmp_path / "op"))
    fake_openai.push(reply("first", tokens_in=11, tokens_out=7), reply("second", tokens_in=5, tokens_out=3))
    client = client_from_environment()
    client.chat([{"role": "user", "content": "a"}], purpose="draft")
    client.chat([{"role": "user", "content": "b"}], purpose="draft")
    client.chat([{"role": "user", "content": "a"}], purpose="draft")        # served from the cache
    usage = llm_usage(tmp_path / "op" / "llm-calls.jsonl")
    assert usage["calls"] == 3 and usage["cached"] == 1 and usage["requests"] == 2
    assert usage["tokens_in"] == 11 + 5 + 11 and usage["tokens_out"] == 7 + 3 + 7
    assert len(fake_openai.chat_requests) == 2


def test_no_log_means_no_usage(tmp_path):
    assert llm_usage(tmp_path / "missing.jsonl") == {"calls": 0, "cached": 0, "requests": 0, "tokens_in": 0,
                                                     "tokens_out": 0}


@pytest.mark.heavy
def test_draft_cli_says_when_the_offline_draft_made_the_model_call_unneeded(fake_openai, tmp_path, monkeypatch, capsys):
    from ascendcraft_lab.cli.draft import main as draft_main
    from ascendcraft_lab.suite import ROOT
    monkeypatch.setenv("OPENAI_BASE_URL", fake_openai.base_url)
    out = tmp_path / "relu.dsl.py"
    assert draft_main([str(ROOT / "activation" / "relu.py"), "--engine", "llm", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "note: the offline drafter's draft already verifies; no model call was made" in err
    assert not fake_openai.chat_requests and "@kernel" in out.read_text()
