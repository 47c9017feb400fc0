"""Whatever an authenticate handler returns becomes one user object, which runs carry."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from open_langgraph.auth.users import (
    InvalidUser,
    normalize_user,
    run_user_keys,
    stored_run_user,
    strip_reserved,
)
from open_langgraph.serde import dumps, loads


class _Principal:
    identity = "obj"
    permissions = ("read",)
    display_name = "Object User"
    is_authenticated = True
    org = "acme"


@pytest.mark.parametrize(
    ("returned", "identity", "permissions", "display_name"),
    [
        ("plain", "plain", [], "plain"),
        ({"identity": "d", "permissions": ["x"]}, "d", ["x"], "d"),
        ({"identity": "d", "display_name": "Dee"}, "d", [], "Dee"),
        (_Principal(), "obj", ["read"], "Object User"),
        ((["p1"], "tupled"), "tupled", ["p1"], "tupled"),
    ],
)
def test_every_shape_a_handler_may_return(returned, identity, permissions, display_name):
    user = normalize_user(returned)
    assert (user.identity, user.permissions, user.display_name) == (
        identity,
        permissions,
        display_name,
    )
    assert user.is_authenticated
    # A BaseUser and a dict at once, as the Platform's user object.
    assert user["identity"] == identity and dict(user)["permissions"] == permissions


def test_extra_fields_and_attributes_stay_reachable():
    assert normalize_user({"identity": "d", "org": "acme"}).org == "acme"
    assert normalize_user(_Principal()).org == "acme"
    with pytest.raises(AttributeError):
        _ = normalize_user("x").org


@pytest.mark.parametrize(
    "returned",
    [None, 3, {"name": "no identity"}, {"identity": 5}, {"identity": "x", "permissions": "p"}],
)
def test_anything_else_is_not_a_user(returned: Any):
    with pytest.raises(InvalidUser):
        normalize_user(returned)


def test_a_run_stores_its_user_as_json_and_gets_the_object_back():
    user = normalize_user({"identity": "d", "permissions": ["x"], "org": "acme"})
    configurable = loads(dumps({"configurable": run_user_keys(user)}))
    assert configurable["configurable"]["langgraph_auth_user_id"] == "d"
    assert configurable["configurable"]["langgraph_auth_permissions"] == ["x"]
    again = stored_run_user(configurable)
    assert again is not None and again.identity == "d" and again.org == "acme"
    assert copy.deepcopy(again) == again
    assert stored_run_user({"configurable": {}}) is None


def test_clients_cannot_name_a_user():
    sent = {"a": 1, "langgraph_auth_user_id": "admin", "langgraph_auth_user": {"identity": "x"}}
    assert strip_reserved(sent) == {"a": 1}
    assert strip_reserved(None) is None


def test_graph_factories_get_the_user_as_runtime_user():
    from langgraph.store.memory import InMemoryStore

    from open_langgraph.runtime.factories import server_runtime

    user = normalize_user("u")
    for access in ("threads.create_run", "threads.read"):
        assert server_runtime(access, InMemoryStore(), None, user).user is user
