"""The OpenAI chat-completions and embeddings request bodies, as the `/v1` endpoint reads them.

Only the fields the embedded models act on are typed; every other field OpenAI defines
(`user`, `metadata`, `store`, `parallel_tool_calls`, `logprobs`, ...) is accepted and ignored,
so a stock client's request never fails on a parameter that changes nothing here. These live
below `server/` because the service reads them too.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class FunctionCall(_Open):
    name: str
    arguments: str = "{}"
    """A JSON object, as a string (OpenAI's spelling)."""


class ToolCall(_Open):
    id: str
    type: Literal["function"] = "function"
    function: FunctionCall


class Message(_Open):
    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: str | list[dict[str, Any]] | None = None
    name: str | None = None
    tool_calls: list[ToolCall] | None = None
    tool_call_id: str | None = None


class FunctionSpec(_Open):
    name: str = Field(min_length=1, max_length=64)
    description: str | None = None
    parameters: dict[str, Any] | None = None
    strict: bool | None = None


class Tool(_Open):
    type: Literal["function"] = "function"
    function: FunctionSpec


class NamedFunction(_Open):
    name: str


class NamedToolChoice(_Open):
    type: Literal["function"] = "function"
    function: NamedFunction


class JsonSchema(_Open):
    name: str = "response"
    schema_: dict[str, Any] = Field(default_factory=dict, alias="schema")
    strict: bool | None = None


class ResponseFormat(_Open):
    type: Literal["text", "json_object", "json_schema"]
    json_schema: JsonSchema | None = None


class StreamOptions(_Open):
    include_usage: bool = False


class ChatCompletionRequest(_Open):
    model: str = Field(min_length=1)
    messages: list[Message] = Field(min_length=1)
    stream: bool = False
    stream_options: StreamOptions | None = None
    tools: list[Tool] | None = None
    tool_choice: Literal["auto", "none", "required"] | NamedToolChoice | None = None
    response_format: ResponseFormat | None = None
    max_tokens: int | None = Field(default=None, ge=1, le=2**31 - 1)
    max_completion_tokens: int | None = Field(default=None, ge=1, le=2**31 - 1)
    stop: str | list[str] | None = None
    temperature: float | None = Field(default=None, ge=0, le=2)
    seed: int | None = Field(default=None, ge=-(2**63), le=2**64 - 1)
    n: int | None = Field(default=None, ge=1, le=1)
    """One choice per request: the model decodes one sequence at a time."""


class EmbeddingRequest(_Open):
    model: str = Field(min_length=1)
    input: str | list[str] = Field(min_length=1)
    encoding_format: Literal["float", "base64"] = "float"
    dimensions: int | None = Field(default=None, ge=1)
