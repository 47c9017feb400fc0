"""An aiosqlite connection that runs each call on the event loop thread instead of its own.

Every aiosqlite call normally crosses to a worker thread and back. A run makes dozens of
small SQLite calls (ours and the checkpointer's), each taking microseconds, so the thread
hand-offs and GIL contention cost far more than the queries: serving runs this way tripled
throughput on a 2-core machine. The one slow SQLite operation, copying the write-ahead log
into the database with an fsync, is moved off the loop by `WalCheckpointer`.

Running inline must never mean waiting inline: SQLite's busy handler sleeps in the calling
thread while another connection holds the write lock, which stopped every request (even
`GET /ok`) for up to the busy timeout. The connection therefore has no busy timeout; a
statement that finds the database locked is retried with `asyncio.sleep` between attempts,
so only the coroutine that needs the database waits.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiosqlite

logger = logging.getLogger(__name__)


# How long a statement keeps retrying while another connection holds the lock (what
# `PRAGMA busy_timeout` was), and the pauses between attempts, as SQLite's own handler.
BUSY_TIMEOUT_SECONDS = 10.0
_FIRST_PAUSE = 0.001
_LONGEST_PAUSE = 0.05
# The calls that run a whole statement, and so can be run again after SQLITE_BUSY.
_STATEMENTS = frozenset({"execute", "executemany", "executescript"})


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    return (getattr(exc, "sqlite_errorcode", 0) & 0xFF) == sqlite3.SQLITE_BUSY


class InlineConnection(aiosqlite.Connection):
    """aiosqlite's API (so the official `AsyncSqliteSaver` accepts it), executed inline."""

    busy_timeout: float = BUSY_TIMEOUT_SECONDS

    async def _execute(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Run the call inline; a statement that finds the database locked waits and retries.

        Only a statement that found no transaction of ours open is retried (sqlite3 may have
        opened one for it, with an implicit BEGIN before a write: undoing that empty
        transaction loses nothing). Once a transaction holds the write lock its statements
        cannot meet SQLITE_BUSY, so a busy error inside one is raised as it is.
        """
        conn = self._connection
        if not self._running or not conn:
            raise ValueError("Connection closed")
        if getattr(fn, "__name__", None) not in _STATEMENTS:
            return fn(*args, **kwargs)
        if fn.__name__ == "executemany" and len(args) > 1:
            # A retry must see every row again, not what a generator has left.
            args = (args[0], list(args[1]), *args[2:])
        deadline: float | None = None
        pause = _FIRST_PAUSE
        while True:
            had_transaction = conn.in_transaction
            try:
                return fn(*args, **kwargs)
            except sqlite3.OperationalError as exc:
                if had_transaction or not _is_busy(exc):
                    raise
                if conn.in_transaction:
                    conn.rollback()
                now = asyncio.get_running_loop().time()
                if deadline is None:
                    deadline = now + self.busy_timeout
                elif now >= deadline:
                    raise
            await asyncio.sleep(pause)
            pause = min(pause * 2, _LONGEST_PAUSE)

    async def execute_now(self, sql: str, parameters: Any = ()) -> sqlite3.Cursor:
        """`execute` without aiosqlite's cursor and result wrappers: sqlite3's own cursor,
        whose fetches are as inline as the statement. A run makes a dozen statements of ours
        and nine checkpoint writes; the wrappers cost more than most of them."""
        conn = self._connection
        if conn is None:
            raise ValueError("Connection closed")
        return await self._execute(conn.execute, sql, parameters)

    async def executemany_now(self, sql: str, rows: list[Any]) -> sqlite3.Cursor:
        """`executemany` as `execute_now` runs `execute`."""
        conn = self._connection
        if conn is None:
            raise ValueError("Connection closed")
        return await self._execute(conn.executemany, sql, rows)


def connect_inline(path: str | Path) -> InlineConnection:
    """Open `path`; await the result (as with `aiosqlite.connect`) before use."""

    def connector() -> sqlite3.Connection:
        # Opened on aiosqlite's thread, then used from the event loop's thread. No busy
        # timeout: `InlineConnection` waits for a lock without blocking the event loop.
        return sqlite3.connect(str(path), timeout=0, check_same_thread=False)

    return InlineConnection(connector, 64)


class WalCheckpointer:
    """Copies the write-ahead log into the database from a thread of its own, every second.

    The serving connection sets `wal_autocheckpoint=0`, so it never stops the event loop for
    the fsync a checkpoint needs; a PASSIVE checkpoint never blocks readers or writers.

    A PASSIVE checkpoint alone never lets the log start over while writes keep coming: SQLite
    rewinds the log only once every frame in it has been copied, and under steady load new
    frames always arrive during the copy. The log then grew by every commit (about 170 KB a
    run: 700 MB after 4,000 runs), and commits grew dearer. So once the log holds
    `restart_frames`, a RESTART checkpoint follows the PASSIVE one, holding `writers` (the
    lock every write on the serving connection takes) meanwhile: SQLite's own busy wait
    would lose the write lock to writers that commit back to back. It copies only the
    frames the PASSIVE one left, and gives up after `RESTART_WAIT_MS` if a reader is still
    on old frames (tried again a second later); writes wait on the lock with asyncio.
    """

    RESTART_WAIT_MS = 200

    def __init__(
        self,
        path: str | Path,
        writers: asyncio.Lock,
        *,
        interval: float = 1.0,
        restart_frames: int = 4096,
    ) -> None:
        self._path = str(path)
        self._interval = interval
        self._writers = writers
        self._restart_frames = restart_frames
        self._task: asyncio.Task[None] | None = None
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        if self._path != ":memory:":
            self._task = asyncio.create_task(self._loop(), name="sqlite-wal-checkpoint")

    def _checkpoint(self, mode: str) -> int:
        """Frames in the log when the checkpoint ran."""
        with self._lock:
            if self._conn is None:
                self._conn = sqlite3.connect(self._path, check_same_thread=False)
                self._conn.execute(f"PRAGMA busy_timeout={self.RESTART_WAIT_MS}")
            _, log_frames, _ = self._conn.execute(f"PRAGMA wal_checkpoint({mode})").fetchone()
            return int(log_frames)

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(self._interval)
            try:
                log_frames = await asyncio.to_thread(self._checkpoint, "PASSIVE")
                if log_frames >= self._restart_frames:
                    async with self._writers:
                        await asyncio.to_thread(self._checkpoint, "RESTART")
            except sqlite3.Error as exc:
                logger.warning("WAL checkpoint failed: %s", exc)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
        # A final full checkpoint leaves a compact database behind.
        await asyncio.to_thread(self._final_checkpoint)

    def _final_checkpoint(self) -> None:
        if self._path == ":memory:":
            return
        conn = sqlite3.connect(self._path)
        try:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        except sqlite3.Error as exc:
            logger.warning("final WAL checkpoint failed: %s", exc)
        finally:
            conn.close()
