"""The durable run queue in PostgreSQL: what API processes and workers share about runs.

Every decision that must hold across processes is taken inside one transaction here: which
run a worker takes (`FOR UPDATE SKIP LOCKED`, the oldest due run of a thread with nothing
running), what a new run does to a busy thread (under the thread row's lock, so two
`reject` requests cannot both win), who owns a running run (a lease the worker renews),
and who may store its end (only the lease holder).

Lock order, to never deadlock: a thread's row first, then its runs' rows. Every
transaction here that changes both takes them in that order; claiming changes only a run.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from psycopg import errors
from psycopg.rows import DictRow
from psycopg_pool import AsyncConnectionPool

from open_langgraph.errors import Conflict
from open_langgraph.storage._threads import thread_update_sets
from open_langgraph.storage.base import StoredEvent, ThreadUpdate
from open_langgraph.storage.postgres._db import (
    POSTGRES,
    RUN_COLUMNS,
    Conn,
    PostgresBase,
    jsonb,
    pyformat,
    run_record,
)

CancelAction = Literal["interrupt", "rollback"]
logger = logging.getLogger(__name__)
_IN_FLIGHT = "('pending', 'running')"
_EXPIRED = "COALESCE(lease_expires_at, '-infinity') < now()"
_CLAIM = f"""
WITH candidate AS (
    SELECT r.run_id FROM runs r
    WHERE r.status = 'pending' AND r.available_at <= now()
      AND NOT EXISTS (
        SELECT 1 FROM runs o
        WHERE o.thread_id = r.thread_id AND o.status IN {_IN_FLIGHT}
          AND (o.status = 'running' OR o.seq < r.seq)
      )
    ORDER BY r.seq
    LIMIT %s
    FOR UPDATE OF r SKIP LOCKED
)
UPDATE runs SET status = 'running', worker_id = %s, cancel_action = NULL,
    lease_expires_at = now() + make_interval(secs => %s), updated_at = now()
FROM candidate WHERE runs.run_id = candidate.run_id
RETURNING {", ".join(f"runs.{c.strip()}" for c in RUN_COLUMNS.split(","))}, runs.attempt,
    (SELECT COALESCE(MAX(seq), -1) + 1 FROM run_events e WHERE e.run_id = runs.run_id)
    AS next_seq
"""


class PostgresRunQueue(PostgresBase):
    """Queue operations on the storage's pools; used only when workers execute runs.

    `relaxed_pool` commits without waiting for the disk (see `storage/postgres`'s
    docstring). It takes the writes a PostgreSQL crash may undo without harm, because what
    they record is recovered anyway: claims and leases expire, a resumed run re-emits its
    events. The next synchronous commit, such as the run's end, makes them durable too.
    """

    def __init__(
        self, pool: AsyncConnectionPool[Conn], relaxed_pool: AsyncConnectionPool[Conn]
    ) -> None:
        super().__init__(pool)
        self._relaxed_pool = relaxed_pool

    @contextlib.asynccontextmanager
    async def _pipelined(self) -> AsyncIterator[Conn]:
        """A transaction in pipeline mode: statements whose results are not read go out
        without waiting for each other, so a transaction costs a few round trips, not one
        per statement."""
        async with self.pool.connection() as conn, conn.pipeline(), conn.transaction():
            yield conn

    async def _relaxed(self, sql: str, params: Sequence[Any]) -> list[DictRow]:
        """One autocommitted statement on the relaxed pool; the rows it returns."""
        async with self._relaxed_pool.connection() as conn:
            cur = await conn.execute(sql, params)  # type: ignore[arg-type]
            return await cur.fetchall() if cur.description else []

    # -- API side --------------------------------------------------------------------------
    async def enqueue(
        self,
        run: dict[str, Any],
        thread_update: ThreadUpdate,
        strategy: str | None,
        after_seconds: float,
        start_event: StoredEvent | None = None,
    ) -> tuple[list[str], list[str]]:
        """Store a pending run with its first event (`start_event`, id 0; without one, the
        worker streams it), applying `strategy` to the runs in flight on its thread.

        Returns the runs the strategy ended at once (they were only queued) and the running
        ones it asked to cancel; the caller tells workers and waiters.
        """
        ended: list[str] = []
        running: list[str] = []
        store = _stored_run(run, thread_update, after_seconds, start_event)
        if strategy is None or strategy == "enqueue":
            # Decides nothing about the runs in flight: no lock, one autocommitted statement.
            async with self.pool.connection() as conn:
                await conn.execute(*store)
            return ended, running
        async with self._pipelined() as conn:
            await _lock_thread(conn, run["thread_id"])
            cur = await conn.execute(
                f"SELECT run_id, status FROM runs WHERE thread_id = %s "
                f"AND status IN {_IN_FLIGHT} ORDER BY seq FOR UPDATE",
                (run["thread_id"],),
            )
            in_flight = await cur.fetchall()
            if in_flight and strategy == "reject":
                raise Conflict(
                    f"Thread {run['thread_id']} is busy with another run; "
                    "multitask_strategy is 'reject'"
                )
            if in_flight and strategy in ("interrupt", "rollback"):
                ended, running = await _cancel_rows(conn, in_flight, strategy)
            await conn.execute(*store)
        return ended, running

    async def request_cancel(
        self, thread_id: str | None, run_ids: Sequence[str], action: CancelAction
    ) -> tuple[list[str], list[str]]:
        """Cancel runs in flight: queued ones end here, running ones are flagged for their
        worker. Returns (ended, running) as `enqueue` does."""
        sql = f"SELECT run_id, status FROM runs WHERE run_id = ANY(%s) AND status IN {_IN_FLIGHT}"
        params: list[Any] = [list(run_ids)]
        if thread_id is not None:
            sql += " AND thread_id = %s"
            params.append(thread_id)
        async with self._pipelined() as conn:
            await conn.execute(
                "SELECT 1 FROM threads WHERE thread_id IN "
                "(SELECT thread_id FROM runs WHERE run_id = ANY(%s)) ORDER BY thread_id FOR UPDATE",
                (list(run_ids),),
            )
            cur = await conn.execute(sql + " ORDER BY seq FOR UPDATE", params)
            rows = await cur.fetchall()
            return await _cancel_rows(conn, rows, action)

    async def in_flight(self, thread_id: str | None, status: str | None) -> list[str]:
        sql = f"SELECT run_id FROM runs WHERE status IN {_IN_FLIGHT}"
        params: list[Any] = []
        if status in ("pending", "running"):
            sql = "SELECT run_id FROM runs WHERE status = %s"
            params.append(status)
        if thread_id is not None:
            sql += " AND thread_id = %s"
            params.append(thread_id)
        return [row["run_id"] for row in await self.fetchall(sql + " ORDER BY seq", params)]

    async def is_in_flight(self, run_id: str) -> bool:
        row = await self.fetchone(
            f"SELECT 1 AS found FROM runs WHERE run_id = %s AND status IN {_IN_FLIGHT}", (run_id,)
        )
        return row is not None

    async def is_busy(self, thread_id: str) -> bool:
        row = await self.fetchone(
            f"SELECT 1 AS found FROM runs WHERE thread_id = %s AND status IN {_IN_FLIGHT} LIMIT 1",
            (thread_id,),
        )
        return row is not None

    async def last_event_seq(self, run_id: str) -> int:
        row = await self.fetchone(
            "SELECT COALESCE(MAX(seq), -1) AS seq FROM run_events WHERE run_id = %s", (run_id,)
        )
        return -1 if row is None else int(row["seq"])

    # -- worker side -----------------------------------------------------------------------
    async def claim(
        self, worker_id: str, lease_seconds: float, limit: int = 1
    ) -> list[dict[str, Any]]:
        """Take up to `limit` of the oldest due runs whose threads have nothing running
        (one per thread: only a thread's oldest queued run is a candidate), leased."""
        try:
            rows = await self._relaxed(_CLAIM, (limit, worker_id, lease_seconds))
        except errors.UniqueViolation:
            # Another worker started a run of one of those threads a moment before.
            logger.debug("claim by %s lost a race; retrying", worker_id)
            return []
        claimed = []
        for row in rows:
            run = run_record(row)
            # The API record (without the outcome fields of a run not ended yet), plus what
            # the worker needs: the attempt, and the id its first event gets.
            del run["output"], run["error"]
            run["attempt"] = row["attempt"]
            run["next_seq"] = row["next_seq"]
            claimed.append(run)
        claimed.sort(key=lambda run: run["created_at"])
        return claimed

    async def renew(
        self, worker_id: str, run_ids: Sequence[str], lease_seconds: float
    ) -> dict[str, str | None]:
        """Extend the leases this worker still holds; returns them with any cancel request.
        A run missing from the answer is no longer this worker's to finish."""
        if not run_ids:
            return {}
        rows = await self._relaxed(
            "UPDATE runs SET lease_expires_at = now() + make_interval(secs => %s) "
            "WHERE run_id = ANY(%s) AND worker_id = %s AND status = 'running' "
            "RETURNING run_id, cancel_action",
            (lease_seconds, list(run_ids), worker_id),
        )
        return {row["run_id"]: row["cancel_action"] for row in rows}

    async def reap(self, max_attempts: int) -> tuple[list[str], list[tuple[str, str]]]:
        """Take back runs whose worker stopped renewing: queue them again (attempt + 1) to
        resume from their last checkpoint, or end them `error` after `max_attempts`.
        Returns (requeued run ids, failed (run id, thread id) pairs)."""
        expired = await self.fetchall(
            "SELECT run_id, thread_id FROM runs WHERE status = 'running' "
            f"AND {_EXPIRED} ORDER BY seq"
        )
        requeued: list[str] = []
        failed: list[tuple[str, str]] = []
        for candidate in expired:
            async with self.transaction() as conn:
                await _lock_thread(conn, candidate["thread_id"])
                cur = await conn.execute(
                    f"SELECT attempt FROM runs WHERE run_id = %s AND status = 'running' "
                    f"AND {_EXPIRED} FOR UPDATE SKIP LOCKED",
                    (candidate["run_id"],),
                )
                row = await cur.fetchone()
                if row is None:
                    continue  # renewed, ended or reaped by another worker meanwhile
                if row["attempt"] < max_attempts:
                    await conn.execute(
                        "UPDATE runs SET status = 'pending', worker_id = NULL, "
                        "lease_expires_at = NULL, attempt = attempt + 1, available_at = now(), "
                        "updated_at = now() WHERE run_id = %s",
                        (candidate["run_id"],),
                    )
                    requeued.append(candidate["run_id"])
                    continue
                error = {
                    "error": "WorkerLost",
                    "message": f"the worker executing this run stopped; gave up after "
                    f"{row['attempt']} attempts",
                }
                await _finish(
                    conn,
                    candidate["run_id"],
                    "error",
                    {"__error__": error},
                    error,
                    ThreadUpdate(status="error", error=error),
                )
                failed.append((candidate["run_id"], candidate["thread_id"]))
        return requeued, failed

    async def handback(self, run_id: str, worker_id: str) -> bool:
        """Give a run this worker cannot finish back to the queue, to resume elsewhere."""
        changed = await self.write(
            "UPDATE runs SET status = 'pending', worker_id = NULL, lease_expires_at = NULL, "
            "attempt = attempt + 1, available_at = now(), updated_at = now() "
            "WHERE run_id = %s AND worker_id = %s AND status = 'running'",
            (run_id, worker_id),
        )
        return changed > 0

    async def append_events(self, events: Sequence[tuple[str, StoredEvent]]) -> None:
        """Store (run id, event) pairs the moment they happen, so any process can replay
        them; one statement for whatever accumulated, across runs."""
        await self._relaxed(
            "INSERT INTO run_events (run_id, seq, event, data) "
            "SELECT * FROM unnest(%s::text[], %s::int[], %s::text[], %s::bytea[]) "
            "ON CONFLICT DO NOTHING",
            (
                [run_id for run_id, _ in events],
                [e.seq for _, e in events],
                [e.event for _, e in events],
                [e.data for _, e in events],
            ),
        )

    async def store_live_traces(self, traces: Sequence[tuple[str, bytes]]) -> None:
        """Store (run id, trace so far) pairs of runs still executing, for API processes to
        show; the run's end replaces them (`finish_claimed`)."""
        await self._relaxed(
            "INSERT INTO run_traces (run_id, data) "
            "SELECT * FROM unnest(%s::text[], %s::bytea[]) "
            "ON CONFLICT (run_id) DO UPDATE SET data = excluded.data",
            ([run_id for run_id, _ in traces], [data for _, data in traces]),
        )

    async def finish_claimed(
        self,
        run_id: str,
        thread_id: str,
        worker_id: str,
        *,
        status: str,
        output: Any,
        error: dict[str, Any] | None,
        thread_update: ThreadUpdate | None,
        first_seq: int,
        kept_seqs: Sequence[int],
        trace: bytes | None = None,
    ) -> bool:
        """Store the end of a run this worker still holds; False if its lease was lost (the
        run is someone else's now, and this attempt's end must not count).

        Events this attempt stored but later superseded (`messages/partial`) are dropped:
        replays get only the newest of them, as from a single-process server.
        """
        # One round trip: in pipeline mode, autocommitted statements up to the sync that
        # ends the block form one implicit transaction, each statement with its own
        # snapshot, so the end sees every run committed before it got the thread's lock.
        async with self.pool.connection() as conn:
            async with conn.pipeline():
                await _lock_thread(conn, thread_id)
                cur = await conn.execute(
                    *_end_statement(
                        run_id,
                        status,
                        output,
                        error,
                        thread_update,
                        worker_id,
                        _Ending(first_seq, kept_seqs, trace),
                    )
                )
            return _ended(await cur.fetchone(), thread_update)


def _stored_run(
    run: dict[str, Any],
    thread_update: ThreadUpdate,
    after_seconds: float,
    start_event: StoredEvent | None,
) -> tuple[str, list[Any]]:
    """One statement storing a new pending run, its first event and its thread's update."""
    params: list[Any] = [
        run["run_id"],
        run["thread_id"],
        run["assistant_id"],
        run["created_at"],
        run["updated_at"],
        jsonb(run["metadata"]),
        jsonb(run["kwargs"]),
        run["multitask_strategy"],
        after_seconds,
    ]
    sql = (
        f"WITH queued AS (INSERT INTO runs ({RUN_COLUMNS}, available_at) VALUES "
        "(?,?,?,?,?,'pending',?,?,?,NULL,NULL, now() + make_interval(secs => ?)))"
    )
    if start_event is not None:
        sql += ", started AS (INSERT INTO run_events (run_id, seq, event, data) VALUES (?,?,?,?))"
        params += [run["run_id"], start_event.seq, start_event.event, start_event.data]
    sets = thread_update_sets(POSTGRES, thread_update, params)
    params.append(run["thread_id"])
    sql += f" UPDATE threads SET {', '.join(sets)} WHERE thread_id = ?"
    return pyformat(sql), params


async def _lock_thread(conn: Conn, thread_id: str) -> None:
    await conn.execute("SELECT 1 FROM threads WHERE thread_id = %s FOR UPDATE", (thread_id,))


async def _cancel_rows(
    conn: Conn, rows: Sequence[dict[str, Any]], action: CancelAction | str
) -> tuple[list[str], list[str]]:
    """Queued runs end now (`interrupted`, or gone on rollback); running ones get flagged."""
    queued = [r["run_id"] for r in rows if r["status"] == "pending"]
    running = [r["run_id"] for r in rows if r["status"] == "running"]
    if queued and action == "rollback":
        await conn.execute("DELETE FROM run_events WHERE run_id = ANY(%s)", (queued,))
        await conn.execute("DELETE FROM runs WHERE run_id = ANY(%s)", (queued,))
    elif queued:
        await conn.execute(
            "UPDATE runs SET status = 'interrupted', updated_at = now() WHERE run_id = ANY(%s)",
            (queued,),
        )
    if running:
        await conn.execute(
            "UPDATE runs SET cancel_action = %s WHERE run_id = ANY(%s)", (action, running)
        )
    return queued, running


@dataclass(frozen=True, slots=True)
class _Ending:
    """What a worker stores with the end of its run besides the run and thread rows."""

    first_seq: int
    """The id of this attempt's first event: its events from there on not in `kept_seqs`
    were superseded and go."""
    kept_seqs: Sequence[int]
    trace: bytes | None


async def _finish(
    conn: Conn,
    run_id: str,
    status: str,
    output: Any,
    error: dict[str, Any] | None,
    thread_update: ThreadUpdate | None,
) -> bool:
    """End a run inside the caller's transaction, which holds its thread's lock
    (`_end_statement`); False if there was no such run to end."""
    cur = await conn.execute(*_end_statement(run_id, status, output, error, thread_update))
    return _ended(await cur.fetchone(), thread_update)


def _end_statement(
    run_id: str,
    status: str,
    output: Any,
    error: dict[str, Any] | None,
    thread_update: ThreadUpdate | None,
    worker_id: str | None = None,
    ending: _Ending | None = None,
) -> tuple[str, list[Any]]:
    """The statement that ends a run (only if `worker_id` still holds it, when given) and
    updates its thread; a thread with more runs in flight stays `busy` (`_ended` reads
    its answer).

    One statement, whose parts each happen only if the run was ended. It must follow the
    thread's row lock (`_lock_thread`) in the same transaction, as a statement of its own:
    a statement sees the runs committed before it began, so the check for runs still in
    flight is complete only once no other transaction can add one to the thread
    (enqueueing updates the thread row).
    """
    params: list[Any] = [status, jsonb(output), jsonb(error), run_id]
    sql = (
        "WITH ended AS (UPDATE runs SET status = ?, updated_at = now(), output = ?, "
        "error = ?, worker_id = NULL, lease_expires_at = NULL, cancel_action = NULL "
        "WHERE run_id = ?"
    )
    if worker_id is not None:
        sql += " AND worker_id = ? AND status = 'running'"
        params.append(worker_id)
    sql += " RETURNING thread_id)"
    if ending is not None:
        sql += (
            ", dropped AS (DELETE FROM run_events WHERE run_id = ? AND seq >= ? "
            "AND NOT (seq = ANY(?)) AND EXISTS (SELECT 1 FROM ended))"
        )
        params += [run_id, ending.first_seq, list(ending.kept_seqs)]
        if ending.trace is not None:
            sql += (
                ", traced AS (INSERT INTO run_traces (run_id, data) SELECT ?, ? "
                "WHERE EXISTS (SELECT 1 FROM ended) "
                "ON CONFLICT (run_id) DO UPDATE SET data = excluded.data)"
            )
            params += [run_id, ending.trace]
    thread_status = "NULL::text"
    if thread_update is not None:
        # The run's own row still reads `running` here (a statement does not see its own
        # changes), hence `run_id <>`.
        sets = thread_update_sets(POSTGRES, replace(thread_update, status=None), params)
        sets.append(
            "status = CASE WHEN EXISTS (SELECT 1 FROM runs o WHERE o.thread_id = "
            f"threads.thread_id AND o.status IN {_IN_FLIGHT} AND o.run_id <> ?) "
            "THEN 'busy' ELSE COALESCE(?, threads.status) END"
        )
        params += [run_id, thread_update.status]
        sql += (
            f", thread AS (UPDATE threads SET {', '.join(sets)} FROM ended "
            "WHERE threads.thread_id = ended.thread_id RETURNING threads.status)"
        )
        thread_status = "(SELECT status FROM thread)"
    sql += f" SELECT EXISTS (SELECT 1 FROM ended) AS ended, {thread_status} AS thread_status"
    return pyformat(sql), params


def _ended(row: DictRow | None, thread_update: ThreadUpdate | None) -> bool:
    """Whether `_end_statement` ended the run; marks `thread_update` busy if it left the
    thread so."""
    if row is None or not row["ended"]:
        return False
    if thread_update is not None and row["thread_status"] == "busy":
        thread_update.status = "busy"
    return True
