"""The authenticated user: what `@auth.authenticate` returned, in one shape everywhere.

Handlers may return a string identity, a dict with `identity` (and optional `permissions`,
`display_name`, `is_authenticated`, any other keys), an object with those attributes (a
`BaseUser`), or a `(permissions, user)` tuple. Authorization handlers, graphs
(`config["configurable"]["langgraph_auth_user"]`) and factories (`runtime.user`) all get an
`AuthUser`, which answers as a `BaseUser` (`.identity`) and as a dict (`["identity"]`), as the
Platform's user object does. Runs store the user as JSON, so a queued run, or one recovered
after a restart, still executes as the user who created it.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from open_langgraph.serde import to_jsonable

#: The `configurable` keys a run's user travels in; clients cannot set them.
USER_KEY = "langgraph_auth_user"
USER_ID_KEY = "langgraph_auth_user_id"
PERMISSIONS_KEY = "langgraph_auth_permissions"
RESERVED_PREFIX = "langgraph_auth_"

_CORE = ("identity", "display_name", "is_authenticated", "permissions")


class InvalidUser(ValueError):
    """What an authentication handler returned is not a user."""


class AuthUser(Mapping[str, Any]):
    """A user as a `BaseUser` and a read-only mapping of its fields."""

    __slots__ = ("_fields", "_original")

    def __init__(self, fields: dict[str, Any], original: Any = None) -> None:
        self._fields = fields
        self._original = original

    # -- BaseUser ----------------------------------------------------------------------------
    @property
    def identity(self) -> str:
        return self._fields["identity"]

    @property
    def display_name(self) -> str:
        return self._fields["display_name"]

    @property
    def is_authenticated(self) -> bool:
        return self._fields["is_authenticated"]

    @property
    def permissions(self) -> list[str]:
        return self._fields["permissions"]

    def __getattr__(self, name: str) -> Any:
        # Other fields of a dict user, or attributes of a user object (`ctx.user.org_id`).
        if name.startswith("__"):
            raise AttributeError(name)
        fields = object.__getattribute__(self, "_fields")
        if name in fields:
            return fields[name]
        original = object.__getattribute__(self, "_original")
        if original is not None:
            return getattr(original, name)
        raise AttributeError(f"user has no field {name!r}")

    # -- Mapping ----------------------------------------------------------------------------
    def __getitem__(self, key: str) -> Any:
        return self._fields[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._fields)

    def __len__(self) -> int:
        return len(self._fields)

    def __deepcopy__(self, memo: dict[int, Any]) -> AuthUser:
        return AuthUser(copy.deepcopy(self._fields, memo), self._original)

    def __repr__(self) -> str:
        return f"AuthUser({self._fields!r})"

    def dict(self) -> dict[str, Any]:
        return dict(self._fields)

    def to_json(self) -> dict[str, Any]:
        """The fields as plain JSON, as a run stores them."""
        return to_jsonable(self._fields)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> AuthUser:
        return cls(dict(data))


def _permissions(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise InvalidUser(f"permissions must be a list of strings, got {type(value).__name__}")
    if not all(isinstance(p, str) for p in value):
        raise InvalidUser("permissions must be a list of strings")
    return list(value)


def _complete(fields: dict[str, Any], original: Any = None) -> AuthUser:
    identity = fields.get("identity")
    if not isinstance(identity, str):
        raise InvalidUser(f"identity must be a string, got {type(identity).__name__}")
    fields["permissions"] = _permissions(fields.get("permissions"))
    if fields.get("display_name") is None:
        fields["display_name"] = identity
    if fields.get("is_authenticated") is None:
        fields["is_authenticated"] = True
    return AuthUser(fields, original)


def normalize_user(result: Any) -> AuthUser:
    """The `AuthUser` for what an authentication handler returned.

    Raises:
        InvalidUser: `result` is none of the shapes a handler may return.
    """
    if isinstance(result, AuthUser):
        return result
    if isinstance(result, tuple):
        if len(result) != 2:
            raise InvalidUser("a tuple must be (permissions, user)")
        permissions, user = result
        normalized = normalize_user(user)
        normalized._fields["permissions"] = _permissions(permissions)
        return normalized
    if isinstance(result, str):
        return _complete({"identity": result})
    if isinstance(result, Mapping):
        if "identity" not in result:
            raise InvalidUser("a user dict needs an `identity`")
        return _complete(dict(result))
    if hasattr(result, "identity"):
        fields = {name: getattr(result, name, None) for name in _CORE}
        return _complete(fields, original=result)
    raise InvalidUser(
        "expected a string identity, a dict with `identity`, or an object with an `identity` "
        f"attribute; got {type(result).__name__}"
    )


def strip_reserved(values: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """`values` without `langgraph_auth_*` keys: only the server says who a run's user is."""
    if values is None:
        return None
    return {k: v for k, v in values.items() if not k.startswith(RESERVED_PREFIX)}


def run_user_keys(user: AuthUser) -> dict[str, Any]:
    """The `configurable` entries a run of `user` stores (JSON) and its graph sees."""
    return {
        USER_KEY: user.to_json(),
        USER_ID_KEY: user.identity,
        PERMISSIONS_KEY: list(user.permissions),
    }


def stored_run_user(config: Mapping[str, Any]) -> AuthUser | None:
    """The user a stored run config carries, as an object again, or None."""
    data = (config.get("configurable") or {}).get(USER_KEY)
    return AuthUser.from_json(data) if isinstance(data, Mapping) else None
