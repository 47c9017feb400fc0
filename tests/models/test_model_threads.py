"""How many threads an embedded model computes with: one core is left to everything else,
since llama.cpp's threads stall together when one of them loses its core."""

from __future__ import annotations

import pytest

from open_langgraph.models.errors import ModelUnavailableError
from open_langgraph.models.local import runner
from open_langgraph.models.local.runner import model_threads


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
