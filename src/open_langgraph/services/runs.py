"""Runs: validating a request into a stored run, then waiting on, streaming or cancelling it."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any, Literal, cast

from langchain_core.runnables import RunnableConfig

from open_langgraph.config import ThreadTTLConfig
from open_langgraph.errors import Conflict, InvalidInput, NotFound
from open_langgraph.runtime.broker import Broker
from open_langgraph.runtime.graphs import GraphRegistry
from open_langgraph.runtime.manager import (
    CancelAction,
    RunHandle,
    RunManager,
    RunOutcome,
    new_run_record,
)
from open_langgraph.runtime.run_spec import build_run_config, normalize_stream_modes
from open_langgraph.runtime.webhooks import WebhookSender
from open_langgraph.services.assistants import AssistantService
from open_langgraph.services.run_request import RunCreate
from open_langgraph.services.thread_ttl import arm, requested_ttl
from open_langgraph.services.threads import check_uuid
from open_langgraph.storage.base import RunStatus, Storage, StoredEvent, ThreadUpdate

FINISHED = frozenset({"success", "error", "interrupted", "timeout"})


def public_run(run: dict[str, Any]) -> dict[str, Any]:
    """The API's `Run` object: the stored record without its private outcome fields."""
    return {k: v for k, v in run.items() if k not in ("output", "error")}


def _check_payload(payload: RunCreate) -> None:
    # `feedback_keys`, `langsmith_tracer` and `strict_resume` are accepted and ignored, as
    # docs/server.md says: LangSmith is not reachable from a self-hosted server, and the
    # Platform itself ignores `strict_resume`.
    if payload.input is not None and payload.command is not None:
        raise InvalidInput("input and command: send one or the other, not both")


class RunService:
    def __init__(
        self,
        storage: Storage,
        graphs: GraphRegistry,
        manager: RunManager,
        broker: Broker,
        assistants: AssistantService,
        default_config: dict[str, Any],
        webhooks: WebhookSender,
        ttl_defaults: ThreadTTLConfig | None = None,
    ) -> None:
        self._storage = storage
        self._graphs = graphs
        self._manager = manager
        self._broker = broker
        self._assistants = assistants
        self._default_config = default_config
        self._webhooks = webhooks
        self._ttl_defaults = ttl_defaults or ThreadTTLConfig()

    # -- creating --------------------------------------------------------------------------
    async def create(self, thread_id: str | None, payload: RunCreate) -> RunHandle:
        """Validate and store a run, then hand it to the run manager."""
        _check_payload(payload)
        stream_modes = normalize_stream_modes(payload.stream_mode)
        if payload.webhook is not None:
            await self._webhooks.check(payload.webhook)
        assistant = await self._assistants.get(payload.assistant_id)
        graph_id = assistant["graph_id"]
        if graph_id not in self._graphs:
            raise NotFound(f"Graph {graph_id!r} of assistant {payload.assistant_id} is not served")

        stateless = thread_id is None
        run_id = str(uuid.uuid4())
        metadata = dict(payload.metadata or {})
        if stateless:
            # The temporary thread is created once the request has passed every check.
            thread_id = str(uuid.uuid4())
            thread: dict[str, Any] = {"metadata": {}}
        else:
            assert thread_id is not None
            check_uuid(thread_id, "thread ID")
            found = await self._storage.get_thread(thread_id)
            if found is None:
                if payload.if_not_exists != "create":
                    raise NotFound(f"Thread with ID {thread_id} not found")
                found = await self._storage.create_thread(
                    thread_id=thread_id, metadata={}, if_exists="do_nothing"
                )
                await arm(self._storage, thread_id, requested_ttl(None, self._ttl_defaults))
            thread = found

        checkpoint = payload.checkpoint.model_dump() if payload.checkpoint else None
        if payload.checkpoint_id:
            checkpoint = {**(checkpoint or {}), "checkpoint_id": payload.checkpoint_id}
        config = build_run_config(
            default_config=self._default_config,
            assistant=assistant,
            run_config=payload.config,
            metadata={
                **(thread.get("metadata") or {}),
                **metadata,
                "graph_id": graph_id,
                "assistant_id": assistant["assistant_id"],
                "run_attempt": 1,
            },
            run_id=run_id,
            thread_id=thread_id,
            checkpoint=checkpoint,
        )
        # An assistant (or the config file's default_config) may carry `interrupt_before` /
        # `interrupt_after` beside its RunnableConfig keys; a run's own fields win.
        breakpoints = {
            field: value if value is not None else config.get(field)
            for field in ("interrupt_before", "interrupt_after")
            if (value := getattr(payload, field)) is not None or field in config
        }
        for field in ("interrupt_before", "interrupt_after"):
            config.pop(field, None)
        await self._check_graph_inputs(graph_id, config, breakpoints, checkpoint)
        if stateless:
            await self._storage.create_thread(thread_id=thread_id, metadata={}, if_exists="raise")
        else:
            await self._manager.prepare_thread(thread_id, payload.multitask_strategy or "enqueue")

        durability = payload.durability
        if durability is None and payload.checkpoint_during is not None:
            durability = "async" if payload.checkpoint_during else "exit"
        kwargs = {
            "input": payload.input,
            "command": payload.command.model_dump(exclude_unset=True) if payload.command else None,
            "config": config,
            "context": {**(assistant.get("context") or {}), **(payload.context or {})},
            "stream_mode": stream_modes,
            "interrupt_before": breakpoints.get("interrupt_before"),
            "interrupt_after": breakpoints.get("interrupt_after"),
            "webhook": payload.webhook,
            "subgraphs": bool(payload.stream_subgraphs),
            "durability": durability,
            "after_seconds": payload.after_seconds or 0,
            "temporary": stateless,
            "on_disconnect": payload.on_disconnect,
            "on_completion": (payload.on_completion or "delete") if stateless else None,
        }
        starts_now = self._manager.will_start_now(thread_id, payload.after_seconds or 0)
        run = new_run_record(
            run_id=run_id,
            thread_id=thread_id,
            assistant_id=assistant["assistant_id"],
            metadata=metadata,
            kwargs=kwargs,
            multitask_strategy=payload.multitask_strategy or "enqueue",
            status="running" if starts_now else "pending",
        )
        await self._storage.create_run(
            run,
            ThreadUpdate(
                status="busy",
                metadata={"graph_id": graph_id, "assistant_id": assistant["assistant_id"]},
            ),
        )
        return self._manager.submit(run, started=starts_now)

    async def _check_graph_inputs(
        self,
        graph_id: str,
        config: dict[str, Any],
        breakpoints: dict[str, Any],
        checkpoint: dict[str, Any] | None,
    ) -> None:
        for field, nodes in breakpoints.items():
            if nodes != "*" and not (
                isinstance(nodes, list) and all(isinstance(n, str) for n in nodes)
            ):
                raise InvalidInput(
                    f'{field} must be "*" or a list of node names, not {nodes!r:.60}'
                )
        named = {field: nodes for field, nodes in breakpoints.items() if isinstance(nodes, list)}
        if named:
            # Built only when node names need checking: a factory graph may be costly to make.
            async with self._graphs.open(
                graph_id, cast(RunnableConfig, config), access="assistants.read"
            ) as graph:
                nodes_of_graph = list(graph.nodes)
            for field, nodes in named.items():
                unknown = [n for n in nodes if n not in nodes_of_graph]
                if unknown:
                    raise InvalidInput(
                        f"{field}: unknown nodes {unknown}; the graph has {nodes_of_graph}"
                    )
        if checkpoint and checkpoint.get("checkpoint_id"):
            found = await self._storage.checkpointer.aget_tuple(
                {
                    "configurable": {
                        "thread_id": config["configurable"]["thread_id"],
                        "checkpoint_ns": checkpoint.get("checkpoint_ns") or "",
                        "checkpoint_id": checkpoint["checkpoint_id"],
                    }
                }
            )
            if found is None:
                raise NotFound(f"Checkpoint {checkpoint['checkpoint_id']} not found")

    # -- reading ---------------------------------------------------------------------------
    async def get(self, thread_id: str, run_id: str) -> dict[str, Any]:
        check_uuid(thread_id, "thread ID")
        check_uuid(run_id, "run ID")
        run = await self._storage.get_run(run_id)
        if run is None or run["thread_id"] != thread_id:
            raise NotFound(f"Run {run_id} not found on thread {thread_id}")
        return run

    async def list_for_thread(
        self, thread_id: str, *, limit: int, offset: int, status: RunStatus | None
    ) -> list[dict[str, Any]]:
        check_uuid(thread_id, "thread ID")
        if await self._storage.get_thread(thread_id) is None:
            raise NotFound(f"Thread with ID {thread_id} not found")
        runs = await self._storage.list_runs(thread_id, limit=limit, offset=offset, status=status)
        return [public_run(r) for r in runs]

    async def delete(self, thread_id: str, run_id: str) -> None:
        run = await self.get(thread_id, run_id)
        if run["status"] not in FINISHED or self._manager.handle(run_id) is not None:
            raise Conflict(f"Run {run_id} is {run['status']}; cancel it before deleting it")
        await self._storage.delete_runs([run_id])

    # -- waiting and streaming ---------------------------------------------------------------
    async def outcome(self, thread_id: str, run_id: str) -> RunOutcome:
        """Wait for the run to end (if it is ours and running) and return how it ended."""
        run = await self.get(thread_id, run_id)
        handle = self._manager.handle(run_id)
        if handle is not None:
            return await self._manager.wait(handle)
        if run["status"] not in FINISHED:
            raise Conflict(f"Run {run_id} is {run['status']} but no worker owns it")
        return RunOutcome(run["status"], run["output"], run["error"])

    def events(self, run_id: str, after_seq: int | None) -> AsyncIterator[StoredEvent]:
        """The run's events after `after_seq`, then live ones while it runs.

        `None` means from now on, the moment of this call rather than of the first read, so
        a client that has the response headers misses nothing; a finished run has nothing.
        """
        stream = self._broker.get(run_id)
        if stream is not None:
            return stream.follow(stream.last_seq if after_seq is None else after_seq)
        return self._stored_events(run_id, after_seq)

    async def _stored_events(
        self, run_id: str, after_seq: int | None
    ) -> AsyncIterator[StoredEvent]:
        if after_seq is None:
            return
        for event in await self._storage.get_run_events(run_id, after_seq):
            yield event

    # -- cancelling ------------------------------------------------------------------------
    async def cancel(
        self, thread_id: str, run_id: str, *, action: CancelAction, wait: bool
    ) -> None:
        run = await self.get(thread_id, run_id)
        if self._manager.handle(run_id) is None:
            raise Conflict(f"Run {run_id} is {run['status']}; there is nothing to cancel")
        await self._manager.cancel(thread_id, [run_id], action=action, wait=wait)

    async def cancel_many(
        self,
        *,
        thread_id: str | None,
        run_ids: list[str] | None,
        status: Literal["pending", "running", "all"] | None,
        action: CancelAction,
    ) -> int:
        if run_ids is None and thread_id is None and status is None:
            raise InvalidInput("give run_ids, thread_id or status to choose the runs to cancel")
        if run_ids is not None:
            return await self._manager.cancel(thread_id, run_ids, action=action, wait=False)
        candidates = (
            self._manager.thread_runs(thread_id) if thread_id else self._manager.all_handles()
        )
        # A run has a task once it started executing (or is waiting out after_seconds).
        chosen = [
            h.run_id
            for h in candidates
            if status in (None, "all") or (status == "running") == (h.task is not None)
        ]
        return await self._manager.cancel(thread_id, chosen, action=action, wait=False)
