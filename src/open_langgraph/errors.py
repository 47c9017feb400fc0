"""Domain errors raised below the HTTP layer; the server maps each to one status code."""

from __future__ import annotations


class OLGError(Exception):
    """Base of every error a client can cause; `status_code` is what the API answers."""

    status_code = 400

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class NotFound(OLGError):
    status_code = 404


class Unauthorized(OLGError):
    """No authenticated user where an auth handler needs one."""

    status_code = 401


class Forbidden(OLGError):
    """An authorization handler refused the action (it returned False)."""

    status_code = 403


class Conflict(OLGError):
    status_code = 409


class InvalidInput(OLGError):
    status_code = 422


class BadRequest(OLGError):
    status_code = 400


class FeatureUnavailable(OLGError):
    """An optional feature this install has turned off (its extra is missing): 501, with the
    reason and the command that installs it."""

    status_code = 501


class NotSupported(OLGError):
    """A request field this server accepts in the schema but does not implement yet."""

    status_code = 422
