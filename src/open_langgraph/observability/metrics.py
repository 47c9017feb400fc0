"""The server's Prometheus metrics and the `/metrics` exposition.

Recording is a counter increment or a histogram observation per request, per run start and
end, per model call: never per streamed event. Label values are bounded: routes are path
templates (`/threads/{thread_id}/runs`), never raw paths; statuses, graph ids and model names
come from the config and the code. Names and meanings are documented in
docs/observability.md.
"""

from __future__ import annotations

import os
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client import REGISTRY as DEFAULT_REGISTRY

from open_langgraph.observability import multiprocess


def enabled() -> bool:
    """`OLG_METRICS=off` turns off the per-request and per-model-call recording (and
    `/metrics` answers 404): the switch the overhead benchmark compares against."""
    return os.environ.get("OLG_METRICS", "on").strip().lower() not in ("off", "false", "0")


# Latency buckets from a fast API call (a few ms) to a long agent run (minutes).
_REQUEST_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)
_RUN_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800)
_MODEL_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120)

HTTP_REQUESTS = Counter(
    "olg_http_requests",
    "HTTP requests answered, by method, route template and status code.",
    ["method", "route", "status"],
)
HTTP_DURATION = Histogram(
    "olg_http_request_duration_seconds",
    "Time to answer an HTTP request (to the end of its body; a stream lasts as long as it is "
    "followed), by method and route template.",
    ["method", "route"],
    buckets=_REQUEST_BUCKETS,
)
RUNS = Counter("olg_runs", "Runs ended, by graph and final status.", ["graph_id", "status"])
RUN_DURATION = Histogram(
    "olg_run_duration_seconds",
    "Time a run executed, from its start to its end, by graph and final status.",
    ["graph_id", "status"],
    buckets=_RUN_BUCKETS,
)
QUEUE_WAIT = Histogram(
    "olg_run_queue_wait_seconds",
    "Time from a run's creation to the start of its execution (waiting for its thread, a "
    "slot, a worker, or its `after_seconds`).",
    ["graph_id"],
    buckets=_RUN_BUCKETS,
)
RUNS_EXECUTING = Gauge(
    "olg_runs_executing",
    "Runs executing now in the processes serving metrics.",
    multiprocess_mode="livesum",
)
ACTIVE_STREAMS = Gauge(
    "olg_active_streams",
    "Server-sent event streams open now (run, thread and join streams).",
    multiprocess_mode="livesum",
)
MODEL_TOKENS = Counter(
    "olg_model_tokens",
    "Tokens the chat models consumed (input) and produced (output), by model.",
    ["model", "kind"],
)
MODEL_DURATION = Histogram(
    "olg_model_call_duration_seconds",
    "Time of each chat model call, by model; its _sum is the model seconds spent.",
    ["model"],
    buckets=_MODEL_BUCKETS,
)
MODEL_ERRORS = Counter("olg_model_errors", "Chat model calls that raised, by model.", ["model"])

# The OpenAI-compatible endpoint (`/v1`, services/openai_chat.py): requests for the embedded
# models from any OpenAI client, a project's own `ChatOpenAI` included.
OPENAI_REQUESTS = Counter(
    "olg_openai_requests",
    "Requests to the OpenAI-compatible endpoint answered, by endpoint, model and outcome "
    "(ok, client_gone when the client left while waiting for the model, or the OpenAI error "
    "type).",
    ["endpoint", "model", "outcome"],
)
OPENAI_TOKENS = Counter(
    "olg_openai_tokens",
    "Tokens the OpenAI-compatible endpoint read (prompt; cached: of those, re-used from the "
    "prompt cache) and wrote (completion), by model.",
    ["model", "kind"],
)
OPENAI_MODEL_SECONDS = Histogram(
    "olg_openai_model_seconds",
    "Time an embedded model spent on one `/v1` request, once it had the model (loading "
    "included on first use), by model.",
    ["model"],
    buckets=_MODEL_BUCKETS,
)
OPENAI_QUEUE_WAIT = Histogram(
    "olg_openai_queue_wait_seconds",
    "Time a `/v1` request waited for the embedded model, busy with earlier requests.",
    buckets=_MODEL_BUCKETS,
)
OPENAI_WAITING = Gauge(
    "olg_openai_requests_waiting",
    "`/v1` requests waiting now for the embedded model.",
    multiprocess_mode="livesum",
)


def _registry() -> CollectorRegistry:
    """What `/metrics` shows: this process's metrics, or every process's in multi-process
    mode (the queue gauge is added by the caller)."""
    if not multiprocess.enabled():
        return DEFAULT_REGISTRY
    from prometheus_client import multiprocess as prometheus_multiprocess

    registry = CollectorRegistry()
    prometheus_multiprocess.MultiProcessCollector(registry)
    return registry


class _QueueCollector:
    """`olg_runs_in_flight{status}`, read from the database at scrape time: the one count
    every process (API, workers) agrees on, whichever of them created or claimed the runs."""

    def __init__(self, counts: dict[str, int]) -> None:
        self._counts = counts

    def collect(self) -> Any:
        from prometheus_client.core import GaugeMetricFamily

        family = GaugeMetricFamily(
            "olg_runs_in_flight",
            "Runs stored as pending (the queue depth) or running, at scrape time.",
            labels=["status"],
        )
        for status in ("pending", "running"):
            family.add_metric([status], self._counts.get(status, 0))
        yield family


def _collecting(in_flight: dict[str, int] | None) -> CollectorRegistry:
    """A registry of every metric, with `olg_runs_in_flight` when the counts are given (an
    API process: a worker's own `/metrics` leaves it to the API, so it is not counted twice)."""
    registry = CollectorRegistry()
    extra = _QueueCollector(in_flight) if in_flight is not None else None
    registry.register(_Both(_registry(), extra))  # type: ignore[arg-type]
    return registry


def exposition(in_flight: dict[str, int] | None) -> tuple[bytes, str]:
    """The Prometheus text format of every metric, and its content type."""
    return generate_latest(_collecting(in_flight)), CONTENT_TYPE_LATEST


class _Both:
    """Two collectors' families as one, so the shared default registry is never changed."""

    def __init__(self, registry: CollectorRegistry, extra: _QueueCollector | None) -> None:
        self._registry = registry
        self._extra = extra

    def collect(self) -> Any:
        yield from self._registry.collect()
        if self._extra is not None:
            yield from self._extra.collect()


def as_json(in_flight: dict[str, int] | None) -> dict[str, Any]:
    """The same metrics as `{name: [{labels, value}, ...]}` (`/metrics?format=json`)."""
    families: dict[str, list[dict[str, Any]]] = {}
    for family in _collecting(in_flight).collect():
        for sample in family.samples:
            families.setdefault(sample.name, []).append(
                {"labels": dict(sample.labels), "value": sample.value}
            )
    return families
