"""Executing one run's graph and publishing what it streams as API events."""

from __future__ import annotations

import dataclasses
from typing import Any
from uuid import UUID

from langgraph.constants import END
from langgraph.pregel import Pregel

from open_langgraph.runtime.broker import RunEventStream, event_name
from open_langgraph.runtime.messages import MessageAssembler
from open_langgraph.runtime.protocol_run import PROTOCOL_STREAM_MODE, stream_protocol_run
from open_langgraph.runtime.run_spec import STREAM_MODES, to_command
from open_langgraph.runtime.state import checkpoint_of
from open_langgraph.serde import dumps


def coerce_context(graph: Pregel, context: dict[str, Any] | None) -> Any:
    """Build the graph's context object from the JSON context, as `Runtime[Context]` expects."""
    if not context:
        context = {}
    schema = getattr(getattr(graph, "builder", None), "context_schema", None)
    if schema is None:
        return context or None
    if dataclasses.is_dataclass(schema):
        names = {f.name for f in dataclasses.fields(schema)}
        return schema(**{k: v for k, v in context.items() if k in names})
    if hasattr(schema, "model_validate"):
        return schema.model_validate(context)
    return context


def _checkpoint_ref(config: Any) -> dict[str, Any] | None:
    checkpoint = checkpoint_of(config) if isinstance(config, dict) else None
    if checkpoint is None or not checkpoint["thread_id"] or not checkpoint.get("checkpoint_id"):
        return None
    return checkpoint


def debug_checkpoint(chunk: dict[str, Any]) -> dict[str, Any]:
    """A `debug` stream's checkpoint event as the Platform sends it: beside LangGraph's
    `config` and `parent_config`, the `checkpoint` and `parent_checkpoint` they point at, and
    each task's subgraph `state` config given as its `checkpoint`. Studio's debugger reads
    those fields to step through and fork from checkpoints."""
    payload = chunk.get("payload")
    if chunk.get("type") != "checkpoint" or not isinstance(payload, dict):
        return chunk
    tasks = []
    for task in payload.get("tasks") or []:
        state = task.get("state") if isinstance(task, dict) else None
        if isinstance(state, dict) and state.get("configurable"):
            task = {k: v for k, v in task.items() if k != "state"}
            task["checkpoint"] = state["configurable"]
        tasks.append(task)
    payload = {
        **payload,
        "checkpoint": _checkpoint_ref(payload.get("config")),
        "parent_checkpoint": _checkpoint_ref(payload.get("parent_config")),
        "tasks": tasks,
    }
    return {**chunk, "payload": payload}


class _ChunkPublisher:
    """Turns LangGraph stream chunks into the API events the client asked for."""

    def __init__(self, requested: list[str], stream: RunEventStream, subgraphs: bool) -> None:
        self._stream = stream
        self._subgraphs = subgraphs
        # LangGraph modes published under their own name ("messages-tuple" is LangGraph's
        # "messages" as is); "messages" itself goes through the assembler. Asked for both,
        # a client gets the tuples alone, as from the Platform: one family of message events.
        self._plain = {
            STREAM_MODES[mode] for mode in requested if mode not in ("messages", "events")
        }
        assembled = "messages" in requested and "messages-tuple" not in requested
        self._assembler = MessageAssembler() if assembled else None
        self.graph_modes = sorted(
            self._plain | {"values"} | ({"messages"} if self._assembler else set())
        )
        self.final_values: Any = None

    def publish(self, item: Any) -> None:
        namespace: tuple[str, ...]
        if self._subgraphs:
            namespace, mode, chunk = item
        else:
            namespace = ()
            mode, chunk = item
        if mode == "values" and not namespace:
            self.final_values = chunk
        if mode == "messages" and self._assembler is not None:
            for name, payload in self._assembler.feed(*chunk):
                # Each partial holds the whole message so far: the run's log keeps only the
                # newest one per message, so memory and storage stay linear in its length.
                key = f"{name}:{payload[0].id}" if name == "messages/partial" else None
                self._stream.publish(name, dumps(payload), supersedes=key)
        if mode in self._plain:
            if mode == "messages":
                chunk = list(chunk)
            elif mode == "debug" and isinstance(chunk, dict):
                chunk = debug_checkpoint(chunk)
            self._stream.publish(event_name(mode, namespace), dumps(chunk))


def _only_ends(command: dict[str, Any]) -> bool:
    """Whether a command is `{"goto": "__end__"}` alone (Agent Chat UI's "Mark as Resolved")."""
    goto = command.get("goto")
    return goto in (END, [END]) and command.get("resume") is None and command.get("update") is None


async def _graph_input(graph: Pregel, kwargs: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """What the graph is streamed with, and the config to stream it at.

    A command wins over `input`, as on the Platform. A bare `goto: "__end__"` on a thread
    waiting at an interrupt ends its pending tasks, as `update_state(None, as_node=END)` does:
    LangGraph itself would run the interrupted node again, and it would ask again.
    """
    command = kwargs.get("command")
    config: dict[str, Any] = kwargs["config"]
    if not command:
        return kwargs.get("input"), config
    if not _only_ends(command):
        return to_command(command), config
    if (await graph.aget_state(config)).next:
        ended = await graph.aupdate_state(config, None, as_node=END)
        configurable = {**config["configurable"], **ended["configurable"]}
        config = {**config, "configurable": configurable}
    return None, config


async def stream_graph(graph: Pregel, kwargs: dict[str, Any], stream: RunEventStream) -> Any:
    """Run the graph as `kwargs` say, publish the requested modes, return the final values."""
    requested: list[str] = kwargs["stream_mode"]
    subgraphs = bool(kwargs.get("subgraphs"))
    graph_input, config = await _graph_input(graph, kwargs)
    options: dict[str, Any] = {
        "context": coerce_context(graph, kwargs.get("context")),
        # The graph's output schema, not every channel: state a graph keeps to itself
        # (LangChain's `PrivateStateAttr`, such as the HITL middleware's) stays out of
        # `values`, `updates` and a wait's output, as langgraph-api streams them.
        "output_keys": graph.output_channels,
        "subgraphs": subgraphs,
        "interrupt_before": kwargs.get("interrupt_before"),
        "interrupt_after": kwargs.get("interrupt_after"),
    }
    if kwargs.get("durability"):
        options["durability"] = kwargs["durability"]
    if PROTOCOL_STREAM_MODE in requested:
        # The v3 protocol's projections read the whole state, as before.
        whole_state = {k: v for k, v in options.items() if k != "output_keys"}
        return await stream_protocol_run(graph, graph_input, config, whole_state, stream)

    publisher = _ChunkPublisher(requested, stream, subgraphs)
    options["stream_mode"] = publisher.graph_modes
    if "events" not in requested:
        async for item in graph.astream(graph_input, config, **options):
            publisher.publish(item)
        return publisher.final_values

    # `events` needs LangChain's callback events; the graph's own stream rides along in them
    # as the root run's `on_chain_stream`, recognised by the run id we give the root run.
    root_run_id = config["configurable"]["run_id"]
    config = {**config, "run_id": UUID(root_run_id)}
    async for event in graph.astream_events(graph_input, config, version="v2", **options):
        if event["event"] == "on_chain_stream" and event["run_id"] == root_run_id:
            publisher.publish(event["data"]["chunk"])
        elif "langsmith:hidden" not in (event.get("tags") or ()):
            # Hidden runs (a graph's `__start__`, a swarm's router) stay out, as on the Platform
            stream.publish("events", dumps(event))
    return publisher.final_values
