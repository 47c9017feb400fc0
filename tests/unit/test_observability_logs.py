"""`--log-format json`: one object per line, the run's ids on the lines a run logs (in the
tasks it starts too), and secrets masked before the formatter sees them."""

from __future__ import annotations

import asyncio
import io
import json
import logging
from collections.abc import Iterator

import pytest

from open_langgraph.observability.logs import JsonFormatter, RunFields, logging_run
from open_langgraph.observability.run_context import RunIdentity
from open_langgraph.redact import RedactingFilter

RUN = RunIdentity(
    run_id="run-1", thread_id="thread-1", assistant_id="assistant-1", graph_id="g", user_id=None
)


@pytest.fixture
def stream() -> Iterator[io.StringIO]:
    """What the test logger writes, through the server's filters and JSON formatter."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(RunFields())
    handler.addFilter(RedactingFilter())
    logger = logging.getLogger("olg.test.json")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    yield stream
    logger.removeHandler(handler)


def test_run_lines_carry_the_run_ids_and_others_do_not(stream: io.StringIO) -> None:
    logger = logging.getLogger("olg.test.json")

    async def a_run() -> None:
        with logging_run(RUN):
            logger.info("in the run")
            await asyncio.create_task(asyncio.sleep(0, logger.info("in a task it started")))
        logger.info("after the run")

    asyncio.run(a_run())
    parsed = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert [p["message"] for p in parsed] == ["in the run", "in a task it started", "after the run"]
    for line in parsed[:2]:
        assert (line["run_id"], line["thread_id"], line["assistant_id"]) == (
            "run-1",
            "thread-1",
            "assistant-1",
        )
    assert "run_id" not in parsed[2]
    assert parsed[0]["level"] == "info" and parsed[0]["logger"] == "olg.test.json"


def test_secrets_are_masked_in_json_lines(stream: io.StringIO) -> None:
    logger = logging.getLogger("olg.test.json")
    logger.warning(
        "calling with Authorization: Bearer abcdefgh12345678 key=%s", "sk-abcdefgh123456"
    )
    try:
        raise RuntimeError("LANGFUSE_SECRET_KEY=sk-lf-0123456789abcdef leaked")
    except RuntimeError:
        logger.exception("failed")
    text = stream.getvalue()
    assert "abcdefgh12345678" not in text
    assert "sk-abcdefgh123456" not in text
    assert "0123456789abcdef" not in text
    [warning, error] = [json.loads(line) for line in text.splitlines()]
    assert "Bearer ***" in warning["message"]
    assert "RuntimeError" in error["exception"]
