"""Executing one run's graph and publishing what it streams as API events."""

from __future__ import annotations

import dataclasses
from typing import Any

from langgraph.pregel import Pregel

from open_langgraph.runtime.broker import RunEventStream
from open_langgraph.runtime.run_spec import STREAM_MODES, to_command
from open_langgraph.serde import dumps


def _event_name(mode: str, namespace: tuple[str, ...]) -> str:
    return f"{mode}|{'|'.join(namespace)}" if namespace else mode


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


async def stream_graph(graph: Pregel, kwargs: dict[str, Any], stream: RunEventStream) -> Any:
    """Run the graph as `kwargs` say, publish the requested modes, return the final values."""
    requested: list[str] = kwargs["stream_mode"]
    # LangGraph mode -> API event name; "values" is always computed for the run's output.
    published = {
        STREAM_MODES[mode]: ("messages" if mode == "messages-tuple" else mode) for mode in requested
    }
    graph_modes = list({*published, "values"})
    subgraphs = bool(kwargs.get("subgraphs"))
    command = kwargs.get("command")
    graph_input = to_command(command) if command else kwargs.get("input")
    options: dict[str, Any] = {}
    if kwargs.get("durability"):
        options["durability"] = kwargs["durability"]

    final_values: Any = None
    async for item in graph.astream(
        graph_input,
        kwargs["config"],
        context=coerce_context(graph, kwargs.get("context")),
        stream_mode=graph_modes,
        subgraphs=subgraphs,
        interrupt_before=kwargs.get("interrupt_before"),
        interrupt_after=kwargs.get("interrupt_after"),
        **options,
    ):
        namespace: tuple[str, ...]
        if subgraphs:
            namespace, mode, chunk = item
        else:
            namespace = ()
            mode, chunk = item
        if mode == "values" and not namespace:
            final_values = chunk
        event = published.get(mode)
        if event is None:
            continue
        if mode == "messages":
            chunk = list(chunk)
        stream.publish(_event_name(event, namespace), dumps(chunk))
    return final_values
