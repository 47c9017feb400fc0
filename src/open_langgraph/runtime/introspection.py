"""JSON schemas and drawings of graphs, for the assistants endpoints Studio reads.

Schema generation must never fail a request: a `typing.TypedDict` state on Python 3.11 makes
pydantic refuse the whole class, so we fall back to a field-by-field schema.
"""

from __future__ import annotations

import contextlib
import typing
import warnings
from typing import Any

from langchain_core.runnables.utils import create_model
from langgraph.pregel import Pregel
from pydantic import TypeAdapter


def _field_schema(annotation: Any) -> dict[str, Any]:
    with contextlib.suppress(Exception):
        return TypeAdapter(annotation).json_schema()
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _field_schema(typing.get_args(annotation)[0])
    if origin in (list, tuple, set):
        return {"type": "array", "items": {}}
    if origin is dict:
        return {"type": "object"}
    return {}


def schema_of(schema_type: Any, title: str) -> dict[str, Any] | None:
    """JSON schema of a state/input/output/context type, field by field if need be."""
    if schema_type is None:
        return None
    with contextlib.suppress(Exception):
        return TypeAdapter(schema_type).json_schema()
    try:
        hints = typing.get_type_hints(schema_type, include_extras=True)
    except Exception:
        return {"title": title, "type": "object"}
    properties = {}
    for name, annotation in hints.items():
        field = _field_schema(annotation)
        field.setdefault("title", name.replace("_", " ").title())
        properties[name] = field
    return {"title": title, "type": "object", "properties": properties}


# Keys of `configurable` the server sets itself: not part of what a user configures.
_SERVER_CONFIGURABLE = (
    "__pregel_checkpointer",
    "__pregel_store",
    "checkpoint_id",
    "checkpoint_ns",
    "thread_id",
)


def configurable_schema(graph: Pregel) -> dict[str, Any]:
    """The Platform's `config_schema`: the schema of `config.configurable` alone (a graph's
    `config_schema`, or its `context_schema`, which LangGraph also accepts there), `{}` when
    it has none. Studio builds its configuration form from these properties."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # `config_schema` is deprecated for context_schema
        model = graph.config_schema()
    field = getattr(model, "model_fields", {}).get("configurable")
    if field is None:
        return {}
    schema = TypeAdapter(field.annotation).json_schema()
    for key in _SERVER_CONFIGURABLE:
        schema.get("properties", {}).pop(key, None)
    config_type = getattr(graph, "config_type", None)
    if schema and getattr(config_type, "__name__", None):  # as langgraph-api titles it
        schema["title"] = config_type.__name__
    return schema


def state_schema(graph: Pregel) -> dict[str, Any] | None:
    """The Platform's `state_schema`: each channel the state shows (the graph's stream
    channels, those of a reducer or a node's private output included), optional, with the
    type a node may write to it (`Any` when pydantic cannot describe that type). None when
    the channels cannot make a model: the state type's schema is used instead.

    LangChain's `create_model`, as langgraph-api uses, not pydantic's: pydantic takes a name
    with a leading underscore for a private attribute and drops it (deepagents' `_` channels),
    LangChain's keeps it under its own name."""
    fields: dict[str, Any] = {}
    for key in graph.stream_channels_list:
        annotation: Any = Any
        with contextlib.suppress(Exception):
            update_type = graph.channels[key].UpdateType
            TypeAdapter(update_type).json_schema()
            annotation = update_type
        fields[key] = (annotation, None)
    try:
        return create_model(graph.get_name("State"), **fields).model_json_schema()
    except Exception:
        return None


def graph_schemas(graph: Pregel, graph_id: str) -> dict[str, Any]:
    """The `GraphSchema` body: input, output, state, config and context schemas."""
    builder = getattr(graph, "builder", None)
    state_type = getattr(builder, "state_schema", None)
    input_type = getattr(builder, "input_schema", None) or state_type
    output_type = getattr(builder, "output_schema", None) or state_type
    context_type = getattr(builder, "context_schema", None)
    config_schema: dict[str, Any] | None = None
    with contextlib.suppress(Exception):
        config_schema = configurable_schema(graph)
    return {
        "graph_id": graph_id,
        "input_schema": _langgraph_schema(graph.get_input_jsonschema)
        or schema_of(input_type, f"{graph_id}_input"),
        "output_schema": _langgraph_schema(graph.get_output_jsonschema)
        or schema_of(output_type, f"{graph_id}_output"),
        "state_schema": state_schema(graph) or schema_of(state_type, f"{graph_id}_state"),
        "config_schema": config_schema,
        "context_schema": (
            _langgraph_schema(graph.get_context_jsonschema) if context_type else None
        )
        or schema_of(context_type, f"{graph_id}_context"),
    }


def _langgraph_schema(method: Any) -> dict[str, Any] | None:
    """LangGraph's own schema of a graph's input, output or context, which langgraph-api
    serves (a dataclass state's title, docstring and field defaults as LangGraph gives
    them); None where it fails (a `typing.TypedDict` on Python 3.11, where langgraph-api
    fails the request), for the field-by-field fallback."""
    with contextlib.suppress(Exception):
        return method()
    return None


async def graph_drawing(graph: Pregel, config: dict[str, Any], xray: bool | int) -> dict[str, Any]:
    """Nodes and edges as LangGraph Studio draws them."""
    drawable = await graph.aget_graph(config, xray=xray)
    data = drawable.to_json()
    for node in data.get("nodes", []):
        node_data = node.get("data")
        if isinstance(node_data, dict):
            # The runnable's import path is internal detail; Studio only reads the name.
            node_data.pop("id", None)
    return data


async def subgraph_schemas(
    graph: Pregel, graph_id: str, namespace: str | None, recurse: bool
) -> dict[str, Any]:
    """Schemas of each subgraph, keyed by namespace."""
    result = {}
    async for ns, subgraph in graph.aget_subgraphs(namespace=namespace, recurse=recurse):
        result[ns] = graph_schemas(subgraph, graph_id)
        del result[ns]["graph_id"]
    return result
