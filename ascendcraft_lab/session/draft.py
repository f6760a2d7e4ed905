"""A DSL draft from a PyTorch reference: the offline drafter, or an LLM seeded with its draft.

The one place that decides how a draft is made, for `ascendcraft draft`, the notebook's
`%ascendcraft NAME --ref REF.py` and the bench. Every failure is a `DraftFailed` whose `str`
is one line.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..drafter.draft import DraftError, draft_reference
from ..engines.llm.draft import draft_with_llm
from ..engines.llm.engine import LlmEngineError, client_from_environment

HOW = ("drafter", "llm")


class DraftFailed(Exception):
    """No draft: `str()` is one line. `unavailable` when the LLM engine cannot run at all."""

    def __init__(self, message: str, unavailable: bool = False):
        super().__init__(message)
        self.unavailable = unavailable


@dataclass
class DraftOutcome:
    text: str
    template: str                    # the drafter's template, or "llm"
    notes: list[str] = field(default_factory=list)


def draft(reference: str | Path, *, how: str = "drafter", soc: str | None = None, overrides: dict | None = None,
          reference_run=None, client_settings: dict | None = None, rounds: int = 3,
          timeout: float = 300, cases: list | None = None) -> DraftOutcome:
    """Draft the reference: `how="drafter"` offline; `"llm"` by the model, seeded with the offline
    draft when the drafter has one (and told so when it already verifies). `timeout`: seconds the
    reference may take to import and trace; `cases`: every input set the model's draft must serve
    (an NPUKernelBench reference's cases; its failing ones go back to the model one line each)."""
    if how not in HOW:
        raise DraftFailed(f"unknown drafting engine `{how}`; use drafter or llm")
    try:
        offline = draft_reference(reference, soc=soc, overrides=overrides or None, timeout=timeout)
    except DraftError as exc:
        if how == "drafter":
            raise DraftFailed(str(exc)) from None
        offline = None
    if how == "drafter":
        return DraftOutcome(offline.text, offline.template, list(offline.notes))
    try:
        client = client_from_environment(**(client_settings or {}))
    except LlmEngineError as exc:
        raise DraftFailed(str(exc).splitlines()[0], unavailable=True) from None
    result = draft_with_llm(Path(reference), client=client, soc=soc, rounds=rounds,
                            start_draft=offline.text if offline else None, reference=reference_run, cases=cases)
    notes = [result.message.splitlines()[0]] if result.message else []
    if result.dsl is None:
        raise DraftFailed(f"the LLM drafter found no verified draft ({result.stopped}): {result.message.splitlines()[0]}")
    return DraftOutcome(result.dsl, "llm", notes)
