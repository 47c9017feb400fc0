"""Executing a run started through the v3 thread protocol (`POST /threads/{id}/commands`).

Such a run streams every LangGraph mode the protocol has a channel for, from every subgraph,
in LangGraph's v2 stream format with its v2 message events: a chat model's reply arrives as
`message-start` / `content-block-*` / `message-finish` events, token by token, and tool calls
as `tool-started` / `tool-finished`, exactly the payloads the protocol's `messages` and
`tools` channels carry. Each part is published on the run's event stream like any other run
event (named `<mode>|<namespace...>`), so it is stored, replayed and carried across processes
by the same machinery; `services/protocol_events.py` turns them into protocol events.
"""

from __future__ import annotations

from typing import Any

from langgraph._internal._constants import CONFIG_KEY_STREAM_MESSAGES_V2
from langgraph.pregel import Pregel

from open_langgraph.runtime.broker import RunEventStream, event_name
from open_langgraph.serde import dumps

#: The stream mode a protocol run is stored with (never accepted from a run request).
PROTOCOL_STREAM_MODE = "protocol"

#: LangGraph modes behind the protocol's channels (`lifecycle` and `input` are derived).
GRAPH_MODES = ["values", "updates", "messages", "tools", "custom", "tasks", "checkpoints"]


async def stream_protocol_run(
    graph: Pregel,
    graph_input: Any,
    config: dict[str, Any],
    options: dict[str, Any],
    stream: RunEventStream,
) -> Any:
    """Run the graph, publish each v2 stream part, return the root graph's final values."""
    # LangGraph sends v2 message events only when asked through this config key.
    configurable = {**config.get("configurable", {}), CONFIG_KEY_STREAM_MESSAGES_V2: True}
    run_config = {**config, "configurable": configurable}
    run_options = {**options, "stream_mode": GRAPH_MODES, "subgraphs": True}
    final_values: Any = None
    async for part in graph.astream(graph_input, run_config, version="v2", **run_options):
        mode: str = part["type"]
        namespace: tuple[str, ...] = tuple(part["ns"])
        if mode == "values":
            if not namespace:
                final_values = part["data"]
            if part.get("interrupts"):
                # The state the last step left again, now with the interrupts, which the
                # protocol sends on `input` (from `updates`): not a new snapshot.
                continue
        stream.publish(event_name(mode, namespace), dumps(part["data"]))
    return final_values
