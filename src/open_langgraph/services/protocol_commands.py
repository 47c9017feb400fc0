"""v3 thread-protocol commands: `{id, method, params}` in, a success or error envelope out.

`run.start` and `input.respond` create runs through the run service, so they are authorized,
validated, queued and executed like any run (`threads.create_run`; the thread is created on
the first `run.start`, as the SDK mints thread ids client-side). `state.get` and
`state.listCheckpoints` read the thread's state and history, `state.fork` runs from a
checkpoint. Subscriptions live on a connection: a WebSocket keeps them
(`ProtocolSession`); over HTTP a subscription is the `POST .../stream/events` request itself.
Every other method of the protocol answers `not_supported`, anything else `unknown_command`.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from typing import Any

from pydantic import ValidationError

from open_langgraph.errors import Conflict, InvalidInput, NotFound
from open_langgraph.serde import INT64_MAX, unstorable
from open_langgraph.services.protocol_stream import EventFilter, encode_seq
from open_langgraph.services.run_request import RunCreate
from open_langgraph.services.runs import RunService
from open_langgraph.services.threads import ThreadService, check_uuid

#: Methods of the protocol (langchain-protocol 0.0.20) this server does not implement.
NOT_SUPPORTED = frozenset({"agent.getTree", "input.inject", "subscription.reconnect"})
_SUBSCRIPTION = frozenset({"subscription.subscribe", "subscription.unsubscribe"})
_STRATEGIES = frozenset({"reject", "interrupt", "rollback", "enqueue"})
_ALL_RUNS = 100_000


SETTLE_SECONDS = 30.0
"""How long `input.respond` waits for a run that is ending to store the interrupt it named."""


class ProtocolError(Exception):
    """A command that fails with one of the protocol's error codes."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def success(command_id: Any, result: dict[str, Any]) -> dict[str, Any]:
    return {"type": "success", "id": command_id, "result": result}


def failure(command_id: Any, code: str, message: str) -> dict[str, Any]:
    return {"type": "error", "id": command_id, "error": code, "message": message}


def envelope_id(command: Any) -> int | None:
    """The command's id if it is one (a non-negative integer in 64 bits), to answer with."""
    value = command.get("id") if isinstance(command, dict) else None
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= INT64_MAX:
        return value
    return None


def check_envelope(command: Any) -> None:
    """ProtocolError unless `command` is `{id: int, method: str, params?: object}` and can
    be stored and answered (no integer beyond 64 bits, no lone surrogate...)."""
    if (
        envelope_id(command) is None or not isinstance(command.get("method"), str)  # type: ignore[union-attr]
    ):
        raise ProtocolError(
            "invalid_argument",
            "Protocol commands must include an integer id (0 to 2^63-1) and string method.",
        )
    if not isinstance(command.get("params", {}), dict):
        raise ProtocolError("invalid_argument", "params must be an object")
    problem = unstorable(command)
    if problem is not None:
        raise ProtocolError("invalid_argument", problem)


def _optional_object(params: dict[str, Any], key: str) -> dict[str, Any] | None:
    value = params.get(key)
    if value is not None and not isinstance(value, dict):
        raise ProtocolError("invalid_argument", f"{key} must be an object")
    return value


def _run_body(**fields: Any) -> RunCreate:
    try:
        return RunCreate(**fields)
    except ValidationError as exc:
        problems = "; ".join(str(error.get("msg")) for error in exc.errors())
        raise ProtocolError("invalid_argument", problems or "invalid params") from None


class ProtocolCommands:
    def __init__(self, runs: RunService, threads: ThreadService) -> None:
        self._runs = runs
        self._threads = threads

    async def handle(self, thread_id: str, command: dict[str, Any]) -> dict[str, Any]:
        """The response envelope of one (envelope-checked) command.

        An action on a thread outside the user's filter raises NotFound (a 404 over HTTP);
        what the protocol describes as a failure is an error envelope.
        """
        check_uuid(thread_id, "thread ID")
        method = command["method"]
        params = command.get("params") or {}
        try:
            if method == "run.start":
                result = await self._run_start(thread_id, params)
                return await self._started(thread_id, command["id"], result)
            if method == "input.respond":
                result = await self._input_respond(thread_id, params)
                return await self._started(thread_id, command["id"], result)
            if method == "state.get":
                return success(command["id"], await self._state_get(thread_id, params))
            if method == "state.listCheckpoints":
                return success(command["id"], await self._list_checkpoints(thread_id, params))
            if method == "state.fork":
                result = await self._fork(thread_id, params)
                return await self._started(thread_id, command["id"], result)
            if method in _SUBSCRIPTION:
                raise ProtocolError(
                    "not_supported",
                    f"{method} needs a connection: open POST /threads/{thread_id}/stream/events "
                    "with the subscription as its body, or send it over the WebSocket",
                )
            if method in NOT_SUPPORTED:
                raise ProtocolError("not_supported", f"{method} is not supported by this server")
            raise ProtocolError("unknown_command", f"Unknown protocol command: {method}")
        except ProtocolError as exc:
            return failure(command["id"], exc.code, exc.message)
        except (InvalidInput, Conflict) as exc:
            return failure(command["id"], "invalid_argument", exc.detail)

    async def _started(
        self, thread_id: str, command_id: int, result: dict[str, Any]
    ) -> dict[str, Any]:
        """The answer to a command that started a run, with the seq just before the run's
        first event: the SDK resumes its streams from there."""
        runs = await self._runs.list_for_thread(thread_id, limit=_ALL_RUNS, offset=0, status=None)
        answer = success(command_id, result)
        ids = [run["run_id"] for run in reversed(runs)]
        if result["run_id"] in ids:
            answer["meta"] = {"applied_through_seq": encode_seq(ids.index(result["run_id"]), 0, 0)}
        return answer

    async def _run_start(self, thread_id: str, params: dict[str, Any]) -> dict[str, Any]:
        assistant_id = params.get("assistant_id")
        if not isinstance(assistant_id, str) or not assistant_id:
            raise ProtocolError("invalid_argument", "run.start needs params.assistant_id")
        strategy = params.get("multitaskStrategy") or params.get("multitask_strategy")
        graph_input = params.get("input")
        command: dict[str, Any] | None = None
        if graph_input is not None and await self._waits_for_input(thread_id):
            # As langgraph-api does: input to a thread that waits on an interrupt answers it
            # (LangGraph's RemoteGraph resumes a thread with `Command(resume=...)` this way).
            command, graph_input = {"resume": graph_input}, None
        body = _run_body(
            assistant_id=assistant_id,
            input=graph_input,
            command=command,
            config=_optional_object(params, "config"),
            metadata=_optional_object(params, "metadata"),
            if_not_exists="create",
            multitask_strategy=strategy if strategy in _STRATEGIES else "enqueue",
        )
        run = await self._runs.create(thread_id, body, protocol=True)
        return {"run_id": run["run_id"]}

    async def _waits_for_input(self, thread_id: str) -> bool:
        """Whether the thread exists and its state has interrupts pending."""
        try:
            return bool(await self._pending_interrupts(thread_id))
        except NotFound:  # a new thread: run.start creates it
            return False

    async def _pending_interrupts(self, thread_id: str) -> set[str]:
        state = await self._threads.state(thread_id, None, subgraphs=False)
        return {str(i.get("id")) for i in state.get("interrupts") or [] if isinstance(i, dict)}

    async def _settled(self, thread_id: str) -> bool:
        """Wait (up to `SETTLE_SECONDS`) for the thread's running run to end; whether there
        was one."""
        running = await self._runs.list_for_thread(thread_id, limit=1, offset=0, status="running")
        if not running:
            return False
        with contextlib.suppress(TimeoutError, Conflict, NotFound):
            await asyncio.wait_for(
                self._runs.outcome(thread_id, running[0]["run_id"]), SETTLE_SECONDS
            )
        return True

    async def _input_respond(self, thread_id: str, params: dict[str, Any]) -> dict[str, Any]:
        entries = params.get("responses")
        if entries is None:
            entries = [params]
        if not isinstance(entries, list) or not entries:
            raise ProtocolError("invalid_argument", "responses must be a non-empty array")
        resume: dict[str, Any] = {}
        for entry in entries:
            interrupt_id = entry.get("interrupt_id") if isinstance(entry, dict) else None
            if not isinstance(interrupt_id, str) or "response" not in entry:
                raise ProtocolError(
                    "invalid_argument", "each response needs an interrupt_id and a response"
                )
            resume[interrupt_id] = entry["response"]
        thread = await self._threads.get(thread_id)
        pending = await self._pending_interrupts(thread_id)
        unknown = sorted(set(resume) - pending)
        if unknown and await self._settled(thread_id):
            # The interrupt reached the client on the stream before its run had ended and
            # stored it (seen under load in queue mode): answer once the run has settled.
            pending = await self._pending_interrupts(thread_id)
            unknown = sorted(set(resume) - pending)
        if unknown:
            raise ProtocolError(
                "no_such_interrupt", f"no pending interrupt {unknown[0]} on thread {thread_id}"
            )
        assistant_id = (thread.get("metadata") or {}).get("assistant_id")
        if not isinstance(assistant_id, str):
            raise ProtocolError("no_such_run", f"thread {thread_id} has no run to resume")
        # Keyed by interrupt id, LangGraph resumes each interrupt with its own answer.
        command: dict[str, Any] = {"resume": resume}
        if params.get("update") is not None:
            command["update"] = params["update"]
        if params.get("goto") is not None:
            command["goto"] = params["goto"]
        body = _run_body(
            assistant_id=assistant_id,
            command=command,
            config=_optional_object(params, "config"),
            metadata=_optional_object(params, "metadata"),
            multitask_strategy="enqueue",
        )
        run = await self._runs.create(thread_id, body, protocol=True)
        return {"run_id": run["run_id"]}

    async def _state_get(self, thread_id: str, params: dict[str, Any]) -> dict[str, Any]:
        if params.get("namespace"):
            raise ProtocolError("not_supported", "state.get reads the root graph's state only")
        state = await self._threads.state(thread_id, None, subgraphs=False)
        values = state.get("values") or {}
        keys = params.get("keys")
        if isinstance(keys, list) and isinstance(values, dict):
            values = {key: values[key] for key in keys if isinstance(key, str) and key in values}
        result: dict[str, Any] = {"values": values}
        checkpoint = state.get("checkpoint") or {}
        if checkpoint.get("checkpoint_id"):
            result["checkpoint"] = {
                "id": checkpoint["checkpoint_id"],
                "ns": checkpoint.get("checkpoint_ns") or "",
            }
        return result

    async def _list_checkpoints(self, thread_id: str, params: dict[str, Any]) -> dict[str, Any]:
        if params.get("namespace"):
            raise ProtocolError("not_supported", "state.listCheckpoints lists the root graph's")
        limit = params.get("limit", 10)
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 1000:
            raise ProtocolError("invalid_argument", "limit must be an integer from 1 to 1000")
        before = params.get("before")
        if before is not None and not isinstance(before, str):
            raise ProtocolError("invalid_argument", "before must be a checkpoint id")
        states = await self._threads.history(
            thread_id, limit=limit, before=before, metadata=None, checkpoint=None
        )
        return {"checkpoints": [_checkpoint_summary(state) for state in states]}

    async def _fork(self, thread_id: str, params: dict[str, Any]) -> dict[str, Any]:
        """A run from an earlier checkpoint of the thread: LangGraph branches the thread."""
        checkpoint_id = params.get("checkpoint_id")
        if not isinstance(checkpoint_id, str) or not checkpoint_id:
            raise ProtocolError("invalid_argument", "state.fork needs params.checkpoint_id")
        thread = await self._threads.get(thread_id)
        assistant_id = (thread.get("metadata") or {}).get("assistant_id")
        if not isinstance(assistant_id, str):
            raise ProtocolError("no_such_run", f"thread {thread_id} has no run to fork")
        body = _run_body(
            assistant_id=assistant_id,
            input=params.get("input"),
            config=_optional_object(params, "config"),
            checkpoint_id=checkpoint_id,
            multitask_strategy="enqueue",
        )
        try:
            run = await self._runs.create(thread_id, body, protocol=True)
        except NotFound as exc:  # the thread was found above: the checkpoint is missing
            raise ProtocolError("no_such_checkpoint", exc.detail) from None
        return {"run_id": run["run_id"], "thread_id": thread_id}


def _checkpoint_summary(state: dict[str, Any]) -> dict[str, Any]:
    """A `CheckpointSummary` of one of the thread's states (as `GET .../history` has it)."""
    metadata = state.get("metadata") or {}
    summary: dict[str, Any] = {
        "id": (state.get("checkpoint") or {}).get("checkpoint_id"),
        "timestamp": state.get("created_at"),
        "step": metadata.get("step", -1),
        "metadata": metadata,
    }
    return summary


class ProtocolSession:
    """The subscriptions of one WebSocket, and its commands.

    The event stream reads `subscriptions` as it goes, so a subscribe takes effect for the
    next event; the first subscribe's answer says how many events it replays (0: the stream
    replays the thread's latest run to every subscription as it is added).
    """

    def __init__(self, thread_id: str, commands: ProtocolCommands) -> None:
        self.thread_id = thread_id
        self._commands = commands
        self.subscriptions: list[EventFilter] = []
        self._ids: dict[str, EventFilter] = {}

    async def handle(self, command: dict[str, Any]) -> dict[str, Any]:
        method = command["method"]
        params = command.get("params") or {}
        if method == "subscription.subscribe":
            try:
                subscription = EventFilter.parse(params)
            except InvalidInput as exc:
                return failure(command["id"], "invalid_argument", exc.detail)
            subscription_id = str(uuid.uuid4())
            self._ids[subscription_id] = subscription
            self.subscriptions.append(subscription)
            return success(command["id"], {"subscription_id": subscription_id})
        if method == "subscription.unsubscribe":
            subscription = self._ids.pop(str(params.get("subscription_id")), None)
            if subscription is None:
                return failure(command["id"], "no_such_subscription", "no such subscription")
            self.subscriptions.remove(subscription)
            return success(command["id"], {})
        return await self._commands.handle(self.thread_id, command)
