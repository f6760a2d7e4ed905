"""LlmConfig: explicit > env > file > defaults, and a config file that fails loudly."""
from __future__ import annotations

import pytest

from ascendcraft_lab.engines.llm import LlmConfig, LlmError
from ascendcraft_lab.engines.llm.settings import DEFAULT_BASE_URL, DEFAULT_MODEL


def write_config(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_defaults_without_env_or_file():
    cfg = LlmConfig.resolve()
    assert (cfg.base_url, cfg.model, cfg.mode, cfg.has_key) == (DEFAULT_BASE_URL, DEFAULT_MODEL, "live", False)
    assert cfg.key_for_transport() == "not-needed"
    assert cfg.source == "defaults"


def test_precedence_is_explicit_then_env_then_file_then_defaults(monkeypatch, isolated_env):
    write_config(isolated_env / "home" / ".config" / "ascendcraft" / "config.toml",
                 'base_url = "http://file:1/v1"\nmodel = "file-model"\ntimeout = 7\nmax_tokens = 111\n')
    monkeypatch.setenv("ASCENDCRAFT_MODEL", "env-model")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://env:2/v1")

    cfg = LlmConfig.resolve(base_url="http://explicit:3/v1", timeout=None)

    assert cfg.base_url == "http://explicit:3/v1"  # explicit beats env
    assert cfg.model == "env-model"                # env beats file
    assert cfg.timeout == 7 and cfg.max_tokens == 111  # file beats defaults; None is "not given"
    assert cfg.temperature == 0.0                  # default
    assert cfg.source.startswith("explicit > env > file ")


def test_config_file_from_env_var_and_llm_table(monkeypatch, tmp_path):
    path = write_config(tmp_path / "ac.toml",
                        '[llm]\nmodel = "m"\nprice_in_per_1k = 0.5\nprice_out_per_1k = 1.5\nmode = "replay"\n')
    monkeypatch.setenv("ASCENDCRAFT_CONFIG", str(path))
    cfg = LlmConfig.resolve()
    assert (cfg.model, cfg.price_in_per_1k, cfg.price_out_per_1k, cfg.mode) == ("m", 0.5, 1.5, "replay")


@pytest.mark.parametrize("text, fragment", [
    ('modle = "x"\n', "unknown key 'modle'"),
    ('timeout = "fast"\n', "'timeout' has the wrong type"),
    ('api_key = "sk-in-a-file"\n', "the API key is not read from files"),
    ('model = \n', "not valid TOML"),
    ('mode = "sometimes"\n', "mode 'sometimes' is not one of"),
])
def test_a_bad_config_file_is_a_clear_error(tmp_path, text, fragment):
    path = write_config(tmp_path / "c.toml", text)
    with pytest.raises(LlmError) as info:
        LlmConfig.resolve(config_path=path)
    assert fragment in str(info.value) and info.value.kind == "config"
    assert "sk-in-a-file" not in str(info.value)


def test_a_named_config_file_must_exist(monkeypatch, tmp_path):
    monkeypatch.setenv("ASCENDCRAFT_CONFIG", str(tmp_path / "missing.toml"))
    with pytest.raises(LlmError, match="does not exist"):
        LlmConfig.resolve()


def test_key_comes_from_env_or_explicit_and_is_masked(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env-secret")
    env_cfg = LlmConfig.resolve()
    explicit_cfg = LlmConfig.resolve(api_key="sk-explicit-secret")
    assert env_cfg.key_for_transport() == "sk-env-secret"
    assert explicit_cfg.key_for_transport() == "sk-explicit-secret"
    for cfg in (env_cfg, explicit_cfg):
        shown = repr(cfg) + str(cfg) + repr(cfg.to_dict()) + repr(cfg.api_key) + str(cfg.api_key)
        assert "secret" not in shown
        assert cfg.to_dict()["has_key"] is True and "api_key" not in cfg.to_dict()


def test_unknown_explicit_setting_and_bad_values_are_errors():
    with pytest.raises(LlmError, match="unknown LLM setting"):
        LlmConfig.resolve(temprature=0.3)
    with pytest.raises(LlmError, match="max_retries"):
        LlmConfig.resolve(max_retries=-1)
    with pytest.raises(LlmError, match="base_url"):
        LlmConfig.resolve(base_url="localhost:8000")
