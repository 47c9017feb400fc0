"""A live server process shared by the end-to-end tests, driven through `langgraph_sdk`."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from langgraph_sdk.client import LangGraphClient

from tests.fixtures.sdk import sdk_client
from tests.fixtures.server import ServerProcess, serving


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with serving(tmp_path_factory.mktemp("olg-server")) as process:
        yield process


@pytest.fixture
async def client(server: ServerProcess) -> AsyncIterator[LangGraphClient]:
    async with sdk_client(server.url) as lg_client:
        yield lg_client
