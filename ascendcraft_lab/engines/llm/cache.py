"""The on-disk reply cache: one JSON file per request, named by the request's content hash.

The hash covers what decides the reply: model, messages, temperature and max_tokens. It does
NOT cover the API key (never stored anywhere) nor the base URL: the same model served by a
hosted API, vLLM or a recording folder gives the same entry, so replies recorded against one
server replay against another (or against none, in CI). Change the model name and you get a
fresh entry.

Layout: `<root>/<hash[:2]>/<hash>.json`, written atomically (`ascendcraft_lab.atomic`), so an
interrupted run never leaves a half-written entry. The default root is
`ascendcraft_lab.config.cache_dir() / "llm"` (`$ASCENDCRAFT_CACHE_DIR` moves it); a recording
kept next to a notebook for CI is just another root.
"""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ... import atomic
from ...config import cache_dir

FORMAT_VERSION = 1  # bump when the entry layout or hashed fields change


def default_cache_root() -> Path:
    return cache_dir() / "llm"


def request_hash(model: str, messages: list[dict[str, str]], temperature: float, max_tokens: int) -> str:
    """Content hash of a chat request: stable across processes, servers and keys."""
    canonical = json.dumps(
        {"v": FORMAT_VERSION, "model": model, "messages": messages,
         "temperature": float(temperature), "max_tokens": int(max_tokens)},
        sort_keys=True, ensure_ascii=False, separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CachedReply:
    """What a cache entry holds: the reply and enough of the request to audit it by eye."""

    request_hash: str
    model: str
    messages: list[dict[str, str]]
    temperature: float
    max_tokens: int
    text: str
    finish_reason: str
    tokens_in: int
    tokens_out: int
    latency_s: float  # of the original network call


class ReplyCache:
    """Read and write cache entries under one root folder."""

    def __init__(self, root: str | os.PathLike | None = None):
        self.root = Path(root) if root is not None else default_cache_root()

    def __repr__(self) -> str:
        return f"ReplyCache({str(self.root)!r})"

    def path_for(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> CachedReply | None:
        path = self.path_for(key)
        try:
            data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
            if data.get("format") != FORMAT_VERSION or data.get("request_hash") != key:
                return None
            return CachedReply(**{name: data[name] for name in CachedReply.__dataclass_fields__})
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError):
            return None  # a damaged entry is a miss; the next live call overwrites it

    def put(self, entry: CachedReply) -> Path:
        path = self.path_for(entry.request_hash)
        atomic.write_json(path, {"format": FORMAT_VERSION, **asdict(entry)})
        return path
