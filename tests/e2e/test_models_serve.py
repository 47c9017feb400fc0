"""`olg models serve`: the OpenAI-compatible endpoint on its own, with no graphs and no database,
a config's aliases applied when one is given."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import openai
import pytest

from tests.fixtures.server import free_port, stop_process, write_config

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def models_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    directory: Path = tmp_path_factory.mktemp("models-serve")
    # A project's config: its graphs are not served here, its aliases are.
    config = write_config(directory, models={"aliases": {"my-model": "local/smollm2-135m"}})
    port = free_port()
    log = (directory / "server.log").open("wb")
    command = [sys.executable, "-m", "open_langgraph.cli", "models", "serve", "--port", str(port)]
    process = subprocess.Popen(
        [*command, "--config", str(config)], stdout=log, stderr=subprocess.STDOUT, env=os.environ
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert process.poll() is None, (directory / "server.log").read_text()
            try:
                if httpx.get(f"{url}/ok", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        yield url
    finally:
        stop_process(process, timeout=10)
        log.close()
    # SIGTERM is a clean stop for a supervisor, as for `olg serve`.
    assert process.returncode == 0, (directory / "server.log").read_text()


def test_serves_chat_and_models_with_the_config_aliases(models_server: str) -> None:
    client = openai.OpenAI(base_url=f"{models_server}/v1", api_key="x", max_retries=0)
    assert "my-model" in {m.id for m in client.models.list()}
    reply = client.chat.completions.create(
        model="my-model", messages=[{"role": "user", "content": "Hi"}], max_tokens=3
    )
    assert reply.model == "smollm2-135m"
    scraped = httpx.get(f"{models_server}/metrics").text
    assert 'olg_openai_requests_total{endpoint="chat/completions"' in scraped


def test_a_stores_openai_embedder_works_offline_against_the_endpoint(
    models_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A template's `store.index.embed: "openai:text-embedding-3-small"` pointed at /v1 by
    OPENAI_BASE_URL embeds with no network: LangChain is not left to download tiktoken's
    vocabulary (an empty cache directory stands for a fresh machine)."""
    from open_langgraph.store_config import StoreIndexConfig
    from open_langgraph.store_embeddings import load_embeddings

    monkeypatch.setenv("OPENAI_BASE_URL", f"{models_server}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local")
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "no-tiktoken-cache"))
    index = StoreIndexConfig(embed="openai:text-embedding-3-small", dims=384)
    embedder = load_embeddings(tmp_path / "langgraph.json", index)
    vectors = embedder.embed_documents(["The user likes green tea.", "Meet on Friday."])
    assert [len(v) for v in vectors] == [384, 384]
    assert len(embedder.embed_query("tea")) == 384
