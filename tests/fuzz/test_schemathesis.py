"""No request, however malformed, gets a 500 or a hang: schemathesis over two schemas.

One run fuzzes our own `/openapi.json`; the other LangGraph Platform's published schema (the
`openapi.json` of `langgraph-api` 0.16.7), so the requests a Platform client may send are
covered too. Operations we do not serve yet answer 404 or 405 there; nothing answers 5xx.
Positive and negative examples, a fixed seed and a fixed number of examples per operation
keep the run reproducible and to about two minutes.
"""

from __future__ import annotations

import os
from typing import Any

import httpx
import hypothesis
import hypothesis.errors
import pytest
import schemathesis
from schemathesis.checks import not_a_server_error
from schemathesis.config import SchemathesisConfig
from schemathesis.generation.modes import GenerationMode

from tests.fixtures.server import ServerProcess
from tests.fuzz.conftest import Seeded, aim_at_seeded, platform_openapi, seed

# Fixed, so CI is reproducible; set OLG_FUZZ_SEED / OLG_FUZZ_EXAMPLES to explore further.
SEED = int(os.environ.get("OLG_FUZZ_SEED", "20261123"))
EXAMPLES_PER_OPERATION = int(os.environ.get("OLG_FUZZ_EXAMPLES", "25"))
REQUEST_TIMEOUT = 30  # seconds; a request still unanswered then is a hang

# Thread streams follow the thread forever; they are opened, checked and closed by hand.
ENDLESS = {("GET", "/threads/{thread_id}/stream"), ("POST", "/threads/{thread_id}/stream/events")}
# A substring of the operations to fuzz (e.g. "stream/events"), to check a few quickly.
ONLY = os.environ.get("OLG_FUZZ_ONLY", "")


def _schema(raw: dict[str, Any], server: ServerProcess) -> schemathesis.BaseSchema:
    config = SchemathesisConfig.from_dict(
        {
            "seed": SEED,
            "base-url": server.url,
            "request-timeout": REQUEST_TIMEOUT,
            "generation": {"max-examples": EXAMPLES_PER_OPERATION, "mode": "all"},
        }
    )
    return schemathesis.openapi.from_dict(raw, config=config)


@pytest.fixture(scope="session")
def platform_schema(fuzz_server: ServerProcess, seeded: Seeded) -> schemathesis.BaseSchema:
    return _schema(aim_at_seeded(platform_openapi(), seeded), fuzz_server)


@pytest.fixture(scope="session")
def own_schema(fuzz_server: ServerProcess, seeded: Seeded) -> schemathesis.BaseSchema:
    raw = httpx.get(f"{fuzz_server.url}/openapi.json", timeout=30).json()
    return _schema(aim_at_seeded(raw, seeded), fuzz_server)


def _check(case: Any, server: ServerProcess) -> None:
    if (case.method.upper(), case.path) in ENDLESS:
        body = case.body if isinstance(case.body, dict | list | str | int | float) else None
        with httpx.stream(
            case.method,
            f"{server.url}{case.formatted_path}",
            params=case.query,
            headers={k: str(v) for k, v in (case.headers or {}).items()},
            json=body,
            timeout=REQUEST_TIMEOUT,
        ) as response:
            assert response.status_code < 500, case.as_curl_command()
        return
    case.call_and_validate(checks=[not_a_server_error], timeout=REQUEST_TIMEOUT)


def _fuzz_operation(
    operation: Any, mode: GenerationMode, server: ServerProcess, sent: list[int]
) -> str | None:
    """Run one operation's examples; the first failing request as a curl command, if any."""
    failing: list[str] = []

    @hypothesis.seed(SEED)
    @hypothesis.settings(
        max_examples=EXAMPLES_PER_OPERATION,
        deadline=None,
        database=None,
        # Every failure found is reported as generated; shrinking would cost minutes.
        phases=[hypothesis.Phase.explicit, hypothesis.Phase.generate],
        suppress_health_check=list(hypothesis.HealthCheck),
    )
    @hypothesis.given(case=operation.as_strategy(generation_mode=mode))
    def run(case: Any) -> None:
        sent[0] += 1
        try:
            _check(case, server)
        except (Exception, BaseExceptionGroup) as exc:
            failing.append(f"{case.as_curl_command()}\n    -> {' '.join(str(exc).split())[:300]}")
            raise

    try:
        run()
    except hypothesis.errors.Unsatisfiable:
        # Nothing to generate in this mode: a negative example of an operation without
        # parameters, or of one whose only parameters are path strings.
        return None
    except (Exception, BaseExceptionGroup) as exc:
        # Reported by the caller with the others, so one run shows every failing operation.
        return failing[-1] if failing else f"{type(exc).__name__}: {exc}"
    return None


@pytest.mark.timeout(600)
@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE], ids=str)
@pytest.mark.parametrize("schema_name", ["platform_schema", "own_schema"])
def test_no_request_answers_500_or_hangs(
    schema_name: str, mode: GenerationMode, fuzz_server: ServerProcess, request: Any
):
    schema = request.getfixturevalue(schema_name)
    failures: dict[str, str] = {}
    operations = 0
    sent = [0]
    for result in schema.get_all_operations():
        operation = result.ok()
        if ONLY not in operation.label:
            continue
        seed(fuzz_server)  # an earlier operation may have deleted the seeded resources
        problem = _fuzz_operation(operation, mode, fuzz_server, sent)
        operations += 1
        if problem is not None:
            failures[operation.label] = problem
    print(f"{schema_name} {mode}: {operations} operations, {sent[0]} requests")
    assert operations > 40 or ONLY, "the schema lost its operations"
    # The generator really ran. Over the whole schema, many examples per operation; a few
    # operations alone (OLG_FUZZ_ONLY) may have a small finite space that hypothesis
    # exhausts early (`GET /metrics`: no format, `prometheus`, `json`), so there only one
    # request per operation at least.
    assert sent[0] >= (operations if ONLY else 10 * operations)
    assert not failures, "\n".join(f"{label}:\n  {curl}" for label, curl in failures.items())
