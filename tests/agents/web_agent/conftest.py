"""The WebShop HTML site (demo catalog) served on a free port for real headless Chromium."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn

from open_langgraph.envs.webshop import WebShopEnv
from open_langgraph.envs.webshop.site import create_app
from tests.fixtures.server import free_port


class SiteServer:
    def __init__(self) -> None:
        self.port = free_port()
        self.server = uvicorn.Server(
            uvicorn.Config(
                create_app(WebShopEnv()), host="127.0.0.1", port=self.port, log_level="warning"
            )
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.thread.start()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                httpx.get(f"{self.url}/fixed_0/state", timeout=1)
                return
            except httpx.HTTPError:
                time.sleep(0.05)
        raise RuntimeError("the WebShop site did not start")

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


@pytest.fixture(scope="session")
def shop() -> Iterator[SiteServer]:
    site = SiteServer()
    site.start()
    yield site
    site.stop()


def chromium_processes() -> list[int]:
    """Chromium processes descended from this test process (the agent's browsers)."""
    me = os.getpid()
    parents: dict[int, int] = {}
    commands: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            commands[int(entry.name)] = (entry / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])

    def descends(pid: int) -> bool:
        seen = set()
        while pid in parents and pid not in seen:
            seen.add(pid)
            pid = parents[pid]
            if pid == me:
                return True
        return False

    return [pid for pid, cmd in commands.items() if "chromium" in cmd and descends(pid)]
