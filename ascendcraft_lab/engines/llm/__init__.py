"""The LLM client layer: configuration, transport, reply cache, record/replay, bounded loops.

Owns everything between "a list of chat messages" and "a checked reply text"; prompts and the
draft/lower loops are built on top of it elsewhere in `ascendcraft_lab.engines`.

    from ascendcraft_lab.engines.llm import LlmClient, LlmConfig, extract_code
    client = LlmClient(LlmConfig.resolve(mode="live"))          # explicit > env > file > defaults
    reply = client.chat([{"role": "user", "content": "..."}], purpose="draft dsl")
    code = extract_code(reply.text, "python")                    # parsed, never executed

The LLM engine on top of it (imported lazily: it pulls in the DSL and the passes):

    from ascendcraft_lab.engines.llm import draft_with_llm, LlmEngine
    result = draft_with_llm("gelu.py", client=client)            # draft.py: DSL drafts, checked, fed back
    steps = run_pipeline(program, LlmEngine(client), options)    # engine.py: the four passes by a model
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

# name -> module of the engine layer, loaded on first use
_LAZY = {
    "draft_with_llm": "draft", "DraftResult": "draft", "DraftAttempt": "draft",
    "LlmEngine": "engine", "LlmEngineError": "engine", "StepReport": "engine", "LowerAttempt": "engine",
    "client_from_environment": "engine",
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib
        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
