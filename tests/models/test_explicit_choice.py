"""The "auto" reply of an embedded model, with a scripted llama.cpp runner: the request offers
the answer as the function final_answer under a `call | answer` grammar, an answer comes back
(and streams) as text, a call as a tool call, and usage carries the re-used prompt tokens."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import pytest
from langchain_core.messages import AIMessageChunk, HumanMessage

from open_langgraph.models.local import LocalChatModel
from open_langgraph.models.local.runner import ChunkCallback, Completion

from .tools_fixture import SEARCH


class ScriptedRunner:
    """Replies with `text` in pieces of three characters, like a decoding model would."""

    n_ctx = 8192

    def __init__(self, text: str, timings: Mapping[str, float]) -> None:
        self.text = text
        self.timings = dict(timings)
        self.requests: list[Mapping[str, Any]] = []

    def complete(
        self,
        request: Mapping[str, Any],
        on_chunk: ChunkCallback | None = None,
        *,
        stop_when: Callable[[str], bool] | None = None,
    ) -> Completion:
        self.requests.append(request)
        if on_chunk is not None:
            for start in range(0, len(self.text), 3):
                on_chunk(self.text[start : start + 3])
        return Completion(self.text, "stop", 120, 30, self.timings)


def _model(monkeypatch: pytest.MonkeyPatch, text: str) -> tuple[LocalChatModel, ScriptedRunner]:
    runner = ScriptedRunner(text, {"cache_n": 100, "prompt_n": 20})
    model = LocalChatModel(model_name="smollm2-135m")
    monkeypatch.setattr(LocalChatModel, "runner", lambda self: runner)
    return model, runner


ANSWER = 'Socks are \\"warm\\"\\nand cheap.'
ANSWER_REPLY = '{"name": "final_answer", "arguments": {"answer": "' + ANSWER + '"}}'
CALL_REPLY = '{"name": "search", "arguments": {"query": "socks"}}'


def test_an_answer_comes_back_as_text_and_the_request_offers_the_choice(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model, runner = _model(monkeypatch, ANSWER_REPLY)
    reply = model.bind_tools([SEARCH]).invoke([HumanMessage("Tell me about socks.")])

    assert reply.content == json.loads(f'"{ANSWER}"')
    assert not reply.tool_calls
    request = runner.requests[0]
    assert request["grammar"].startswith("root ::= call | answer")
    system = request["messages"][0]["content"]
    assert '"name": "final_answer"' in system and "to answer, call final_answer" in system
    # The prompt's re-used prefix (llama.cpp's cache_n) is reported with the token counts.
    assert reply.usage_metadata is not None
    assert reply.usage_metadata["input_token_details"] == {"cache_read": 100}


def test_a_call_comes_back_as_a_tool_call(monkeypatch: pytest.MonkeyPatch) -> None:
    model, _ = _model(monkeypatch, CALL_REPLY)
    reply = model.bind_tools([SEARCH]).invoke([HumanMessage("Find socks.")])
    assert reply.content == ""
    assert [(c["name"], c["args"]) for c in reply.tool_calls] == [("search", {"query": "socks"})]


def test_an_answer_streams_as_text_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    model, _ = _model(monkeypatch, ANSWER_REPLY)
    chunks = list(model.bind_tools([SEARCH]).stream([HumanMessage("Tell me about socks.")]))
    texts = [str(c.content) for c in chunks if c.content]
    assert len(texts) > 3  # token by token, not one block at the end
    assert "".join(texts) == json.loads(f'"{ANSWER}"')
    assert not any(isinstance(c, AIMessageChunk) and c.tool_call_chunks for c in chunks)


def test_a_streamed_call_is_not_shown_as_text(monkeypatch: pytest.MonkeyPatch) -> None:
    model, _ = _model(monkeypatch, CALL_REPLY)
    merged: AIMessageChunk | None = None
    for chunk in model.bind_tools([SEARCH]).stream([HumanMessage("Find socks.")]):
        assert not chunk.content
        merged = chunk if merged is None else merged + chunk
    assert merged is not None
    assert [(c["name"], c["args"]) for c in merged.tool_calls] == [("search", {"query": "socks"})]


def test_a_tool_named_final_answer_is_refused_at_bind_time() -> None:
    spec = {"name": "final_answer", "description": "x", "parameters": {"type": "object"}}
    with pytest.raises(ValueError, match="reserved"):
        LocalChatModel(model_name="smollm2-135m").bind_tools([spec])


def test_answer_choice_keeps_the_prompt_and_admits_only_an_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What the repeat guard uses: the same prompt as "auto" (the cache holds), a grammar
    without calls."""
    model, runner = _model(monkeypatch, ANSWER_REPLY)
    question = [HumanMessage("Tell me about socks.")]
    model.bind_tools([SEARCH]).invoke(question)
    reply = model.bind_tools([SEARCH], tool_choice=model.answer_choice).invoke(question)

    auto, answer_only = runner.requests
    assert answer_only["messages"] == auto["messages"]
    assert answer_only["grammar"].startswith("root ::= answer")
    assert "call" not in answer_only["grammar"]
    assert reply.content == json.loads(f'"{ANSWER}"')
