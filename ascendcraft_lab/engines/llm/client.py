"""`LlmClient`: one chat call to an OpenAI-compatible endpoint, cached, recorded and bounded.

What happens on `chat(messages, purpose=...)`, by mode (`LlmConfig.mode`):

| mode     | reads cache | network on miss | writes cache | use                                   |
|----------|-------------|-----------------|--------------|---------------------------------------|
| `live`   | yes         | yes             | yes          | default: re-running a notebook is free |
| `record` | no          | always          | yes          | refresh a recording                   |
| `replay` | yes         | never: `LlmError(kind="not_recorded")` | no | CI runs notebooks from recordings |
| `off`    | no          | always          | no           | measure the live endpoint             |

Transport is the real `openai` package with its own retries off (`max_retries=0`): this
module retries timeouts, dropped connections, HTTP 429, 5xx, garbage and empty replies itself,
at most `config.max_retries` times, with exponential back-off capped at `config.backoff_cap_s`
(a server's `Retry-After` is honoured, under the same cap). Each retry is logged and noted on
the call's `CallRecord`. Everything else (connection refused, 401/403, other 4xx, a truncated
or endless reply) fails at once: retrying would not change the answer.

Cancellation: `cancel()` sets an event checked before every attempt and during back-off, so a
notebook button stops a retry loop (or a `BoundedLoop`) promptly. An HTTP request already in
flight is not interrupted: it finishes or fails at its `timeout`. `reset_cancel()` re-arms.

Every call, cached or not, failed or not, is appended to `client.calls` as a `CallRecord` and,
when `log_dir` is given, to `<log_dir>/llm-calls.jsonl`. The API key appears in neither, nor
in the cache, nor in any message: it is only handed to `openai.OpenAI`, and any text a server
echoes back is scrubbed of it before it is shown or stored.
"""
from __future__ import annotations

import datetime as _dt
import email.utils
import json
import logging
import os
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import httpx
import openai

from .cache import CachedReply, ReplyCache, request_hash
from .errors import LlmError
from .settings import LlmConfig

log = logging.getLogger(__name__)

LOG_FILE_NAME = "llm-calls.jsonl"
ROLES = frozenset({"system", "user", "assistant"})
# A server that ignores max_tokens can stream megabytes; no tokenizer packs more than this many
# characters per token on average, so a longer reply means the cap was not applied.
MAX_CHARS_PER_TOKEN = 32


@dataclass(frozen=True)
class LlmReply:
    """A usable reply. `cost_estimate` is None when no prices are configured; 0.0 when cached."""

    text: str
    tokens_in: int
    tokens_out: int
    latency_s: float
    cached: bool
    cost_estimate: float | None
    finish_reason: str
    attempts: int  # HTTP requests made for this reply (0 when served from the cache)
    request_hash: str
    model: str


@dataclass(frozen=True)
class CallRecord:
    """One `chat` call as the UI and the JSONL log see it (never holds the key)."""

    purpose: str
    request_hash: str
    model: str
    mode: str
    messages: list[dict[str, str]]
    reply_text: str | None
    tokens_in: int
    tokens_out: int
    latency_s: float
    cost_estimate: float | None
    cached: bool
    error: str | None
    error_kind: str | None
    attempts: int
    finish_reason: str | None
    retries: list[str] = field(default_factory=list)  # one note per retried attempt
    started_at: str = ""

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class _Attempt:
    """Outcome of one HTTP attempt that did not give a usable reply."""

    kind: str
    message: str
    retryable: bool
    status: int | None = None
    retry_after: float | None = None
    reply_text: str | None = None


class LlmClient:
    """Chat with one OpenAI-compatible endpoint; see the module docstring for the contract.

    `sleep(seconds)` is the back-off wait; tests inject a recorder. By default the wait is on
    the cancel event, so `cancel()` cuts a back-off short.
    """

    def __init__(
        self,
        config: LlmConfig | None = None,
        *,
        cache_dir: str | os.PathLike | None = None,
        log_dir: str | os.PathLike | None = None,
        sleep: Callable[[float], None] | None = None,
        cancel_event: threading.Event | None = None,
    ):
        self.config = config if config is not None else LlmConfig.resolve()
        self.cache = ReplyCache(cache_dir)
        self.log_path = Path(log_dir) / LOG_FILE_NAME if log_dir is not None else None
        self.calls: list[CallRecord] = []
        self._cancel = cancel_event if cancel_event is not None else threading.Event()
        self._sleep = sleep if sleep is not None else (lambda s: self._cancel.wait(s))
        self._lock = threading.Lock()
        self._openai: openai.OpenAI | None = None

    def __repr__(self) -> str:
        c = self.config
        return (f"LlmClient(model={c.model!r}, base_url={c.base_url!r}, mode={c.mode!r}, "
                f"key={'set' if c.has_key else 'not set'}, cache={str(self.cache.root)!r})")

    __str__ = __repr__

    def close(self) -> None:
        """Close the HTTP connection pool (also done on garbage collection)."""
        if self._openai is not None:
            self._openai.close()
            self._openai = None

    def __enter__(self) -> "LlmClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- cancellation ------------------------------------------------------------------------

    def cancel(self) -> None:
        """Stop before the next attempt or back-off ends; an in-flight request runs to its timeout."""
        self._cancel.set()

    def reset_cancel(self) -> None:
        self._cancel.clear()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    # -- the call ----------------------------------------------------------------------------

    def chat(
        self,
        messages: Sequence[dict[str, str]],
        *,
        purpose: str,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> LlmReply:
        """Send `messages`, return the reply; raise one `LlmError` on any failure."""
        if not purpose or not isinstance(purpose, str):
            raise ValueError("purpose must be a non-empty string (it labels the call in the UI and log)")
        msgs = _checked_messages(messages)
        cfg = self.config
        max_tokens = cfg.max_tokens if max_tokens is None else int(max_tokens)
        temperature = cfg.temperature if temperature is None else float(temperature)
        if max_tokens <= 0:
            raise ValueError("max_tokens must be positive")
        key = request_hash(cfg.model, msgs, temperature, max_tokens)
        stored_msgs = [{**m, "content": self._scrub(m["content"])} for m in msgs]  # what may reach disk
        started_at = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
        t0 = time.monotonic()
        retries: list[str] = []

        def record(**kw: Any) -> None:
            defaults = dict(purpose=purpose, request_hash=key, model=cfg.model, mode=cfg.mode,
                            messages=stored_msgs, reply_text=None, tokens_in=0, tokens_out=0,
                            latency_s=time.monotonic() - t0, cost_estimate=None, cached=False,
                            error=None, error_kind=None, attempts=0, finish_reason=None,
                            retries=list(retries), started_at=started_at)
            self._record(CallRecord(**{**defaults, **kw}))

        try:
            if self.cancelled:
                raise LlmError("LLM call cancelled before it started", kind="cancelled")
            if cfg.mode in ("live", "replay"):
                hit = self.cache.get(key)
                if hit is not None:
                    reply = LlmReply(text=hit.text, tokens_in=hit.tokens_in, tokens_out=hit.tokens_out,
                                     latency_s=time.monotonic() - t0, cached=True, cost_estimate=0.0,
                                     finish_reason=hit.finish_reason, attempts=0, request_hash=key,
                                     model=cfg.model)
                    record(reply_text=reply.text, tokens_in=reply.tokens_in, tokens_out=reply.tokens_out,
                           latency_s=reply.latency_s, cost_estimate=0.0, cached=True,
                           finish_reason=reply.finish_reason)
                    return reply
            if cfg.mode == "replay":
                raise LlmError(
                    f"replay mode: the reply to this request ({purpose}, model {cfg.model}, hash {key[:12]}) "
                    f"was not recorded in {self.cache.root}; record it with mode='record' (or 'live') "
                    "against a live endpoint first", kind="not_recorded")
            text, finish, tokens_in, tokens_out, attempts = self._network(msgs, temperature, max_tokens, retries)
            latency = time.monotonic() - t0
            if cfg.mode in ("live", "record"):
                try:
                    self.cache.put(CachedReply(request_hash=key, model=cfg.model, messages=stored_msgs,
                                               temperature=temperature, max_tokens=max_tokens, text=text,
                                               finish_reason=finish, tokens_in=tokens_in,
                                               tokens_out=tokens_out, latency_s=round(latency, 3)))
                except OSError as exc:  # the reply is paid for: a full disk must not lose it
                    log.warning("LLM cache write to %s failed: %s", self.cache.root, exc)
                    retries.append(f"cache write failed: {exc}")
            reply = LlmReply(text=text, tokens_in=tokens_in, tokens_out=tokens_out, latency_s=latency,
                             cached=False, cost_estimate=self._cost(tokens_in, tokens_out),
                             finish_reason=finish, attempts=attempts, request_hash=key, model=cfg.model)
            record(reply_text=text, tokens_in=tokens_in, tokens_out=tokens_out, latency_s=latency,
                   cost_estimate=reply.cost_estimate, finish_reason=finish, attempts=attempts)
            return reply
        except LlmError as exc:
            record(error=str(exc), error_kind=exc.kind, attempts=exc.attempts, reply_text=exc.reply_text)
            raise

    def list_models(self) -> list[str]:
        """Model ids the endpoint serves (`GET /models`), one attempt; `LlmError` on failure."""
        try:
            return sorted(m.id for m in self._transport().models.list())
        except openai.OpenAIError as exc:
            failure = self._classify(exc)
            raise LlmError(failure.message, kind=failure.kind, attempts=1, status=failure.status) from None
        except (ValueError, TypeError, AttributeError):  # a body that is not a model list
            raise LlmError(f"the LLM endpoint at {self.config.base_url} sent a model list that is not "
                           "the OpenAI schema", kind="malformed", attempts=1) from None

    def summary(self) -> dict[str, Any]:
        """Totals over `calls`, for a status line: calls, cached, errors, tokens, cost."""
        with self._lock:
            calls = list(self.calls)
        costs = [c.cost_estimate for c in calls if c.cost_estimate is not None]
        return {
            "calls": len(calls),
            "cached": sum(c.cached for c in calls),
            "errors": sum(not c.ok for c in calls),
            "requests": sum(c.attempts for c in calls),
            "tokens_in": sum(c.tokens_in for c in calls),
            "tokens_out": sum(c.tokens_out for c in calls),
            "cost_estimate": sum(costs) if costs else None,
        }

    # -- internals ---------------------------------------------------------------------------

    def _transport(self) -> openai.OpenAI:
        if self._openai is None:
            cfg = self.config
            # max_retries=0: our loop retries, so the bound is ours and each retry is visible.
            self._openai = openai.OpenAI(base_url=cfg.base_url, api_key=cfg.key_for_transport(),
                                         timeout=cfg.timeout, max_retries=0)
        return self._openai

    def _network(self, msgs: list[dict[str, str]], temperature: float, max_tokens: int,
                 retries: list[str]) -> tuple[str, str, int, int, int]:
        cfg = self.config
        bound = cfg.max_retries + 1
        failure: _Attempt | None = None
        for attempt in range(1, bound + 1):
            if self.cancelled:
                raise LlmError(f"LLM call cancelled after {attempt - 1} attempt(s)", kind="cancelled",
                               attempts=attempt - 1)
            try:
                raw = self._transport().chat.completions.with_raw_response.create(
                    model=cfg.model, messages=msgs, temperature=temperature, max_tokens=max_tokens)
                outcome = self._parse(raw.http_response.text, max_tokens)
            except openai.OpenAIError as exc:
                outcome = self._classify(exc)
            if not isinstance(outcome, _Attempt):
                text, finish, tokens_in, tokens_out = outcome
                return text, finish, tokens_in, tokens_out, attempt
            failure = outcome
            if not failure.retryable:
                raise LlmError(failure.message, kind=failure.kind, attempts=attempt, status=failure.status,
                               reply_text=failure.reply_text)
            if attempt == bound:
                break
            delay = self._backoff(attempt, failure.retry_after)
            note = f"attempt {attempt}: {failure.message}; retrying in {delay:.2f} s"
            retries.append(note)
            log.info("LLM %s", note)
            self._sleep(delay)
        assert failure is not None
        raise LlmError(f"{failure.message} (gave up after {bound} attempt{'s' if bound > 1 else ''}; "
                       f"max_retries={cfg.max_retries})", kind=failure.kind, attempts=bound,
                       status=failure.status, reply_text=failure.reply_text)

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        cfg = self.config
        wanted = retry_after if retry_after is not None else cfg.backoff_base_s * 2 ** (attempt - 1)
        return max(0.0, min(wanted, cfg.backoff_cap_s))

    def _parse(self, body: str, max_tokens: int) -> tuple[str, str, int, int] | _Attempt:
        """A 200 body -> (text, finish_reason, tokens_in, tokens_out), or why it is unusable."""
        where = self.config.base_url
        try:
            data = json.loads(body)
        except ValueError:
            return _Attempt("malformed", f"the LLM endpoint at {where} sent a reply that is not JSON "
                            f"(starts with {self._scrub(body)[:60]!r})", retryable=True)
        try:
            if isinstance(data, dict) and "error" in data and "choices" not in data:
                raise ValueError(f"an error object: {self._scrub(json.dumps(data['error']))[:200]}")
            choice = data["choices"][0]
            message = choice["message"]
            content = message.get("content")
            finish = choice.get("finish_reason") or "stop"
            if content is not None and not isinstance(content, str):
                raise ValueError("message.content is not a string")
            usage = data.get("usage") or {}
            tokens_in = int(usage.get("prompt_tokens") or 0)
            tokens_out = int(usage.get("completion_tokens") or 0)
        except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
            detail = str(exc) if isinstance(exc, ValueError) else "no choices[0].message"
            return _Attempt("malformed", f"the LLM endpoint at {where} sent JSON that is not a chat "
                            f"completion ({detail})", retryable=True)
        # A model never has a reason to say the key; a hostile server might echo it.
        text = self._scrub(content or "")
        if finish == "length":
            return _Attempt("truncated", f"the reply was cut off at max_tokens={max_tokens} "
                            f"(finish_reason 'length', {len(text)} characters received): it is incomplete; "
                            "raise max_tokens or ask for a shorter answer", retryable=False, reply_text=text)
        if finish == "content_filter":
            return _Attempt("refused", "the endpoint's content filter stopped the reply "
                            "(finish_reason 'content_filter')", retryable=False, reply_text=text)
        if not text.strip():
            return _Attempt("empty", f"the model at {where} returned an empty reply "
                            f"(finish_reason {finish!r})", retryable=True)
        if tokens_out > max_tokens or len(text) > max_tokens * MAX_CHARS_PER_TOKEN:
            return _Attempt("endless", f"the endpoint ignored max_tokens={max_tokens} and returned "
                            f"{tokens_out or 'an unknown number of'} tokens ({len(text)} characters): "
                            "the model is probably looping; the reply was discarded", retryable=False,
                            reply_text=text[: max_tokens * 4])
        return text, finish, tokens_in, tokens_out

    def _classify(self, exc: openai.OpenAIError) -> _Attempt:
        """Map an `openai` exception to one clear, key-free message and a retry decision."""
        where = self.config.base_url
        timeout = self.config.timeout
        if isinstance(exc, openai.APITimeoutError):
            return _Attempt("timeout", f"the LLM endpoint at {where} did not answer within {timeout:g} s",
                            retryable=True)
        if isinstance(exc, openai.APIConnectionError):
            cause = exc.__cause__
            if isinstance(cause, httpx.ConnectError):
                # Nothing listening (or no such host): retrying in a second will not fix it.
                reason = "connection refused" if "refused" in str(cause).lower() else self._scrub(str(cause))
                return _Attempt("connection", f"cannot connect to the LLM endpoint at {where} ({reason}); "
                                "is the server running? Check OPENAI_BASE_URL or base_url in the config",
                                retryable=False)
            if isinstance(cause, httpx.RemoteProtocolError):
                return _Attempt("malformed", f"the LLM endpoint at {where} answered with something that is "
                                "not valid HTTP", retryable=True)
            detail = type(cause).__name__ if cause is not None else "connection error"
            return _Attempt("connection", f"the connection to the LLM endpoint at {where} failed mid-request "
                            f"({detail})", retryable=True)
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            detail = _server_detail(exc.body, self._scrub)
            detail = f": {detail}" if detail else ""
            if status in (401, 403):
                hint = ("check OPENAI_API_KEY (the key is never shown)" if self.config.has_key
                        else "no API key is set: set OPENAI_API_KEY")
                return _Attempt("auth", f"the LLM endpoint at {where} refused the request (HTTP {status}, "
                                f"{'unauthorized' if status == 401 else 'forbidden'}){detail}; {hint}",
                                retryable=False, status=status)
            if status == 429:
                return _Attempt("rate_limit", f"the LLM endpoint at {where} is rate limiting (HTTP 429){detail}",
                                retryable=True, status=status, retry_after=_retry_after(exc.response))
            if status >= 500:
                return _Attempt("server", f"the LLM endpoint at {where} failed (HTTP {status}){detail}",
                                retryable=True, status=status, retry_after=_retry_after(exc.response))
            hint = (f"; check the model name ({self.config.model!r}) and that the base URL ends in /v1"
                    if status == 404 else "")
            return _Attempt("http", f"the LLM endpoint at {where} rejected the request (HTTP {status}){detail}{hint}",
                            retryable=False, status=status)
        return _Attempt("malformed", f"the LLM endpoint at {where} sent an unusable reply "
                        f"({type(exc).__name__})", retryable=True)

    def _scrub(self, text: str) -> str:
        key = self.config.api_key.reveal() if self.config.api_key is not None else ""
        return text.replace(key, "***") if key else text

    def _cost(self, tokens_in: int, tokens_out: int) -> float | None:
        cfg = self.config
        if cfg.price_in_per_1k is None and cfg.price_out_per_1k is None:
            return None
        return tokens_in / 1000 * (cfg.price_in_per_1k or 0.0) + tokens_out / 1000 * (cfg.price_out_per_1k or 0.0)

    def _record(self, rec: CallRecord) -> None:
        with self._lock:
            self.calls.append(rec)
            if self.log_path is not None:
                line = self._scrub(json.dumps(rec.to_dict(), ensure_ascii=False))
                self.log_path.parent.mkdir(parents=True, exist_ok=True)
                # One write per line on an O_APPEND file: concurrent appends do not interleave.
                with open(self.log_path, "a", encoding="utf-8") as fh:
                    fh.write(line + "\n")


def _checked_messages(messages: Sequence[dict[str, str]]) -> list[dict[str, str]]:
    """A plain list of {role, content} dicts (also what the cache hashes)."""
    if isinstance(messages, (str, bytes)) or not messages:
        raise ValueError("messages must be a non-empty list of {'role': ..., 'content': ...} dicts")
    out = []
    for i, m in enumerate(messages):
        if not isinstance(m, dict) or m.get("role") not in ROLES or not isinstance(m.get("content"), str):
            raise ValueError(f"messages[{i}] must be {{'role': one of {sorted(ROLES)}, 'content': str}}")
        out.append({"role": m["role"], "content": m["content"]})
    return out


def _server_detail(body: object, scrub: Callable[[str], str]) -> str:
    """The human part of an error body, scrubbed then shortened (so no key prefix survives)."""
    if isinstance(body, dict):
        msg = body.get("message") or body.get("error") or body.get("detail")
        if isinstance(msg, dict):
            msg = msg.get("message")
        body = msg
    text = scrub(" ".join(str(body).split())) if body else ""
    return text[:200] + ("..." if len(text) > 200 else "")


def _retry_after(response: httpx.Response | None) -> float | None:
    """Seconds asked for by `retry-after-ms` or `Retry-After` (seconds or HTTP date), if any."""
    if response is None:
        return None
    headers = response.headers
    try:
        if "retry-after-ms" in headers:
            return max(0.0, float(headers["retry-after-ms"]) / 1000)
        value = headers.get("retry-after")
        if value is None:
            return None
        try:
            return max(0.0, float(value))
        except ValueError:
            when = email.utils.parsedate_to_datetime(value)
            return max(0.0, (when - _dt.datetime.now(_dt.timezone.utc)).total_seconds())
    except (TypeError, ValueError):
        return None
