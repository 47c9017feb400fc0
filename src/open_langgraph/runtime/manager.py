"""Scheduling runs in this process: one at a time per thread, in order, with cancellation.

Runs start the moment their thread is free (no polling), which is where most of our latency
lead over `langgraph dev` comes from. Multitask strategies decide what a new run does to a
busy thread; cancellation either keeps what a run wrote (`interrupt`) or erases it
(`rollback`).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from open_langgraph.auth.users import USER_KEY, stored_run_user
from open_langgraph.errors import Conflict
from open_langgraph.observability import runs as observed
from open_langgraph.runtime.broker import Broker, RunEventStream, run_start_event
from open_langgraph.runtime.execution import stream_graph
from open_langgraph.runtime.graphs import GraphRegistry
from open_langgraph.runtime.outage import OUTAGE_ATTEMPTS, database_back, database_unavailable
from open_langgraph.runtime.settling import retrying, storage_error
from open_langgraph.runtime.state import thread_update_from
from open_langgraph.runtime.webhooks import WebhookSender
from open_langgraph.serde import dumps, error_payload, to_jsonable
from open_langgraph.storage._last_checkpoint import KeptCheckpoint
from open_langgraph.storage.base import (
    UNSET,
    RunStatus,
    Storage,
    StoredEvent,
    ThreadUpdate,
    utc_now,
)

logger = logging.getLogger(__name__)
#: How long the end of a failed or cancelled run waits to read the state it left.
_STATE_LEFT_TIMEOUT = 5.0

CancelAction = Literal["interrupt", "rollback"]
MultitaskStrategy = Literal["reject", "interrupt", "rollback", "enqueue"]


@dataclass(slots=True)
class RunOutcome:
    status: RunStatus
    output: Any = None
    error: dict[str, Any] | None = None


@dataclass(eq=False, slots=True)
class RunHandle:
    """A run this process owns, from creation until its outcome is stored."""

    run: dict[str, Any]
    stream: RunEventStream
    task: asyncio.Task[None] | None = None
    cancel_action: CancelAction | None = None
    outcome: RunOutcome | None = None
    done: asyncio.Event = field(default_factory=asyncio.Event)
    started_at: datetime | None = None
    observation: observed.RunObservation | None = None
    """Metrics, log ids and traces of the run while it executes (observability/runs.py)."""
    released: Literal["handback", "lost"] | None = None
    """Set when a worker lets go of the run unfinished: handed back to the queue at
    shutdown, or lost with its lease. Its end is then not this process's to store."""
    context: contextvars.Context = field(default_factory=contextvars.copy_context)
    """The context the run was submitted in (its request's): it executes in it even when it
    starts later, behind another run (what it stores is encrypted with its request's
    encryption context, `encryption/context.py`)."""

    @property
    def run_id(self) -> str:
        return self.run["run_id"]

    @property
    def thread_id(self) -> str:
        return self.run["thread_id"]

    @property
    def delete_thread_after(self) -> bool:
        """A stateless run's temporary thread goes when the run ends, unless kept."""
        return self.run["kwargs"].get("on_completion") == "delete"


class RunManager:
    """Owns every run this process executes."""

    def __init__(
        self,
        storage: Storage,
        graphs: GraphRegistry,
        broker: Broker,
        *,
        max_concurrency: int = 32,
        webhooks: WebhookSender | None = None,
        run_timeout_seconds: float | None = None,
    ) -> None:
        self._storage = storage
        self._graphs = graphs
        self._broker = broker
        self._webhooks = webhooks
        self._slots = asyncio.Semaphore(max_concurrency)
        self._run_timeout = run_timeout_seconds
        self._handles: dict[str, RunHandle] = {}
        # Per thread, the runs not finished yet; the first one is the one executing.
        self._queues: dict[str, deque[RunHandle]] = {}
        self._closing = False

    # -- queries ---------------------------------------------------------------------------
    def handle(self, run_id: str) -> RunHandle | None:
        return self._handles.get(run_id)

    def thread_runs(self, thread_id: str) -> list[RunHandle]:
        return list(self._queues.get(thread_id, ()))

    def all_handles(self) -> list[RunHandle]:
        return list(self._handles.values())

    def is_busy(self, thread_id: str) -> bool:
        return bool(self._queues.get(thread_id))

    # -- lifecycle -------------------------------------------------------------------------
    async def recover(self) -> None:
        """Settle runs a previous process left unfinished: re-queue pending, fail running."""
        for run in await self._storage.runs_in_flight():
            if run["status"] == "running":
                error = {
                    "error": "ServerRestarted",
                    "message": "the server stopped while this run was executing",
                }
                await self._storage.finish_run(
                    run["run_id"],
                    status="error",
                    output=None,
                    error=error,
                    events=[],
                    thread_update=ThreadUpdate(status="error", error=error),
                )
            else:
                self.submit(run, started=False)
        # A run whose end could not be stored at all may have left its thread `busy`.
        await self._storage.release_idle_threads()

    async def shutdown(self) -> None:
        """Stop executing; runs cut off are stored as errors, pending ones stay pending."""
        self._closing = True
        running = [h for h in self._handles.values() if h.task is not None]
        for handle in running:
            handle.task.cancel()  # type: ignore[union-attr]
        for handle in running:
            with contextlib.suppress(BaseException):
                await handle.task  # type: ignore[misc]

    # -- creating --------------------------------------------------------------------------
    async def prepare_thread(self, thread_id: str, strategy: MultitaskStrategy) -> None:
        """Apply the multitask strategy to a thread a new run is about to join."""
        if not self.is_busy(thread_id):
            return
        if strategy == "reject":
            raise Conflict(
                f"Thread {thread_id} is busy with another run; multitask_strategy is 'reject'"
            )
        if strategy == "interrupt" or strategy == "rollback":
            runs = [h.run_id for h in self.thread_runs(thread_id)]
            await self.cancel(thread_id, runs, action=strategy, wait=True)

    def submit(self, run: dict[str, Any], *, started: bool) -> RunHandle:
        """Queue a stored run on its thread; it starts at once if the thread is free."""
        handle = RunHandle(run=run, stream=self._open_stream(run))
        self._handles[handle.run_id] = handle
        queue = self._queues.setdefault(handle.thread_id, deque())
        queue.append(handle)
        if len(queue) == 1:
            self._start(handle, already_running=started)
        return handle

    def _open_stream(self, run: dict[str, Any]) -> RunEventStream:
        return self._broker.open(run["run_id"], run["thread_id"])

    def will_start_now(self, thread_id: str, after_seconds: float) -> bool:
        return not self.is_busy(thread_id) and after_seconds <= 0

    def _start(self, handle: RunHandle, *, already_running: bool) -> None:
        handle.task = asyncio.create_task(
            self._execute(handle, already_running),
            name=f"run-{handle.run_id}",
            context=handle.context,
        )

    # -- waiting and cancelling ------------------------------------------------------------
    async def wait(self, handle: RunHandle) -> RunOutcome:
        await handle.done.wait()
        assert handle.outcome is not None
        return handle.outcome

    async def cancel(
        self,
        thread_id: str | None,
        run_ids: list[str],
        *,
        action: CancelAction,
        wait: bool,
    ) -> int:
        """Cancel runs this process owns; returns how many were found."""
        handles = [
            h
            for run_id in run_ids
            if (h := self._handles.get(run_id)) is not None
            and (thread_id is None or h.thread_id == thread_id)
        ]
        for handle in handles:
            handle.cancel_action = action
            if handle.task is not None:
                handle.task.cancel()
            else:
                # Queued behind another run: it never started, so settle it here.
                self._queues[handle.thread_id].remove(handle)
                await self._settle(handle, RunOutcome("interrupted"), None)
        if wait:
            for handle in handles:
                await handle.done.wait()
        return len(handles)

    # -- executing -------------------------------------------------------------------------
    async def _execute(self, handle: RunHandle, already_running: bool) -> None:
        with observed.observe(handle.run) as observation:
            handle.observation = observation
            await self._execute_observed(handle, already_running, observation)

    async def _execute_observed(
        self, handle: RunHandle, already_running: bool, observation: observed.RunObservation
    ) -> None:
        thread_update: ThreadUpdate | None = None
        graph = None
        # Counts from when the run starts executing, not while it waits for a slot.
        timer = asyncio.timeout(self._run_timeout)
        kept = KeptCheckpoint(handle.thread_id)
        try:
            delay = float(handle.run["kwargs"].get("after_seconds") or 0)
            if delay > 0:
                # Waiting holds no slot, so delayed runs never hold up others; cancelling
                # the task still ends the wait.
                await asyncio.sleep(delay)
            async with self._slots:
                if not already_running:
                    await self._storage.set_run_status(handle.run_id, "running")
                handle.started_at = utc_now()
                observation.started()
                async with timer:
                    while True:
                        attempt = handle.run.get("attempt") or 1
                        self._announce_start(handle, attempt)
                        kwargs = await self._run_kwargs(handle)
                        graph_id = kwargs["config"]["configurable"]["graph_id"]
                        user = stored_run_user(handle.run["kwargs"]["config"])
                        try:
                            async with self._graphs.open(
                                graph_id,
                                kwargs["config"],
                                access="threads.create_run",
                                context=kwargs.get("context"),
                                user=user,
                            ) as graph:
                                with kept.keep():
                                    final_values = await stream_graph(
                                        graph, observation.with_callbacks(kwargs), handle.stream
                                    )
                                    outcome, thread_update = await self._completed(
                                        graph, handle, final_values, kept
                                    )
                            break
                        except Exception as exc:
                            if not await self._resume_after_outage(handle, exc):
                                raise
        except TimeoutError as exc:
            if not timer.expired():
                outcome, thread_update = self._failed(handle, exc)
            else:
                outcome, thread_update = self._timed_out(handle)
        except asyncio.CancelledError:
            outcome = RunOutcome("interrupted")
            if self._closing and handle.cancel_action is None:
                # Joined as any failed run is: `{"__error__": ...}`.
                error = {"error": "ServerShutdown", "message": "the server shut down"}
                outcome = RunOutcome("error", output={"__error__": error}, error=error)
        except Exception as exc:
            outcome, thread_update = self._failed(handle, exc)
        await asyncio.shield(self._settle(handle, outcome, thread_update, graph=graph))

    async def _resume_after_outage(self, handle: RunHandle, exc: Exception) -> bool:
        """When PostgreSQL's outage cut the run off, wait for the database and take the next
        attempt (it resumes from the run's last checkpoint, `_run_kwargs`); False when the
        run must end with `exc` instead (runtime/outage.py)."""
        attempt = handle.run.get("attempt") or 1
        if (
            self._closing
            or handle.cancel_action is not None
            or attempt >= OUTAGE_ATTEMPTS
            or not database_unavailable(exc)
        ):
            return False
        logger.warning(
            "run %s: the database failed mid-run (%s: %s); waiting for it to resume the run",
            handle.run_id,
            type(exc).__name__,
            exc,
        )
        if not await database_back(self._storage.ping):
            return False
        handle.run["attempt"] = attempt + 1
        return True

    def _failed(self, handle: RunHandle, exc: Exception) -> tuple[RunOutcome, ThreadUpdate]:
        error = error_payload(exc)
        logger.info("run %s failed: %s: %s", handle.run_id, error["error"], exc)
        return self._ended_by(handle, "error", error)

    def _timed_out(self, handle: RunHandle) -> tuple[RunOutcome, ThreadUpdate]:
        """Status `timeout`, as LangGraph Platform reports it; the thread is left `error`, as
        the Platform leaves a thread whose run ended by an exception."""
        error = {
            "error": "TimeoutError",
            "message": f"the run took longer than {self._run_timeout:g} s "
            "(limits.run_timeout_seconds) and was stopped",
        }
        logger.info("run %s timed out after %g s", handle.run_id, self._run_timeout)
        return self._ended_by(handle, "timeout", error)

    @staticmethod
    def _ended_by(
        handle: RunHandle, status: RunStatus, error: dict[str, Any]
    ) -> tuple[RunOutcome, ThreadUpdate]:
        handle.stream.publish("error", dumps(error))
        outcome = RunOutcome(status, output={"__error__": error}, error=error)
        return outcome, ThreadUpdate(status="error", error=error)

    async def _completed(
        self, graph: Any, handle: RunHandle, final_values: Any, kept: KeptCheckpoint
    ) -> tuple[RunOutcome, ThreadUpdate]:
        with kept.serving():
            # The checkpoint the run stored last, from memory when it can be.
            snapshot = await graph.aget_state({"configurable": {"thread_id": handle.thread_id}})
        thread_update = thread_update_from(snapshot)
        output = to_jsonable(final_values) if final_values is not None else thread_update.values
        if snapshot.interrupts and isinstance(output, dict):
            # Encoded as the streamed `updates` encode them (`response_schema` always there)
            output["__interrupt__"] = to_jsonable(list(snapshot.interrupts))
        elif isinstance(output, dict) and output.get("__interrupt__") and not snapshot.next:
            # Stopped at an interrupt the state lists no task for (a node reached through
            # `Command(goto=...)`): a resume still answers it, so the thread is `interrupted`
            # and shows it, as on the Platform, whose status comes from the run's own stream.
            thread_update.status = "interrupted"
            thread_update.interrupts = {
                str(shown.get("id")): [shown]
                for shown in output["__interrupt__"]
                if isinstance(shown, dict)
            }
        # A run that stops at an interrupt ended as it should: `success`, as on the Platform
        # (langgraph-api 0.16); its thread is `interrupted`. A run's own `interrupted` means
        # it was cancelled.
        return RunOutcome("success", output=output), thread_update

    async def _settle(
        self,
        handle: RunHandle,
        outcome: RunOutcome,
        thread_update: ThreadUpdate | None,
        *,
        graph: Any = None,
    ) -> None:
        """Store the outcome, wake waiters and start the thread's next run.

        The run ends here whatever storage does: a write that keeps failing turns the
        outcome into a `StorageError` (`_store_failed`), and the thread is released in
        memory. A run still `running` in the database is repaired by `recover()`.
        """
        queue = self._queues.get(handle.thread_id)
        # Only the run at the head of its thread's queue owns the thread's status; a run
        # cancelled while queued behind it leaves the thread alone.
        was_head = bool(queue) and queue[0] is handle
        next_handle = None
        if was_head:
            queue.popleft()  # type: ignore[union-attr]
            next_handle = queue[0] if queue else None
        if queue is not None and not queue:
            del self._queues[handle.thread_id]
        if was_head:
            if graph is not None and (thread_update is None or thread_update.values is UNSET):
                thread_update = await self._state_left(handle, graph, thread_update)
            thread_update = thread_update or ThreadUpdate(status="idle")
            if next_handle is not None:
                thread_update.status = "busy"
        else:
            thread_update = None
        try:
            if handle.released is not None:
                await self._release(handle)
                return
            deleted = False  # a rolled-back run is gone, and sends no webhook
            try:
                if handle.cancel_action == "rollback":
                    await retrying(
                        f"rolling back run {handle.run_id}",
                        lambda: self._roll_back(handle, graph, was_head, next_handle is not None),
                    )
                    deleted = True
                else:
                    await retrying(
                        f"storing run {handle.run_id}",
                        lambda: self._store_outcome(
                            handle, outcome, thread_update, handle.stream.events
                        ),
                    )
            except Exception as exc:
                what = "rolling it back" if handle.cancel_action == "rollback" else "storing it"
                outcome, thread_update = await self._store_failed(handle, what, exc, thread_update)
            if not deleted:
                self._call_webhook(handle, outcome, thread_update)
            if handle.delete_thread_after and handle.released is None:
                await retrying(
                    f"deleting thread {handle.thread_id}",
                    lambda: self._storage.delete_thread(handle.thread_id),
                )
        except Exception:
            logger.exception("settling run %s failed", handle.run_id)
        finally:
            # Closed only now, so a stream's client sees a storage failure's error event.
            handle.stream.close()
            handle.outcome = outcome
            # A queue worker may hold a newer attempt of the same run by now (it handed this
            # one back and claimed the run again): that handle stays.
            if self._handles.get(handle.run_id) is handle:
                del self._handles[handle.run_id]
            self._broker.discard(handle.run_id)
            if handle.released is not None:
                if handle.observation is not None:
                    handle.observation.let_go()
            else:
                if handle.observation is not None:
                    handle.observation.ended(outcome.status, outcome.error)
                else:
                    observed.ended_unstarted(handle.run, outcome.status)
            handle.done.set()
            if next_handle is not None and next_handle.task is None and not self._closing:
                self._start(next_handle, already_running=False)
            self._settled(handle)

    async def _state_left(
        self, handle: RunHandle, graph: Any, ended_by: ThreadUpdate | None
    ) -> ThreadUpdate | None:
        """The thread of a run that failed, timed out or was cancelled shows the state the
        run left behind, as on the Platform: a first run that fails still shows its input
        in `thread.values` (thread lists preview it), and a cancelled run whose tasks never
        finished leaves the thread `interrupted`, resumable. `ended_by` (an error's status
        and error) wins over the status the state implies. Without a readable state (a
        rollback, a temporary thread, the database down) the thread keeps what it had."""
        if (
            handle.cancel_action == "rollback"
            or handle.released is not None
            or handle.run["kwargs"].get("temporary")
        ):
            return ended_by
        try:
            async with asyncio.timeout(_STATE_LEFT_TIMEOUT):
                snapshot = await graph.aget_state({"configurable": {"thread_id": handle.thread_id}})
        except Exception as exc:  # the run's end must be stored whatever this read does
            logger.info("run %s: its thread's state could not be read: %s", handle.run_id, exc)
            return ended_by
        if snapshot.created_at is None:
            return ended_by
        left = thread_update_from(snapshot)
        if ended_by is not None and ended_by.status == "error":
            # A failed thread offers no interrupt to answer, as on the Platform: the one a
            # failed resume was meant to answer would otherwise still show in Agent Inbox.
            left.status = "error"
            left.error = ended_by.error
            left.interrupts = {}
        return left

    def _announce_start(self, handle: RunHandle, attempt: int) -> None:
        """Stream the run's start event: its id and attempt, the first thing a client sees."""
        handle.stream.publish(*run_start_event(handle.run_id, attempt))

    async def _run_kwargs(self, handle: RunHandle) -> dict[str, Any]:
        """What the graph is called with: the stored kwargs, with the run's user as an
        object (`.identity`), as on the Platform. A later attempt (a lost worker, an outage)
        resumes from the run's last checkpoint rather than starting over."""
        kwargs = handle.run["kwargs"]
        config = kwargs["config"]
        user = stored_run_user(config)
        attempt = handle.run.get("attempt") or 1
        if user is None and attempt <= 1:
            return kwargs
        configurable = dict(config["configurable"])
        if user is not None:
            configurable[USER_KEY] = user
        if attempt <= 1:
            return {**kwargs, "config": {**config, "configurable": configurable}}
        metadata = {**(config.get("metadata") or {}), "run_attempt": attempt}
        if await self._checkpointed(handle):
            # No input again, from the thread's newest checkpoint, which this run wrote:
            # nodes that finished before the previous attempt ended are not run again.
            for key in ("checkpoint_id", "checkpoint_map"):
                configurable.pop(key, None)
            kwargs = {**kwargs, "input": None, "command": None}
            logger.info(
                "run %s: attempt %d resumes from its last checkpoint", handle.run_id, attempt
            )
        return {**kwargs, "config": {**config, "metadata": metadata, "configurable": configurable}}

    async def _checkpointed(self, handle: RunHandle) -> bool:
        config = {"configurable": {"thread_id": handle.thread_id, "checkpoint_ns": ""}}
        async for _ in self._storage.checkpointer.alist(
            config,  # type: ignore[arg-type]
            filter={"run_id": handle.run_id},
            limit=1,
        ):
            return True
        return False

    async def _store_outcome(
        self,
        handle: RunHandle,
        outcome: RunOutcome,
        thread_update: ThreadUpdate | None,
        events: list[StoredEvent],
    ) -> None:
        await self._storage.finish_run(
            handle.run_id,
            status=outcome.status,
            output=outcome.output,
            error=outcome.error,
            events=events,
            thread_update=thread_update,
            trace=handle.observation.trace.stored() if handle.observation else None,
        )

    async def _release(self, handle: RunHandle) -> None:
        """Let go of a run without ending it; only queue workers do (`released`)."""

    def _settled(self, handle: RunHandle) -> None:
        """Called once a run's end is stored and its waiters woken; nothing to do here."""

    async def _roll_back(self, handle: RunHandle, graph: Any, was_head: bool, busy: bool) -> None:
        await self._storage.delete_checkpoints_of_runs(handle.thread_id, [handle.run_id])
        await self._storage.delete_runs([handle.run_id])
        if was_head:
            update = await self._state_after_rollback(handle, graph, busy=busy)
            await self._storage.update_thread(handle.thread_id, update)

    async def _store_failed(
        self,
        handle: RunHandle,
        what: str,
        exc: Exception,
        thread_update: ThreadUpdate | None,
    ) -> tuple[RunOutcome, ThreadUpdate | None]:
        """End the run `error` because `what` failed, storing as much of it as still fits.

        First the error with the run's events, then, if that fails too, without them (the
        error then says so). If nothing can be stored, the run is left `running` in the
        database for `recover()` at the next start-up.
        """
        logger.error("run %s: %s failed: %s: %s", handle.run_id, what, type(exc).__name__, exc)
        error = storage_error(what, exc)
        handle.stream.publish("error", dumps(error))
        events = handle.stream.events
        for kept in (events, []):
            if not kept and events:
                error = storage_error(what, exc, events_lost=len(events))
            if thread_update is not None:
                status = "busy" if thread_update.status == "busy" else "error"
                thread_update = ThreadUpdate(status=status, error=error)
            outcome = RunOutcome("error", output={"__error__": error}, error=error)
            try:
                await self._store_outcome(handle, outcome, thread_update, kept)
                return outcome, thread_update
            except Exception as again:
                logger.error(
                    "run %s: storing its error failed too: %s: %s",
                    handle.run_id,
                    type(again).__name__,
                    again,
                )
        return outcome, thread_update

    def _call_webhook(
        self, handle: RunHandle, outcome: RunOutcome, thread_update: ThreadUpdate | None
    ) -> None:
        url = handle.run["kwargs"].get("webhook")
        if not url or self._webhooks is None:
            return
        values = None if thread_update is None else thread_update.values
        ended_at = utc_now()
        payload = {
            **handle.run,
            "status": outcome.status,
            "updated_at": ended_at,
            "run_started_at": handle.started_at,
            "run_ended_at": ended_at,
            "values": None if values is UNSET else values,
        }
        if outcome.error is not None:
            payload["error"] = outcome.error
        self._webhooks.send(url, payload)

    async def _state_after_rollback(
        self, handle: RunHandle, graph: Any, *, busy: bool
    ) -> ThreadUpdate:
        config = {"configurable": {"thread_id": handle.thread_id}}
        if graph is not None:
            return thread_update_from(await graph.aget_state(config), busy=busy)
        config = handle.run["kwargs"]["config"]
        graph_id = config["configurable"]["graph_id"]
        async with self._graphs.open(graph_id, config, user=stored_run_user(config)) as opened:
            return thread_update_from(await opened.aget_state(config), busy=busy)


def new_run_record(
    *,
    run_id: str,
    thread_id: str,
    assistant_id: str,
    metadata: dict[str, Any],
    kwargs: dict[str, Any],
    multitask_strategy: str,
    status: RunStatus,
) -> dict[str, Any]:
    now = utc_now()
    return {
        "run_id": run_id,
        "thread_id": thread_id,
        "assistant_id": assistant_id,
        "created_at": now,
        "updated_at": now,
        "status": status,
        "metadata": metadata,
        "kwargs": kwargs,
        "multitask_strategy": multitask_strategy,
    }
