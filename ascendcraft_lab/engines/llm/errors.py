"""The one exception the LLM client layer raises: `LlmError`.

Every failure a user can meet (endpoint unreachable, key rejected, garbage, truncation, a
reply that was never recorded, cancellation) ends in one `LlmError` whose message says what
happened and what to do. `kind` lets callers branch without parsing text. Messages never
contain the API key: the client builds them itself and scrubs anything a server echoed.
"""
from __future__ import annotations

# The kinds a caller may branch on. A feedback loop, for example, treats "cancelled" as
# "stop now" and everything else as "this round failed".
KINDS = frozenset({
    "config",        # a bad setting or config file
    "connection",    # nothing listening at the base URL / network failure
    "auth",          # 401 / 403
    "timeout",       # every attempt timed out
    "rate_limit",    # 429 on every attempt
    "server",        # 5xx on every attempt
    "http",          # another HTTP status (400, 404, ...): not retried
    "malformed",     # the body is not JSON or not the chat-completions schema
    "empty",         # the model returned no text
    "truncated",     # finish_reason == "length": the reply hit max_tokens
    "endless",       # the server ignored max_tokens and kept talking
    "refused",       # finish_reason == "content_filter"
    "not_recorded",  # replay mode and no recorded reply for this request
    "cancelled",     # cancel() was called
    "no_code",       # extract_code found no usable fenced block
})


class LlmError(Exception):
    """A failed LLM call, with a message meant for the user.

    `kind` is one of `KINDS`; `attempts` is how many HTTP requests were made (0 when none
    reached the network, e.g. a replay miss or a cancellation before the first try);
    `status` is the last HTTP status when there was one; `reply_text` is what the model did
    say when the reply was unusable (truncated, endless), so a UI can show it.
    """

    def __init__(self, message: str, *, kind: str, attempts: int = 0, status: int | None = None,
                 reply_text: str | None = None):
        if kind not in KINDS:
            raise ValueError(f"unknown LlmError kind {kind!r}")
        super().__init__(message)
        self.kind = kind
        self.attempts = attempts
        self.status = status
        self.reply_text = reply_text

    @property
    def message(self) -> str:
        return str(self.args[0])
