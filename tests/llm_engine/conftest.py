"""Fixtures for the LLM engine tests: the loopback fake OpenAI server, clients, a tiny reference.

Nothing a developer configured can leak in: no key, no config file, a tmp HOME. The emulator's
compile cache is one tmp folder for the whole session (its runtime object is built once); the
LLM reply cache is per test, so every test starts cold.
"""
from __future__ import annotations

import socket
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "llm"))

from fake_openai import FakeOpenAI  # noqa: E402

from ascendcraft_lab.engines.llm import LlmClient, LlmConfig  # noqa: E402
from llm_engine_support import GELU_REFERENCE  # noqa: E402

@pytest.fixture(scope="session")
def session_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("ascendcraft-cache")


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch, tmp_path, session_cache):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ASCENDCRAFT_MODEL", "ASCENDCRAFT_LLM_MODE",
                 "ASCENDCRAFT_CONFIG", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("ASCENDCRAFT_CACHE_DIR", str(session_cache))
    return tmp_path


@pytest.fixture
def fake_openai():
    with FakeOpenAI() as server:
        yield server


@pytest.fixture
def make_client(fake_openai, tmp_path):
    """`make_client(**settings)`: a client of the fake server with a per-test reply cache and
    an instant back-off (the waits are recorded on `client.waits`)."""
    def make(*, base_url=None, cache="llm-cache", **settings):
        settings = {"model": "fake-model", "max_retries": 0, **settings}
        config = LlmConfig.resolve(base_url=base_url or fake_openai.base_url, **settings)
        waits: list[float] = []
        client = LlmClient(config, cache_dir=tmp_path / cache, log_dir=tmp_path / "session", sleep=waits.append)
        client.waits = waits
        return client
    return make


@pytest.fixture(scope="session")
def gelu_ref_path(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("refs") / "gelu.py"
    path.write_text(GELU_REFERENCE)
    return path


@pytest.fixture(scope="session")
def gelu_ref(gelu_ref_path):
    """The reference run, loaded once (a child Python with torch takes seconds)."""
    from ascendcraft_lab.reference import load_reference
    return load_reference(gelu_ref_path)


@pytest.fixture
def closed_port_url():
    """A base URL on loopback where nothing listens (bind, read the port, close)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"
