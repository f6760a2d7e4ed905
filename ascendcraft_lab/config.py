"""Settings read from the environment: where the LLM endpoint is and where work goes.

One place for every setting's name and default. The API key is only ever reported as
"set" or "not set": it is never printed, logged, cached or written to a session folder.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class LlmSettings:
    base_url: str | None
    model: str
    has_key: bool

    @classmethod
    def from_env(cls) -> "LlmSettings":
        return cls(
            base_url=os.environ.get("OPENAI_BASE_URL") or None,
            model=os.environ.get("ASCENDCRAFT_MODEL", "gpt-4o-mini"),
            has_key=bool(os.environ.get("OPENAI_API_KEY")),
        )


def cache_dir() -> Path:
    """Root of on-disk caches (compiled emulator kernels, LLM replies)."""
    return Path(os.environ.get("ASCENDCRAFT_CACHE_DIR") or Path.home() / ".cache" / "ascendcraft")


def default_workdir() -> Path:
    return Path(os.environ.get("ASCENDCRAFT_WORKDIR") or "ascendcraft-sessions")
