"""The SQLite write-ahead log stays bounded while writes never pause: a busy server's log
once grew by every commit (700 MB after 4,000 runs) because a PASSIVE checkpoint never
catches up with a writer that keeps committing."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from open_langgraph.storage.sqlite._inline import InlineConnection, WalCheckpointer, connect_inline

_ROW = os.urandom(3000)


async def _commit(conn: InlineConnection, writers: asyncio.Lock) -> None:
    """One small transaction under the writers' lock, as a loaded server commits them."""
    async with writers:
        (await conn.execute_now("INSERT INTO t (v) VALUES (?)", (_ROW,))).close()
        await conn.commit()
    await asyncio.sleep(0)  # a server's requests interleave with its other tasks


async def test_log_starts_over_under_continuous_writes(tmp_path: Path) -> None:
    path = tmp_path / "busy.db"
    conn = await connect_inline(path)
    await conn.execute("PRAGMA journal_mode=WAL")
    await conn.execute("PRAGMA synchronous=NORMAL")
    await conn.execute("PRAGMA wal_autocheckpoint=0")
    await conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB)")
    await conn.commit()
    writers = asyncio.Lock()
    checkpointer = WalCheckpointer(path, writers, interval=0.01, restart_frames=256)
    checkpointer.start()
    # Counted, not timed, so a loaded machine changes nothing. Paced at most ten commits a
    # millisecond (a server's commits are runs' steps, not a tight loop): back to back, a
    # fast machine commits hundreds within one checkpoint interval, which only measures
    # the interval.
    commits = 8000
    try:
        for done in range(1, commits + 1):
            await _commit(conn, writers)
            if done % 10 == 0:
                await asyncio.sleep(0.001)
        wal_bytes = (tmp_path / "busy.db-wal").stat().st_size
    finally:
        await checkpointer.stop()
        await conn.close()
    appended = commits * 4096
    # Every commit appended at least a page (4 KB) to the log, so a log never rewound holds
    # more than that; rewound whenever it passes 256 frames, its file keeps only the most it
    # held between two checkpoints.
    assert wal_bytes < appended / 4, f"log {wal_bytes / 2**20:.0f} MB after {commits} commits"


async def test_checkpoint_gives_way_to_a_reader(tmp_path: Path) -> None:
    """A reader holding an old snapshot stops the log's rewind, not the writers: the RESTART
    checkpoint gives up after its short wait and commits go on."""
    path = tmp_path / "read.db"
    conn = await connect_inline(path)
    await conn.execute("PRAGMA journal_mode=WAL")
    await conn.execute("PRAGMA wal_autocheckpoint=0")
    await conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB)")
    await conn.commit()
    reader = await connect_inline(path)
    await reader.execute("BEGIN")
    (await reader.execute_now("SELECT count(*) FROM t")).fetchall()  # holds its snapshot
    writers = asyncio.Lock()
    checkpointer = WalCheckpointer(path, writers, interval=0.05, restart_frames=16)
    commits = 0
    restarts: list[int] = []  # the commits made by the time each RESTART began
    checkpoint = checkpointer._checkpoint

    def watched(mode: str) -> int:
        if mode == "RESTART":
            restarts.append(commits)
        return checkpoint(mode)

    checkpointer._checkpoint = watched  # type: ignore[method-assign]
    checkpointer.start()

    async def write_through_restarts() -> None:
        nonlocal commits
        while len(restarts) < 3:
            await _commit(conn, writers)
            commits += 1

    try:
        # Bounded by a timeout, not timed: writers stuck behind the checkpoint never finish.
        await asyncio.wait_for(write_through_restarts(), timeout=60)
        await reader.rollback()
        rows = (await conn.execute_now("SELECT count(*) FROM t")).fetchone()[0]
    finally:
        await checkpointer.stop()
        await reader.close()
        await conn.close()
    assert rows == commits
    # Commits went on between the RESTART attempts the reader made give up.
    assert restarts[0] < restarts[1] < restarts[2]
