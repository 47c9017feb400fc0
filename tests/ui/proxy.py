"""A TCP proxy whose open connections a test can cut, to drop a browser's connection to the
server mid-stream the way a flaky network or a restarting load balancer does.

It runs its own asyncio loop in a thread (the Playwright tests are synchronous). `cut()` closes
every connection open at that moment, both sides, and keeps accepting new ones, so a client
that reconnects gets through. What clients send is kept (`requests`) so a test can check how
they reconnected (the `Last-Event-ID` header).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import threading
from collections.abc import Coroutine, Iterator
from typing import Any, NamedTuple, TypeVar

from tests.fixtures.server import free_port

T = TypeVar("T")
_REQUEST = re.compile(r"(GET|POST|PUT|PATCH|DELETE) (\S+) HTTP/1\.[01]\r\n(.*?)\r\n\r\n", re.S)


class Request(NamedTuple):
    method: str
    path: str
    headers: dict[str, str]


class CuttableProxy:
    """Forwards 127.0.0.1:`port` to 127.0.0.1:`upstream_port`."""

    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.port = free_port()
        self.cuts = 0
        self._sent: list[bytearray] = []
        self._writers: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: asyncio.AbstractServer | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self._thread.start()
        self._call(self._start())

    def cut(self) -> int:
        """Close every open connection (client and server side); how many were open."""
        return self._call(self._cut())

    def requests(self) -> list[Request]:
        """The requests clients sent so far, connection by connection."""
        found = []
        for sent in list(self._sent):
            for match in _REQUEST.finditer(bytes(sent).decode("latin-1")):
                method, path, head = match.groups()
                headers = dict(
                    (name.strip().lower(), value.strip())
                    for name, _, value in (line.partition(":") for line in head.split("\r\n"))
                )
                found.append(Request(method, path, headers))
        return found

    def close(self) -> None:
        self._call(self._close())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)
        self._loop.close()

    def _call(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run `coroutine` on the proxy's loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout=10)

    async def _start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)

    async def _cut(self) -> int:
        open_now = list(self._writers)
        for writer in open_now:
            # At once, without flushing what is still buffered: the connection is lost.
            writer.transport.abort()
        self.cuts += 1
        return len(open_now)

    async def _close(self) -> None:
        if self._server is not None:
            self._server.close()
        await self._cut()
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=5)

    async def _serve(
        self, client_in: asyncio.StreamReader, client_out: asyncio.StreamWriter
    ) -> None:
        try:
            server_in, server_out = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        except OSError:
            client_out.close()
            return
        sent = bytearray()
        self._sent.append(sent)
        with self._tracked(client_out, server_out):
            await asyncio.gather(
                self._pipe(client_in, server_out, sent),
                self._pipe(server_in, client_out, None),
            )

    @contextlib.contextmanager
    def _tracked(self, *writers: asyncio.StreamWriter) -> Iterator[None]:
        self._writers.update(writers)
        try:
            yield
        finally:
            for writer in writers:
                self._writers.discard(writer)
                writer.close()

    async def _pipe(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        record: bytearray | None,
    ) -> None:
        """Copy until either side ends, keeping a copy in `record`; then close the writer
        (which ends the other direction of this connection too)."""
        try:
            while data := await reader.read(65536):
                if record is not None:
                    record += data
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()
