"""The LLM client layer: configuration, transport, reply cache, record/replay, bounded loops.

Owns everything between "a list of chat messages" and "a checked reply text"; prompts and the
draft/lower loops are built on top of it elsewhere in `ascendcraft_lab.engines`.

    from ascendcraft_lab.engines.llm import LlmClient, LlmConfig, extract_code
    client = LlmClient(LlmConfig.resolve(mode="live"))          # explicit > env > file > defaults
    reply = client.chat([{"role": "user", "content": "..."}], purpose="draft dsl")
    code = extract_code(reply.text, "python")                    # parsed, never executed
"""
from .cache import ReplyCache, default_cache_root, request_hash
from .client import CallRecord, LlmClient, LlmReply
from .errors import LlmError
from .extract import extract_code
from .loop import Attempt, BoundedLoop, LoopResult
from .settings import LOCAL_PLACEHOLDER_KEY, MODES, LlmConfig, Secret

__all__ = [
    "Attempt", "BoundedLoop", "CallRecord", "LOCAL_PLACEHOLDER_KEY", "LlmClient", "LlmConfig",
    "LlmError", "LlmReply", "LoopResult", "MODES", "ReplyCache", "Secret", "default_cache_root",
    "extract_code", "request_hash",
]
