"""What the test Hub and its Xet storage share: an HTTP server on 127.0.0.1 that records every
request and answers it through ``route``, with faults queued to test refusals, retries and
recovery.

A fault is an HTTP status (sent with ``Retry-After`` when given), a timeout (the answer never
comes: the handler holds the connection until the client gives up) or a connection reset (the
socket is closed with RST, no answer), and happens either instead of handling the request or
after it was applied (the answer is lost). A fault matches the Nth request, or requests of a
method and path.
"""

from __future__ import annotations

import json
import re
import select
import socket
import struct
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlparse

STALL_SECONDS = 30  # how long a "timeout" fault holds a connection at most (the client gives up first)


@dataclass
class Fault:
    """``kind`` is an HTTP status as a string ("503"), "timeout" or "reset"."""

    kind: str
    after: bool = False  # apply the request first, then fail: the client never learns it went through
    method: str | None = None  # with ``path``: the requests it matches
    path: str | None = None
    nth: int | None = None  # or: the Nth request the server receives (1-based)
    skip: int = 0  # matching requests to let through first
    retry_after: str | None = None  # the Retry-After header of a status fault

    def matches(self, number: int, method: str, path: str) -> bool:
        if self.nth is not None:
            return number == self.nth
        if method != self.method or re.search(self.path, path) is None:
            return False
        self.skip -= 1
        return self.skip < 0


@dataclass
class RawFile:
    """Bytes answered as they are, with their headers (a file's content, a shard, a xorb range)."""

    data: bytes
    headers: dict


@dataclass
class Request:
    method: str
    path: str
    query: dict
    headers: dict  # lower-case names
    body: bytes


class Server:
    """Serves ``route(request) -> (status, JSON payload or RawFile)`` on 127.0.0.1."""

    def __init__(self, prefix: str = ""):
        # ``prefix``: a first path segment every URL handed out carries and every request is read
        # without (a client that keys its caches by endpoint sees each server as new)
        self.prefix = prefix
        self.requests: list[Request] = []
        self.faults: list[Fault] = []  # each used once, the first that matches a request
        self.injected: list[tuple[Fault, Request]] = []  # faults that happened, with their request
        self.stalls = threading.Event()  # set on exit: releases the connections "timeout" faults hold
        self.gave_up: list[bool] = []  # for each "timeout" fault: whether the client gave up (closed) first
        self.stalling = 0  # "timeout" faults chosen whose connection is still held (see ``settled``)
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}{prefix}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stalls.set()
        self.server.shutdown()
        self.server.server_close()

    def route(self, req: Request):
        raise NotImplementedError

    def settled(self, timeout: float = 10) -> list[bool]:
        """``gave_up`` once every "timeout" fault chosen so far has let its connection go: its
        handler sees the client's close only when it next looks (every 50 ms), which can be after
        the client has gone on and the test reads the list (a test once read it empty)."""
        deadline = time.monotonic() + timeout
        while self.stalling:
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.stalling} connection(s) of timeout faults still held after {timeout} s")
            time.sleep(0.01)
        with self.lock:
            return list(self.gave_up)

    def fail(self, method: str, path_regex: str, status: int | str, times: int = 1, after: bool = False,
             skip: int = 0, retry_after: str | None = None) -> None:
        """Fail ``times`` matching requests, after letting ``skip`` through, with ``status`` (or
        "timeout", "reset"): instead of handling them, or, with ``after``, once they were handled
        (the client never learns they succeeded)."""
        self.faults.extend(Fault(str(status), after, method, path_regex, skip=skip, retry_after=retry_after)
                           for _ in range(times))

    def fail_nth(self, n: int, kind: str, after: bool = False) -> None:
        """Fail the Nth request the server receives, counting from 1 since it started."""
        self.faults.append(Fault(str(kind), after, nth=n))

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # keep test output quiet
                pass

            def _send(self, status: int, payload=None, extra: dict | None = None) -> None:
                if isinstance(payload, RawFile):
                    self.send_response(status)
                    for name, value in {**payload.headers, "Content-Length": str(len(payload.data))}.items():
                        self.send_header(name, value)
                    self.end_headers()
                    if self.command != "HEAD":
                        self.wfile.write(payload.data)
                    return
                body = json.dumps(payload if payload is not None else {}).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                if status >= 400:
                    self.send_header("X-Error-Message", (payload or {}).get("error", "error"))
                for name, value in (extra or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            def _handle(self, method: str) -> None:
                url = urlparse(self.path)
                if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                    body = self._read_chunked()
                else:
                    length = int(self.headers.get("Content-Length") or 0)
                    body = self.rfile.read(length) if length else b""
                headers = {k.lower(): v for k, v in self.headers.items()}
                path = unquote(url.path)
                req = Request(method, path.removeprefix(server.prefix) if server.prefix else path, parse_qs(url.query),
                              headers, body)
                with server.lock:
                    server.requests.append(req)
                    number = len(server.requests)
                    # every fault sees every request: each counts the matches it skips
                    fault = next(iter([f for f in server.faults if f.matches(number, method, req.path)]), None)
                    if fault is not None:
                        server.faults.remove(fault)
                        server.injected.append((fault, req))
                        server.stalling += fault.kind == "timeout"
                    if fault is None or fault.after:
                        try:
                            status, payload = server.route(req)
                        except Exception as exc:  # a bug in the test server must show, not hang the client
                            status, payload = 500, {"error": f"test server error: {exc!r}"}
                if fault is None:
                    return self._send(status, payload)
                self._inject(fault)

            def _inject(self, fault: Fault) -> None:
                self.close_connection = True
                if fault.kind == "timeout":  # no answer until the client gives up and closes
                    gave_up = False
                    try:
                        gave_up = self._stall()
                    finally:
                        with server.lock:
                            server.gave_up.append(gave_up)
                            server.stalling -= 1
                elif fault.kind == "reset":  # RST instead of an answer
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.connection.close()
                else:
                    when = "after applying the request" if fault.after else "instead of handling the request"
                    extra = {"Retry-After": fault.retry_after} if fault.retry_after is not None else {}
                    self._send(int(fault.kind), {"error": f"injected {fault.kind} {when}"}, extra)

            def _stall(self) -> bool:
                """Hold the connection until the client closes it (True) or the server stops (False)."""
                deadline = time.monotonic() + STALL_SECONDS
                while not server.stalls.is_set() and time.monotonic() < deadline:
                    if select.select([self.connection], [], [], 0.05)[0]:
                        try:
                            if not self.connection.recv(65536, socket.MSG_PEEK):
                                return True
                            self.connection.recv(65536)  # more of a body the handler did not read: drop it
                        except OSError:
                            return True
                return False

            def _read_chunked(self) -> bytes:
                body = b""
                while True:
                    size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                    if size == 0:
                        self.rfile.readline()
                        return body
                    body += self.rfile.read(size)
                    self.rfile.readline()

            def do_GET(self):
                self._handle("GET")

            def do_HEAD(self):
                self._handle("HEAD")

            def do_POST(self):
                self._handle("POST")

            def do_DELETE(self):
                self._handle("DELETE")

            def do_PUT(self):
                self._handle("PUT")

        return Handler
