"""The status and duration of one HTTP exchange, for the middlewares that report on it.

The access log and the request metrics both need them, counted the same way: the status the
response started with (500 when the app raised before starting one) and the time to the
response's end, so a streamed response is timed to its last event.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

Finished = Callable[[int, float], None]


async def run_measured(
    app: ASGIApp, scope: Scope, receive: Receive, send: Send, finished: Finished
) -> None:
    """Runs `app` on one HTTP request and then calls `finished(status, seconds)`, also when
    `app` raised (the error still propagates)."""
    status = 500
    began = time.perf_counter()

    async def sending(message: Message) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        await send(message)

    try:
        await app(scope, receive, sending)
    finally:
        finished(status, time.perf_counter() - began)
