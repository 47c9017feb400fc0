"""Answering the JS SDK's `LoadExternalComponent`: which bundle an assistant's UI is, and the
markup that loads one of its components.

The SDK posts `{"name": <component>}` to `/ui/<namespace>`, the namespace being the one the
UI message names or the stream's assistant id (usually a graph id, which the config's `ui`
keys are). The answer is HTML it puts in a shadow root after replacing `{{shadowRootId}}`:
the bundle's stylesheets, and its script, whose load calls the bundle's
`render(<component>, <shadow root id>)` (`genui/bundle.mjs`). Asset URLs are absolute, on
the server's own address, so a page served from elsewhere (a React app on another port)
loads them from this server.
"""

from __future__ import annotations

import html
import json
from urllib.parse import quote

from open_langgraph.errors import FeatureUnavailable, InvalidInput, NotFound
from open_langgraph.genui import Bundle, GenerativeUi
from open_langgraph.services.assistants import AssistantService

#: Where the bundles' files are served; the web UI shares the prefix (routes/genui.py).
ASSET_PREFIX = "/ui"


class GenerativeUiService:
    def __init__(self, ui: GenerativeUi | None, assistants: AssistantService) -> None:
        self._ui = ui
        self._assistants = assistants

    async def bundle_for(self, namespace: str) -> Bundle:
        """The bundle of a `ui` name, or of the graph of an assistant (id or graph id)."""
        if self._ui is None:
            raise NotFound("this server has no generative UI: the config has no `ui`")
        if self._ui.off_reason is not None:
            raise FeatureUnavailable(f"generative UI is off: {self._ui.off_reason}")
        if (bundle := self._ui.bundles.get(namespace)) is not None:
            return bundle
        try:
            graph_id = (await self._assistants.get(namespace))["graph_id"]
        except InvalidInput:
            # Neither a `ui` name nor an assistant id or graph id.
            raise NotFound(
                f"no generative UI named {namespace!r}: `ui` has {sorted(self._ui.bundles)}"
            ) from None
        if (bundle := self._ui.bundles.get(graph_id)) is None:
            raise NotFound(f"no generative UI for graph {graph_id!r}: `ui` has no such entry")
        return bundle

    async def markup(self, namespace: str, component: str, base_url: str) -> str:
        bundle = await self.bundle_for(namespace)
        render_args = html.escape(json.dumps(component), quote=True)
        base = f"{base_url.rstrip('/')}{ASSET_PREFIX}/{quote(bundle.name, safe='')}/"

        def url(asset: str) -> str:
            return html.escape(base + quote(asset, safe=""), quote=True)

        # Stylesheets first, so the component's first paint is styled.
        tags = [
            f'<link rel="stylesheet" href="{url(a)}" />'
            for a in bundle.assets
            if a.endswith(".css")
        ]
        onload = f'{bundle.global_name}.render({render_args}, "{{{{shadowRootId}}}}")'
        tags += [
            f"<script src=\"{url(a)}\" onload='{onload}'></script>"
            for a in bundle.assets
            if a.endswith(".js")
        ]
        return "\n".join(tags)
