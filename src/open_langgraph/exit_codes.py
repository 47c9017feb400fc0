"""Exit codes of `olg serve`, `olg worker` and `olg db`, one per cause a supervisor (systemd,
Kubernetes, compose) or a person may act on differently; docs/deploy.md lists them."""

from __future__ import annotations

OK = 0
"""A clean stop: SIGTERM or SIGINT, or a command that did its work."""
UNEXPECTED = 1
"""An error nobody foresaw (Python's own code for an uncaught exception)."""
CONFIG_ERROR = 2
"""The config file, a flag or a missing extra: fix the invocation, then start again."""
STARTUP_FAILED = 3
"""The app's start-up raised (uvicorn's code for it); the error is logged above."""
DATABASE_IN_USE = 4
"""Another `olg serve` serves this database (SQLite, or PostgreSQL outside queue mode)."""
UNREACHABLE = 5
"""PostgreSQL or Redis did not answer: a restart may succeed once they are up."""
ADDRESS_IN_USE = 6
"""The port (or address) cannot be bound."""
