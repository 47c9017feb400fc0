"""What a run will execute: its merged config, context, input or command, and stream modes.

Built once when the run is created and stored as the run's `kwargs`, so a queued run and a
run recovered after a restart execute exactly what the client asked for.
"""

from __future__ import annotations

import copy
from typing import Any

from langgraph.types import Command, Send

from open_langgraph.errors import BadRequest, InvalidInput

# Stream modes of the API and the LangGraph stream mode each is computed from; `events` comes
# from LangChain's callback events instead.
STREAM_MODES: dict[str, str] = {
    "values": "values",
    "updates": "updates",
    "custom": "custom",
    "tasks": "tasks",
    "checkpoints": "checkpoints",
    "debug": "debug",
    "messages": "messages",
    "messages-tuple": "messages",
    "events": "events",
}

_CHECKPOINT_KEYS = ("checkpoint_id", "checkpoint_ns", "checkpoint_map")


def merge_configs(*configs: dict[str, Any] | None) -> dict[str, Any]:
    """Later configs win; `configurable` and `metadata` merge key by key, tags concatenate.

    A `null` `configurable`, `metadata` or `tags` counts as absent; any other non-object
    `configurable`/`metadata`, non-list `tags` or `recursion_limit` below 1 is `InvalidInput`,
    so a run that could only fail is refused before it is stored.
    """
    merged: dict[str, Any] = {}
    for config in configs:
        if not config:
            continue
        for key, value in config.items():
            if key in ("configurable", "metadata", "tags") and value is None:
                continue
            if key in ("configurable", "metadata"):
                if not isinstance(value, dict):
                    raise InvalidInput(f"config.{key} must be an object, got {value!r:.50}")
                merged[key] = {**merged.get(key, {}), **copy.deepcopy(value)}
            elif key == "tags":
                if not isinstance(value, list):
                    raise InvalidInput(f"config.tags must be a list, got {value!r:.50}")
                merged[key] = [*merged.get(key, []), *value]
            elif key == "recursion_limit":
                if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                    raise InvalidInput(
                        f"config.recursion_limit must be a whole number of at least 1, "
                        f"got {value!r:.50}"
                    )
                merged[key] = value
            else:
                merged[key] = copy.deepcopy(value)
    return merged


def mirrored_context(
    config: dict[str, Any] | None, context: dict[str, Any] | None
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """`config` and `context` kept in step, as LangGraph Platform keeps them (langgraph-api
    0.16's run creation and assistant writes): values a client sends in only one of
    `config.configurable` and `context` appear in both, so a graph reading `Runtime.context`
    and one reading `config["configurable"]` see the same values whichever the client
    (an older SDK, Studio) sends. Both at once is ambiguous and refused with a 400.
    """
    config = dict(config or {})
    configurable = config.get("configurable")
    if configurable and context:
        raise BadRequest(
            "Cannot specify both configurable and context: send context alone (context, "
            "introduced in LangGraph 0.6, replaces configurable)"
        )
    if configurable and isinstance(configurable, dict):
        return config, dict(configurable)
    if context:
        config["configurable"] = dict(context)
    return config, context


def normalize_stream_modes(value: str | list[str] | None) -> list[str]:
    modes = [value] if isinstance(value, str) else list(value or ["values"])
    for mode in modes:
        if mode not in STREAM_MODES:
            raise InvalidInput(
                f"stream_mode {mode!r} is not a stream mode; expected one of {sorted(STREAM_MODES)}"
            )
    return list(dict.fromkeys(modes))


def _to_send(value: Any) -> Any:
    if isinstance(value, dict) and "node" in value:
        return Send(value["node"], value.get("input"))
    return value


def to_command(command: dict[str, Any]) -> Command:
    """A LangGraph `Command` from the API's `{resume, update, goto}` object."""
    goto = command.get("goto")
    if isinstance(goto, list):
        goto = [_to_send(g) for g in goto]
    elif goto is not None:
        goto = _to_send(goto)
    update = command.get("update")
    if isinstance(update, list):
        update = [tuple(item) for item in update]
    kwargs: dict[str, Any] = {}
    if "resume" in command:
        kwargs["resume"] = command["resume"]
    if update is not None:
        kwargs["update"] = update
    if goto is not None:
        kwargs["goto"] = goto
    return Command(**kwargs)


def build_run_config(
    *,
    default_config: dict[str, Any],
    assistant: dict[str, Any],
    run_config: dict[str, Any] | None,
    metadata: dict[str, Any],
    run_id: str,
    thread_id: str,
    checkpoint: dict[str, Any] | None,
) -> dict[str, Any]:
    """The RunnableConfig a run executes with."""
    stored = merge_configs(default_config, assistant["config"])
    # A checkpoint saved in an assistant's or the default config must not pin every run to
    # it; one the client puts in this run's config is honoured, as LangGraph Platform does.
    for key in _CHECKPOINT_KEYS:
        stored.get("configurable", {}).pop(key, None)
    config = merge_configs(stored, run_config)
    configurable = config.setdefault("configurable", {})
    configurable.update(
        {
            "thread_id": thread_id,
            "run_id": run_id,
            "assistant_id": assistant["assistant_id"],
            "graph_id": assistant["graph_id"],
        }
    )
    if checkpoint:
        for key in _CHECKPOINT_KEYS:
            configurable.pop(key, None)
        if checkpoint.get("checkpoint_id"):
            configurable["checkpoint_id"] = checkpoint["checkpoint_id"]
        if "checkpoint_ns" in checkpoint:  # only when the client named one, as on the
            # Platform: set to "" it would also stamp every chunk's metadata (LangGraph copies
            # configurable strings there) with the root namespace, hiding the node's own
            configurable["checkpoint_ns"] = checkpoint["checkpoint_ns"] or ""
        if checkpoint.get("checkpoint_map"):
            configurable["checkpoint_map"] = checkpoint["checkpoint_map"]
    config["metadata"] = {**config.get("metadata", {}), **metadata}
    return config
