"""The API's side of queue workers' `get_client()`: only the exact shared secret marks a request
as the server's own, and the secret never travels further than that check."""

from __future__ import annotations

import socket

import pytest

from open_langgraph.http_listener import http_url
from open_langgraph.server.loopback import WorkerRequests, is_loopback


async def _seen(headers: list[tuple[bytes, bytes]]) -> dict:
    seen: dict = {}

    async def app(scope, receive, send):
        seen.update(scope)

    await WorkerRequests(app, "s3cret")({"type": "http", "headers": headers}, None, None)
    return seen


@pytest.mark.parametrize(
    ("given", "marked"),
    [
        ([b"s3cret"], True),
        ([b"s3cre"], False),
        ([b"s3cret-and-more"], False),
        ([b"guess", b"s3cret"], False),  # one header, not the first of several guesses
        ([], False),
    ],
)
async def test_only_the_shared_secret_marks_a_request(given: list[bytes], marked: bool):
    headers = [(b"host", b"api"), *((b"x-olg-loopback-token", v) for v in given)]
    scope = await _seen(headers)
    assert is_loopback(scope) is marked
    assert scope["headers"] == [(b"host", b"api")]


@pytest.mark.parametrize(
    ("bind", "reached"), [("127.0.0.1", "127.0.0.1"), ("0.0.0.0", "127.0.0.1"), ("::", "[::1]")]
)
def test_workers_reach_a_wildcard_bind_on_the_loopback(bind: str, reached: str):
    family = socket.AF_INET6 if ":" in bind else socket.AF_INET
    with socket.socket(family) as sock:
        sock.bind((bind, 0))
        port = sock.getsockname()[1]
        assert http_url(sock, "/api", reachable=True) == f"http://{reached}:{port}/api"
