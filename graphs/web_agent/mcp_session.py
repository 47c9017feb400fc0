"""One Playwright MCP session (server process + headless Chromium) per graph run.

Measured with @playwright/mcp 0.0.83 and Debian's Chromium on this machine:

* a session-less client starts a new browser for every call (about 1.6 s each) and loses the
  page, so a run keeps one `ClientSession` open for all its browser calls;
* as root, Chromium only starts without its sandbox, which the server accepts through its config
  file (`launchOptions.chromiumSandbox: false`);
* `--snapshot-mode none` stops every action from returning a full page snapshot; the Tools node
  asks for one explicitly after each action, so element refs stay valid;
* `--timeout-settle 100`: clicks otherwise wait 500 ms for the page to settle.

The MCP client's stdio transport lives in anyio task groups that must be entered and left by the
same task, while LangGraph may run consecutive nodes in different tasks. So each session is
owned by a task of its own, which opens the transport, serves calls, and closes everything when
asked to, or when the session has been idle for `idle_timeout` seconds (the backstop for a run
cancelled between two nodes, when no node code can react).

The `mcp` client package is the `web-agent` extra's and is imported only when a session starts,
so the graph loads (and the server starts) without it; either major version works (1.x is what
langchain-mcp-adapters pins, 2.x names `is_error` what 1.x calls `isError`).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from open_langgraph.extras import install_hint

if TYPE_CHECKING:
    from mcp import ClientSession, StdioServerParameters

MCP_DIR = Path(__file__).parent / "mcp"
MCP_CLI = MCP_DIR / "node_modules" / "@playwright" / "mcp" / "cli.js"
CHROMIUM = Path(os.environ.get("OLG_CHROMIUM", "/usr/bin/chromium"))
INSTALL_HINT = "run ./scripts/test or scripts/_browser.sh to install it"


class BrowserUnavailableError(RuntimeError):
    """Chromium, Node.js or the Playwright MCP server is missing, or the server did not start."""


@dataclass(frozen=True, slots=True)
class BrowserOptions:
    """How the Playwright MCP server is started."""

    headless: bool = True
    settle_ms: int = 100
    action_timeout_ms: int = 5000
    start_timeout_s: float = 60.0
    idle_timeout_s: float = 600.0


def check_installed() -> None:
    """Raise a clear error naming what is missing, before any process is started."""
    if importlib.util.find_spec("mcp") is None:
        raise BrowserUnavailableError(
            f"web_agent needs the `mcp` client package: {install_hint('web-agent')}"
        )
    if shutil.which("node") is None:
        raise BrowserUnavailableError("web_agent needs Node.js (`node` on PATH)")
    if not MCP_CLI.is_file():
        raise BrowserUnavailableError(
            f"@playwright/mcp is not installed in {MCP_DIR}; {INSTALL_HINT}"
        )
    if not CHROMIUM.is_file():
        raise BrowserUnavailableError(f"Chromium is not installed at {CHROMIUM}; {INSTALL_HINT}")


def server_parameters(options: BrowserOptions, config_file: Path) -> StdioServerParameters:
    """The command line of the MCP server, with the flags the module docstring explains."""
    from mcp import StdioServerParameters

    args = [
        str(MCP_CLI),
        "--config",
        str(config_file),
        "--isolated",
        "--snapshot-mode",
        "none",
        "--timeout-settle",
        str(options.settle_ms),
        "--timeout-action",
        str(options.action_timeout_ms),
        "--image-responses",
        "omit",
    ]
    if options.headless:
        args.append("--headless")
    return StdioServerParameters(command="node", args=args, cwd=str(config_file.parent))


def write_config(directory: Path, options: BrowserOptions) -> Path:
    """The server's config file; the sandbox can only be turned off here when run as root."""
    launch: dict[str, Any] = {"executablePath": str(CHROMIUM), "headless": options.headless}
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        launch["chromiumSandbox"] = False
    path = directory / "playwright-mcp.json"
    browser = {"browserName": "chromium", "isolated": True, "launchOptions": launch}
    path.write_text(json.dumps({"browser": browser}))
    return path


@dataclass(eq=False)
class BrowserSession:
    """A live MCP session; `call` may be used from any task of the event loop that opened it."""

    key: str
    options: BrowserOptions
    tool_names: frozenset[str] = frozenset()
    calls: int = 0
    _session: ClientSession | None = None
    _owner: asyncio.Task[None] | None = None
    _ready: asyncio.Event = field(default_factory=asyncio.Event)
    _close: asyncio.Event = field(default_factory=asyncio.Event)
    _error: BaseException | None = None
    _last_used: float = field(default_factory=time.monotonic)

    async def start(self) -> None:
        self._owner = asyncio.create_task(self._own(), name=f"playwright-mcp:{self.key}")
        try:
            await asyncio.wait_for(self._ready.wait(), self.options.start_timeout_s)
        except TimeoutError:
            await self.close()
            raise BrowserUnavailableError(
                f"the Playwright MCP server did not start in {self.options.start_timeout_s:.0f} s"
            ) from None
        if self._error is not None:
            await self.close()
            raise BrowserUnavailableError(
                f"the Playwright MCP server failed to start: {self._error}"
            ) from self._error

    async def _own(self) -> None:
        from mcp import ClientSession
        from mcp.client.stdio import stdio_client

        workdir = Path(tempfile.mkdtemp(prefix="olg-web-agent-"))
        try:
            params = server_parameters(self.options, write_config(workdir, self.options))
            with open(os.devnull, "w") as devnull:
                async with (
                    stdio_client(params, errlog=devnull) as (read, write),
                    ClientSession(read, write) as session,
                ):
                    await session.initialize()
                    listed = await session.list_tools()
                    self.tool_names = frozenset(t.name for t in listed.tools)
                    self._session = session
                    self._ready.set()
                    await self._serve_until_closed()
        except Exception as exc:  # reported to the starter, or ends a session nobody waits on
            self._error = exc
        finally:
            self._session = None
            self._ready.set()
            shutil.rmtree(workdir, ignore_errors=True)

    async def _serve_until_closed(self) -> None:
        while not self._close.is_set():
            idle = time.monotonic() - self._last_used
            remaining = self.options.idle_timeout_s - idle
            if remaining <= 0:
                return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._close.wait(), remaining)

    @property
    def is_open(self) -> bool:
        return self._session is not None and not self._close.is_set()

    async def call(self, name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
        """Call one MCP tool: (its text, whether the server flagged an error)."""
        if self._session is None or self._close.is_set():
            raise BrowserUnavailableError("the browser session is closed")
        self._last_used = time.monotonic()
        self.calls += 1
        result = await self._session.call_tool(name, arguments)
        self._last_used = time.monotonic()
        text = "\n".join(part.text for part in result.content if getattr(part, "text", None))
        failed = getattr(result, "is_error", None)  # mcp 2.x
        if failed is None:
            failed = getattr(result, "isError", False)  # mcp 1.x
        return text, bool(failed)

    async def close(self) -> None:
        """Close the session, the server process and its browser; safe to call twice."""
        self._close.set()
        owner = self._owner
        if owner is not None and not owner.done():
            # Shielded: a cancelled run must still wait for the browser to go away.
            with contextlib.suppress(asyncio.CancelledError, TimeoutError):
                await asyncio.shield(asyncio.wait_for(owner, 15))


class SessionRegistry:
    """The open browser sessions of this process, keyed by run.

    Sessions are not kept in the graph state: state is checkpointed as JSON, a process handle is
    not, and a checkpoint can outlive the process.
    """

    def __init__(self) -> None:
        self._sessions: dict[str, BrowserSession] = {}
        self._lock = asyncio.Lock()

    async def get(self, key: str, options: BrowserOptions) -> BrowserSession:
        """The run's session, started on first use."""
        async with self._lock:
            session = self._sessions.get(key)
            if session is not None and session.is_open:
                return session
            check_installed()
            session = BrowserSession(key, options)
            await session.start()
            self._sessions[key] = session
            return session

    def find(self, key: str) -> BrowserSession | None:
        return self._sessions.get(key)

    async def close(self, key: str) -> bool:
        """Close the run's session if it has one; True when one was open."""
        session = self._sessions.pop(key, None)
        if session is None:
            return False
        await session.close()
        return True

    def open_keys(self) -> list[str]:
        return [key for key, session in self._sessions.items() if session.is_open]


SESSIONS = SessionRegistry()
