"""A live server process shared by the end-to-end tests, driven through `langgraph_sdk`."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient

from tests.fixtures.server import ServerProcess, write_config


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory: Path = tmp_path_factory.mktemp("olg-server")
    process = ServerProcess(write_config(directory), directory / "olg.db", directory / "server.log")
    process.start()
    yield process
    process.close()


@pytest.fixture
async def client(server: ServerProcess) -> AsyncIterator[LangGraphClient]:
    lg_client = get_client(url=server.url)
    yield lg_client
    await lg_client.http.client.aclose()
