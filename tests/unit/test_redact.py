"""Credentials in URLs and API keys are masked before they reach a log."""

from __future__ import annotations

import io
import logging

import pytest

from open_langgraph.redact import RedactingFilter, redact_text, redact_url


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://hooks.example.com/run-done", "https://hooks.example.com/run-done"),
        (
            "https://alice:s3cret@hooks.example.com:8443/a?token=abc&x=1#frag",
            "https://***@hooks.example.com:8443/a?token=***&x=***",
        ),
        (
            "https://hooks.slack.com/services/T0001/B0002/XXXXabcd1234YYYYzz",
            "https://hooks.slack.com/services/T0001/B0002/***",
        ),
        ("http://[::1]:8080/x?sig=1", "http://[::1]:8080/x?sig=***"),
        ("no scheme?token=abc", "no scheme?***"),
    ],
)
def test_redact_url(url: str, shown: str) -> None:
    assert redact_url(url) == shown


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("Incorrect API key provided: sk-proj-abcdefghijklmnop1234.", "abcdefghijklmnop1234"),
        ("x-api-key: sk-ant-api03-abcdefghijklmnop", "api03-abcdefghijklmnop"),
        ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload", "eyJhbGciOiJIUzI1NiJ9"),
        ("TAVILY_API_KEY=tvly-dev-abcdefgh12345", "abcdefgh12345"),
        ("connecting with password=hunter2hunter2", "hunter2hunter2"),
        ("POST http://10.0.0.1/hook?token=zzzz9999 failed", "zzzz9999"),
    ],
)
def test_redact_text_masks_credentials(text: str, secret: str) -> None:
    assert secret not in redact_text(text)


def test_plain_messages_are_unchanged() -> None:
    text = "run 1f0c failed: ValueError: the failing node failed on purpose (5 tokens)"
    assert redact_text(text) == text


def test_filter_masks_arguments_and_tracebacks() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RedactingFilter())
    logger = logging.getLogger("tests.redact")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        # As httpx logs every request, with the full URL, at INFO.
        logger.warning('HTTP Request: POST %s "%s"', "http://h.test/x?token=t0k3n-abc", "200 OK")
        try:
            raise RuntimeError("provider said: invalid key sk-abcdefghijklmnopqrst")
        except RuntimeError:
            logger.exception("run failed")
    finally:
        logger.removeHandler(handler)
        logger.propagate = True
    text = stream.getvalue()
    assert "http://h.test/x?token=***" in text and "t0k3n" not in text
    assert "RuntimeError: provider said: invalid key sk-***" in text
    assert "abcdefghijklmnopqrst" not in text
