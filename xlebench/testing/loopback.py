"""A small OpenAI-compatible chat server on 127.0.0.1, for tests, benchmarks and dry runs.

It speaks just enough of ``POST /v1/chat/completions`` for litellm's OpenAI client: the
answer text comes from a *responder* (a function of the request body), optionally after an
injected latency; a responder may also ask for an HTTP error status or a delay longer than
the client's timeout. Only loopback addresses are accepted, so a test can never talk to, or
be reached from, another machine.
"""

from __future__ import annotations

import ipaddress
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """What the server answers: a chat message (status 200) or an HTTP error."""

    content: str = ""
    status: int = 200
    delay_s: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    #: Per generated token, ``{token: logprob}`` of its alternatives (the chosen first):
    #: sent as OpenAI's ``logprobs.content`` when the request asks for ``logprobs``.
    logprobs: list[dict[str, float]] | None = None


Responder = Callable[[dict[str, Any]], Reply]


class LoopbackLLMServer:
    """``with LoopbackLLMServer(responder) as srv: ... srv.base_url ... srv.request_count``"""

    def __init__(self, responder: Responder, *, host: str = "127.0.0.1",
                 latency_s: float = 0.0, model: str = "scripted") -> None:
        if not ipaddress.ip_address(host).is_loopback:
            raise ValueError(f"LoopbackLLMServer binds loopback addresses only, not {host}")
        self.responder = responder
        self.latency_s = latency_s
        self.model = model
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._httpd = _Server((host, 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    @property
    def request_count(self) -> int:
        with self._lock:
            return len(self.requests)

    def __enter__(self) -> LoopbackLLMServer:
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            # Keep-alive, as real servers do: a connection per request costs the client a
            # handshake per call and ties throughput to the accept backlog.
            protocol_version = "HTTP/1.1"
            # Headers and body are two writes: without TCP_NODELAY, Nagle's algorithm holds
            # the body until the client's delayed ACK (~40 ms per request).
            disable_nagle_algorithm = True

            def log_message(self, *args: object) -> None:  # keep test output quiet
                return None

            def do_GET(self) -> None:  # noqa: N802 - http.server naming
                if self.path.rstrip("/").endswith("/models"):
                    self._send(200, {"object": "list", "data": [{"id": server.model,
                                                                   "object": "model"}]})
                else:
                    self._send(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:  # noqa: N802
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                arrived = time.perf_counter()
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    server.requests.append(body)
                reply = server.responder(body)
                # The latency is the service time from arrival, responder work included (a
                # scripted answer costs this process CPU that no remote model would).
                spent = time.perf_counter() - arrived
                time.sleep(max(0.0, server.latency_s + reply.delay_s - spent))
                if reply.status != 200:
                    self._send(reply.status, {"error": {"message": reply.content or "error",
                                                        "type": "server_error",
                                                        "code": reply.status}},
                               reply.headers)
                    return
                self._send(200, _completion(body, reply.content, server.model,
                                            reply.logprobs))

            def _send(self, status: int, payload: dict, headers: dict | None = None) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    for k, v in (headers or {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test): nothing to do

        return Handler


class _Server(ThreadingHTTPServer):
    #: socketserver's default backlog is 5: sixteen clients connecting at once would see SYNs
    #: dropped and retried a second later, a stall no real endpoint has.
    request_queue_size = 128


def _completion(body: dict, content: str, model: str,
                logprobs: list[dict[str, float]] | None = None) -> dict[str, Any]:
    prompt_words = sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))
    completion_words = len(content.split())
    choice: dict[str, Any] = {"index": 0, "finish_reason": "stop",
                              "message": {"role": "assistant", "content": content}}
    if body.get("logprobs") and logprobs:
        choice["logprobs"] = {"content": [
            {"token": next(iter(alts)), "logprob": next(iter(alts.values())), "bytes": None,
             "top_logprobs": [{"token": t, "logprob": lp, "bytes": None}
                              for t, lp in alts.items()][: int(body.get("top_logprobs") or 1)]}
            for alts in logprobs]}
    return {
        "id": "chatcmpl-loopback", "object": "chat.completion", "created": 0,
        "model": body.get("model", model),
        "choices": [choice],
        "usage": {"prompt_tokens": prompt_words, "completion_tokens": completion_words,
                  "total_tokens": prompt_words + completion_words},
    }
