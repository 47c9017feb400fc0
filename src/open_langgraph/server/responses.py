"""JSON responses encoded once with orjson, skipping FastAPI's response-model pass."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from open_langgraph.serde import dumps


class JSONResponse(Response):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return dumps(content)


def select_fields(records: list[dict[str, Any]], select: list[str] | None) -> list[dict[str, Any]]:
    """Keep only the `select`ed top-level fields, as the search endpoints allow."""
    if not select:
        return records
    return [{k: r[k] for k in select if k in r} for r in records]
