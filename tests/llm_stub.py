"""A Chat Completions endpoint on 127.0.0.1 for wire tests: it records every request body the code sends
through the real ``openai`` client, and answers from a list of replies — recorded from a real server
(``tests/fixtures/llama_cpp/``) or written by a test for an error path.

In ``upstream`` mode it forwards each request to a real server instead and keeps the exchange, which
is how ``tests/fixtures/llama_cpp/record.py`` recorded the fixtures.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures" / "llama_cpp"


@dataclass
class Reply:
    status: int
    body: dict
    delay: float = 0.0  # seconds to wait before answering (timeouts)


@dataclass
class Exchange:
    path: str
    request: dict
    status: int | None = None  # None until answered
    response: dict | None = None


@dataclass
class StubServer:
    replies: list[Reply] = field(default_factory=list)
    upstream: str | None = None  # forward to this base URL (…/v1) and record, instead of replaying
    exchanges: list[Exchange] = field(default_factory=list)

    def __post_init__(self) -> None:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as real servers: clients reuse pooled connections

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                status, answer = stub._answer(self.path, body)
                payload = json.dumps(answer).encode()
                try:
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test): nothing to deliver

            def log_message(self, *args) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    @property
    def requests(self) -> list[dict]:
        return [e.request for e in self.exchanges]

    def _answer(self, path: str, body: dict) -> tuple[int, dict]:
        exchange = Exchange(path, body)
        with self._lock:
            self.exchanges.append(exchange)  # recorded on arrival, answered below
            reply = self.replies.pop(0) if self.replies else None
        if self.upstream is not None:
            exchange.status, exchange.response = forward(self.upstream + path.removeprefix("/v1"), body)
        elif reply is None:
            exchange.status = 599
            exchange.response = {"error": {"message": f"the stub has no reply left for request {len(self.exchanges)}"}}
        else:
            time.sleep(reply.delay)
            exchange.status, exchange.response = reply.status, reply.body
        return exchange.status, exchange.response

    def __enter__(self) -> StubServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()


def forward(url: str, body: dict) -> tuple[int, dict]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=600) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        text = error.read()
        try:
            return error.code, json.loads(text)
        except ValueError:
            return error.code, {"error": {"message": text.decode(errors="replace")}}


def recorded(name: str) -> dict:
    """A recorded fixture: ``{"recorded_with": …, "exchanges": [{path, request, status, response}, …]}``."""
    return json.loads((FIXTURES / f"{name}.json").read_text())


def replies_from(name: str) -> list[Reply]:
    return [Reply(e["status"], e["response"]) for e in recorded(name)["exchanges"]]
