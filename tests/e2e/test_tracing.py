"""Langfuse and OpenTelemetry tracing of a live server, received by a local OTLP/HTTP
receiver: Langfuse's SDK exports over OTLP to `LANGFUSE_HOST`, the OpenTelemetry SDK to
`OTEL_EXPORTER_OTLP_ENDPOINT`; both point at the receiver here. The agent is the project's
`react_agent` with a scripted model that reports token usage (tests/fixtures/scripted_react.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.fixtures.otlp_receiver import OtlpReceiver, ReceivedSpan
from tests.fixtures.scripted_react import MODEL_NAME, USAGE
from tests.fixtures.sdk import sdk_client
from tests.fixtures.server import TEST_GRAPHS, ServerProcess, free_port, write_config

pytestmark = pytest.mark.e2e

LANGFUSE_PATH = "/api/public/otel/v1/traces"
CLIENT = 3  # SpanKind in OTLP's protobuf
QUESTION = {"messages": [{"role": "user", "content": "What is 6 * 7?"}]}


def _server(directory: Path, collector_url: str) -> ServerProcess:
    config = write_config(
        directory,
        graphs={**TEST_GRAPHS, "react_agent": "tests.fixtures.scripted_react:graph"},
        auth={"path": "tests.fixtures.auth_api_key:auth"},
    )
    env = {
        "LANGFUSE_LOGGING": "true",
        "LANGFUSE_PUBLIC_KEY": "pk-lf-test",
        "LANGFUSE_SECRET_KEY": "sk-lf-test-secret",
        "LANGFUSE_HOST": collector_url,
        "LANGFUSE_FLUSH_INTERVAL": "0.2",
        "OTEL_EXPORTER_OTLP_ENDPOINT": collector_url,
        "OTEL_BSP_SCHEDULE_DELAY": "200",
        "OTEL_SERVICE_NAME": "olg-under-test",
    }
    return ServerProcess(config, directory / "olg.db", directory / "server.log", env=env)


@pytest.fixture(scope="module")
def receiver() -> Iterator[OtlpReceiver]:
    with OtlpReceiver() as running:
        yield running


@pytest.fixture(scope="module")
def traced(
    tmp_path_factory: pytest.TempPathFactory, receiver: OtlpReceiver
) -> Iterator[ServerProcess]:
    with _server(tmp_path_factory.mktemp("traced"), receiver.url) as process:
        yield process


def _text(value: object) -> object:
    """An attribute the SDK may have stored JSON-encoded (`"abc"`), as its value."""
    if isinstance(value, str) and value.startswith('"'):
        return json.loads(value)
    return value


def _children(spans: list[ReceivedSpan], parent: ReceivedSpan) -> list[ReceivedSpan]:
    return sorted((s for s in spans if s.parent_id == parent.span_id), key=lambda s: s.start)


def _descendants(spans: list[ReceivedSpan], root: ReceivedSpan) -> list[ReceivedSpan]:
    found: list[ReceivedSpan] = []
    for child in _children(spans, root):
        found += [child, *_descendants(spans, child)]
    return sorted(found, key=lambda s: s.start)


async def _run_agent(url: str) -> tuple[str, str, str]:
    async with sdk_client(url, api_key="key-a") as client:
        thread = await client.threads.create()
        run = await client.runs.create(thread["thread_id"], "react_agent", input=QUESTION)
        await client.runs.join(thread["thread_id"], run["run_id"])
        ended = await client.runs.get(thread["thread_id"], run["run_id"])
        assert ended["status"] == "success"
        state = await client.threads.get_state(thread["thread_id"])
        assert state["values"]["messages"][-1]["content"] == "The answer is 42."
        return run["run_id"], thread["thread_id"], run["assistant_id"]


async def test_langfuse_traces_a_run_as_run_model_tool_model(
    traced: ServerProcess, receiver: OtlpReceiver
) -> None:
    run_id, thread_id, assistant_id = await _run_agent(traced.url)
    trace_id = run_id.replace("-", "")

    def roots(spans: list[ReceivedSpan]) -> list[ReceivedSpan]:
        ids = {x.span_id for x in spans}
        return [s for s in spans if s.parent_id == "" or s.parent_id not in ids]

    def complete(spans: list[ReceivedSpan]) -> bool:
        ours = [s for s in spans if s.path == LANGFUSE_PATH and s.trace_id == trace_id]
        kinds = [s.attributes.get("langfuse.observation.type") for s in ours]
        # The run's own span ends last and can come in a later export than its children:
        # wait for the whole tree (one root), not only for the calls inside it.
        return kinds.count("generation") >= 2 and "tool" in kinds and len(roots(ours)) == 1

    spans = [s for s in receiver.wait_for(complete) if s.trace_id == trace_id]
    langfuse = [s for s in spans if s.path == LANGFUSE_PATH]
    [root] = roots(langfuse)
    assert root.name == "react_agent"
    # The trace's ids, on the root and propagated to every observation under it.
    for span in langfuse:
        assert span.attributes.get("session.id") == thread_id, span.name
        assert span.attributes.get("user.id") == "user-a", span.name
        assert _text(span.attributes.get("langfuse.trace.metadata.run_id")) == run_id
    assert _text(root.attributes["langfuse.trace.metadata.assistant_id"]) == assistant_id
    assert _text(root.attributes["langfuse.trace.metadata.graph_id"]) == "react_agent"

    # In time order under the run: model call (with usage) -> tool -> model call.
    steps = [
        s
        for s in _descendants(langfuse, root)
        if s.attributes.get("langfuse.observation.type") in ("generation", "tool")
    ]
    assert [s.attributes["langfuse.observation.type"] for s in steps] == [
        "generation",
        "tool",
        "generation",
    ]
    first, tool, second = steps
    assert tool.name == "calculator"
    for call in (first, second):
        assert call.attributes["langfuse.observation.model.name"] == MODEL_NAME
        usage = json.loads(call.attributes["langfuse.observation.usage_details"])
        assert usage["input"] == USAGE["input_tokens"]
        assert usage["output"] == USAGE["output_tokens"]


async def test_opentelemetry_spans_requests_runs_model_and_tool_calls(
    traced: ServerProcess, receiver: OtlpReceiver
) -> None:
    run_id, thread_id, assistant_id = await _run_agent(traced.url)

    def has_run_and_calls(spans: list[ReceivedSpan]) -> bool:
        runs = [s for s in spans if s.attributes.get("langgraph.run_id") == run_id]
        routes = {s.name for s in spans if s.attributes.get("http.route")}
        # Each span is exported as it ends, in batches: wait for all that are checked below.
        return (
            bool(runs)
            and len(_children(spans, runs[0])) >= 3
            and {"POST /threads/{thread_id}/runs", "POST /threads"} <= routes
        )

    spans = [s for s in receiver.wait_for(has_run_and_calls) if s.path == "/v1/traces"]
    [run] = [s for s in spans if s.attributes.get("langgraph.run_id") == run_id]
    assert run.name == "run react_agent"
    assert run.attributes["langgraph.thread_id"] == thread_id
    assert run.attributes["langgraph.assistant_id"] == assistant_id
    assert run.attributes["langgraph.graph_id"] == "react_agent"
    assert run.attributes["langgraph.user_id"] == "user-a"
    assert run.attributes["langgraph.run_status"] == "success"
    assert run.resource["service.name"] == "olg-under-test"
    requests = {s.name for s in spans if s.attributes.get("http.route")}
    assert "POST /threads/{thread_id}/runs" in requests
    assert "POST /threads" in requests

    # Under the run, in time order: model call (with usage) -> tool -> model call, named and
    # described with OpenTelemetry's GenAI conventions, in the run's trace and within it.
    calls = _children(spans, run)
    assert [s.name for s in calls] == [
        f"chat {MODEL_NAME}",
        "execute_tool calculator",
        f"chat {MODEL_NAME}",
    ]
    first, tool, second = calls
    for call in calls:
        assert call.trace_id == run.trace_id
        assert run.start <= call.start <= call.end <= run.end
    assert first.end <= tool.start and tool.end <= second.start
    for call in (first, second):
        assert call.kind == CLIENT
        assert call.attributes["gen_ai.operation.name"] == "chat"
        assert call.attributes["gen_ai.request.model"] == MODEL_NAME
        assert call.attributes["gen_ai.provider.name"] == "scripted"
        assert call.attributes["gen_ai.usage.input_tokens"] == USAGE["input_tokens"]
        assert call.attributes["gen_ai.usage.output_tokens"] == USAGE["output_tokens"]
    assert tool.attributes["gen_ai.operation.name"] == "execute_tool"
    assert tool.attributes["gen_ai.tool.name"] == "calculator"
    assert tool.attributes["gen_ai.tool.call.id"] == "call-1"
    # Nothing of the conversation is exported: no prompt, reply or tool argument.
    assert not any("6 * 7" in str(value) for s in calls for value in s.attributes.values())
    # No Langfuse observation leaks into the OpenTelemetry export, nor the other way round.
    assert not any("langfuse.observation.type" in s.attributes for s in spans)
    langfuse = [s for s in receiver.spans if s.path == LANGFUSE_PATH]
    assert not any("gen_ai.operation.name" in s.attributes for s in langfuse)


async def test_a_run_succeeds_with_the_collector_down(tmp_path: Path) -> None:
    nobody = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    with _server(tmp_path, nobody) as process:
        await _run_agent(process.url)
        await _run_agent(process.url)
    log = process.log.read_text()
    # Told once per destination, whatever the number of failed exports; keys never logged.
    assert log.count("Langfuse at " + nobody + " is not reachable") == 1
    assert log.count(f"the OTLP endpoint {nobody} is not reachable") == 1
    assert "sk-lf-test-secret" not in log


async def test_metrics_need_the_configured_auth(traced: ServerProcess) -> None:
    async with httpx.AsyncClient(base_url=traced.url) as http:
        anonymous = await http.get("/metrics")
        scraper = await http.get("/metrics", headers={"x-api-key": "key-a"})
    assert anonymous.status_code == 401
    assert anonymous.json()["detail"]
    assert scraper.status_code == 200
    assert "olg_http_requests_total" in scraper.text


async def test_a_v1_chat_completion_is_traced_as_a_model_call(
    traced: ServerProcess, receiver: OtlpReceiver
) -> None:
    """The OpenAI-compatible endpoint's model call is a span under its request's span, with
    the GenAI attributes a run's model calls have."""
    async with httpx.AsyncClient(base_url=traced.url, timeout=120) as client:
        response = await client.post(
            "/v1/chat/completions",
            headers={"x-api-key": "key-a"},
            json={
                "model": "smollm2-135m",
                "messages": [{"role": "user", "content": "Say hi"}],
                "max_tokens": 3,
            },
        )
    assert response.status_code == 200, response.text
    usage = response.json()["usage"]

    def has_call(spans: list[ReceivedSpan]) -> bool:
        calls = [s for s in spans if s.name == "chat smollm2-135m"]
        return bool(calls) and any(s.span_id == calls[0].parent_id for s in spans)

    spans = [s for s in receiver.wait_for(has_call) if s.path == "/v1/traces"]
    [call] = [s for s in spans if s.name == "chat smollm2-135m"]
    [request] = [s for s in spans if s.span_id == call.parent_id]
    assert request.name == "POST /v1/chat/completions"
    assert request.start <= call.start <= call.end <= request.end
    assert call.kind == CLIENT
    assert call.attributes["gen_ai.request.model"] == "smollm2-135m"
    assert call.attributes["gen_ai.usage.input_tokens"] == usage["prompt_tokens"]
    assert call.attributes["gen_ai.usage.output_tokens"] == usage["completion_tokens"]
