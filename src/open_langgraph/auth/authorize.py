"""Calling the `@auth.on...` handler of an action, with LangGraph Platform's precedence.

For a resource and action, the most specific handler wins: `@auth.on.threads.create`
(resource and action), then `@auth.on.threads` (the resource), then
`@auth.on(actions="create")` (the action on any resource), then `@auth.on` (everything).
Without a matching handler the action is allowed. A handler answers `None`/`True` (allow),
`False` (403) or a filter, which the caller applies inside its storage query; resources
outside it are treated as missing (404), never as forbidden, so their existence does not leak.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Mapping
from typing import Any, Literal

from langgraph_sdk import Auth

from open_langgraph.auth.context import current_user, in_process
from open_langgraph.auth.filters import InvalidFilter, check_filter
from open_langgraph.errors import Forbidden, OLGError, Unauthorized
from open_langgraph.storage.base import AuthFilter

logger = logging.getLogger(__name__)

Resource = Literal["threads", "assistants", "crons", "store"]
Action = Literal[
    "create",
    "read",
    "update",
    "delete",
    "search",
    "create_run",
    # the store's own actions
    "put",
    "get",
    "list_namespaces",
]
Handler = Callable[..., Any]


class AuthRejected(OLGError):
    """A handler raised `Auth.exceptions.HTTPException`: its status, detail and headers."""

    def __init__(
        self, status_code: int, detail: str, headers: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(detail)
        self.status_code = status_code
        self.headers = dict(headers) if headers else None


class AuthHandlerError(OLGError):
    """A handler returned something that is neither an answer nor a filter: a server bug,
    answered 500 rather than applied half-way."""

    status_code = 500


def searched_metadata(value: dict[str, Any]) -> dict[str, Any] | None:
    """The metadata a search matches after its `search` handler ran: the handler gets it as a
    dict (`{}` when the request named none, as on the Platform) and may add to it in place,
    which restricts the search as a returned filter would (`value["metadata"]["owner"] = ...`
    in many published auth files). None when nothing is left to match."""
    metadata = value.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        raise AuthHandlerError(
            f"a search handler set metadata to a {type(metadata).__name__}, not an object"
        )
    return metadata or None


def resolve_handler(auth: Auth, resource: str, action: str) -> Handler | None:
    """The handler that decides `action` on `resource`, or None (allowed)."""
    handlers = auth._handlers
    for key in ((resource, action), (resource, "*"), ("*", action), ("*", "*")):
        if key in handlers:
            return handlers[key][-1]
    return auth._global_handlers[-1] if auth._global_handlers else None


class Authorizer:
    """Runs authorization handlers for the services; without an `Auth` object, allows all."""

    def __init__(self, auth: Auth | None = None) -> None:
        self._auth = auth
        self._handlers: dict[tuple[str, str], Handler | None] = {}

    @property
    def enabled(self) -> bool:
        return self._auth is not None

    def handler_for(self, resource: str, action: str) -> Handler | None:
        key = (resource, action)
        try:
            return self._handlers[key]
        except KeyError:
            assert self._auth is not None
            handler = self._handlers[key] = resolve_handler(self._auth, resource, action)
            return handler

    async def authorize(
        self, resource: Resource, action: Action, value: dict[str, Any]
    ) -> AuthFilter | None:
        """The filter the request's user is restricted to for this action, or None for all.

        `value` is the action's payload shaped as on the Platform; a handler may change it
        (e.g. add an owner to `value["metadata"]`), and callers read it back afterwards.

        Raises:
            Forbidden: the handler returned False (or failed an assertion).
            AuthRejected: the handler raised `Auth.exceptions.HTTPException`.
            Unauthorized: auth is configured but the request has no user.
        """
        if self._auth is None or in_process():
            return None
        user = current_user()
        if user is None:
            raise Unauthorized("authentication required")
        handler = self.handler_for(resource, action)
        if handler is None:
            return None
        ctx = Auth.types.AuthContext(
            permissions=user.permissions, user=user, resource=resource, action=action
        )
        try:
            result = handler(ctx=ctx, value=value)
            if inspect.isawaitable(result):
                result = await result
        except Auth.exceptions.HTTPException as exc:
            raise AuthRejected(exc.status_code, str(exc.detail), exc.headers) from None
        except AssertionError as exc:
            raise Forbidden(str(exc) or "Forbidden") from None
        if result is None or result is True:
            return None
        if result is False:
            raise Forbidden("Forbidden")
        try:
            return check_filter(result) or None
        except InvalidFilter as exc:
            logger.error("auth handler for %s.%s: %s", resource, action, exc)
            raise AuthHandlerError(
                f"the auth handler for {resource}.{action} returned an invalid filter: {exc}"
            ) from None
