"""Authorization handlers are chosen and interpreted as LangGraph Platform does.

Most specific wins: resource+action, then resource, then action, then `@auth.on`; no handler
allows. `None`/`True` allow, `False` is a 403, a dict is a filter, anything else a 500; a
handler's `HTTPException` sets the status, a failed assertion is a 403.
"""

from __future__ import annotations

from typing import Any

import pytest
from langgraph_sdk import Auth

from open_langgraph.auth.authorize import AuthHandlerError, Authorizer, AuthRejected
from open_langgraph.auth.context import acting_as
from open_langgraph.auth.users import normalize_user
from open_langgraph.errors import Forbidden, Unauthorized

USER = normalize_user({"identity": "u1", "permissions": ["p"]})


def _auth_with(*registrations: tuple[str, str]) -> tuple[Auth, list[str]]:
    """An Auth whose handlers record which one ran: `("threads", "create")`, `("threads",
    "*")`, `("*", "read")`, `("*", "*")` (the global handler)."""
    auth = Auth()
    calls: list[str] = []
    for resource, action in registrations:
        name = f"{resource}.{action}"

        async def handler(ctx: Any, value: Any, name: str = name) -> None:
            calls.append(name)

        if (resource, action) == ("*", "*"):
            auth.on(handler)
        elif action == "*":
            auth.on(resources=resource)(handler)
        elif resource == "*":
            auth.on(actions=action)(handler)
        else:
            auth.on(resources=resource, actions=action)(handler)
    return auth, calls


@pytest.mark.parametrize(
    ("registered", "asked", "expected"),
    [
        (
            [("threads", "create"), ("threads", "*"), ("*", "create"), ("*", "*")],
            "create",
            "threads.create",
        ),
        ([("threads", "*"), ("*", "create"), ("*", "*")], "create", "threads.*"),
        ([("*", "create"), ("*", "*")], "create", "*.create"),
        ([("*", "*")], "create", "*.*"),
        ([("threads", "read"), ("*", "*")], "create", "*.*"),
        ([("assistants", "*"), ("*", "*")], "create", "*.*"),
    ],
)
async def test_the_most_specific_handler_decides(registered, asked, expected):
    auth, calls = _auth_with(*registered)
    with acting_as(USER):
        assert await Authorizer(auth).authorize("threads", asked, {}) is None
    assert calls == [expected]


async def test_without_a_matching_handler_everything_is_allowed():
    auth, calls = _auth_with(("assistants", "read"))
    with acting_as(USER):
        assert await Authorizer(auth).authorize("threads", "delete", {"thread_id": "t"}) is None
    assert calls == []


async def test_the_lookup_is_cached_per_resource_and_action():
    auth, _ = _auth_with(("threads", "*"))
    authorizer = Authorizer(auth)
    first = authorizer.handler_for("threads", "read")
    auth._handlers.clear()  # a second lookup would now find nothing
    assert authorizer.handler_for("threads", "read") is first


def _answering(result: Any) -> Authorizer:
    auth = Auth()

    @auth.on
    async def handler(ctx: Auth.types.AuthContext, value: dict[str, Any]) -> Any:
        assert ctx.user.identity == "u1" and ctx.permissions == ["p"]
        assert (ctx.resource, ctx.action) == ("threads", "read")
        return result

    return Authorizer(auth)


@pytest.mark.parametrize("allowed", [None, True, {}])
async def test_none_true_and_an_empty_filter_allow_all(allowed):
    with acting_as(USER):
        assert await _answering(allowed).authorize("threads", "read", {}) is None


async def test_false_is_forbidden():
    with acting_as(USER), pytest.raises(Forbidden):
        await _answering(False).authorize("threads", "read", {})


async def test_a_dict_is_the_filter():
    wanted = {"owner": "u1", "tags": {"$contains": "x"}}
    with acting_as(USER):
        assert await _answering(wanted).authorize("threads", "read", {}) == wanted


@pytest.mark.parametrize("bad", ["owner", 1, {"owner": {"$gt": 1}}, {"$or": [{"a": 1}]}])
async def test_an_unusable_answer_is_a_server_error_not_a_partial_filter(bad):
    with acting_as(USER), pytest.raises(AuthHandlerError) as raised:
        await _answering(bad).authorize("threads", "read", {})
    assert raised.value.status_code == 500


async def test_a_handler_http_exception_sets_status_detail_and_headers():
    auth = Auth()

    @auth.on.threads
    async def handler(ctx: Any, value: Any) -> None:
        raise Auth.exceptions.HTTPException(429, "slow down", headers={"Retry-After": "3"})

    with acting_as(USER), pytest.raises(AuthRejected) as raised:
        await Authorizer(auth).authorize("threads", "search", {})
    assert (raised.value.status_code, raised.value.detail) == (429, "slow down")
    assert raised.value.headers == {"Retry-After": "3"}


async def test_a_failed_assertion_is_forbidden():
    auth = Auth()

    @auth.on
    async def handler(ctx: Any, value: Any) -> None:
        assert value.get("ok"), "not ok"

    with acting_as(USER), pytest.raises(Forbidden, match="not ok"):
        await Authorizer(auth).authorize("threads", "read", {})


async def test_a_handler_may_change_the_value_it_is_given():
    auth = Auth()

    @auth.on.threads.create
    async def handler(ctx: Any, value: dict[str, Any]) -> None:
        value["metadata"]["owner"] = ctx.user.identity

    value: dict[str, Any] = {"thread_id": "t", "metadata": {}}
    with acting_as(USER):
        await Authorizer(auth).authorize("threads", "create", value)
    assert value["metadata"] == {"owner": "u1"}


async def test_sync_handlers_work_too():
    auth = Auth()

    async def placeholder(ctx: Any, value: Any) -> None: ...

    auth.on(placeholder)
    auth._global_handlers[0] = lambda ctx, value: {"owner": ctx.user.identity}
    with acting_as(USER):
        assert await Authorizer(auth).authorize("threads", "read", {}) == {"owner": "u1"}


async def test_with_auth_a_request_without_a_user_is_refused():
    auth, _ = _auth_with(("*", "*"))
    with pytest.raises(Unauthorized):
        await Authorizer(auth).authorize("threads", "read", {})


async def test_without_auth_nothing_is_called_and_nothing_filtered():
    assert not Authorizer().enabled
    assert await Authorizer().authorize("threads", "read", {}) is None
