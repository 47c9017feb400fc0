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


@pytest.mark.parametrize(
    ("given", "problem"),
    [
        ("api:8123", "not an http(s) URL of the API"),  # the scheme forgotten
        ("ftp://api", "not an http(s) URL of the API"),
        ("http://", "not an http(s) URL of the API"),
        ("http://api:port", "not an http(s) URL"),
        ("http://api:8123/?x=1", "without ? or #"),
    ],
)
def test_a_bad_api_url_stops_the_worker_at_start_up(
    given: str, problem: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
):
    """Caught before the worker runs anything, not as httpx's error inside the first graph
    that calls `get_client()`; the environment variable is checked as the flag is."""
    from open_langgraph.cli import main

    for argv, env in (([f"--api-url={given}"], None), ([], given)):
        if env is None:
            monkeypatch.delenv("OLG_API_URL", raising=False)
        else:
            monkeypatch.setenv("OLG_API_URL", env)
        with pytest.raises(SystemExit) as exited:
            main(["worker", *argv, "--database-url", "postgresql://x@127.0.0.1/x"])
        assert exited.value.code == 2
        assert problem in capsys.readouterr().err


@pytest.mark.parametrize("given", ["http://api:8123", "https://[::1]:9/prefix", "http://10.0.0.2"])
def test_an_api_url_is_taken_as_given(given: str):
    from open_langgraph.cli import _parser

    args = _parser().parse_args(["worker", "--api-url", given])
    assert args.api_url == given
