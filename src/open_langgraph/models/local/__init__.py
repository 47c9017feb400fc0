"""Embedded models: GGUF files from PyPI packages, run in-process with grammar-constrained tools."""

from __future__ import annotations

from open_langgraph.models.local.catalog import LOCAL_MODELS, LocalModelSpec
from open_langgraph.models.local.chat_model import LocalChatModel
from open_langgraph.models.local.grammar import (
    UnsupportedSchemaError,
    schema_grammar,
    tool_call_grammar,
)

__all__ = [
    "LOCAL_MODELS",
    "LocalChatModel",
    "LocalModelSpec",
    "UnsupportedSchemaError",
    "schema_grammar",
    "tool_call_grammar",
]
