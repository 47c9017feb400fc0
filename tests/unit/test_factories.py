"""Graph factories are called as LangGraph Platform calls them, told apart by signature."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Annotated, Any

import pytest
from langchain_core.runnables import RunnableConfig
from langgraph.store.memory import InMemoryStore
from langgraph_sdk.runtime import ServerRuntime

from open_langgraph.runtime.factories import (
    FactorySignatureError,
    entered,
    factory_arguments,
    factory_config,
    server_runtime,
)

if TYPE_CHECKING:
    from my_app.context import UnimportableContext  # type: ignore[import-not-found]

CONFIG: RunnableConfig = {"configurable": {"k": 1}}


def _call(fn: Any, access: str = "threads.create_run", context: Any = None) -> dict[str, Any]:
    runtime = server_runtime(access, InMemoryStore(), context)  # type: ignore[arg-type]
    return factory_arguments(fn)(CONFIG, runtime)


def test_no_parameter_and_config_only_factories():
    assert _call(lambda: None) == {}

    def config_only(config: RunnableConfig) -> None: ...

    assert _call(config_only) == {"config": CONFIG}


def test_a_parameter_with_a_default_gets_the_config_as_on_the_platform():
    """langgraph-api counts every parameter: a factory written `make_graph(config=None)` (or
    with any name) is handed the config, not left to its default."""

    def optional_config(config: RunnableConfig | None = None) -> None: ...

    def named_otherwise(project_root: str | None = None) -> None: ...

    assert _call(optional_config) == {"config": CONFIG}
    assert _call(named_otherwise) == {"project_root": CONFIG}


def test_two_parameters_in_either_order_are_passed_by_name():
    def config_first(cfg: RunnableConfig, rt: ServerRuntime) -> None: ...

    def runtime_first(rt: ServerRuntime[dict], cfg) -> None: ...

    for fn in (config_first, runtime_first):
        arguments = _call(fn, context={"user": "u"})
        assert arguments["cfg"] is CONFIG
        assert arguments["rt"].access_context == "threads.create_run"
        assert arguments["rt"].execution_runtime.context == {"user": "u"}


def test_runtime_annotations_the_platform_accepts_are_recognised():
    def annotated(rt: Annotated[ServerRuntime, "meta"]) -> None: ...

    # The context type only exists for the type checker: the hint cannot be resolved.
    def late(rt: ServerRuntime[UnimportableContext]) -> None: ...

    for fn in (annotated, late):
        assert "rt" in _call(fn) and _call(fn)["rt"].store is not None


def test_reads_get_a_runtime_without_execution_or_context():
    def factory(rt: ServerRuntime) -> None: ...

    runtime = _call(factory, access="assistants.read", context={"ignored": True})["rt"]
    assert runtime.access_context == "assistants.read"
    assert runtime.execution_runtime is None


@pytest.mark.parametrize(
    "fn",
    [
        lambda a, b: None,  # neither is a runtime
        lambda a, b, c: None,  # too many
    ],
)
def test_unusable_signatures_are_refused(fn: Any):
    with pytest.raises(FactorySignatureError, match="ServerRuntime"):
        factory_arguments(fn)


def test_two_runtimes_are_refused():
    def both(a: ServerRuntime, b: ServerRuntime) -> None: ...

    with pytest.raises(FactorySignatureError):
        factory_arguments(both)


async def test_context_manager_factories_stay_open_while_the_graph_is_used():
    events: list[str] = []

    @contextlib.asynccontextmanager
    async def async_factory() -> AsyncIterator[str]:
        events.append("open")
        yield "graph"
        events.append("close")

    @contextlib.contextmanager
    def sync_factory() -> Iterator[str]:
        events.append("sync-open")
        yield "sync-graph"
        events.append("sync-close")

    async def coroutine_factory() -> str:
        return "awaited"

    async with entered(async_factory()) as value:
        assert (value, events) == ("graph", ["open"])
    async with entered(sync_factory()) as value:
        assert value == "sync-graph"
    async with entered(coroutine_factory()) as value:
        assert value == "awaited"
    assert events == ["open", "close", "sync-open", "sync-close"]


@pytest.mark.parametrize(
    ("access", "for_execution"),
    [
        ("threads.create_run", True),
        ("threads.read", False),
        ("threads.update", False),
        ("assistants.read", False),
    ],
)
def test_a_factory_is_told_whether_it_builds_the_graph_for_a_run(access: Any, for_execution: bool):
    given = factory_config(CONFIG, access)
    assert given["configurable"] == {"k": 1, "__is_for_execution__": for_execution}
    assert CONFIG["configurable"] == {"k": 1}, "the caller's config is not changed"
    assert factory_config(None, access)["configurable"]["__is_for_execution__"] is for_execution
