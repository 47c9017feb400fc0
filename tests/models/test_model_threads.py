"""The embedded models' settings: how many threads one computes with (one core is left to
everything else, since llama.cpp's threads stall together when one of them loses its core)
and how much RAM its prompt cache may take."""

from __future__ import annotations

import pytest

from open_langgraph.models.errors import ModelUnavailableError
from open_langgraph.models.local import runner
from open_langgraph.models.local.runner import model_threads, prompt_cache_mb


@pytest.mark.parametrize(("cores", "threads"), [(1, 1), (2, 1), (4, 3), (16, 4), (None, 1)])
def test_one_core_is_left_free(
    monkeypatch: pytest.MonkeyPatch, cores: int | None, threads: int
) -> None:
    monkeypatch.delenv("OLG_MODEL_THREADS", raising=False)
    monkeypatch.setattr(runner.os, "cpu_count", lambda: cores)
    assert model_threads() == threads


def test_the_variable_overrides(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLG_MODEL_THREADS", "2")
    assert model_threads() == 2
    for bad in ("two", "0"):
        monkeypatch.setenv("OLG_MODEL_THREADS", bad)
        with pytest.raises(ModelUnavailableError, match="OLG_MODEL_THREADS"):
            model_threads()


def test_the_prompt_cache_bound_defaults_to_256_mb_and_can_be_turned_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OLG_MODEL_PROMPT_CACHE_MB", raising=False)
    assert prompt_cache_mb() == 256
    monkeypatch.setenv("OLG_MODEL_PROMPT_CACHE_MB", "0")
    assert prompt_cache_mb() == 0
    for bad in ("lots", "-1", "1.5"):
        monkeypatch.setenv("OLG_MODEL_PROMPT_CACHE_MB", bad)
        with pytest.raises(ModelUnavailableError, match="OLG_MODEL_PROMPT_CACHE_MB"):
            prompt_cache_mb()
