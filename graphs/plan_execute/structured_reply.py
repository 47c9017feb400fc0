"""Asking a chat model for one JSON value, the strongest way the model supports.

Models with tool calling get the schema bound as a forced tool (`with_structured_output`): hosted
APIs then return arguments for that schema, and embedded models decode under a grammar built from
it, so their reply is valid by construction. Models without tool calling (LangChain's fake chat
models, plain completion endpoints) are asked for JSON text. Either way the caller validates the
value again; this module only decodes it and turns every decoding failure into
`StructuredReplyError`. The call is tagged `nostream`, so a chat UI streaming the run's messages
shows the answer, not the routing JSON.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.runnables import RunnableConfig
from langgraph.constants import TAG_NOSTREAM

from graphs.plan_execute.plan_schema import StructuredReplyError, decode_json
from open_langgraph.models.local.messages import TruncatedOutputError


def supports_tool_calling(model: BaseChatModel) -> bool:
    return type(model).bind_tools is not BaseChatModel.bind_tools


def ask_for_json(
    model: BaseChatModel,
    messages: Sequence[BaseMessage],
    schema: dict[str, Any],
    who: str,
    config: RunnableConfig | None = None,
) -> Any:
    """One model call whose reply is decoded as JSON (not yet validated)."""
    if not supports_tool_calling(model):
        reply = model.with_config(tags=[TAG_NOSTREAM]).invoke(list(messages), config)
        return decode_json(reply.text, who)
    structured = model.with_structured_output(schema, include_raw=True).with_config(
        tags=[TAG_NOSTREAM]
    )
    try:
        answer = structured.invoke(list(messages), config)
    except TruncatedOutputError as exc:  # an embedded model hit max_tokens mid-JSON
        raise StructuredReplyError(f"the {who} reply was cut off: {exc}") from None
    if answer["parsing_error"] is not None or answer["parsed"] is None:
        raw = answer["raw"]
        shown = (raw.text if raw is not None else "")[:200] or "(no tool call)"
        raise StructuredReplyError(f"the {who} reply is not valid JSON for its schema: {shown}")
    return answer["parsed"]
