"""Generative UI, as the JS SDK's `LoadExternalComponent` asks for it: `POST /ui/{assistant_id}`
answers the HTML that loads a component (`services/generative_ui.py`), `GET /ui/{name}/{file}`
serves the bundles' scripts and stylesheets.

`/ui/...` is also the built-in web UI's prefix (`routes/ui.py`): a GET that is not a file of a
bundle is the web UI's (its assets, or its page for a deep link), so both are served there.
The bundles' files are open like the web UI's (code, no data, loaded by `<script>` tags that
carry no token); the POST is an API call, authenticated, and resolving an assistant id needs
the right to read that assistant.
"""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import FileResponse, Response
from pydantic import BaseModel, Field

from open_langgraph.server.deps import ServicesDep
from open_langgraph.server.route_index import IndexedRouter
from open_langgraph.server.routes import ui as web_ui

router = IndexedRouter()


class ComponentRequest(BaseModel):
    name: str = Field(min_length=1, description="The component, a key of the file's export.")


# Out of the OpenAPI schema, as on the Platform (whose schema has no `/ui` path either).
@router.post("/ui/{assistant_id}", response_class=Response, include_in_schema=False)
async def component_markup(
    assistant_id: str, body: ComponentRequest, request: Request, services: ServicesDep
) -> Response:
    """The HTML loading component `name` of the assistant's (or graph's) generative UI."""
    markup = await services.generative_ui.markup(assistant_id, body.name, str(request.base_url))
    return Response(markup, media_type="text/html")


@router.get("/ui/{name}/{file}", include_in_schema=False)
async def bundle_file(name: str, file: str, request: Request) -> Response:
    ui = request.app.state.generative_ui
    asset = None if ui is None else ui.asset(name, file)
    if asset is None:
        return await web_ui.ui_file(f"{name}/{file}", request)
    # The names carry no hash: a browser revalidates, and gets 304 when nothing changed.
    return FileResponse(asset, headers={"cache-control": "no-cache"})
