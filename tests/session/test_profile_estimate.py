"""`ascendcraft profile SESSION` offline: the estimated profile of a lowered session, labelled as an estimate."""
from __future__ import annotations
import pytest

import json

from ascendcraft_lab.backends.cann.detect import refuse_reason
from ascendcraft_lab.perf import costs_for

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy


def test_profile_of_a_lowered_session_estimates_each_block_and_the_eager_time_offline(session, cli):
    rc, out = cli("profile", session, "--json")
    assert rc == 0
    est = json.loads(out[:out.rindex("}") + 1])
    kernel = est["kernel"]
    assert est["estimate"] and kernel["estimate"] and est["eager"]["estimate"]
    assert kernel["blocks_total"] >= len(kernel["blocks"]) >= 1
    for b in kernel["blocks"]:
        assert b["bound_pipe"] in b["busy"] and 0 < b["busy_fraction"][b["bound_pipe"]] <= 1
        assert 0 <= b["overlap"] <= 1
    assert kernel["gm_bytes"] > 0 and kernel["achieved_bandwidth"] <= costs_for(kernel["soc"]).gm_bandwidth.value
    assert [op["target"] for op in est["eager"]["ops"]] == ["gelu"]
    assert est["speedup"] == est["eager"]["seconds"] / kernel["kernel_s"]
    records = [json.loads(p.read_text()) for p in (session / "runs").glob("*.json")]
    assert any(r.get("backend") == "model" and r.get("estimate") for r in records)


def test_profile_prints_the_bound_pipe_per_block_and_an_estimated_speedup(session, cli):
    rc, out = cli("profile", session)
    assert rc == 0
    assert out.startswith("ESTIMATED profile of gelu")
    assert "speedup" in out and "x ESTIMATED" in out
    assert "bound" in out and "assumptions:" in out
    if refuse_reason("profile"):
        assert "measured profile: not here" in out
