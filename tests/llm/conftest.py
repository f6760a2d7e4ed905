"""Fixtures for the LLM client tests: an isolated environment, a fake server, a closed port.

Every test here runs with no real key, no real config file and a tmp cache dir, so nothing a
developer has configured (or cached) can leak in or be written to.
"""
from __future__ import annotations

import socket

import pytest

from fake_openai import FakeOpenAI


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch, tmp_path):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ASCENDCRAFT_MODEL", "ASCENDCRAFT_LLM_MODE",
                 "ASCENDCRAFT_CONFIG", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # so ~/.config/ascendcraft is empty
    monkeypatch.setenv("ASCENDCRAFT_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path


@pytest.fixture
def fake_openai():
    with FakeOpenAI() as server:
        yield server


@pytest.fixture
def closed_port_url():
    """A base URL on loopback where nothing listens (bind, read the port, close)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


class SleepRecorder:
    """Injected back-off sleep: records the waits instead of waiting."""

    def __init__(self):
        self.waits: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


@pytest.fixture
def sleeps():
    return SleepRecorder()
