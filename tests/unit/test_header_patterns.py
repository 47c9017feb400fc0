"""`http.configurable_headers` / `http.logging_headers` patterns: `*` is the only wildcard."""

from __future__ import annotations

import pytest

from open_langgraph.header_patterns import HeaderPatterns


@pytest.mark.parametrize(
    ("patterns", "name", "expected"),
    [
        (HeaderPatterns(), "x-user-id", False),  # nothing without includes
        (HeaderPatterns(includes=("x-*",)), "x-user-id", True),
        (HeaderPatterns(includes=("x-*",)), "user-agent", False),
        (HeaderPatterns(includes=("X-User-*",)), "x-user-id", True),  # patterns lower-cased
        (HeaderPatterns(includes=("*",), excludes=("*token*",)), "x-auth-token-2", False),
        (HeaderPatterns(includes=("x-*",), excludes=("x-secret",)), "x-secret", False),
        (HeaderPatterns(includes=("x-*",), excludes=("x-secret",)), "x-secrets", True),
        (HeaderPatterns(includes=("x.id",)), "xaid", False),  # `.` is not a wildcard
        (HeaderPatterns(includes=("x-(a|b)",)), "x-a", False),  # nor is anything else
        (HeaderPatterns(includes=("user-agent",)), "user-agent-2", False),  # whole name
    ],
)
def test_patterns(patterns: HeaderPatterns, name: str, expected: bool) -> None:
    assert patterns.chooses(name) is expected
