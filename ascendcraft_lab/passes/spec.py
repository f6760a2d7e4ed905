"""What every pass shares: its spec, the options it runs with, and the failure it may raise.

A pass module (`host`, `init`, `compute`, `align`) owns one `PassSpec`: its name and place in
the pipeline, the one-line reason and newcomer explanation the UI and the prompts show, and
`rules`, the constraints its output must meet, as data (the LLM engine's prompt lists them, the
pass's checker verifies them).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from ..soc import DEFAULT_SOC


@dataclass(frozen=True)
class PassSpec:
    number: int
    name: str
    reason: str                 # one line: what the pass adds and why
    explain: str                # a few sentences for newcomers
    rules: tuple[str, ...] = ()  # what the pass's checker holds its output to, one sentence each

    @property
    def dirname(self) -> str:
        return f"{self.number:02d}-{self.name}"


@dataclass(frozen=True)
class LowerOptions:
    soc: str = DEFAULT_SOC
    # Symbol values (e.g. {"B": 16, "N": 16384}) the checkers use to evaluate buffer sizes.
    shapes: Mapping[str, int] = field(default_factory=dict)
    scalars: Mapping[str, float] = field(default_factory=dict)


class PassFailure(ValueError):
    """An engine cannot produce a pass's output (a construct it does not lower, a SoC that
    lacks an instruction). The step fails with this message as its finding; later passes
    do not run."""

    def __init__(self, message: str, node=None):
        super().__init__(message)
        self.span = getattr(node, "span", None)


class LoweringError(PassFailure):
    """The rule engine cannot lower a construct; says which and what would work."""
