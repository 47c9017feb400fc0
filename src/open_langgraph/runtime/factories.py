"""Calling graph factories the way LangGraph Platform does.

A factory may take nothing, the run's `RunnableConfig`, a `ServerRuntime`, or both (in either
order, told apart by their annotations), and may return a graph, an awaitable of one, or a
(async) context manager that yields one, so it can open resources for a run and close them
after. The signature is read once when the config is loaded, so a factory we cannot call fails
start-up instead of the first request.
"""

from __future__ import annotations

import contextlib
import inspect
import typing
from collections.abc import AsyncIterator, Callable
from typing import Any, Literal

from langchain_core.runnables import RunnableConfig
from langgraph.store.base import BaseStore
from langgraph_sdk.runtime import ServerRuntime, _ExecutionRuntime, _ReadRuntime

AccessContext = Literal["threads.create_run", "threads.update", "threads.read", "assistants.read"]
FactoryArguments = Callable[[RunnableConfig, ServerRuntime], dict[str, Any]]


class FactorySignatureError(ValueError):
    """A factory whose parameters are not some of (config, runtime)."""


def _is_runtime_annotation(annotation: Any) -> bool:
    if annotation is ServerRuntime:
        return True
    if isinstance(annotation, str):
        # Unresolvable string annotations (the import sits under TYPE_CHECKING).
        return "ServerRuntime" in annotation
    if inspect.isclass(annotation) and issubclass(annotation, (_ExecutionRuntime, _ReadRuntime)):
        return True
    origin = typing.get_origin(annotation)
    if origin is ServerRuntime:
        return True
    if origin is typing.Annotated:
        return _is_runtime_annotation(typing.get_args(annotation)[0])
    return False


def _annotations(fn: Callable[..., Any]) -> dict[str, Any]:
    try:
        return typing.get_type_hints(fn, include_extras=True)
    except Exception:
        return dict(getattr(fn, "__annotations__", {}) or {})


def factory_arguments(fn: Callable[..., Any]) -> FactoryArguments:
    """How to call `fn`: a function from (config, runtime) to its keyword arguments.

    Raises:
        FactorySignatureError: `fn` takes more than two parameters, or two of which neither
            (or both) is annotated as a `ServerRuntime`.
    """
    # A parameter with a default counts, as langgraph-api counts it: `make_graph(config=None)`
    # gets the config there, and so does `make_graph(project_root=None)`.
    params = [
        p
        for p in inspect.signature(fn).parameters.values()
        if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    hints = _annotations(fn)
    is_runtime = [_is_runtime_annotation(hints.get(p.name, p.annotation)) for p in params]
    if not params:
        return lambda config, runtime: {}
    if len(params) == 1:
        name = params[0].name
        if is_runtime[0]:
            return lambda config, runtime: {name: runtime}
        return lambda config, runtime: {name: config}
    if len(params) == 2 and is_runtime.count(True) == 1:
        runtime_name = params[is_runtime.index(True)].name
        config_name = params[is_runtime.index(False)].name
        return lambda config, runtime: {runtime_name: runtime, config_name: config}
    raise FactorySignatureError(
        "a graph factory takes no parameter, a RunnableConfig, a ServerRuntime, or both "
        "(the runtime annotated as langgraph_sdk.runtime.ServerRuntime); got "
        f"({', '.join(p.name for p in params)})"
    )


IS_FOR_EXECUTION = "__is_for_execution__"
"""The `configurable` key langgraph-api sets for every factory call: True when the graph is
built to execute a run, False for a drawing, a schema or a state read. Public projects read it
(open-swe's graphs return a placeholder agent without a sandbox when it is not True)."""


def factory_config(config: RunnableConfig | None, access: AccessContext) -> RunnableConfig:
    """The config a factory is called with: a copy of `config` with `IS_FOR_EXECUTION` set."""
    given: dict[str, Any] = dict(config or {})
    given["configurable"] = {
        **(given.get("configurable") or {}),
        IS_FOR_EXECUTION: access == "threads.create_run",
    }
    return typing.cast(RunnableConfig, given)


def server_runtime(
    access: AccessContext, store: BaseStore, context: Any = None, user: Any = None
) -> _ExecutionRuntime[Any] | _ReadRuntime[Any]:
    """The runtime a factory receives: with the run's context only when it executes a run,
    and `user`, the authenticated user the graph is built for (None without auth)."""
    if access == "threads.create_run":
        return _ExecutionRuntime(access_context=access, user=user, store=store, context=context)
    return _ReadRuntime(access_context=access, user=user, store=store)


@contextlib.asynccontextmanager
async def entered(result: Any) -> AsyncIterator[Any]:
    """What a factory call produced, awaited or entered as needed, for as long as it is used."""
    if inspect.isawaitable(result):
        result = await result
    if isinstance(result, contextlib.AbstractAsyncContextManager):
        async with result as value:
            yield value
    elif isinstance(result, contextlib.AbstractContextManager) and not hasattr(result, "invoke"):
        with result as value:
            yield value
    else:
        yield result
