"""The user of the request being served, for the services that authorize what it does.

The authentication middleware sets it once per request; services read it when they call an
authorization handler or build a graph for the request (`runtime.user`). Runs never read it:
they carry their own user (`users.stored_run_user`), since a queued run executes long after
(or in another context than) the request that created it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar

from open_langgraph.auth.users import AuthUser

_current_user: ContextVar[AuthUser | None] = ContextVar("olg_auth_user", default=None)
_in_process: ContextVar[bool] = ContextVar("olg_in_process", default=False)


def current_user() -> AuthUser | None:
    """The authenticated user of this request; None without auth (or outside a request)."""
    return _current_user.get()


@contextlib.contextmanager
def acting_as(user: AuthUser | None) -> Iterator[None]:
    """Serve the code inside the block as `user`."""
    token = _current_user.set(user)
    try:
        yield
    finally:
        _current_user.reset(token)


def in_process() -> bool:
    """Whether the request was sent by code running inside the server (`get_client()` with
    no URL, server/loopback.py): it is authorized for everything, as on the Platform."""
    return _in_process.get()


@contextlib.contextmanager
def serving_in_process() -> Iterator[None]:
    """Serve the code inside the block as an in-process request: no user, no filters."""
    user_token = _current_user.set(None)
    token = _in_process.set(True)
    try:
        yield
    finally:
        _in_process.reset(token)
        _current_user.reset(user_token)
