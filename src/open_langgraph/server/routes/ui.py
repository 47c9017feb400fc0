"""The built-in web UI: the files `ui/` builds into `ui_dist/` (scripts/_ui.sh), served at `/ui`
on the API's own origin, and `/` redirecting there.

The page is static and holds no data: everything it shows comes from the public API, through
the same auth as any client, so these routes are open (server/auth.py) and left out of the
OpenAPI schema (they are not part of the Platform API). Paths that are not files get
`index.html`, so a reloaded deep link still opens the page; a missing asset is a 404. Under
`http.mount_prefix` the page, its assets and the API it calls are all under the prefix.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

from fastapi import Request
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse, Response

from open_langgraph.server.responses import JSONResponse
from open_langgraph.server.route_index import IndexedRouter

UI_DIST = Path(__file__).resolve().parent.parent / "ui_dist"
UI_PREFIX = "/ui"
NOT_BUILT = (
    "the web UI is not built: run scripts/_ui.sh (Node.js 20+ and npm) or install a wheel, "
    "which includes it"
)

router = IndexedRouter(include_in_schema=False)


def is_built() -> bool:
    """Whether the page has been built into `UI_DIST` (a checkout needs scripts/_ui.sh)."""
    return (UI_DIST / "index.html").is_file()


def is_ui_path(path: str) -> bool:
    """Whether `path` is one of the UI's open paths (the page, its assets, `/`)."""
    return path in ("/", UI_PREFIX) or path.startswith(UI_PREFIX + "/")


def _mounted_at(request: Request) -> str:
    """The `http.mount_prefix` the request came through (server/mount_prefix.py), or ''."""
    return str(request.scope.get("root_path", "")).rstrip("/")


@router.get("/")
async def root(request: Request) -> Response:
    return RedirectResponse(_mounted_at(request) + UI_PREFIX + "/", status_code=307)


@router.get(UI_PREFIX)
async def ui_slash(request: Request) -> Response:
    return RedirectResponse(_mounted_at(request) + UI_PREFIX + "/", status_code=307)


def _index(request: Request) -> Response:
    """The page; under a mount prefix its asset URLs (built for `/ui/`) move there too."""
    index = UI_DIST / "index.html"
    prefix = _mounted_at(request)
    if not prefix:
        return FileResponse(index, headers={"cache-control": "no-cache"})
    html = index.read_text(encoding="utf-8")
    for attribute in ("src", "href"):
        html = html.replace(f'{attribute}="{UI_PREFIX}/', f'{attribute}="{prefix}{UI_PREFIX}/')
    # The page's client calls the API under the prefix too (ui/src/api.ts reads this).
    meta = f'<meta name="olg-mount-prefix" content="{escape(prefix)}" />'
    html = html.replace("<head>", "<head>\n    " + meta, 1)
    return HTMLResponse(html, headers={"cache-control": "no-cache"})


@router.get(UI_PREFIX + "/{path:path}")
async def ui_file(path: str, request: Request) -> Response:
    if not is_built():
        return JSONResponse({"detail": NOT_BUILT}, status_code=404)
    target = (UI_DIST / path).resolve()
    if path and target.is_file() and target.is_relative_to(UI_DIST):
        # Built asset names carry a content hash: a browser may keep them for good.
        immutable = target.parent.name == "assets"
        cache = "public, max-age=31536000, immutable" if immutable else "no-cache"
        return FileResponse(target, headers={"cache-control": cache})
    if path.startswith("assets/"):
        return JSONResponse({"detail": f"no such UI file: {path}"}, status_code=404)
    return _index(request)
