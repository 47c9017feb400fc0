"""The SQLite write-ahead log stays bounded while writes never pause: a busy server's log
once grew by every commit (700 MB after 4,000 runs) because a PASSIVE checkpoint never
catches up with a writer that keeps committing."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from open_langgraph.storage.sqlite._inline import InlineConnection, WalCheckpointer, connect_inline

_ROW = os.urandom(3000)


async def _write_for(conn: InlineConnection, writers: asyncio.Lock, seconds: float) -> int:
    """Commit small transactions back to back under the writers' lock, as a loaded server
    does; how many."""
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    commits = 0
    while loop.time() < end:
        async with writers:
            (await conn.execute_now("INSERT INTO t (v) VALUES (?)", (_ROW,))).close()
            await conn.commit()
        commits += 1
        await asyncio.sleep(0)  # a server's requests interleave with its other tasks
    return commits


async def test_log_starts_over_under_continuous_writes(tmp_path: Path) -> None:
    path = tmp_path / "busy.db"
    conn = await connect_inline(path)
    await conn.execute("PRAGMA journal_mode=WAL")
    await conn.execute("PRAGMA synchronous=NORMAL")
    await conn.execute("PRAGMA wal_autocheckpoint=0")
    await conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB)")
    await conn.commit()
    writers = asyncio.Lock()
    checkpointer = WalCheckpointer(path, writers, interval=0.05, restart_frames=256)
    checkpointer.start()
    try:
        commits = await _write_for(conn, writers, 2.0)
        wal_bytes = (tmp_path / "busy.db-wal").stat().st_size
    finally:
        await checkpointer.stop()
        await conn.close()
    written = commits * len(_ROW)
    # Every commit appended at least its row's page, so a log never rewound holds more than
    # was written; rewound whenever it passes 256 frames, it holds what came in between.
    assert written > 20 * 2**20, f"only {commits} commits: the test wrote too little"
    assert wal_bytes < written / 3, f"log {wal_bytes / 2**20:.0f} MB after {commits} commits"


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
    checkpointer.start()
    try:
        commits = await _write_for(conn, writers, 1.0)
        await reader.rollback()
        rows = (await conn.execute_now("SELECT count(*) FROM t")).fetchone()[0]
    finally:
        await checkpointer.stop()
        await reader.close()
        await conn.close()
    assert rows == commits > 100
