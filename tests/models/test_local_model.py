"""The embedded SmolLM2 model under grammar-constrained decoding (real model, no fakes).

SmolLM2-135M picks tools near chance, which is the point: whatever it picks, the call must parse
and validate against the tool's schema, and enum arguments must stay inside the enum.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from langchain_core.exceptions import ContextOverflowError
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from pydantic import BaseModel, Field

from open_langgraph.models.local import LocalChatModel
from open_langgraph.models.local.messages import TruncatedOutputError
from open_langgraph.models.local.repetition import before_repeat, repeats_itself
from open_langgraph.models.local.runner import Completion, ContextWindowExceededError, get_runner

from .tools_fixture import ALL, BUY, CALC, CLICK, EMAIL, EVENT, FILTER, SEARCH, SHOP, WEATHER

SCHEMAS = {t["function"]["name"]: t["function"]["parameters"] for t in ALL}

# (tools offered, tool_choice, prompt): 20 varied decisions.
CASES: list[tuple[list[dict[str, Any]], str, str]] = [
    (SHOP, "any", "I need a waterproof hiking jacket for men."),
    (SHOP, "any", "Open the second item, B09K3, it looks right."),
    (SHOP, "buy", "Buy two of these in size large."),
    (SHOP, "click", "The page lists B07X1, B09K3, B0C55, B01ZZ. Open the cheapest: B0C55 ($9)."),
    (SHOP, "search", "Look for 'organic green tea 100 bags' please."),
    (ALL, "any", "What's the weather in Lisbon right now, in celsius?"),
    (ALL, "get_weather", "Is it hot in Phoenix? Use fahrenheit."),
    (ALL, "any", "Schedule a team standup on Tuesday with Ana and Raj."),
    (ALL, "create_event", 'Put "Dentist" on my calendar for Friday.'),
    (ALL, "calculate", "What is 12.5 times 4?"),
    (ALL, "any", "Divide 100 by 7."),
    (ALL, "filter_products", "Only show blue ones under 30 dollars, sorted by rating."),
    (ALL, "any", "Show me black products, cheapest first."),
    (ALL, "send_email", "Email bob@example.com that the report is late, urgent."),
    (ALL, "any", 'Tell sara@example.com "Lunch at noon?"'),
    ([CALC, WEATHER], "any", "Add 3 and 4.5"),
    ([CLICK], "any", "Open whichever item is first on the page."),
    ([BUY, SEARCH], "any", "Get me one extra-small... no wait, XL, just one."),
    ([EVENT, EMAIL], "any", 'Invite Kim to a "review" meeting on Sunday.\nThanks!'),
    ([FILTER, SEARCH, CLICK], "auto_forced", "Filter: red only."),
]


def _validate_call(call: dict[str, Any], offered: list[dict[str, Any]]) -> None:
    names = [t["function"]["name"] for t in offered]
    assert call["name"] in names
    schema = SCHEMAS[call["name"]]
    # Round-trip through strict JSON: raw control characters in strings would fail here.
    args = json.loads(json.dumps(call["args"]), strict=True)
    Draft202012Validator(schema).validate(args)
    for key, prop in schema["properties"].items():
        if "enum" in prop and key in args:
            assert args[key] in prop["enum"]


@pytest.mark.timeout(360)  # ~20 s on an idle machine; twenty real decisions on a busy CPU
def test_twenty_constrained_decisions_all_valid(smollm2: LocalChatModel) -> None:
    valid = 0
    for tools, choice, prompt in CASES:
        tool_choice = "any" if choice == "auto_forced" else choice
        reply = smollm2.bind_tools(tools, tool_choice=tool_choice).invoke(prompt)
        assert isinstance(reply, AIMessage)
        assert len(reply.tool_calls) == 1, (prompt, reply)
        call = reply.tool_calls[0]
        if choice not in ("any", "auto_forced"):
            assert call["name"] == choice
        _validate_call(dict(call), tools)
        valid += 1
    assert valid == 20


def test_auto_reply_is_text_or_valid_call(smollm2: LocalChatModel) -> None:
    prompts = ["Hi! How are you today?", "Search for running shoes size 42.", "Open item B01ZZ."]
    for prompt in prompts:
        reply = smollm2.bind_tools(SHOP, tool_choice="auto").invoke(prompt)
        if reply.tool_calls:
            _validate_call(dict(reply.tool_calls[0]), SHOP)
            assert reply.content == ""
        else:
            # An answer is decoded from its final_answer call: text, never call JSON.
            assert isinstance(reply.content, str) and reply.content
            assert "{" not in reply.content


def test_enum_restricts_to_page_ids_even_when_prompt_names_others(
    smollm2: LocalChatModel,
) -> None:
    reply = smollm2.bind_tools([CLICK], tool_choice="click").invoke("Open item ZZZ999 and B0000.")
    assert reply.tool_calls[0]["args"]["item_id"] in {"B07X1", "B09K3", "B0C55", "B01ZZ"}


def test_decode_tools_narrow_the_grammar_but_not_the_prompt(
    smollm2: LocalChatModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The prompt describes the general tools (its cached prefix holds from call to call);
    only the grammar takes this call's allowed values, and a tool left out of it is not
    callable."""
    general = _fn_with_target("open", {"type": "string", "maxLength": 20})
    narrowed = _fn_with_target("open", {"type": "string", "enum": ["f2e9", "f2e13"]})
    runner = smollm2.runner()
    requests: list[dict] = []
    complete = runner.complete
    monkeypatch.setattr(
        runner, "complete", lambda r, *a, **k: requests.append(r) or complete(r, *a, **k)
    )
    for prompt in ["Open e7.", "Open the item f1e4 now.", "Open something."]:
        bound = smollm2.bind_tools([general, SEARCH], tool_choice="any", decode_tools=[narrowed])
        reply = bound.invoke(prompt)
        assert reply.tool_calls[0]["name"] == "open"
        assert reply.tool_calls[0]["args"]["target"] in {"f2e9", "f2e13"}
    system = requests[0]["messages"][0]["content"]
    assert '"maxLength": 20' in system and "f2e9" not in system and '"search"' in system
    assert all(r["messages"][0]["content"] == system for r in requests)
    with pytest.raises(ValueError, match="not bound"):
        smollm2.bind_tools([SEARCH], decode_tools=[narrowed])
    with pytest.raises(ValueError, match="at least one tool"):
        smollm2.bind_tools([SEARCH], decode_tools=[])


def _fn_with_target(name: str, target: dict) -> dict:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": "Open an element of the page.",
            "parameters": {
                "type": "object",
                "properties": {"target": target},
                "required": ["target"],
            },
        },
    }


def test_text_streams_token_by_token(smollm2: LocalChatModel) -> None:
    chunks = list(smollm2.stream([HumanMessage("Write one sentence about the sea.")]))
    text_chunks = [c for c in chunks if c.content]
    assert len(text_chunks) > 3
    assert all(isinstance(c, AIMessageChunk) for c in chunks)
    assert chunks[-1].response_metadata["finish_reason"] in ("stop", "length")


def test_a_conversation_that_ends_with_the_assistant_is_answered_as_a_new_turn(
    smollm2: LocalChatModel,
) -> None:
    """Not continued: llama.cpp's default prefill answered " Paris." to this."""
    reply = smollm2.invoke(
        [HumanMessage("What is the capital of France?"), AIMessage("The capital of France is")]
    )
    assert str(reply.content)[:1].isupper(), reply.content


def test_a_reply_that_repeats_itself_is_stopped_early(smollm2: LocalChatModel) -> None:
    looping = LocalChatModel(model_name="smollm2-135m", max_tokens=400)
    prompt = "Repeat the word hello 200 times."  # a loop on demand: no answer needs one
    reply = looping.invoke([HumanMessage(prompt)])
    assert reply.response_metadata["finish_reason"] == "repetition"
    assert reply.usage_metadata is not None and reply.usage_metadata["output_tokens"] < 400
    assert not repeats_itself(str(reply.content))


def test_streamed_tool_call_aggregates_to_valid_call(smollm2: LocalChatModel) -> None:
    bound = smollm2.bind_tools([WEATHER, CALC], tool_choice="any")
    merged: AIMessageChunk | None = None
    for chunk in bound.stream("Weather in Oslo in celsius?"):
        merged = chunk if merged is None else merged + chunk
    assert merged is not None and len(merged.tool_calls) == 1
    _validate_call(dict(merged.tool_calls[0]), [WEATHER, CALC])


async def test_async_stream_works_for_the_server(smollm2: LocalChatModel) -> None:
    pieces = [c async for c in smollm2.astream("Count from one to five.")]
    assert "".join(str(c.content) for c in pieces).strip()
    reply = await smollm2.bind_tools([SEARCH], tool_choice="any").ainvoke("find socks")
    _validate_call(dict(reply.tool_calls[0]), [SEARCH])


class Address(BaseModel):
    city: str = Field(max_length=30)
    zip_code: str | None = Field(default=None, max_length=10)


class Review(BaseModel):
    """A review of a product."""

    stars: int = Field(ge=1, le=5)
    verdict: str = Field(json_schema_extra={"enum": ["buy", "skip"]})
    pros: list[str] = Field(max_length=2)
    shipped_to: Address


def test_structured_output_with_nested_model(smollm2: LocalChatModel) -> None:
    structured = smollm2.with_structured_output(Review)
    result = structured.invoke(
        [SystemMessage("You review products."), HumanMessage("Review a cheap umbrella.")]
    )
    assert isinstance(result, Review)
    assert 1 <= result.stars <= 5 and result.verdict in ("buy", "skip")
    assert len(result.pros) <= 2


def test_concurrent_calls_share_one_runner_and_both_succeed(smollm2: LocalChatModel) -> None:
    other = LocalChatModel(model_name="smollm2-135m", max_tokens=48)
    assert other.runner() is smollm2.runner()
    results: list[AIMessage] = []

    def run(model: LocalChatModel, prompt: str) -> None:
        results.append(model.bind_tools([CALC], tool_choice="any").invoke(prompt))

    threads = [
        threading.Thread(target=run, args=(m, p))
        for m, p in ((smollm2, "add 1 and 2"), (other, "multiply 3 by 9"))
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert len(results) == 2
    for reply in results:
        _validate_call(dict(reply.tool_calls[0]), [CALC])
    assert get_runner(smollm2.runner().model_path, n_ctx=1) is smollm2.runner()


def test_tool_history_is_replayed(smollm2: LocalChatModel) -> None:
    first = smollm2.bind_tools([SEARCH], tool_choice="search").invoke("find a blue mug")
    history = [
        HumanMessage("find a blue mug"),
        first,
        ToolMessage("B07X1 Blue mug $5; B09K3 Navy mug $7", tool_call_id=first.tool_calls[0]["id"]),
    ]
    reply = smollm2.bind_tools([CLICK, EMAIL], tool_choice="any").invoke(history)
    _validate_call(dict(reply.tool_calls[0]), [CLICK, EMAIL])


def test_unknown_tool_choice_is_refused(smollm2: LocalChatModel) -> None:
    with pytest.raises(ValueError, match="not one of the bound tools"):
        smollm2.bind_tools([SEARCH], tool_choice="delete_everything")


def test_tiny_max_tokens_cannot_truncate_a_bounded_call(smollm2: LocalChatModel) -> None:
    stingy = LocalChatModel(model_name="smollm2-135m", max_tokens=2)
    reply = stingy.bind_tools([EMAIL, EVENT], tool_choice="any").invoke(
        "Email the whole team about the quarterly planning offsite next month."
    )
    _validate_call(dict(reply.tool_calls[0]), [EMAIL, EVENT])


def _longer_than_the_window(tokens: int) -> str:
    return " ".join(f"w{i}" for i in range(tokens))


def test_a_conversation_longer_than_the_window_is_a_context_overflow(
    smollm2: LocalChatModel,
) -> None:
    """LangChain's own overflow error, as a hosted provider's: agents' summarisation catches
    it and retries with a shorter history; the message says what to change."""
    window = smollm2.runner().n_ctx
    prompt = [HumanMessage(_longer_than_the_window(window))]
    for call in (
        lambda: smollm2.invoke(prompt),
        lambda: list(smollm2.stream(prompt)),
        lambda: smollm2.bind_tools([SEARCH], tool_choice="any").invoke(prompt),
    ):
        with pytest.raises(ContextOverflowError) as raised:
            call()
        assert isinstance(raised.value, ContextWindowExceededError)
        assert raised.value.context_tokens == window
        assert raised.value.prompt_tokens > window
        assert "prompt is too long: it exceeds the context window" in str(raised.value)
        assert "trim_messages" in str(raised.value)
    assert smollm2.invoke("Say hi.").content  # the runner is still usable


def test_a_call_cut_off_by_the_full_window_is_an_overflow_not_max_tokens(
    smollm2: LocalChatModel,
) -> None:
    """A call that stops before its `max_tokens` ran out was stopped by the window, and
    raising `max_tokens` (what the truncation error advises) would not help."""
    cut = '{"name": "search", "arguments": {"query": "blue m'
    by_window = Completion(cut, "length", prompt_tokens=4090, completion_tokens=6)
    with pytest.raises(ContextWindowExceededError, match="the tool call 6 tokens in"):
        smollm2._call_in(cut, by_window, max_tokens=96)
    by_budget = Completion(cut, "length", prompt_tokens=300, completion_tokens=96)
    with pytest.raises(TruncatedOutputError, match="max_tokens=96"):
        smollm2._call_in(cut, by_budget, max_tokens=96)


def test_a_repeat_is_caught_only_when_a_long_stretch_recurs_verbatim() -> None:
    sentence = "DNS servers also handle queries for IPv6 addresses, which map names to hosts. "
    assert repeats_itself("Intro. " + sentence * 3)
    assert not repeats_itself(
        "def add(a, b):\n    return a + b\n\ndef sub(a, b):\n    return a - b\n"
    )
    assert not repeats_itself(sentence)  # said once, however long
    assert before_repeat("Intro. " + sentence * 3) in ("Intro. " + sentence * 2).rstrip()


STOPPED_WITHIN = 5.0


async def _seconds_until_idle(runner: Any) -> float:
    started = time.monotonic()
    while runner.busy and time.monotonic() - started < 30:
        await asyncio.sleep(0.02)
    return time.monotonic() - started


async def test_a_cancelled_call_stops_decoding_within_a_second(smollm2: LocalChatModel) -> None:
    """A cancelled run frees the model at once instead of decoding on to `max_tokens`.

    4,000 tokens take the small model 40 s or more here; the bound leaves room for a loaded
    machine (measured: 11-32 ms after the cancel with two other model processes running; a
    stream the reader leaves is closed when its generator is collected)."""
    long = LocalChatModel(model_name="smollm2-135m", max_tokens=4000)
    runner = long.runner()
    prompt = [HumanMessage("Count from 1 to 3000, one number per line.")]
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(long.ainvoke(prompt), timeout=1.0)
    assert await _seconds_until_idle(runner) < STOPPED_WITHIN
    streamed = 0
    async for _ in long.astream(prompt):
        streamed += 1
        if streamed == 5:
            break  # the reader stops reading: the decode stops too
    assert await _seconds_until_idle(runner) < STOPPED_WITHIN
