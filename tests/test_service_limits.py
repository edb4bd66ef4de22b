"""The service's request limits that do not need a verifier: a body over the limit is refused as it streams in
(chunked, no Content-Length), on every route, without the rest being read; a refused input is not echoed back
whole. In process (httpx's ASGI transport) and over a real socket (uvicorn started here on a free port); no
model is loaded: the app is given a stand-in checker it never reaches."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
import uvicorn

from mermaid_verifier.config import Settings
from mermaid_verifier.service import SHOWN_INPUT_CHARS, Limits, create_app

LIMIT = 1_000
CHUNK = 100


class Unreached:
    """The checker the app is given: these tests are all answered before a route would use it."""

    def __getattr__(self, name: str):
        pytest.fail(f"the checker was used ({name}) by a request that should have been refused")


def limited_app(max_bytes: int = LIMIT):
    return create_app(Settings.from_env({}), checker=Unreached(), limits=Limits(max_request_bytes=max_bytes))  # type: ignore[arg-type]


def client(app) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://service")


# ----------------------------------------------------------------------------- a body past the limit


@pytest.mark.parametrize("path", ["/v1/verify", "/v1/check"])
async def test_a_chunked_body_past_the_limit_gets_413_and_the_rest_is_not_read(path):
    produced = 0

    async def endless() -> AsyncIterator[bytes]:  # far more than the limit, without a Content-Length
        nonlocal produced
        for _ in range(10_000):
            produced += CHUNK
            yield b"x" * CHUNK

    async with client(limited_app()) as http:
        response = await http.post(path, content=endless(), headers={"content-type": "application/json"})
    assert response.request.headers.get("transfer-encoding") == "chunked"
    assert "content-length" not in response.request.headers
    assert response.status_code == 413
    assert response.headers["connection"] == "close"
    detail = response.json()["detail"]
    assert detail == (
        "the request is more than 1,000 bytes; the limit is 1,000 "
        "(send less: check a long text in parts, or fewer or smaller sources)"
    )
    assert LIMIT < produced <= LIMIT + CHUNK  # read up to the chunk that passed the limit, and no further


async def test_a_chunked_body_within_the_limit_is_read_as_before():
    async def parts() -> AsyncIterator[bytes]:
        for part in (b'{"claim"', b": ", b'""}'):
            yield part

    async with client(limited_app()) as http:
        response = await http.post("/v1/verify", content=parts(), headers={"content-type": "application/json"})
    assert response.status_code == 422  # read whole and validated: an empty claim
    assert response.json()["detail"][0]["loc"] == ["body", "claim"]


async def test_a_declared_length_past_the_limit_is_refused_before_any_byte_is_read():
    read = 0

    async def body() -> AsyncIterator[bytes]:
        nonlocal read
        read += 1
        yield b"x" * (LIMIT + 1)

    async with client(limited_app()) as http:
        response = await http.post(
            "/v1/check",
            content=body(),
            headers={"content-type": "application/json", "content-length": str(LIMIT + 1)},
        )
    assert response.status_code == 413 and read == 0
    assert response.json()["detail"].startswith("the request is 1,001 bytes; the limit is 1,000 (send less")


@contextlib.contextmanager
def uvicorn_serving(app) -> Iterator[int]:
    """``app`` served by uvicorn in a thread of this process, on a free loopback port; stopped on leaving."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started:
            assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.02)
        yield port
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        listener.close()


def test_over_a_real_socket_the_413_comes_while_the_client_is_still_sending():
    """The client sends a chunked body past the limit and never ends it: the answer still comes, at once, and
    the server closes the connection instead of reading on."""
    with uvicorn_serving(limited_app()) as port, socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(
            b"POST /v1/check HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
        )
        for _ in range(3):  # 1,200 bytes, and no closing chunk
            conn.sendall(b"190\r\n" + b"x" * 400 + b"\r\n")
        answer = b""
        while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
            received = conn.recv(65536)
            assert received, f"the connection closed before the answer was whole: {answer!r}"
            answer += received
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 413 ")
        assert b"connection: close" in head.lower()
        assert json.loads(body)["detail"].startswith("the request is more than 1,000 bytes; the limit is 1,000")
        rest = b""
        with contextlib.suppress(ConnectionResetError):
            while received := conn.recv(65536):  # nothing more comes; the server closes the connection
                rest += received
        assert rest == b""


# ----------------------------------------------------------------------------- a refused input is not echoed whole

HUGE = 100_000


@pytest.mark.parametrize(
    "path, body, location",
    [
        ("/v1/verify", {"claim": "c" * HUGE}, ["body", "claim"]),
        ("/v1/check", {"text": "t" * (HUGE + 1)}, ["body", "text"]),
        ("/v1/check", {"txt": "t" * HUGE}, ["body", "text"]),  # missing: the echoed input is the whole body
        ("/v1/check", {"text": "ok", "sources": [{"name": "n" * HUGE + ".txt", "content": ""}]}, None),
    ],
    ids=["claim-too-long", "text-too-long", "text-missing", "source-name"],
)
async def test_a_422_keeps_where_and_why_but_echoes_only_the_start_of_a_huge_input(path, body, location):
    async with client(limited_app(max_bytes=1_000_000)) as http:
        response = await http.post(path, json=body)
    assert response.status_code == 422
    assert len(response.content) < 2_000
    errors = response.json()["detail"]
    assert errors and all({"loc", "msg", "type", "input"} <= set(error) for error in errors)
    if location is not None:
        assert errors[0]["loc"] == location
    for error in errors:
        shown = error["input"]
        assert isinstance(shown, str)
        kept, _, note = shown.partition("… (cut: ")
        assert len(kept) == SHOWN_INPUT_CHARS
        assert note.endswith(" characters in all)") and int(note.split()[0].replace(",", "")) >= HUGE


async def test_a_short_input_is_echoed_as_it_was():
    async with client(limited_app()) as http:
        response = await http.post("/v1/check", json={"text": "Paris.", "concurrency": 99})
    assert response.status_code == 422
    [error] = response.json()["detail"]
    assert error["loc"] == ["body", "concurrency"] and error["input"] == 99 and error["type"] == "less_than_equal"
