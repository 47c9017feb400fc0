"""The HTML WebShop site for browser agents: ``olg webshop serve --data DIR --port N``.

Pages carry the same text as the text observations (both are rendered from one page model),
with links for every clickable. A session id picks the goal: ``/fixed_<i>`` shops for goal i of
the shuffled goal list (as the original site's ``fixed_`` sessions); any other id draws a goal
by weight. ``GET /<session>/state`` returns the goal, page and reward as JSON for harnesses.
"""

from __future__ import annotations

import argparse
import html
from collections import OrderedDict
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from open_langgraph.envs.webshop.env import WebShopEnv
from open_langgraph.envs.webshop.pages import SEARCH, Page
from open_langgraph.envs.webshop.session import ShopSession

MAX_SESSIONS = 10_000
_STYLE = """
body{font-family:sans-serif;max-width:60em;margin:2em auto;line-height:1.4}
.btn{display:inline-block;margin:.2em;padding:.3em .8em;border:1px solid #357;border-radius:4px;
text-decoration:none;color:#135;background:#eef4fb}
.option{display:inline-block;margin:.15em;padding:.2em .6em;border:1px solid #999;border-radius:3px;
text-decoration:none;color:#222}
.option.selected{background:#357;color:#fff}
.product-link{font-weight:bold}
.visited{color:#737}
#reward{font-size:1.4em;font-weight:bold}
"""


class WebShopSite:
    """Sessions of the site, keyed by session id, sharing one environment's shop and goals."""

    def __init__(self, env: WebShopEnv) -> None:
        self.env = env
        self.sessions: OrderedDict[str, ShopSession] = OrderedDict()

    def start(self, session_id: str) -> ShopSession:
        """(Re)start ``session_id`` on the search page of its goal."""
        if session_id.startswith("fixed_") and session_id[6:].isdigit():
            index = int(session_id[6:])
            if index >= len(self.env.goals):
                raise IndexError(index)
        else:
            index = self.env.draw_goal_index()
        session = ShopSession(self.env.shop, session_id, self.env.goals[index])
        self.sessions[session_id] = session
        self.sessions.move_to_end(session_id)
        while len(self.sessions) > MAX_SESSIONS:
            self.sessions.popitem(last=False)
        return session

    def get(self, session_id: str) -> ShopSession:
        return self.sessions.get(session_id) or self.start(session_id)


def _link(session_id: str, target: str) -> str:
    return f"/{quote(session_id)}/click?target={quote(target.lower(), safe='')}"


def render_html(page: Page, session_id: str) -> str:
    """The page as HTML: every button, product and option is a link that clicks it."""
    esc = html.escape
    parts = []
    for seg in page.segments:
        text = esc(seg.text)
        if page.kind == "search" and seg.kind == "button" and seg.text == SEARCH:
            parts.append(
                f'<form action="/{quote(session_id)}/search" method="get">'
                '<input id="search_input" name="keywords" size="60" autofocus>'
                f'<button type="submit" class="btn search">{text}</button></form>'
            )
        elif seg.kind == "button":
            parts.append(f'<a class="btn" href="{_link(session_id, seg.text)}">{text}</a>')
        elif seg.kind == "product":
            visited = " visited" if seg.clicked else ""
            parts.append(
                f'<h4><a class="product-link{visited}" '
                f'href="{_link(session_id, seg.text)}">{text}</a></h4>'
            )
        elif seg.kind == "option":
            # A radio button, as on the original site, so that assistive technology (and a
            # browser agent reading the accessibility tree) sees which value is chosen.
            selected = " selected" if seg.clicked else ""
            checked = "true" if seg.clicked else "false"
            parts.append(
                f'<a class="option{selected}" role="radio" aria-checked="{checked}" '
                f'data-option="{esc(seg.group or "")}" '
                f'href="{_link(session_id, seg.text)}">{text}</a>'
            )
        else:
            parts.append(f"<p>{text}</p>")
    if page.reward is not None:
        parts.append(f'<div id="reward">Reward: {page.reward}</div>')
    body = "\n".join(parts)
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>WebShop</title>"
        f"<style>{_STYLE}</style></head><body class='{page.kind}'>\n{body}\n</body></html>"
    )


def create_app(env: WebShopEnv) -> Starlette:
    """A Starlette app serving ``env``'s catalog and goals."""
    site = WebShopSite(env)

    def page_response(session: ShopSession) -> HTMLResponse:
        return HTMLResponse(render_html(session.page, session.session_id))

    async def index(request: Request) -> Response:
        return RedirectResponse("/fixed_0", status_code=302)

    async def start(request: Request) -> Response:
        try:
            session = site.start(request.path_params["session_id"])
        except IndexError:
            return HTMLResponse("<p>No such goal.</p>", status_code=404)
        return page_response(session)

    async def search(request: Request) -> Response:
        session = site.get(request.path_params["session_id"])
        session.act(f"search[{request.query_params.get('keywords', '')}]")
        return page_response(session)

    async def click(request: Request) -> Response:
        session = site.get(request.path_params["session_id"])
        session.act(f"click[{request.query_params.get('target', '')}]")
        return page_response(session)

    async def state(request: Request) -> Response:
        session = site.get(request.path_params["session_id"])
        return JSONResponse(
            {
                "session": session.session_id,
                "goal": session.goal,
                "page": session.page.kind,
                "done": session.reward is not None,
                "reward": session.reward,
                "reward_info": session.reward_info,
            }
        )

    return Starlette(
        routes=[
            Route("/", index),
            Route("/{session_id}", start),
            Route("/{session_id}/search", search),
            Route("/{session_id}/click", click),
            Route("/{session_id}/state", state),
        ]
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="olg webshop", description="WebShop environment")
    commands = parser.add_subparsers(dest="command", required=True)
    serve_cmd = commands.add_parser("serve", help="serve the HTML shop for browser agents")
    serve_cmd.add_argument("--data", default=None, help="catalog path (default: demo catalog)")
    serve_cmd.add_argument("--port", type=int, default=3000)
    serve_cmd.add_argument("--host", default="127.0.0.1")
    serve_cmd.add_argument("--goals", choices=("synthetic", "human"), default="synthetic")
    serve_cmd.add_argument("--seed", type=int, default=233)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``olg webshop``."""
    args = _parser().parse_args(argv)
    return serve(args)


def serve(args: argparse.Namespace) -> int:
    """Run the site until interrupted."""
    import uvicorn

    env = WebShopEnv(args.data, goals=args.goals, seed=args.seed)
    print(
        f"olg: WebShop ({len(env.catalog)} products, {len(env.goals)} {args.goals} goals) on "
        f"http://{args.host}:{args.port}/fixed_0",
        flush=True,
    )
    uvicorn.run(create_app(env), host=args.host, port=args.port, log_level="warning")
    return 0
