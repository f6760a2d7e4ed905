"""`LlmConfig`: where the LLM endpoint is, which model, and how patient to be.

Resolution order, per field: explicit arguments > environment > config file > defaults.

| field            | environment          | config file key    | default                 |
|------------------|----------------------|--------------------|-------------------------|
| api_key          | OPENAI_API_KEY       | (never read)       | none -> "not-needed"    |
| base_url         | OPENAI_BASE_URL      | base_url           | https://api.openai.com/v1 |
| model            | ASCENDCRAFT_MODEL    | model              | gpt-4o-mini             |
| mode             | ASCENDCRAFT_LLM_MODE | mode               | live                    |
| timeout          |                      | timeout            | 60 s                    |
| max_retries      |                      | max_retries        | 2 (so at most 3 requests) |
| temperature      |                      | temperature        | 0.0 (reproducible)      |
| max_tokens       |                      | max_tokens         | 4096                    |
| price_in_per_1k  |                      | price_in_per_1k    | none (no cost estimate) |
| price_out_per_1k |                      | price_out_per_1k   | none                    |

The config file is `$ASCENDCRAFT_CONFIG`, else `~/.config/ascendcraft/config.toml`; keys sit at
the top level or in an `[llm]` table. A missing default file is fine; a missing file named by
`$ASCENDCRAFT_CONFIG`, a TOML error, an unknown key or a wrong type is an `LlmError` (a typo
should not silently fall back to a default). The API key is deliberately not read from the
file (config files end up in repositories): use `OPENAI_API_KEY` or pass it explicitly.

Local servers (vLLM, Ollama, llama.cpp) need no key, but the `openai` package insists on one:
with no key configured the client sends the placeholder `LOCAL_PLACEHOLDER_KEY` ("not-needed").

The key is held in a `Secret`, whose repr/str is a mask: it never appears in `repr(config)`,
`str(config)`, `config.to_dict()`, the cache, the call log or any error message.
"""
from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Mapping

from .errors import LlmError

DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_MODEL = "gpt-4o-mini"
LOCAL_PLACEHOLDER_KEY = "not-needed"
MODES = ("live", "record", "replay", "off")

ENV_KEY = "OPENAI_API_KEY"
ENV_BASE_URL = "OPENAI_BASE_URL"
ENV_MODEL = "ASCENDCRAFT_MODEL"
ENV_MODE = "ASCENDCRAFT_LLM_MODE"
ENV_CONFIG = "ASCENDCRAFT_CONFIG"


class Secret:
    """A string that refuses to show itself: repr/str give a mask, `reveal()` gives the value."""

    __slots__ = ("_value",)

    def __init__(self, value: str):
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __reduce__(self):  # pickling would write the key to disk
        raise TypeError("Secret cannot be pickled")

    def __copy__(self) -> "Secret":  # immutable: copies may share it (and must not pickle)
        return self

    def __deepcopy__(self, memo: dict) -> "Secret":
        return self


@dataclass(frozen=True)
class LlmConfig:
    """Resolved LLM settings. Build with `LlmConfig.resolve(...)`; the key is masked everywhere."""

    base_url: str = DEFAULT_BASE_URL
    model: str = DEFAULT_MODEL
    timeout: float = 60.0
    max_retries: int = 2
    temperature: float = 0.0
    max_tokens: int = 4096
    price_in_per_1k: float | None = None
    price_out_per_1k: float | None = None
    mode: str = "live"
    # Back-off between retries: base * 2**retry, and never longer than the cap (also the cap
    # on a server's Retry-After, so a hostile header cannot park a notebook for an hour).
    backoff_base_s: float = 1.0
    backoff_cap_s: float = 30.0
    api_key: Secret | None = field(default=None, repr=False, compare=False)
    source: str = field(default="defaults", compare=False)  # e.g. "explicit > env > file ~/.config/..."

    def __post_init__(self) -> None:
        if self.api_key is not None and not isinstance(self.api_key, Secret):
            object.__setattr__(self, "api_key", Secret(str(self.api_key)))
        _validate(self)

    @property
    def has_key(self) -> bool:
        return self.api_key is not None

    def key_for_transport(self) -> str:
        """The key to hand to `openai.OpenAI`: the real one, or the local-server placeholder."""
        return self.api_key.reveal() if self.api_key is not None else LOCAL_PLACEHOLDER_KEY

    def to_dict(self) -> dict[str, Any]:
        """Every setting except the key, which is reported only as set / not set."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "api_key"}
        out["has_key"] = self.has_key
        return out

    def with_(self, **changes: Any) -> "LlmConfig":
        """A copy with some fields changed (e.g. `mode="replay"` in CI)."""
        return replace(self, **changes)

    @classmethod
    def resolve(
        cls,
        *,
        env: Mapping[str, str] | None = None,
        config_path: str | os.PathLike | None = None,
        **explicit: Any,
    ) -> "LlmConfig":
        """Merge explicit arguments > environment > config file > defaults.

        `env` defaults to `os.environ`; `config_path` to `$ASCENDCRAFT_CONFIG` or
        `~/.config/ascendcraft/config.toml`. Explicit arguments whose value is None are
        ignored, so a magic can pass every option through unchanged.
        """
        env = os.environ if env is None else env
        known = {f.name for f in fields(cls)} - {"source"}
        unknown = set(explicit) - known
        if unknown:
            raise LlmError(f"unknown LLM setting(s): {', '.join(sorted(unknown))}; "
                           f"known: {', '.join(sorted(known))}", kind="config")

        values: dict[str, Any] = {}
        layers: list[str] = []

        path, required = _config_path(config_path, env)
        from_file = _read_file(path, required)
        if from_file:
            values.update(from_file)
            layers.append(f"file {path}")

        from_env = {}
        if env.get(ENV_BASE_URL):
            from_env["base_url"] = env[ENV_BASE_URL]
        if env.get(ENV_MODEL):
            from_env["model"] = env[ENV_MODEL]
        if env.get(ENV_MODE):
            from_env["mode"] = env[ENV_MODE]
        if env.get(ENV_KEY):
            from_env["api_key"] = Secret(env[ENV_KEY])
        if from_env:
            values.update(from_env)
            layers.append("env")

        given = {k: v for k, v in explicit.items() if v is not None}
        if given:
            values.update(given)
            layers.append("explicit")

        source = " > ".join(reversed(layers)) + " > defaults" if layers else "defaults"
        return cls(**values, source=source)


_FILE_KEYS = {
    "base_url": str, "model": str, "mode": str,
    "timeout": (int, float), "max_retries": int, "temperature": (int, float), "max_tokens": int,
    "price_in_per_1k": (int, float), "price_out_per_1k": (int, float),
}


def _config_path(explicit: str | os.PathLike | None, env: Mapping[str, str]) -> tuple[Path, bool]:
    """The config file to read and whether it must exist (it must when someone named it)."""
    if explicit is not None:
        return Path(explicit), True
    if env.get(ENV_CONFIG):
        return Path(env[ENV_CONFIG]).expanduser(), True
    return Path.home() / ".config" / "ascendcraft" / "config.toml", False


def _read_file(path: Path, required: bool) -> dict[str, Any]:
    if not path.is_file():
        if required:
            raise LlmError(f"LLM config file {path} does not exist (named by ${ENV_CONFIG} or explicitly)",
                           kind="config")
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise LlmError(f"LLM config file {path} is not valid TOML: {exc}", kind="config") from None
    table = data.get("llm", data)
    if not isinstance(table, dict):
        raise LlmError(f"LLM config file {path}: [llm] must be a table", kind="config")
    out: dict[str, Any] = {}
    for key, value in table.items():
        if key == "llm":
            continue
        if key in ("api_key", "openai_api_key", "key"):
            raise LlmError(f"LLM config file {path}: the API key is not read from files; "
                           f"remove '{key}' and set {ENV_KEY} instead", kind="config")
        if key not in _FILE_KEYS:
            raise LlmError(f"LLM config file {path}: unknown key '{key}'; known keys: {', '.join(_FILE_KEYS)}",
                           kind="config")
        expected = _FILE_KEYS[key]
        if isinstance(value, bool) or not isinstance(value, expected):
            raise LlmError(f"LLM config file {path}: '{key}' has the wrong type ({type(value).__name__})",
                           kind="config")
        out[key] = value
    return out


def _validate(cfg: LlmConfig) -> None:
    def bad(msg: str) -> LlmError:
        return LlmError(f"bad LLM setting: {msg}", kind="config")

    if cfg.mode not in MODES:
        raise bad(f"mode {cfg.mode!r} is not one of {', '.join(MODES)}")
    if not cfg.base_url.startswith(("http://", "https://")):
        raise bad(f"base_url {cfg.base_url!r} must start with http:// or https://")
    if not cfg.model:
        raise bad("model is empty")
    if not cfg.timeout > 0:
        raise bad(f"timeout must be > 0 (got {cfg.timeout})")
    if not (isinstance(cfg.max_retries, int) and 0 <= cfg.max_retries <= 10):
        raise bad(f"max_retries must be an integer in 0..10 (got {cfg.max_retries})")
    if not (isinstance(cfg.max_tokens, int) and cfg.max_tokens > 0):
        raise bad(f"max_tokens must be a positive integer (got {cfg.max_tokens})")
    if not 0 <= cfg.temperature <= 2:
        raise bad(f"temperature must be in 0..2 (got {cfg.temperature})")
    for name in ("price_in_per_1k", "price_out_per_1k"):
        price = getattr(cfg, name)
        if price is not None and price < 0:
            raise bad(f"{name} must be >= 0 (got {price})")
    if cfg.backoff_base_s < 0 or cfg.backoff_cap_s < 0:
        raise bad("back-off times must be >= 0")
