"""`--engine llm` for drafting: the LLM engine's drafter, seeded with the offline draft.

The LLM layer lives in `engines/llm` (another owner); this module only adapts it: a client
from the environment, the offline drafter's draft as the starting point when it has one,
and one-line errors. `LlmUnavailable` says in one line why the LLM drafter cannot run.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path


class LlmUnavailable(Exception):
    """The LLM drafter cannot run here; `str()` is one line."""


def available() -> bool:
    try:
        return importlib.util.find_spec("ascendcraft_lab.engines.llm.draft") is not None
    except ImportError:
        return False


def draft_llm(path, *, soc: str | None = None, reference=None, start_draft: str | None = None, rounds: int = 3,
              notes: list | None = None) -> str:
    """A verified DSL draft from the model; raises LlmUnavailable or RuntimeError (one line).

    `notes` (if given) receives how the loop ended in one line, e.g. that the offline draft
    already verified and no model call was made."""
    if not available():
        raise LlmUnavailable("the LLM drafter is not available (ascendcraft_lab.engines.llm.draft is not installed)")
    from ..engines.llm.draft import draft_with_llm
    from ..engines.llm.engine import LlmEngineError, client_from_environment
    try:
        client = client_from_environment()
    except LlmEngineError as e:
        raise LlmUnavailable(str(e).splitlines()[0]) from None
    if start_draft is None:
        from .draft import DraftError, draft_reference
        try:
            start_draft = draft_reference(path, soc=soc).text
        except DraftError:
            start_draft = None
    result = draft_with_llm(Path(path), client=client, soc=soc, rounds=rounds, start_draft=start_draft,
                            reference=reference)
    if notes is not None:
        notes.append(result.message.splitlines()[0])
    if result.dsl is None:
        raise RuntimeError(f"the LLM drafter found no verified draft ({result.stopped}): {result.message.splitlines()[0]}")
    return result.dsl
