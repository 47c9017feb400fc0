"""Errors raised while resolving or loading a chat model.

Each message says what to do (which key to set, which package to install), because these errors
surface at server start-up where the operator, not the agent author, has to act on them.
"""

from __future__ import annotations


class ModelError(Exception):
    """Base class for every error of `open_langgraph.models`."""


class ModelNameError(ModelError, ValueError):
    """A model string that is not `provider/model` or names an unknown local model."""


class ModelUnavailableError(ModelError):
    """A provider package or API key is missing; the message names both the key and package."""


class ModelFileError(ModelError):
    """An embedded model file cannot be assembled: a part is missing or the hash differs."""
