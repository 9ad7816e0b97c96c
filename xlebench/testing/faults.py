"""A fault-injecting OpenAI-compatible proxy on 127.0.0.1, for reliability tests.

It forwards ``POST /v1/chat/completions`` to an upstream loopback server and, for the requests
its schedule picks, answers with a fault instead — the ways real endpoints fail:

=================  =====================================================================
``rate_limit``     429 with ``Retry-After`` (the client must wait that long, then retry)
``server_error``   500 with a JSON error body
``hang``           no answer until after the client's timeout, then the connection closes
``non_json``       200 with an HTML body
``truncated``      200 whose JSON body stops half-way (the connection closes early)
``null_content``   200 with a well-formed envelope whose message content is null
``html_content``   200 with a well-formed envelope whose message content is a proxy's HTML
                   error page (what a gateway in front of the model may pass on)
``bad_content``    the upstream's real answer with its message content mangled (valid
                   HTTP and JSON envelope, unusable text for a caller that expects JSON)
=================  =====================================================================

Both ends are loopback only. The schedule is either explicit (request number -> fault) or a
seeded rate, so a test run is repeatable.
"""

from __future__ import annotations

import ipaddress
import json
import random
import socket
import threading
import time
import urllib.parse
import urllib.request
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FAULTS = ("rate_limit", "server_error", "hang", "non_json", "truncated", "null_content",
          "bad_content", "html_content")
ERROR_PAGE = "<html><body><h1>502 Bad Gateway</h1><hr><center>nginx</center></body></html>"


class FaultProxy:
    """``with FaultProxy(upstream_url, schedule={1: "rate_limit"}) as p: ... p.base_url``

    ``schedule`` maps 1-based request numbers to faults; or give ``rate`` (share of requests,
    seeded) and ``kinds`` (faults drawn uniformly); or ``rule(n, body) -> fault | None``.
    """

    def __init__(self, upstream: str, *, schedule: Mapping[int, str] | None = None,
                 rate: float = 0.0, kinds: Sequence[str] = FAULTS, seed: int = 0,
                 rule: Callable[[int, dict], str | None] | None = None,
                 hang_s: float = 3.0, retry_after_s: float = 0.05) -> None:
        host = urllib.parse.urlparse(upstream).hostname or ""
        if not ipaddress.ip_address(socket.gethostbyname(host)).is_loopback:
            raise ValueError(f"FaultProxy forwards to loopback addresses only, not {host}")
        unknown = set(kinds) - set(FAULTS) | set((schedule or {}).values()) - set(FAULTS)
        if unknown:
            raise ValueError(f"unknown faults {sorted(unknown)}; choose from {FAULTS}")
        self.upstream = upstream.rstrip("/")
        self.schedule = dict(schedule or {})
        self.rate, self.kinds, self.rule = rate, tuple(kinds), rule
        self.hang_s, self.retry_after_s = hang_s, retry_after_s
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self.requests = 0
        self.injected: Counter = Counter()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> FaultProxy:
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def _pick(self, body: dict) -> str | None:
        with self._lock:
            self.requests += 1
            n = self.requests
            fault = self.schedule.get(n)
            if fault is None and self.rule is not None:
                fault = self.rule(n, body)
            if fault is None and self.rate and self._rng.random() < self.rate:
                fault = self._rng.choice(self.kinds)
            if fault:
                self.injected[fault] += 1
            return fault

    def _forward(self, raw: bytes) -> tuple[int, bytes]:
        req = urllib.request.Request(f"{self.upstream}/chat/completions", data=raw,
                                     headers={"content-type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as resp:  # noqa: S310 - loopback
                return resp.status, resp.read()
        except urllib.error.HTTPError as err:
            return err.code, err.read()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                return None

            def do_POST(self) -> None:  # noqa: N802 - http.server naming
                raw = self.rfile.read(int(self.headers.get("content-length", 0)))
                fault = proxy._pick(json.loads(raw or b"{}"))
                try:
                    self._answer(fault, raw)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up first (a hang): nothing to do

            def _answer(self, fault: str | None, raw: bytes) -> None:
                if fault == "rate_limit":
                    return self._send(429, _error("rate limited", 429),
                                      {"retry-after": f"{proxy.retry_after_s:g}"})
                if fault == "server_error":
                    return self._send(500, _error("internal error", 500))
                if fault == "hang":
                    time.sleep(proxy.hang_s)
                    self.close_connection = True
                    return None
                if fault == "non_json":
                    return self._send(200, b"<html><body>502 Bad Gateway</body></html>")
                status, body = proxy._forward(raw)
                if fault == "truncated" and status == 200:
                    return self._send(200, body[: len(body) // 2], length=len(body))
                if fault in ("null_content", "bad_content", "html_content") and status == 200:
                    body = _mangle(body, {"null_content": None, "bad_content": "{'answer': ",
                                          "html_content": ERROR_PAGE}[fault])
                return self._send(status, body)

            def _send(self, status: int, body: bytes, headers: dict | None = None,
                      length: int | None = None) -> None:
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(length or len(body)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body)
                if length is not None:  # a short body: close so the client sees it end
                    self.wfile.flush()
                    self.connection.shutdown(socket.SHUT_RDWR)
                    self.close_connection = True

        return Handler


def _error(message: str, code: int) -> bytes:
    return json.dumps({"error": {"message": message, "type": "server_error",
                                 "code": code}}).encode()


def _mangle(body: bytes, content: str | None) -> bytes:
    data = json.loads(body)
    for choice in data.get("choices", []):
        choice["message"]["content"] = content
    return json.dumps(data).encode()
