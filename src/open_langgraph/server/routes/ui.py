"""The built-in web UI: the files `ui/` builds into `ui_dist/` (scripts/_ui.sh), served at `/ui`
on the API's own origin, and `/` redirecting there.

The page is static and holds no data: everything it shows comes from the public API, through
the same auth as any client, so these routes are open (server/auth.py) and left out of the
OpenAPI schema (they are not part of the Platform API). Paths that are not files get
`index.html`, so a reloaded deep link still opens the page; a missing asset is a 404.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse, RedirectResponse, Response

from open_langgraph.server.responses import JSONResponse

UI_DIST = Path(__file__).resolve().parent.parent / "ui_dist"
UI_PREFIX = "/ui"
NOT_BUILT = (
    "the web UI is not built: run scripts/_ui.sh (Node.js 20+ and npm) or install a wheel, "
    "which includes it"
)

router = APIRouter(include_in_schema=False)


def is_built() -> bool:
    """Whether the page has been built into `UI_DIST` (a checkout needs scripts/_ui.sh)."""
    return (UI_DIST / "index.html").is_file()


def is_ui_path(path: str) -> bool:
    """Whether `path` is one of the UI's open paths (the page, its assets, `/`)."""
    return path in ("/", UI_PREFIX) or path.startswith(UI_PREFIX + "/")


@router.get("/")
async def root() -> Response:
    return RedirectResponse(UI_PREFIX + "/", status_code=307)


@router.get(UI_PREFIX)
async def ui_slash() -> Response:
    return RedirectResponse(UI_PREFIX + "/", status_code=307)


@router.get(UI_PREFIX + "/{path:path}")
async def ui_file(path: str) -> Response:
    if not is_built():
        return JSONResponse({"detail": NOT_BUILT}, status_code=404)
    index = UI_DIST / "index.html"
    target = (UI_DIST / path).resolve()
    if path and target.is_file() and target.is_relative_to(UI_DIST):
        # Built asset names carry a content hash: a browser may keep them for good.
        immutable = target.parent.name == "assets"
        cache = "public, max-age=31536000, immutable" if immutable else "no-cache"
        return FileResponse(target, headers={"cache-control": cache})
    if path.startswith("assets/"):
        return JSONResponse({"detail": f"no such UI file: {path}"}, status_code=404)
    return FileResponse(index, headers={"cache-control": "no-cache"})
