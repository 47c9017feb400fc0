"""Runs: validating a request into a stored run, then waiting on, streaming or cancelling it."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any, Literal, cast

import langgraph.version
from langchain_core.runnables import RunnableConfig

from open_langgraph.auth.authorize import Authorizer
from open_langgraph.auth.context import current_user
from open_langgraph.auth.filters import stamped
from open_langgraph.auth.users import (
    PERMISSIONS_KEY,
    USER_ID_KEY,
    AuthUser,
    run_user_keys,
    strip_reserved,
)
from open_langgraph.config import ThreadTTLConfig
from open_langgraph.errors import Conflict, InvalidInput, NotFound
from open_langgraph.header_patterns import HeaderPatterns
from open_langgraph.runtime.dispatch import RunDispatcher
from open_langgraph.runtime.graphs import GraphRegistry
from open_langgraph.runtime.manager import CancelAction, RunOutcome, new_run_record
from open_langgraph.runtime.protocol_run import PROTOCOL_STREAM_MODE
from open_langgraph.runtime.run_spec import (
    build_run_config,
    mirrored_context,
    normalize_stream_modes,
)
from open_langgraph.runtime.webhooks import WebhookSender
from open_langgraph.serde import loads
from open_langgraph.services.assistants import AssistantService
from open_langgraph.services.request_headers import configurable_headers
from open_langgraph.services.run_request import RunCreate
from open_langgraph.services.thread_ttl import arm, requested_ttl
from open_langgraph.services.threads import check_uuid
from open_langgraph.storage.base import FINISHED_RUN_STATUSES as FINISHED
from open_langgraph.storage.base import AuthFilter, RunStatus, Storage, StoredEvent, ThreadUpdate

#: `configurable` keys the server sets for a run, which no request header may replace.
#: The version of langgraph-api whose API this server serves, as a run's metadata names it.
SERVED_API_VERSION = "0.16.7"
#: What a run's config metadata says of the server, as `langgraph dev` says it; not part of
#: the run's own metadata (nor is the attempt), as on the Platform.
_SERVER_METADATA = {
    "langgraph_api_version": SERVED_API_VERSION,
    "langgraph_plan": "enterprise",
    "langgraph_host": "self-hosted",
}
_EXECUTION_METADATA = frozenset({"run_attempt", "langgraph_version", *_SERVER_METADATA})


def _add_platform_keys(config: dict[str, Any], user: AuthUser | None) -> None:
    """What langgraph-api puts in every run's config besides the ids: graphs read the user
    and the request there (`configurable`), tracing and history views the versions
    (`metadata`), and LangGraph copies the scalar ones into each checkpoint's metadata.
    `user_id` is the client's, else the authenticated user's identity, else empty."""
    configurable = config["configurable"]
    if user is None:
        configurable.update({USER_ID_KEY: "", PERMISSIONS_KEY: []})
    identity = "" if user is None else user.identity
    configurable["user_id"] = configurable.get("user_id") or identity
    configurable.setdefault("langgraph_request_id", str(uuid.uuid4()))
    config["metadata"].update(
        {"langgraph_version": langgraph.version.__version__, **_SERVER_METADATA}
    )


_SERVER_CONFIGURABLE = frozenset(
    {
        "thread_id",
        "run_id",
        "assistant_id",
        "graph_id",
        "checkpoint_id",
        "checkpoint_ns",
        "checkpoint_map",
    }
)


def public_run(run: dict[str, Any]) -> dict[str, Any]:
    """The API's `Run` object: the stored record without its private outcome fields."""
    return {k: v for k, v in run.items() if k not in ("output", "error")}


class RunService:
    """Runs are reached through their thread: every action authorizes as the Platform does
    (`threads.create_run` to create, `threads.read` to read, join and stream, `threads.update`
    to cancel, `threads.delete` to delete) and finds the thread inside the user's filter, or
    answers 404."""

    def __init__(
        self,
        storage: Storage,
        graphs: GraphRegistry,
        dispatcher: RunDispatcher,
        assistants: AssistantService,
        default_config: dict[str, Any],
        webhooks: WebhookSender,
        ttl_defaults: ThreadTTLConfig | None = None,
        authorizer: Authorizer | None = None,
        header_patterns: HeaderPatterns | None = None,
    ) -> None:
        self._storage = storage
        self._graphs = graphs
        self._dispatch = dispatcher
        self._assistants = assistants
        self._default_config = default_config
        self._webhooks = webhooks
        self._ttl_defaults = ttl_defaults or ThreadTTLConfig()
        self._auth = authorizer or Authorizer()
        self._header_patterns = header_patterns

    # -- creating --------------------------------------------------------------------------
    async def create(
        self,
        thread_id: str | None,
        payload: RunCreate,
        *,
        protocol: bool = False,
        then_wait: bool = False,
        cron_id: str | None = None,
    ) -> dict[str, Any]:
        """Validate and store a run, then hand it to the dispatcher; returns the run.

        A `protocol` run (started by a v3 thread-protocol command) streams what the
        protocol's channels need instead of the request's stream modes. `then_wait`: the
        caller calls `wait_for` on the run right after (see `RunDispatcher.start`'s `watch`).

        A body with both `input` and `command` is the Platform's: the command wins (the JS
        SDK's `submit({}, {command})`, which Agent Chat UI's approvals use, always sends
        `input: {}`). `feedback_keys`, `langsmith_tracer` and `strict_resume` are accepted
        and ignored, as docs/server.md says.
        """
        stream_modes = (
            [PROTOCOL_STREAM_MODE] if protocol else normalize_stream_modes(payload.stream_mode)
        )
        if payload.webhook is not None:
            await self._webhooks.check(payload.webhook)
        stateless = thread_id is None
        if thread_id is not None:
            check_uuid(thread_id, "thread ID")
        run_id = str(uuid.uuid4())
        stored_assistant = await self._assistants.stored_for_run(payload.assistant_id)
        run_value = self._create_run_value(thread_id, run_id, payload)
        run_filter = await self._auth.authorize("threads", "create_run", run_value)
        # What the handler left is what runs, as on the Platform: published handlers cap
        # `kwargs.config.recursion_limit` or drop `configurable` keys in place.
        metadata = dict(run_value.get("metadata") or {})
        handled = run_value.get("kwargs") or {}
        run_config, run_context = mirrored_context(handled.get("config"), handled.get("context"))
        if cron_id is not None:
            # Set after the two are mirrored: the graph sees it in its config, not context.
            configurable = run_config.get("configurable") or {}
            run_config["configurable"] = {**configurable, "cron_id": cron_id}
        assistant = await self._assistants.usable_for_run(stored_assistant, payload.assistant_id)
        graph_id = assistant["graph_id"]
        if graph_id not in self._graphs:
            raise NotFound(f"Graph {graph_id!r} of assistant {payload.assistant_id} is not served")

        if stateless:
            # The temporary thread is created once the request has passed every check.
            thread_id = str(uuid.uuid4())
            thread_metadata = await self._new_thread_metadata(thread_id, "raise", run_filter)
            thread: dict[str, Any] = {"metadata": thread_metadata}
        else:
            assert thread_id is not None
            found = await self._storage.get_thread(thread_id, run_filter)
            if found is None:
                if payload.if_not_exists != "create":
                    raise NotFound(f"Thread with ID {thread_id} not found")
                new_metadata = await self._new_thread_metadata(thread_id, "do_nothing", run_filter)
                try:
                    found = await self._storage.create_thread(
                        thread_id=thread_id,
                        metadata=new_metadata,
                        if_exists="do_nothing",
                        auth_filter=run_filter,
                    )
                except Conflict:  # another user's thread: missing, as far as this one knows
                    raise NotFound(f"Thread with ID {thread_id} not found") from None
                await arm(self._storage, thread_id, requested_ttl(None, self._ttl_defaults))
            thread = found

        checkpoint = (
            payload.checkpoint.model_dump(exclude_unset=True) if payload.checkpoint else None
        )
        if payload.checkpoint_id:
            checkpoint = {**(checkpoint or {}), "checkpoint_id": payload.checkpoint_id}
        config = build_run_config(
            default_config=self._default_config,
            assistant=assistant,
            run_config=run_config,
            metadata={
                **(assistant.get("metadata") or {}),
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
        # The request's headers `http.configurable_headers` chooses win over the client's
        # config, as on the Platform, but never over the ids the server set.
        headers = configurable_headers(self._header_patterns)
        config["configurable"].update(
            {k: v for k, v in headers.items() if k not in _SERVER_CONFIGURABLE}
        )
        # Only the server names the run's user: `langgraph_auth_*` keys a client (or an
        # assistant's config) set are dropped.
        config["configurable"] = strip_reserved(config["configurable"])
        user = current_user()
        if user is not None:
            config["configurable"].update(run_user_keys(user))
        _add_platform_keys(config, user)
        await self._check_graph_inputs(graph_id, config, breakpoints, checkpoint)
        if stateless:
            await self._storage.create_thread(
                thread_id=thread_id, metadata=thread["metadata"], if_exists="raise"
            )

        durability = payload.durability
        if durability is None and payload.checkpoint_during is not None:
            durability = "async" if payload.checkpoint_during else "exit"
        kwargs = {
            "input": handled.get("input", payload.input),
            "command": payload.command.model_dump(exclude_unset=True) if payload.command else None,
            "config": config,
            "context": strip_reserved({**(assistant.get("context") or {}), **(run_context or {})}),
            "stream_mode": stream_modes,
            "interrupt_before": breakpoints.get("interrupt_before"),
            "interrupt_after": breakpoints.get("interrupt_after"),
            "webhook": payload.webhook,
            "subgraphs": protocol or bool(payload.stream_subgraphs),
            "durability": durability,
            "after_seconds": payload.after_seconds or 0,
            "temporary": stateless,
            "on_disconnect": payload.on_disconnect,
            "on_completion": (payload.on_completion or "delete") if stateless else None,
        }
        # The run's own metadata is the Platform's merge: the assistant's, the thread's, the
        # config's and the request's, then the ids (what the graph sees, less the attempt).
        run_metadata = {k: v for k, v in config["metadata"].items() if k not in _EXECUTION_METADATA}
        run = new_run_record(
            run_id=run_id,
            thread_id=thread_id,
            assistant_id=assistant["assistant_id"],
            metadata=run_metadata,
            kwargs=kwargs,
            multitask_strategy=payload.multitask_strategy or "enqueue",
            status="pending",
        )
        return await self._dispatch.start(
            run,
            ThreadUpdate(
                status="busy",
                # A run queued behind a busy thread's run (a graph scheduling another graph's
                # run on its own thread) leaves `graph_id` alone, as on the Platform: the
                # thread's state is still read through the graph that wrote it.
                metadata={"graph_id": graph_id, "assistant_id": assistant["assistant_id"]}
                if stateless or thread.get("status") != "busy"
                else None,
            ),
            None if stateless else payload.multitask_strategy or "enqueue",
            watch=then_wait,
        )

    @staticmethod
    def _create_run_value(thread_id: str | None, run_id: str, payload: RunCreate) -> dict[str, Any]:
        """What a `threads.create_run` handler gets, shaped as the Platform's `RunsCreate`."""
        return {
            "thread_id": thread_id,
            "assistant_id": payload.assistant_id,
            "run_id": run_id,
            "status": "pending",
            "metadata": dict(payload.metadata or {}),
            "prevent_insert_if_inflight": True,
            "multitask_strategy": payload.multitask_strategy or "enqueue",
            "if_not_exists": payload.if_not_exists or "reject",
            "after_seconds": payload.after_seconds or 0,
            "kwargs": {
                "input": payload.input,
                "command": payload.command.model_dump(exclude_unset=True)
                if payload.command
                else None,
                "config": dict(payload.config or {}),  # a handler may write into it
                "context": payload.context,
                "stream_mode": payload.stream_mode,
                "webhook": payload.webhook,
                "temporary": thread_id is None,
            },
        }

    async def _new_thread_metadata(
        self, thread_id: str, if_exists: str, run_filter: AuthFilter | None
    ) -> dict[str, Any]:
        """Metadata of a thread a run creates (stateless, or `if_not_exists="create"`): the
        user's `threads.create` handler decides it as for any new thread, and both filters'
        owner keys are written in, so the user finds the thread again."""
        if not self._auth.enabled:
            return {}
        value = {"thread_id": thread_id, "metadata": {}, "if_exists": if_exists}
        create_filter = await self._auth.authorize("threads", "create", value)
        return stamped(value["metadata"], create_filter, run_filter)

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
                graph_id,
                cast(RunnableConfig, config),
                access="assistants.read",
                user=current_user(),
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
    async def get(
        self,
        thread_id: str,
        run_id: str,
        auth_action: Literal["read", "update", "delete"] = "read",
        **value: Any,
    ) -> dict[str, Any]:
        """The run, if it is on the thread and the thread is inside the user's filter for
        `auth_action` (a run of another user's thread is as missing as an unknown id)."""
        check_uuid(thread_id, "thread ID")
        check_uuid(run_id, "run ID")
        auth_filter = await self._auth.authorize(
            "threads", auth_action, {"thread_id": thread_id, "run_id": run_id, **value}
        )
        run = await self._storage.get_run(run_id)
        if (
            run is None
            or run["thread_id"] != thread_id
            or (
                auth_filter is not None
                and await self._storage.get_thread(thread_id, auth_filter) is None
            )
        ):
            raise NotFound(f"Run {run_id} not found on thread {thread_id}")
        return run

    async def trace(self, thread_id: str, run_id: str) -> dict[str, Any]:
        """What the run did inside (`observability.run_trace`): live while it executes in
        this process, as stored once it ended; no spans for a run that has none stored (a
        worker's run still executing, events past their retention, a graph with no model)."""
        run = await self.get(thread_id, run_id)
        trace: dict[str, Any] | None = None
        if run["status"] not in FINISHED:
            trace = self._dispatch.live_trace(run_id)
        if trace is None:
            stored = await self._storage.get_run_trace(run_id)
            if stored is not None:
                trace = loads(stored)
        if trace is None:
            finished = run["status"] in FINISHED
            trace = {"started_at": None, "duration_ms": None, "dropped": 0, "spans": []}
            trace["complete"] = finished
        return {"run_id": run_id, "thread_id": thread_id, "status": run["status"], **trace}

    async def list_for_thread(
        self, thread_id: str, *, limit: int, offset: int, status: RunStatus | None
    ) -> list[dict[str, Any]]:
        check_uuid(thread_id, "thread ID")
        auth_filter = await self._auth.authorize("threads", "read", {"thread_id": thread_id})
        if await self._storage.get_thread(thread_id, auth_filter) is None:
            raise NotFound(f"Thread with ID {thread_id} not found")
        runs = await self._storage.list_runs(thread_id, limit=limit, offset=offset, status=status)
        return [public_run(r) for r in runs]

    async def delete(self, thread_id: str, run_id: str) -> None:
        run = await self.get(thread_id, run_id, "delete")
        if run["status"] not in FINISHED or await self._dispatch.is_in_flight(run_id):
            raise Conflict(f"Run {run_id} is {run['status']}; cancel it before deleting it")
        await self._storage.delete_runs([run_id])

    # -- waiting and streaming ---------------------------------------------------------------
    async def outcome(self, thread_id: str, run_id: str) -> RunOutcome:
        """Wait for the run to end (if it is in flight) and return how it ended."""
        run = await self.get(thread_id, run_id)
        if run["status"] not in FINISHED:
            outcome = await self._dispatch.wait(thread_id, run_id)
            if outcome is not None:
                return outcome
            # It ended between the read and the wait: read how.
            run = await self._storage.get_run(run_id) or run
            if run["status"] not in FINISHED:
                raise Conflict(f"Run {run_id} is {run['status']} but no worker owns it")
        return RunOutcome(run["status"], run["output"], run["error"])

    async def wait_for(self, run: dict[str, Any]) -> RunOutcome:
        """How a run this request just created ended, once it has."""
        outcome = await self._dispatch.wait(run["thread_id"], run["run_id"])
        if outcome is None:
            return await self.outcome(run["thread_id"], run["run_id"])
        return outcome

    def events(
        self, thread_id: str, run_id: str, after_seq: int | None
    ) -> AsyncIterator[StoredEvent]:
        """The run's events after `after_seq`, then live ones while it runs.

        `None` means from now on, the moment of this call rather than of the first read, so
        a client that has the response headers misses nothing; a finished run has nothing.
        """
        return self._dispatch.events(thread_id, run_id, after_seq)

    async def cancel_on_disconnect(self, thread_id: str, run_id: str) -> None:
        """A streaming client went away and asked for its run to be cancelled then."""
        if await self._dispatch.is_in_flight(run_id):
            await self._dispatch.cancel(thread_id, [run_id], action="interrupt", wait=False)

    # -- cancelling ------------------------------------------------------------------------
    async def cancel(
        self, thread_id: str, run_id: str, *, action: CancelAction, wait: bool
    ) -> None:
        run = await self.get(thread_id, run_id, "update", action=action)
        if run["status"] in FINISHED or not await self._dispatch.cancel(
            thread_id, [run_id], action=action, wait=wait
        ):
            # 404, as the Platform's schema and langgraph-api answer: no run to cancel.
            raise NotFound(f"Run {run_id} is {run['status']}; there is nothing to cancel")

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
        value = {
            "thread_id": thread_id,
            "action": action,
            "metadata": {"run_ids": run_ids, "status": status},
        }
        auth_filter = await self._auth.authorize("threads", "update", value)
        if run_ids is not None:
            chosen = list(run_ids)
        else:
            chosen = await self._dispatch.in_flight(thread_id, status)
        if auth_filter is not None:
            chosen = await self._runs_inside(chosen, auth_filter)
        cancelled = await self._dispatch.cancel(thread_id, chosen, action=action, wait=False)
        if not cancelled:  # as langgraph-api: 404 when no chosen run was pending or running
            raise NotFound("No pending or running run matched; there is nothing to cancel")
        return cancelled

    async def _runs_inside(self, run_ids: list[str], auth_filter: AuthFilter) -> list[str]:
        """The runs whose thread is inside the filter; others are left alone as if they did
        not exist."""
        allowed: dict[str, bool] = {}
        inside = []
        for run_id in run_ids:
            run = await self._storage.get_run(run_id)
            if run is None:
                continue
            thread_id = run["thread_id"]
            if thread_id not in allowed:
                found = await self._storage.get_thread(thread_id, auth_filter)
                allowed[thread_id] = found is not None
            if allowed[thread_id]:
                inside.append(run_id)
        return inside
