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


def pagination_headers(found: list[Any], limit: int, offset: int) -> dict[str, str]:
    """`X-Pagination-Next` when the page came back full, so a client knows to ask again."""
    return {"X-Pagination-Next": str(offset + limit)} if len(found) == limit else {}
