"""The checkpointer's serializer as the config's `checkpointer.serde` asks.

LangGraph's `JsonPlusSerializer` already has the three knobs: which classes it revives from
the legacy `json` type and from msgpack, and whether values msgpack cannot encode are pickled.
Without `serde` the savers keep their own default serializer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from langgraph.checkpoint.serde.base import SerializerProtocol

    from open_langgraph.checkpointer_config import SerdeConfig


def checkpoint_serializer(serde: SerdeConfig | None) -> SerializerProtocol | None:
    """The serializer for `serde`; None (the saver's default) when there is none."""
    if serde is None:
        return None
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

    options: dict[str, Any] = {
        "pickle_fallback": serde.pickle_fallback,
        "allowed_json_modules": serde.allowed_json_modules,
    }
    if serde.allowed_msgpack_modules != "default":
        options["allowed_msgpack_modules"] = serde.allowed_msgpack_modules
    return JsonPlusSerializer(**options)
