"""Settings read from the environment: where caches and work go.

The LLM endpoint's settings live in `engines/llm/settings.py` (`LlmConfig`), which `doctor` reads too.
"""
from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """Root of on-disk caches (compiled emulator kernels, LLM replies)."""
    return Path(os.environ.get("ASCENDCRAFT_CACHE_DIR") or Path.home() / ".cache" / "ascendcraft")


def default_workdir() -> Path:
    return Path(os.environ.get("ASCENDCRAFT_WORKDIR") or "ascendcraft-sessions")
