"""The `/store` API: items kept across threads in LangGraph's store, as on the Platform.

Each operation first asks the `@auth.on.store` handlers, with the Platform's payload; a
handler scopes a user by rewriting `value["namespace"]` (e.g. prefixing the user's id), so
the namespace is read back from the payload after it ran. Store handlers cannot answer with
a metadata filter: items have no metadata.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from langgraph.store.base import NOT_PROVIDED, BaseStore, Item, NotProvided

from open_langgraph.auth.authorize import Action, Authorizer
from open_langgraph.errors import FeatureUnavailable, InvalidInput
from open_langgraph.extras import FeatureOff

Namespace = tuple[str, ...]
#: The comparison operators LangGraph's stores implement in a search `filter`.
FILTER_OPERATORS = frozenset({"$eq", "$ne", "$gt", "$gte", "$lt", "$lte"})
#: The root label LangGraph reserves for itself.
RESERVED_ROOT = "langgraph"


def check_namespace(namespace: Sequence[Any], field: str, *, allow_empty: bool) -> Namespace:
    """The namespace as a tuple, or `InvalidInput` saying what is wrong with it.

    Labels are non-empty strings without `.` (GET joins them with dots in one query
    parameter) or NUL; the root `langgraph` is LangGraph's own.
    """
    if not namespace and not allow_empty:
        raise InvalidInput(f"{field} must not be empty")
    for label in namespace:
        if not isinstance(label, str) or not label:
            raise InvalidInput(f"{field}: labels must be non-empty strings, got {label!r}")
        if "." in label or "\x00" in label:
            raise InvalidInput(f"{field}: label {label!r} must not contain '.' or NUL")
    if namespace and namespace[0] == RESERVED_ROOT and not allow_empty:
        raise InvalidInput(f'{field}: the root label "{RESERVED_ROOT}" is reserved')
    return tuple(namespace)


def parse_query_namespace(values: Sequence[str]) -> Namespace:
    """`namespace` of `GET /store/items`: dotted (`a.b`, as the SDK sends it) or repeated."""
    return tuple(label for value in values for label in value.split(".") if value)


def check_filter(filter: dict[str, Any] | None) -> dict[str, Any] | None:
    """Refuse operators the stores do not implement before any SQL is built."""
    for path, condition in (filter or {}).items():
        if not path:
            raise InvalidInput("filter: field names must not be empty")
        # LangGraph's stores read every object in a filter as operators, never as a value
        # to match: anything else in one is refused here rather than failing in the store.
        if isinstance(condition, dict):
            unknown = set(condition) - FILTER_OPERATORS
            if unknown:
                raise InvalidInput(
                    f"filter.{path}: unknown operators {sorted(unknown)}; "
                    f"expected some of {sorted(FILTER_OPERATORS)} (objects are not matched "
                    "as values)"
                )
    return filter


def _timestamp(value: datetime) -> str:
    """ISO-8601 in UTC; SQLite's store hands back naive UTC times."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.isoformat()


def item_record(item: Item) -> dict[str, Any]:
    """The Platform's `Item` (plus `score` for search results)."""
    record = item.dict()
    record["created_at"] = _timestamp(item.created_at)
    record["updated_at"] = _timestamp(item.updated_at)
    return record


class StoreService:
    """Put, get, delete, search and list namespaces, each authorized first."""

    def __init__(
        self, store: BaseStore, authorizer: Authorizer, index_off: FeatureOff | None = None
    ) -> None:
        """`index_off`: why the configured semantic index is not in use (its extra is
        missing); a search by `query` is then refused rather than answered unranked."""
        self._store = store
        self._auth = authorizer
        self._index_off = index_off

    async def _authorize(self, action: Action, value: dict[str, Any]) -> dict[str, Any] | None:
        """Run the handler and return the filter it returned, if any. Only a search applies
        it (to the items' values), as langgraph-api does: a catch-all `@auth.on` handler
        returning `{"owner": ...}` for threads (LangChain's auth tutorial) must not take the
        store down with it."""
        return await self._auth.authorize("store", action, value)

    async def put(
        self,
        namespace: Sequence[str],
        key: str,
        value: dict[str, Any],
        *,
        index: list[str] | bool | None = None,
        ttl: float | NotProvided | None = NOT_PROVIDED,
    ) -> None:
        """Create or replace an item; `ttl` (minutes) None never expires, NOT_PROVIDED takes
        the configured default."""
        ns = check_namespace(namespace, "namespace", allow_empty=False)
        if not key:
            raise InvalidInput("key must not be empty")
        if index is True:
            raise InvalidInput("index must be false, null or a list of field paths")
        if isinstance(ttl, float | int) and not 0 < ttl < 1e12:
            raise InvalidInput("ttl must be a positive number of minutes or null")
        payload = {"namespace": ns, "key": key, "value": value, "index": index}
        await self._authorize("put", payload)
        ns = check_namespace(payload["namespace"], "namespace", allow_empty=False)
        await self._store.aput(
            ns,
            key,
            value,
            index=index,  # type: ignore[arg-type]  # False or a list, checked above
            ttl=ttl,
        )

    async def get(
        self, namespace: Sequence[str], key: str, *, refresh_ttl: bool | None = None
    ) -> dict[str, Any] | None:
        """The item, or None (answered as JSON null, as the Platform does)."""
        ns = check_namespace(namespace, "namespace", allow_empty=True)
        if not key:
            raise InvalidInput("key must not be empty")
        payload: dict[str, Any] = {"namespace": ns, "key": key}
        await self._authorize("get", payload)
        # Empty is allowed above for a handler that prefixes the user's namespace; after it,
        # no item can live at the root (LangGraph's stores refuse to put one there).
        ns = check_namespace(payload["namespace"], "namespace", allow_empty=False)
        item = await self._store.aget(ns, key, refresh_ttl=refresh_ttl)
        return None if item is None else item_record(item)

    async def delete(self, namespace: Sequence[str], key: str) -> None:
        ns = check_namespace(namespace, "namespace", allow_empty=True)
        if not key:
            raise InvalidInput("key must not be empty")
        payload: dict[str, Any] = {"namespace": ns, "key": key}
        await self._authorize("delete", payload)
        ns = check_namespace(payload["namespace"], "namespace", allow_empty=False)
        await self._store.adelete(ns, key)

    async def search(
        self,
        namespace_prefix: Sequence[str],
        *,
        filter: dict[str, Any] | None,
        limit: int,
        offset: int,
        query: str | None,
        refresh_ttl: bool | None,
    ) -> dict[str, Any]:
        """`{"items": [...]}`: by last update, or by similarity to `query` with an index.

        Raises:
            FeatureUnavailable: `query` while the configured index is off.
        """
        if query is not None and self._index_off is not None:
            raise FeatureUnavailable(self._index_off.message)
        ns = check_namespace(namespace_prefix, "namespace_prefix", allow_empty=True)
        payload: dict[str, Any] = {
            "namespace": ns,
            "filter": check_filter(filter),
            "limit": limit,
            "offset": offset,
            "query": query,
        }
        auth_filter = await self._authorize("search", payload)
        ns = check_namespace(payload["namespace"] or (), "namespace_prefix", allow_empty=True)
        # Every condition must hold, and the handler's win over the request's on one field.
        wanted = {**(check_filter(payload["filter"]) or {}), **(auth_filter or {})}
        items = await self._store.asearch(
            ns,
            query=payload["query"],
            filter=check_filter(wanted) or None,
            limit=payload["limit"],
            offset=payload["offset"],
            refresh_ttl=refresh_ttl,
        )
        return {"items": [item_record(item) for item in items]}

    async def list_namespaces(
        self,
        *,
        prefix: Sequence[str] | None,
        suffix: Sequence[str] | None,
        max_depth: int | None,
        limit: int,
        offset: int,
    ) -> dict[str, Any]:
        """`{"namespaces": [[...], ...]}`, the form `langgraph_sdk` reads."""
        payload: dict[str, Any] = {
            "namespace": check_namespace(prefix, "prefix", allow_empty=True) if prefix else None,
            "suffix": check_namespace(suffix, "suffix", allow_empty=True) if suffix else None,
            "max_depth": max_depth,
            "limit": limit,
            "offset": offset,
        }
        await self._authorize("list_namespaces", payload)
        prefix = payload["namespace"]
        found = await self._store.alist_namespaces(
            prefix=check_namespace(prefix, "prefix", allow_empty=True) if prefix else None,
            suffix=payload["suffix"],
            max_depth=payload["max_depth"],
            limit=payload["limit"],
            offset=payload["offset"],
        )
        return {"namespaces": [list(namespace) for namespace in found]}
