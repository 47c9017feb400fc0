"""Run settings of the web agent, read by nodes through `Runtime[WebAgentContext]`.

JSON fields can be sent as a served run's `context`; `chat_model` is for callers that inject a
model object in-process (tests, evaluation harnesses).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel

from graphs.web_agent.mcp_session import BrowserOptions
from graphs.web_agent.site_policy import normalize_entry
from open_langgraph.models import shared_chat_model


@dataclass
class WebAgentContext:
    model: str | None = None
    """``provider/model``; None means ``$OLG_MODEL`` or the embedded default."""
    max_steps: int = 30
    """Agent decisions in one execution before it stops and reports."""
    max_clarifications: int = 3
    """Questions Clarify may ask before it plans with what it has."""
    context_tokens: int = 6000
    """Prompt budget of an Agent call; older tool traffic is dropped first to stay under it.
    The default leaves room for a reply within Qwen2.5's 8k window."""
    snapshot_chars: int = 12000
    """A snapshot longer than this is cut (its head is kept) before it is shown."""
    headless: bool = True
    allowed_origins: list[str] | None = None
    """Origins the browser may open (``https://example.com``, ``https://*.example.com``, or
    ``"*"`` for any site). None: the sites whose URLs the task and the person's answers name
    (see ``site_policy.py``)."""
    chat_model: Any = None
    """An injected LangChain chat model; overrides ``model``."""

    def check(self) -> None:
        """Reject unusable settings with a message naming the field."""
        for name in ("max_steps", "context_tokens", "snapshot_chars"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if not isinstance(self.max_clarifications, int) or self.max_clarifications < 0:
            raise ValueError(
                "max_clarifications must be a non-negative integer, "
                f"got {self.max_clarifications!r}"
            )
        if self.context_tokens < 1000:
            raise ValueError(f"context_tokens must be at least 1000, got {self.context_tokens}")
        if self.allowed_origins is not None:
            if not isinstance(self.allowed_origins, list) or not all(
                isinstance(entry, str) for entry in self.allowed_origins
            ):
                raise ValueError(
                    f"allowed_origins must be a list of origins, got {self.allowed_origins!r}"
                )
            for entry in self.allowed_origins:
                normalize_entry(entry)  # raises naming the field and the entry
        if self.chat_model is not None and not isinstance(self.chat_model, BaseChatModel):
            kind = type(self.chat_model).__name__
            raise ValueError(f"chat_model must be a chat model, got {kind}")

    def browser_options(self) -> BrowserOptions:
        return BrowserOptions(headless=bool(self.headless))


def resolve_context(context: Any) -> WebAgentContext:
    """The run's settings from an instance, a mapping (a served run's JSON) or None."""
    if context is None:
        ctx = WebAgentContext()
    elif isinstance(context, WebAgentContext):
        ctx = context
    elif isinstance(context, dict):
        known = set(WebAgentContext.__dataclass_fields__)
        unknown = sorted(set(context) - known)
        if unknown:
            raise ValueError(f"unknown web_agent context field(s): {', '.join(unknown)}")
        ctx = WebAgentContext(**context)
    else:
        raise ValueError(f"context must be an object, got {type(context).__name__}")
    ctx.check()
    return ctx


def resolve_model(ctx: WebAgentContext) -> BaseChatModel:
    """The injected model, else the named (or default) one, built once per name."""
    if ctx.chat_model is not None:
        return ctx.chat_model
    return shared_chat_model(ctx.model)
