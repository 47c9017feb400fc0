"""`/v1`: OpenAI's API on the embedded models, driven by the real `openai` SDK and LangChain's
`ChatOpenAI`, as a project's own code would drive it.

The model is the embedded SmolLM2-135M: too small to answer well, so these tests assert what a
client relies on (shapes, tool calls that parse and validate, JSON that matches the schema,
usage counts, error shapes) and never the wording of an answer. Replies are bounded by small
`max_tokens` to keep each call under a second or two.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import openai
import pytest
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from openai.types.chat import ChatCompletion
from pydantic import BaseModel, Field

from tests.fixtures.server import ServerProcess, serving, write_config

pytestmark = pytest.mark.e2e

MODEL = "smollm2-135m"
ALIASES = {"gpt-4o-mini": "local/smollm2-135m", "openai:gpt-4o-mini": "local/smollm2-135m"}
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The current weather in a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string", "maxLength": 20}},
            "required": ["city"],
        },
    },
}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory: Path = tmp_path_factory.mktemp("openai-endpoint")
    config = write_config(directory, models={"aliases": ALIASES})
    with serving(directory, config) as process:
        yield process


@pytest.fixture(scope="module")
def client(served: ServerProcess) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=f"{served.url}/v1", api_key="sk-local", max_retries=0) as c:
        yield c


def _ask(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


def test_plain_completion_has_openai_shape_and_usage(client: openai.OpenAI) -> None:
    reply = client.chat.completions.create(
        model=MODEL, messages=_ask("Say hello."), max_tokens=8, seed=1
    )
    assert reply.object == "chat.completion"
    assert reply.model == MODEL
    assert reply.choices[0].message.role == "assistant"
    assert isinstance(reply.choices[0].message.content, str)
    assert reply.choices[0].finish_reason in ("stop", "length")
    assert reply.usage is not None and reply.usage.completion_tokens <= 8
    assert reply.usage.prompt_tokens > 0
    assert reply.usage.prompt_tokens_details is not None
    assert reply.usage.prompt_tokens_details.cached_tokens is not None


def test_a_conversation_that_ends_with_the_assistant_gets_a_new_turn(
    client: openai.OpenAI,
) -> None:
    """As OpenAI answers it: a new assistant message, not the last one continued (a
    continuation starts mid-sentence, " Paris.")."""
    messages = [
        {"role": "user", "content": "What is the capital of France?"},
        {"role": "assistant", "content": "The capital of France is"},
    ]
    reply = client.chat.completions.create(model=MODEL, messages=messages, max_tokens=16)
    content = reply.choices[0].message.content or ""
    assert content[:1].isupper(), f"continued instead of a new turn: {content!r}"


def test_repeated_prompt_reports_cached_tokens(client: openai.OpenAI) -> None:
    messages = [
        {"role": "system", "content": "You are a terse assistant. " * 10},
        {"role": "user", "content": "Name a colour."},
    ]
    client.chat.completions.create(model=MODEL, messages=messages, max_tokens=4)
    again = client.chat.completions.create(model=MODEL, messages=messages, max_tokens=4)
    assert again.usage is not None and again.usage.prompt_tokens_details is not None
    assert again.usage.prompt_tokens_details.cached_tokens > 0


def test_stop_and_max_completion_tokens_bound_the_reply(client: openai.OpenAI) -> None:
    reply = client.chat.completions.create(
        model=MODEL, messages=_ask("Count from 1 to 50."), max_completion_tokens=5
    )
    assert reply.choices[0].finish_reason == "length"
    assert reply.usage is not None and reply.usage.completion_tokens == 5


def test_streamed_completion_sends_openai_chunks(client: openai.OpenAI) -> None:
    stream = client.chat.completions.create(
        model=MODEL,
        messages=_ask("Say hello."),
        max_tokens=8,
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = list(stream)
    assert chunks[0].choices[0].delta.role == "assistant"
    assert all(c.object == "chat.completion.chunk" for c in chunks)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text.strip()
    finished = [c.choices[0].finish_reason for c in chunks if c.choices]
    assert finished[-1] in ("stop", "length") and not any(finished[:-1])
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    assert chunks[-1].usage.completion_tokens <= 8


def test_raw_stream_ends_with_done(served: ServerProcess) -> None:
    body = {"model": MODEL, "messages": _ask("Hi"), "max_tokens": 3, "stream": True}
    with httpx.stream("POST", f"{served.url}/v1/chat/completions", json=body) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        lines = [line for line in response.iter_lines() if line]
    assert all(line.startswith("data: ") for line in lines)
    assert lines[-1] == "data: [DONE]"
    assert json.loads(lines[0][6:])["object"] == "chat.completion.chunk"


def _ask_the_weather(
    client: openai.OpenAI,
    tool_choice: Any,
    max_tokens: int,
    tools: Sequence[dict[str, Any]] = (WEATHER,),
) -> ChatCompletion:
    """The weather in Paris, asked with `tools` offered under `tool_choice`."""
    return client.chat.completions.create(
        model=MODEL,
        messages=_ask("What is the weather in Paris?"),
        tools=list(tools),
        tool_choice=tool_choice,
        max_tokens=max_tokens,
    )


def _assert_weather_arguments(arguments: str) -> None:
    """`arguments` are JSON that the weather tool's schema accepts."""
    jsonschema.validate(json.loads(arguments), WEATHER["function"]["parameters"])


def test_required_tool_choice_gives_a_valid_call(client: openai.OpenAI) -> None:
    choice = _ask_the_weather(client, "required", max_tokens=64).choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content is None
    (call,) = choice.message.tool_calls or []
    assert call.type == "function" and call.id
    assert call.function.name == "get_weather"
    _assert_weather_arguments(call.function.arguments)


def test_named_tool_choice_calls_that_tool(client: openai.OpenAI) -> None:
    other = {
        "type": "function",
        "function": {"name": "get_time", "parameters": {"type": "object", "properties": {}}},
    }
    named = {"type": "function", "function": {"name": "get_time"}}
    reply = _ask_the_weather(client, named, max_tokens=32, tools=(WEATHER, other))
    (call,) = reply.choices[0].message.tool_calls or []
    assert call.function.name == "get_time" and json.loads(call.function.arguments) == {}


def test_auto_tool_choice_answers_or_calls_validly(client: openai.OpenAI) -> None:
    choice = _ask_the_weather(client, "auto", max_tokens=48).choices[0]
    if choice.message.tool_calls:  # SmolLM2 decides; either outcome must be well formed
        assert choice.finish_reason == "tool_calls"
        _assert_weather_arguments(choice.message.tool_calls[0].function.arguments)
    else:
        assert isinstance(choice.message.content, str)


def test_none_tool_choice_answers_in_text(client: openai.OpenAI) -> None:
    reply = client.chat.completions.create(
        model=MODEL, messages=_ask("Hi"), tools=[WEATHER], tool_choice="none", max_tokens=6
    )
    assert reply.choices[0].message.tool_calls is None
    assert isinstance(reply.choices[0].message.content, str)


def test_streamed_tool_call(client: openai.OpenAI) -> None:
    stream = client.chat.completions.create(
        model=MODEL,
        messages=_ask("Weather in Rome?"),
        tools=[WEATHER],
        tool_choice="required",
        max_tokens=64,
        stream=True,
    )
    chunks = list(stream)
    calls = [d for c in chunks for d in (c.choices[0].delta.tool_calls or [])]
    assert calls and calls[0].function.name == "get_weather"
    _assert_weather_arguments("".join(c.function.arguments or "" for c in calls))
    assert chunks[-1].choices[0].finish_reason == "tool_calls"


def test_tool_result_round_trip(client: openai.OpenAI) -> None:
    messages = [
        *_ask("Weather in Rome?"),
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Rome"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "sunny, 21 C"},
    ]
    reply = client.chat.completions.create(
        model=MODEL, messages=messages, tools=[WEATHER], tool_choice="none", max_tokens=8
    )
    assert isinstance(reply.choices[0].message.content, str)


def test_json_schema_response_format_matches_the_schema(client: openai.OpenAI) -> None:
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "maxLength": 20},
            "age": {"type": "integer"},
        },
        "required": ["name", "age"],
        "additionalProperties": False,
    }
    reply = client.chat.completions.create(
        model=MODEL,
        messages=_ask("Invent a person."),
        response_format={
            "type": "json_schema",
            "json_schema": {"name": "person", "schema": schema, "strict": True},
        },
        max_tokens=64,
    )
    jsonschema.validate(json.loads(reply.choices[0].message.content or ""), schema)


def test_models_lists_catalogue_and_aliases(client: openai.OpenAI) -> None:
    ids = {model.id for model in client.models.list()}
    assert {"smollm2-135m", "qwen2.5-coder-1.5b", "gpt-4o-mini"} <= ids
    assert client.models.retrieve("gpt-4o-mini").owned_by == "local/smollm2-135m"


def test_alias_and_local_prefix_reach_the_embedded_model(client: openai.OpenAI) -> None:
    for name in ("gpt-4o-mini", "local/smollm2-135m"):
        reply = client.chat.completions.create(model=name, messages=_ask("Hi"), max_tokens=2)
        assert reply.model == MODEL


def test_unknown_model_is_404_in_openai_shape(client: openai.OpenAI) -> None:
    with pytest.raises(openai.NotFoundError) as caught:
        client.chat.completions.create(model="claude-3", messages=_ask("Hi"), max_tokens=2)
    error = caught.value.body
    assert isinstance(error, dict)
    assert error["code"] == "model_not_found" and "claude-3" in error["message"]
    assert error["type"] == "invalid_request_error"


def test_bad_bodies_are_400_in_openai_shape(served: ServerProcess) -> None:
    url = f"{served.url}/v1/chat/completions"
    for body in (
        b"{not json",
        json.dumps({"model": MODEL}).encode(),
        json.dumps({"model": MODEL, "messages": [], "max_tokens": 2}).encode(),
        json.dumps({"model": MODEL, "messages": _ask("Hi"), "max_tokens": 0}).encode(),
        json.dumps({"model": MODEL, "messages": _ask("Hi"), "n": 3}).encode(),
        json.dumps({"model": MODEL, "messages": _ask("Hi"), "tool_choice": "required"}).encode(),
    ):
        response = httpx.post(url, content=body, headers={"content-type": "application/json"})
        assert response.status_code == 400, (body, response.text)
        error = response.json()["error"]
        assert error["type"] == "invalid_request_error" and error["message"], body


def test_extreme_numbers_are_bounded_not_failed(client: openai.OpenAI) -> None:
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    reply = client.chat.completions.create(
        model=MODEL,
        messages=_ask("Is water wet?"),
        max_tokens=2**31 - 1,  # bounded by the context; the grammar ends the reply early
        seed=2**63,
        response_format={"type": "json_schema", "json_schema": {"name": "a", "schema": schema}},
    )
    assert isinstance(json.loads(reply.choices[0].message.content or "")["ok"], bool)


def test_bad_body_through_the_sdk_is_bad_request(client: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError):
        client.chat.completions.create(model=MODEL, messages=_ask("Hi"), temperature=5)


def test_embeddings_come_from_the_local_model(client: openai.OpenAI) -> None:
    """OpenAI's embedding names reach all-MiniLM-L6-v2: unit vectors of 384, close for texts
    that mean the same, and base64 (the SDK's default encoding) equal to floats."""
    texts = ["A cat sleeps on the sofa.", "A kitten naps on the couch.", "Tax rates rose."]
    result = client.embeddings.create(model="text-embedding-3-small", input=texts)
    assert result.model == "all-minilm-l6-v2" and len(result.data) == 3
    vectors = [item.embedding for item in sorted(result.data, key=lambda item: item.index)]
    assert all(len(v) == 384 and abs(sum(x * x for x in v) - 1) < 1e-4 for v in vectors)

    def cosine(a: list[float], b: list[float]) -> float:
        return sum(x * y for x, y in zip(a, b, strict=True))

    assert cosine(vectors[0], vectors[1]) > 0.5 > cosine(vectors[0], vectors[2])
    floats = client.embeddings.create(
        model="local/all-minilm-l6-v2", input=texts[0], encoding_format="float"
    )
    assert floats.data[0].embedding == pytest.approx(vectors[0], abs=1e-6)
    assert result.usage.prompt_tokens > 0


def test_chat_openai_invokes_streams_and_binds_tools(served: ServerProcess) -> None:
    llm = ChatOpenAI(
        model="gpt-4o-mini", base_url=f"{served.url}/v1", api_key="sk-local", max_tokens=48
    )
    answer = llm.invoke("Say hello.")
    assert isinstance(answer.content, str)
    assert answer.usage_metadata and answer.usage_metadata["output_tokens"] > 0
    streamed = list(llm.stream("Say hello."))
    assert "".join(str(c.content) for c in streamed).strip()

    @tool
    def get_weather(city: str) -> str:
        """The current weather in a city."""
        return "sunny"

    called = llm.bind_tools([get_weather], tool_choice="required").invoke("Weather in Oslo?")
    assert called.tool_calls and called.tool_calls[0]["name"] == "get_weather"
    assert isinstance(called.tool_calls[0]["args"].get("city"), str)


def test_a_conversation_over_the_context_window_is_openais_overflow(
    served: ServerProcess, client: openai.OpenAI
) -> None:
    """OpenAI's `context_length_exceeded`, so ChatOpenAI raises LangChain's
    `ContextOverflowError` (which agents' summarisation middleware catches), streamed or not."""
    from langchain_core.exceptions import ContextOverflowError

    too_long = " ".join(f"w{i}" for i in range(6000))
    with pytest.raises(openai.BadRequestError) as refused:
        client.chat.completions.create(model=MODEL, messages=_ask(too_long), max_tokens=8)
    error = refused.value.body
    assert isinstance(error, dict)
    assert error["code"] == "context_length_exceeded" and error["param"] == "messages"
    assert "maximum context length is 8192 tokens" in error["message"]  # SmolLM2 was trained for 8k
    llm = ChatOpenAI(
        model="gpt-4o-mini", base_url=f"{served.url}/v1", api_key="sk-local", max_tokens=8
    )
    with pytest.raises(ContextOverflowError):
        llm.invoke(too_long)
    with pytest.raises(ContextOverflowError):
        list(llm.stream(too_long))
    assert llm.invoke("Say hi.").content  # the next request is answered as usual


def test_chat_openai_structured_output(served: ServerProcess) -> None:
    class Person(BaseModel):
        name: str = Field(max_length=20)
        age: int

    llm = ChatOpenAI(
        model="gpt-4o-mini", base_url=f"{served.url}/v1", api_key="sk-local", max_tokens=64
    )
    person = llm.with_structured_output(Person, method="json_schema").invoke("Invent a person.")
    assert isinstance(person, Person)


async def test_concurrent_requests_queue_and_all_finish(served: ServerProcess) -> None:
    async with openai.AsyncOpenAI(
        base_url=f"{served.url}/v1", api_key="sk-local", max_retries=0
    ) as client:

        async def ask(i: int, stream: bool) -> str:
            if not stream:
                reply = await client.chat.completions.create(
                    model=MODEL, messages=_ask(f"Say {i}."), max_tokens=6
                )
                return reply.choices[0].finish_reason
            chunks = [
                c
                async for c in await client.chat.completions.create(
                    model=MODEL, messages=_ask(f"Say {i}."), max_tokens=6, stream=True
                )
            ]
            return str(chunks[-1].choices[0].finish_reason)

        reasons = await asyncio.gather(*(ask(i, stream=i % 2 == 1) for i in range(4)))
    assert all(reason in ("stop", "length") for reason in reasons)


async def test_a_request_whose_client_left_while_queued_is_not_decoded(
    served: ServerProcess,
) -> None:
    """A client that times out while its request waits behind another (the openai SDK's
    timeout, a retry elsewhere) is gone: its tokens are not decoded in front of the next."""

    def gone_count() -> float:
        families = httpx.get(f"{served.url}/metrics", params={"format": "json"}).json()
        return sum(
            s["value"]
            for s in families.get("olg_openai_requests_total", [])
            if s["labels"]["outcome"] == "client_gone"
        )

    before = gone_count()
    body = {"model": MODEL, "messages": _ask("Count from 1 to 200."), "max_tokens": 120}
    async with httpx.AsyncClient(base_url=f"{served.url}/v1", timeout=120) as http:
        long = asyncio.ensure_future(
            http.post("/chat/completions", json={**body, "max_tokens": 300})
        )
        await asyncio.sleep(0.2)  # the long request holds the model
        with pytest.raises(httpx.ReadTimeout):
            await http.post("/chat/completions", json=body, timeout=0.3)
        assert (await long).status_code == 200
        after = await http.post(
            "/chat/completions", json={**body, "max_tokens": 2, "messages": _ask("Hi.")}
        )
        assert after.status_code == 200
    assert gone_count() == before + 1


def test_metrics_count_requests_tokens_and_queue(served: ServerProcess) -> None:
    families = httpx.get(f"{served.url}/metrics", params={"format": "json"}).json()
    requests = families["olg_openai_requests_total"]
    assert any(s["labels"]["model"] == MODEL and s["labels"]["outcome"] == "ok" for s in requests)
    tokens = {s["labels"]["kind"]: s["value"] for s in families["olg_openai_tokens_total"]}
    assert tokens["prompt"] > 0 and tokens["completion"] > 0
    assert "olg_openai_queue_wait_seconds_count" in families
    assert "olg_openai_requests_waiting" in families
