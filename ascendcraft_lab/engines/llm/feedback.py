"""`FeedbackLoop`: one conversation with the model, each reply checked, findings sent back.

The drafting and the lowering loops are this loop with their own prompt and `check`. It is a
`BoundedLoop` (so its rules hold: at most `rounds` chat calls, the best verified candidate is
kept and never replaced by a worse one, cancellation stops it) plus the conversation:

- round 1 sends the prompt; a reply that fails its check is answered, in the same
  conversation, with `follow_up(checked)` (the findings: parse errors, verifier findings,
  interpreter mismatches, constraint violations, compiler errors);
- a call that failed in transport (timeout, 429 or 5xx after the client's own retries,
  garbage) sends the same conversation again next round; a truncated reply is shown back
  with a request to be shorter;
- an error no retry can fix (no endpoint, key refused, not recorded in replay mode, bad
  config) ends the loop at once (`stopped == "error"`), as does the client's `cancel()`
  (`stopped == "cancelled"`): the notebook's stop button reaches the loop through the client.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Generic, TypeVar

from .client import LlmClient, LlmReply
from .errors import LlmError
from .loop import Attempt, BoundedLoop

C = TypeVar("C")

# LlmError kinds that another round cannot fix: stop instead of spending the bound.
FATAL_KINDS = frozenset({"config", "connection", "auth", "http", "not_recorded", "refused"})
_SHOWN_BACK = 4000  # characters of a truncated reply quoted back to the model


@dataclass(frozen=True)
class Checked(Generic[C]):
    """What a check made of one reply."""

    ok: bool
    feedback: str              # what goes back to the model (for ok: a summary of why it passed)
    candidate: C | None = None  # the artefact the reply gave (DSL text, Bundle), when it got that far
    score: float = 0.0         # among verified candidates, higher is better (earliest wins a tie)
    stage: str = ""            # the check that decided: "reply", "parse", "verify", "checker", ...
    detail: Any = None         # anything the caller wants back (a Verdict, findings, diagnostics)


@dataclass(frozen=True)
class Turn(Generic[C]):
    """One round: the reply (or the transport error) and what the check said."""

    round: int
    reply: LlmReply | None
    error: LlmError | None
    checked: Checked[C] | None

    @property
    def ok(self) -> bool:
        return self.checked is not None and self.checked.ok


@dataclass(frozen=True)
class Outcome(Generic[C]):
    turns: list[Turn[C]]
    best_round: int | None
    stopped: str               # "verified", "bound", "cancelled" or "error"
    fatal: LlmError | None

    @property
    def best(self) -> Checked[C] | None:
        turn = next((t for t in self.turns if t.round == self.best_round), None)
        return turn.checked if turn else None


class FeedbackLoop(Generic[C]):
    def __init__(
        self,
        client: LlmClient,
        messages: list[dict[str, str]],
        *,
        purpose: str,
        check: Callable[[str], Checked[C]],
        follow_up: Callable[[Checked[C]], str],
        rounds: int = 3,
        keep_improving: bool = False,
        on_turn: Callable[[Turn[C]], None] | None = None,
    ):
        self.client = client
        self.messages = list(messages)
        self.purpose = purpose
        self.check = check
        self.follow_up = follow_up
        self.rounds = rounds
        self.keep_improving = keep_improving
        self.on_turn = on_turn
        self.turns: list[Turn[C]] = []
        self.fatal: LlmError | None = None
        self._reply: LlmReply | None = None
        self._error: LlmError | None = None
        self._checked: Checked[C] | None = None

    def run(self) -> Outcome[C]:
        loop = BoundedLoop(self._propose, self._check, max_rounds=self.rounds,
                           stop_on_verified=not self.keep_improving, cancel=_Stop(self), on_attempt=self._after)
        result = loop.run()
        stopped = result.stopped
        if self.fatal is not None:
            stopped = "error"
        return Outcome(list(self.turns), result.best_round, stopped, self.fatal)

    # -- the BoundedLoop hooks ---------------------------------------------------------------

    def _propose(self, _feedback: str) -> LlmReply:
        self._reply, self._error, self._checked = None, None, None
        try:
            self._reply = self.client.chat(self.messages, purpose=f"{self.purpose}, round {len(self.turns) + 1}")
        except LlmError as exc:
            self._error = exc
            if exc.kind in FATAL_KINDS:
                self.fatal = exc
            raise
        return self._reply

    def _check(self, reply: LlmReply) -> tuple[bool, float, str]:
        self._checked = self.check(reply.text)
        return self._checked.ok, self._checked.score, self._checked.feedback

    def _after(self, attempt: Attempt) -> None:
        turn = Turn(attempt.round, self._reply, self._error, self._checked)
        self.turns.append(turn)
        if self._reply is not None and self._checked is not None:
            self.messages += [{"role": "assistant", "content": self._reply.text},
                              {"role": "user", "content": self.follow_up(self._checked)}]
        elif self._error is not None and self._error.reply_text:
            self.messages += [{"role": "assistant", "content": self._error.reply_text[:_SHOWN_BACK]},
                              {"role": "user", "content": f"That reply was unusable: {self._error.message}. "
                                                          "Send it again, shorter: only what the format asks for."}]
        if self.on_turn is not None:
            self.on_turn(turn)


class _Stop:
    """The loop's cancel flag: the client's cancel event, or an error no round can fix."""

    def __init__(self, loop: FeedbackLoop):
        self.loop = loop

    def is_set(self) -> bool:
        return self.loop.client.cancelled or self.loop.fatal is not None


def stop_message(outcome: Outcome, rounds: int, what: str) -> str:
    """One sentence on how a loop ended, for the UI and the CLI."""
    n = len(outcome.turns)
    if outcome.stopped == "cancelled":
        return f"{what}: cancelled after {n} round(s); nothing more was sent to the model"
    if outcome.stopped == "error" and outcome.fatal is not None:
        return f"{what}: stopped after {n} round(s): {outcome.fatal.message}"
    if outcome.best_round is not None:
        return f"{what}: verified in round {outcome.best_round} of {n}"
    last = outcome.turns[-1] if outcome.turns else None
    why = ""
    if last is not None:
        why = last.error.message if last.error is not None else (last.checked.feedback if last.checked else "")
        why = why.strip().splitlines()[0] if why.strip() else ""
    return f"{what}: no verified candidate after {n} round(s) (bound {rounds})" + (f"; last: {why}" if why else "")


__all__ = ["Checked", "FATAL_KINDS", "FeedbackLoop", "Outcome", "Turn", "stop_message"]
