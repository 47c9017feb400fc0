"""`/mcp/`: the Platform's three MCP operations; POST carries every MCP message.

The handlers are declared here (not a mounted sub-app) so the operations appear in our
`/openapi.json` as in the Platform's. POST is answered by `server/mcp.py`; the server keeps no
sessions, so GET (a server-to-client stream) is not allowed and DELETE has no session to end,
as on the Platform.
"""

from __future__ import annotations

from fastapi import Request
from starlette.responses import Response

from open_langgraph.server.mcp import McpEndpoint
from open_langgraph.server.responses import JSONResponse
from open_langgraph.server.route_index import IndexedRouter

router = IndexedRouter(tags=["mcp"])


# `/mcp/` is the path of the Platform's schema; `/mcp` the one langgraph-api routes and its docs
# give clients (it redirects `/mcp/` there). Both are answered directly: a client that does not
# follow a redirect with its POST body works with either.
@router.post("/mcp", include_in_schema=False, response_class=JSONResponse)
@router.post("/mcp/", summary="MCP Post", response_class=JSONResponse)
async def post_mcp(request: Request) -> Response:
    """A JSON-RPC message of the Streamable HTTP transport; answered in JSON."""
    endpoint: McpEndpoint = request.app.state.mcp
    return await endpoint.answer(request)


@router.get("/mcp", include_in_schema=False)
@router.get("/mcp/", summary="MCP Get")
async def get_mcp() -> JSONResponse:
    return JSONResponse(
        {"detail": "GET is not allowed: this MCP server is stateless and streams nothing"},
        status_code=405,
        headers={"Allow": "POST"},
    )


@router.delete("/mcp", include_in_schema=False)
@router.delete("/mcp/", summary="Terminate Session")
async def delete_mcp() -> JSONResponse:
    return JSONResponse(
        {"detail": "Session not found: this MCP server keeps no sessions"}, status_code=404
    )
