"""A scriptable fake OpenAI-compatible server on loopback, for tests of anything that calls an LLM.

It is a real HTTP server (`http.server.ThreadingHTTPServer`, port 0), so the real `openai`
package, httpx and our client are exercised end to end. It speaks
`POST /v1/chat/completions` and `GET /v1/models`, and records every request it receives.

Scripting API
-------------
    with FakeOpenAI() as server:                  # or the `fake_openai` pytest fixture
        server.base_url                           # "http://127.0.0.1:<port>/v1"
        server.push(reply("hello"))               # queue responses, consumed one per chat request
        server.push(status(429, headers={"Retry-After": "2"}), reply("ok"))
        server.push(lambda req: reply(req.last_user_content.upper()))   # computed from the request
        server.default = reply("always")          # served when the queue is empty
        ...
        server.requests        # every RecordedRequest (method, path, headers, json, body), in order
        server.chat_requests   # only the POST .../chat/completions ones
        server.require_key = "sk-..."             # then a request without that Bearer key gets 401

Responses (module-level builders, each returns a `Scripted`):
    reply(text, finish_reason="stop", tokens_in=None, tokens_out=None, model="fake-model")
                            a chat.completion JSON; token counts default to word counts
    truncated(text="...")   reply(text, finish_reason="length")
    empty()                 reply("")
    status(code, message="...", headers=None)
                            an OpenAI-style error JSON {"error": {"message", "type", "code"}}
    garbage(body=b"...", content_type="application/json")
                            HTTP 200 with a body that is not a chat completion
    json_body(obj, code=200)
                            any JSON body (e.g. valid JSON with the wrong schema)
    raw(data)               bytes written straight to the socket, no HTTP framing, then close
    sleep(seconds, then=None)
                            wait `seconds` before answering `then` (default reply("late")): with a
                            client timeout shorter than `seconds` this is a timeout
Any builder result also takes `.after(seconds)` to add a delay.

When the queue is empty and `default` is None the server answers HTTP 418 "fake server: no
scripted response left", a non-retryable status, so an unexpected extra request fails loudly.
`GET /v1/models` lists `server.models` and does not consume the queue.
"""
from __future__ import annotations

import json
import socket
import threading
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Union


@dataclass(frozen=True)
class Scripted:
    """One scripted response: an HTTP status/headers/body, optionally delayed, or raw bytes."""

    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    raw: bytes | None = None  # when set: written as is, no status line, then the socket closes

    def after(self, seconds: float) -> "Scripted":
        return replace(self, delay_s=self.delay_s + seconds)


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]  # lower-cased names
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body) if self.body else None

    @property
    def messages(self) -> list[dict[str, str]]:
        return (self.json or {}).get("messages", [])

    @property
    def last_user_content(self) -> str:
        users = [m["content"] for m in self.messages if m.get("role") == "user"]
        return users[-1] if users else ""


Responder = Union[Scripted, Callable[[RecordedRequest], Scripted]]


def _json(obj: Any, code: int = 200, headers: dict[str, str] | None = None) -> Scripted:
    return Scripted(code, json.dumps(obj).encode(), {"Content-Type": "application/json", **(headers or {})})


def reply(text: str, *, finish_reason: str = "stop", tokens_in: int | None = None,
          tokens_out: int | None = None, model: str = "fake-model") -> Scripted:
    tokens_out = len(text.split()) if tokens_out is None else tokens_out
    return _json({
        "id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                     "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 10 if tokens_in is None else tokens_in, "completion_tokens": tokens_out,
                  "total_tokens": (10 if tokens_in is None else tokens_in) + tokens_out},
    })


def truncated(text: str = "def kernel(x):\n    return x +") -> Scripted:
    return reply(text, finish_reason="length")


def empty() -> Scripted:
    return reply("")


def status(code: int, message: str = "scripted error", *, headers: dict[str, str] | None = None) -> Scripted:
    return _json({"error": {"message": message, "type": "fake_error", "code": code}}, code, headers)


def garbage(body: bytes = b"\x00\xff<html>502 upstream</html>", content_type: str = "application/json") -> Scripted:
    return Scripted(200, body, {"Content-Type": content_type})


def json_body(obj: Any, code: int = 200) -> Scripted:
    return _json(obj, code)


def raw(data: bytes = b"\x16\x03\x01 this is not HTTP\r\n\r\n") -> Scripted:
    return Scripted(raw=data)


def sleep(seconds: float, then: Scripted | None = None) -> Scripted:
    return (then or reply("late")).after(seconds)


class FakeOpenAI:
    """The server. Start it with `with FakeOpenAI() as s:` or `start()`/`close()`."""

    def __init__(self, host: str = "127.0.0.1"):
        self.host = host
        self.queue: list[Responder] = []
        self.default: Responder | None = None
        self.requests: list[RecordedRequest] = []
        self.models = ["fake-model"]
        self.require_key: str | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()  # wakes sleeping handlers at close
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> "FakeOpenAI":
        server = ThreadingHTTPServer((self.host, 0), _make_handler(self))
        server.daemon_threads = True
        server.block_on_close = False  # a handler asleep in a timeout test must not block close
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> "FakeOpenAI":
        return self.start() if self._server is None else self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def port(self) -> int:
        assert self._server is not None, "server not started"
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    # -- scripting ---------------------------------------------------------------------------

    def push(self, *responses: Responder) -> None:
        with self._lock:
            self.queue.extend(responses)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.method == "POST" and r.path.endswith("/chat/completions")]

    def _next(self, request: RecordedRequest) -> Scripted:
        with self._lock:
            responder = self.queue.pop(0) if self.queue else self.default
        if responder is None:
            return status(418, "fake server: no scripted response left")
        return responder(request) if callable(responder) else responder


def _make_handler(fake: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, like real servers; needs Content-Length

        def log_message(self, *args: object) -> None:  # keep pytest output clean
            pass

        def _record(self) -> RecordedRequest:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            req = RecordedRequest(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
            with fake._lock:
                fake.requests.append(req)
            return req

        def _send(self, scripted: Scripted) -> None:
            if scripted.delay_s and fake._stop.wait(scripted.delay_s):
                self.close_connection = True
                return
            try:
                if scripted.raw is not None:
                    self.wfile.write(scripted.raw)
                    self.wfile.flush()
                    self.connection.shutdown(socket.SHUT_RDWR)
                    self.close_connection = True
                    return
                self.send_response(scripted.status)
                for name, value in scripted.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(scripted.body)))
                self.end_headers()
                self.wfile.write(scripted.body)
            except OSError:  # the client gave up (timeout) and closed the socket
                self.close_connection = True

        def _authorised(self, req: RecordedRequest) -> bool:
            return fake.require_key is None or req.headers.get("authorization") == f"Bearer {fake.require_key}"

        def do_GET(self) -> None:
            req = self._record()
            if not self._authorised(req):
                return self._send(status(401, "Incorrect API key provided"))
            if req.path.rstrip("/").endswith("/models"):
                return self._send(_json({"object": "list", "data": [
                    {"id": m, "object": "model", "created": 0, "owned_by": "fake"} for m in fake.models]}))
            self._send(status(404, f"no route {req.path}"))

        def do_POST(self) -> None:
            req = self._record()
            if not self._authorised(req):
                return self._send(status(401, "Incorrect API key provided"))
            if not req.path.endswith("/chat/completions"):
                return self._send(status(404, f"no route {req.path}"))
            self._send(fake._next(req))

    return Handler
