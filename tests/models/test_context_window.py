"""Embedded models load with the window they were trained for, read from the model file, as far
as the memory budget holds its KV cache; a prompt longer than the window is refused before
decoding with both numbers. SmolLM2-135M (trained for 8,192 tokens) stands for the catalogue."""

from __future__ import annotations

import logging
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from open_langgraph.models.errors import ModelUnavailableError
from open_langgraph.models.local import LocalChatModel
from open_langgraph.models.local.context_window import MIN_CONTEXT, fit_context
from open_langgraph.models.local.gguf_header import GGUFHeaderError, ModelShape, read_model_shape
from open_langgraph.models.local.runner import (
    LOAD_OVERHEAD,
    ContextWindowExceededError,
    choose_context,
    get_runner,
)

MIB = 2**20
QWEN_LIKE = ModelShape("qwen2", trained_context=32768, layers=28, kv_heads=2, head_dim=128)


@pytest.fixture
def model_copy(tmp_path: Path, smollm2: LocalChatModel) -> Iterator[Path]:
    """A private copy of SmolLM2's file, so a runner loaded here is not the session's."""
    copy = tmp_path / "smollm2-copy.gguf"
    shutil.copyfile(smollm2.runner().model_path, copy)
    yield copy.resolve()


def test_the_header_gives_smollm2s_published_shape(smollm2: LocalChatModel) -> None:
    """SmolLM2-135M's config: 30 layers, 3 of 9 heads for keys and values, 576 wide, 8k."""
    shape = read_model_shape(smollm2.runner().model_path)
    assert (shape.architecture, shape.trained_context) == ("llama", 8192)
    assert (shape.layers, shape.kv_heads, shape.head_dim) == (30, 3, 64)
    assert shape.kv_bytes_per_token == 2 * 30 * 3 * 64 * 2


def test_a_file_that_is_not_gguf_is_refused(tmp_path: Path) -> None:
    not_gguf = tmp_path / "model.gguf"
    not_gguf.write_bytes(b"<html>404</html>")
    with pytest.raises(GGUFHeaderError, match="not a GGUF file"):
        read_model_shape(not_gguf)
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(b"GGUF\x03\x00\x00\x00\x01")
    with pytest.raises(GGUFHeaderError, match="ends early"):
        read_model_shape(cut)


def test_the_trained_window_when_memory_allows() -> None:
    assert fit_context(QWEN_LIKE, wanted=None, room=None, model="m") == 32768
    assert fit_context(QWEN_LIKE, wanted=None, room=4 * 2**30, model="m") == 32768
    assert fit_context(QWEN_LIKE, wanted=4096, room=4 * 2**30, model="m") == 4096
    assert fit_context(QWEN_LIKE, wanted=65536, room=None, model="m") == 32768


def test_a_small_budget_shrinks_the_window_or_refuses_it() -> None:
    per_token = QWEN_LIKE.kv_bytes_per_token  # 28 KB
    window = fit_context(QWEN_LIKE, wanted=None, room=300 * MIB, model="m")
    assert window * per_token <= 300 * MIB < (window + 256) * per_token
    assert window % 256 == 0
    with pytest.raises(ModelUnavailableError, match="room for 1792 tokens") as refused:
        fit_context(QWEN_LIKE, wanted=None, room=50 * MIB, model="m")
    assert f"fewer than the {MIN_CONTEXT}" in str(refused.value)
    assert "OLG_MODEL_MEMORY_MB" in str(refused.value)


def test_a_model_loads_with_its_trained_window_and_reads_a_long_prompt(
    model_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """4,500 words, past the 4,096 tokens SmolLM2 used to load with, are read and answered."""
    monkeypatch.delenv("OLG_MODEL_CONTEXT", raising=False)
    monkeypatch.delenv("OLG_MODEL_MEMORY_MB", raising=False)
    runner = get_runner(model_copy)
    assert runner.n_ctx == 8192
    words = " ".join(["apple"] * 4500)
    completion = runner.complete(
        {"messages": [{"role": "user", "content": words}], "max_tokens": 4}
    )
    assert 4500 <= completion.prompt_tokens < 8192
    assert completion.completion_tokens > 0


def test_the_window_follows_the_budget_and_the_setting(
    model_copy: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("OLG_MODEL_PROMPT_CACHE_MB", "0")
    size = model_copy.stat().st_size
    per_token = read_model_shape(model_copy).kv_bytes_per_token
    # The weights and buffers as estimated before a load, and about 3,000 tokens of KV cache.
    budget = int(size * (1 + LOAD_OVERHEAD)) + 3000 * per_token
    monkeypatch.setenv("OLG_MODEL_MEMORY_MB", str(budget // MIB))
    assert 2048 <= choose_context(model_copy) < 3072
    monkeypatch.delenv("OLG_MODEL_MEMORY_MB")
    monkeypatch.setenv("OLG_MODEL_CONTEXT", "4096")
    assert choose_context(model_copy) == 4096
    monkeypatch.setenv("OLG_MODEL_CONTEXT", "32768")
    with caplog.at_level(logging.WARNING):
        assert choose_context(model_copy) == 8192
    assert "more than smollm2-copy.gguf was trained for" in caplog.text
    monkeypatch.setenv("OLG_MODEL_CONTEXT", "a lot")
    with pytest.raises(ModelUnavailableError, match="OLG_MODEL_CONTEXT"):
        choose_context(model_copy)


def test_a_prompt_over_a_chosen_window_is_refused_with_the_numbers(
    model_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OLG_MODEL_CONTEXT", "2048")
    runner = get_runner(model_copy)
    words = " ".join(["pear"] * 3000)
    with pytest.raises(ContextWindowExceededError) as refused:
        runner.complete({"messages": [{"role": "user", "content": words}], "max_tokens": 8})
    assert refused.value.context_tokens == 2048
    assert refused.value.prompt_tokens > 2048
    assert "the window holds 2048" in str(refused.value)
