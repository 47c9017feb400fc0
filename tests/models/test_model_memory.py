"""Several embedded models in one process stay within a memory budget: loading one that does
not fit unloads the least recently used idle ones (their memory really goes), a model bigger
than the whole budget is refused with the variable to raise, and a busy model is never
unloaded under its caller. Two copies of SmolLM2's real file stand for two models."""

from __future__ import annotations

import gc
import logging
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from open_langgraph.models.errors import ModelUnavailableError
from open_langgraph.models.local import LocalChatModel
from open_langgraph.models.local.runner import get_runner, loaded_models, resident_bytes

MIB = 2**20
REQUEST = {"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 2}


@pytest.fixture(autouse=True)
def no_prompt_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """The budgets below are sized on the weights; the prompt cache has a test of its own."""
    monkeypatch.setenv("OLG_MODEL_PROMPT_CACHE_MB", "0")


@pytest.fixture
def two_models(tmp_path: Path, smollm2: LocalChatModel) -> Iterator[tuple[Path, Path]]:
    source = smollm2.runner().model_path
    first, second = tmp_path / "first.gguf", tmp_path / "second.gguf"
    shutil.copyfile(source, first)
    shutil.copyfile(source, second)
    yield first.resolve(), second.resolve()


def test_loading_past_the_budget_unloads_the_least_recently_used(
    two_models: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = two_models
    size = first.stat().st_size
    # Room for one SmolLM2 beside nothing else: the session's own copy goes too.
    monkeypatch.setenv("OLG_MODEL_MEMORY_MB", str(int(size * 2.2 / MIB)))
    get_runner(first, n_ctx=512).complete(REQUEST)
    gc.collect()
    with_first = resident_bytes()
    runner = get_runner(second, n_ctx=512)
    assert loaded_models() == [second]
    assert runner.complete(REQUEST).completion_tokens > 0
    gc.collect()
    # The first model's memory went back: the second took its place, not added to it.
    assert resident_bytes() - with_first < runner.footprint / 2
    # Used again, the first loads again and the second makes way.
    get_runner(first, n_ctx=512).complete(REQUEST)
    assert loaded_models() == [first]


def test_a_model_bigger_than_the_budget_is_refused(
    two_models: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OLG_MODEL_MEMORY_MB", "20")
    with pytest.raises(ModelUnavailableError, match="OLG_MODEL_MEMORY_MB"):
        get_runner(two_models[0], n_ctx=512)
    assert two_models[0] not in loaded_models()


def test_a_busy_model_is_not_unloaded(
    two_models: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    first, second = two_models
    monkeypatch.setenv("OLG_MODEL_MEMORY_MB", str(int(first.stat().st_size * 2.2 / MIB)))
    busy = get_runner(first, n_ctx=512)
    with busy._lock, caplog.at_level(logging.WARNING):  # a completion holds it
        get_runner(second, n_ctx=512)
        assert {first, second} <= set(loaded_models())
    assert "beyond the models' memory budget" in caplog.text
    assert busy.complete(REQUEST).completion_tokens > 0


def test_the_prompt_cache_counts_into_the_budget(
    two_models: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cache can grow to its bound, so a model fits only with it."""
    size = two_models[0].stat().st_size
    monkeypatch.setenv("OLG_MODEL_MEMORY_MB", str(int(size * 2.2 / MIB) + 64))
    monkeypatch.setenv("OLG_MODEL_PROMPT_CACHE_MB", str(int(size * 2 / MIB)))
    with pytest.raises(ModelUnavailableError, match="OLG_MODEL_PROMPT_CACHE_MB"):
        get_runner(two_models[0], n_ctx=512)
    monkeypatch.setenv("OLG_MODEL_PROMPT_CACHE_MB", "64")
    runner = get_runner(two_models[0], n_ctx=512)
    assert runner.footprint >= size + 64 * MIB
    assert runner.complete(REQUEST).completion_tokens > 0


def test_the_prompt_cache_stays_within_its_bound(
    two_models: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """llama.cpp keeps every prompt its slot moves away from, up to 8 GB by default: a server
    answering long conversations grew by gigabytes. Ours keeps at most the bound."""
    monkeypatch.setenv("OLG_MODEL_PROMPT_CACHE_MB", "8")
    runner = get_runner(two_models[0], n_ctx=1024)
    runner.complete(REQUEST)
    gc.collect()
    before = resident_bytes()
    for i in range(6):  # six different ~500-token prompts, about 12 MB of states each
        words = " ".join(f"c{i}w{j}" for j in range(150))
        runner.complete({"messages": [{"role": "user", "content": words}], "max_tokens": 1})
    assert resident_bytes() - before < 40 * MIB
