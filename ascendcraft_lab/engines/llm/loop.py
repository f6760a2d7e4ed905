"""`BoundedLoop`: propose -> check -> feed back, at most N rounds, keeping the best verified result.

The LLM engine's feedback loops (draft a DSL, lower a pass, fix a compile error) all have this
shape; they differ only in `propose` and `check`, which their authors supply:

    propose(feedback: str) -> candidate          # usually one LlmClient.chat + extract_code
    check(candidate) -> (ok: bool, score: float, feedback: str)

Rules (the UI and the tests rely on them):
- at most `max_rounds` calls to `propose` (so at most that many LLM requests when `propose`
  makes one call; the client's own transport retries are bounded separately);
- round 1 gets `initial_feedback`; round k+1 gets the feedback of round k;
- the best candidate is the verified (`ok`) one with the highest score, the earliest on a tie:
  a later unverified or lower-scoring candidate never replaces it;
- an `LlmError` from `propose` is a failed round (its message is the next feedback), except
  `kind == "cancelled"`, which stops the loop, as does the `cancel` event; any other exception
  is a bug in `propose`/`check` and propagates;
- by default the loop stops at the first verified candidate (`stop_on_verified=False` keeps
  improving the score until the bound).

Every round becomes an `Attempt`, so a UI can show each proposal with its findings.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Callable, Generic, TypeVar

from .errors import LlmError

C = TypeVar("C")


@dataclass(frozen=True)
class Attempt(Generic[C]):
    """One round: what was proposed and what the checker (or the LLM layer) said about it."""

    round: int  # 1-based
    candidate: C | None  # None when propose failed
    ok: bool
    score: float
    feedback: str  # the checker's findings, or the LlmError message
    error: str | None = None  # set when propose raised LlmError


@dataclass(frozen=True)
class LoopResult(Generic[C]):
    best: C | None  # the best verified candidate, None when no round verified
    best_round: int | None
    attempts: list[Attempt[C]]
    stopped: str  # "verified", "bound" or "cancelled"

    @property
    def verified(self) -> bool:
        return self.best_round is not None

    @property
    def rounds(self) -> int:
        return len(self.attempts)


class BoundedLoop(Generic[C]):
    """Run `propose`/`check` for at most `max_rounds` rounds; see the module docstring."""

    def __init__(
        self,
        propose: Callable[[str], C],
        check: Callable[[C], tuple[bool, float, str]],
        *,
        max_rounds: int = 3,
        stop_on_verified: bool = True,
        cancel: threading.Event | None = None,
        on_attempt: Callable[[Attempt[C]], None] | None = None,
    ):
        if not isinstance(max_rounds, int) or max_rounds < 1:
            raise ValueError(f"max_rounds must be a positive integer (got {max_rounds!r})")
        self.propose = propose
        self.check = check
        self.max_rounds = max_rounds
        self.stop_on_verified = stop_on_verified
        self.cancel = cancel
        self.on_attempt = on_attempt  # lets a UI show each round as it finishes

    def run(self, initial_feedback: str = "") -> LoopResult[C]:
        attempts: list[Attempt[C]] = []
        best: Attempt[C] | None = None
        feedback = initial_feedback
        stopped = "bound"
        for round_no in range(1, self.max_rounds + 1):
            if self.cancel is not None and self.cancel.is_set():
                stopped = "cancelled"
                break
            try:
                candidate = self.propose(feedback)
            except LlmError as exc:
                if exc.kind == "cancelled":
                    stopped = "cancelled"
                    break
                attempt: Attempt[C] = Attempt(round_no, None, False, float("-inf"), str(exc), error=str(exc))
            else:
                ok, score, findings = self.check(candidate)
                attempt = Attempt(round_no, candidate, bool(ok), float(score), findings)
            attempts.append(attempt)
            if self.on_attempt is not None:
                self.on_attempt(attempt)
            if attempt.ok and (best is None or attempt.score > best.score):
                best = attempt
            feedback = attempt.feedback
            if best is not None and self.stop_on_verified:
                stopped = "verified"
                break
        return LoopResult(best=best.candidate if best else None, best_round=best.round if best else None,
                          attempts=attempts, stopped=stopped)
