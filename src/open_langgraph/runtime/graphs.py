"""Loading the configured graphs; each run gets one bound to our checkpointer and store.

A config entry may point at a compiled graph, an uncompiled `StateGraph`, or a factory (see
`runtime.factories` for the signatures and return kinds accepted); factories are called each
time a graph is needed, so they can build it from that run's configuration.
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import StateGraph
from langgraph.pregel import Pregel
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore

from open_langgraph.config import AppConfig, ConfigError, GraphSpec
from open_langgraph.importing import import_attribute
from open_langgraph.local_packages import make_importable
from open_langgraph.model_aliases import apply_model_aliases
from open_langgraph.runtime.factories import (
    AccessContext,
    FactoryArguments,
    FactorySignatureError,
    entered,
    factory_arguments,
    factory_config,
    server_runtime,
)

#: The name LangGraph gives a compiled graph that was not named.
_DEFAULT_GRAPH_NAME = "LangGraph"
logger = logging.getLogger(__name__)


@dataclass(slots=True)
class LoadedGraph:
    spec: GraphSpec
    graph: Pregel | None
    factory: Callable[..., Any] | None
    arguments: FactoryArguments | None = None


def _import_target(config_path: Path, spec: GraphSpec) -> Any:
    """Import the module named by a spec and return its attribute."""
    return import_attribute(
        config_path,
        f"graphs.{spec.graph_id}",
        spec.path,
        spec.attribute,
        f"olg_graph_{spec.graph_id}",
    )


def _as_pregel(value: Any) -> Pregel | None:
    if isinstance(value, Pregel):
        return value
    if isinstance(value, StateGraph):
        return value.compile()
    return None


class GraphRegistry:
    """The configured graphs, keyed by graph id, bound to one checkpointer."""

    def __init__(self, config: AppConfig) -> None:
        self._checkpointer: BaseCheckpointSaver | None = None
        # The store runs use and a `ServerRuntime` hands factories as `runtime.store`:
        # process memory until `bind` attaches the server's persistent one.
        self.store: BaseStore = InMemoryStore()
        self._graphs: dict[str, LoadedGraph] = {}
        # Before the graphs' modules run: a model they build at import time is aliased too.
        apply_model_aliases(config.models.aliases)
        make_importable(config.dependencies)
        if str(config.base_dir) not in sys.path:
            sys.path.insert(0, str(config.base_dir))
        for graph_id, spec in config.graphs.items():
            target = _import_target(config.path, spec)
            graph = _as_pregel(target)
            if graph is not None:
                self._graphs[graph_id] = LoadedGraph(spec, graph, None)
            elif callable(target):
                try:
                    arguments = factory_arguments(target)
                except FactorySignatureError as exc:
                    raise ConfigError(config.path, f"graphs.{graph_id}", str(exc)) from None
                self._graphs[graph_id] = LoadedGraph(spec, None, target, arguments)
            else:
                raise ConfigError(
                    config.path,
                    f"graphs.{graph_id}",
                    f"{spec.attribute!r} is a {type(target).__name__}, not a graph or a "
                    "factory taking a RunnableConfig",
                )

    def bind(self, checkpointer: BaseCheckpointSaver, store: BaseStore | None = None) -> None:
        """Attach the server's checkpointer and store to every graph (so nodes get
        `runtime.store`, a `store` parameter and `get_store()`); called once storage is open."""
        self._checkpointer = checkpointer
        if store is not None:
            self.store = store
        for graph_id, loaded in self._graphs.items():
            if loaded.graph is not None:
                _warn_of_own_persistence(graph_id, loaded.graph)
                loaded.graph = loaded.graph.copy(
                    update=self._bound(loaded.graph, graph_id, checkpointer)
                )

    def _bound(
        self, graph: Pregel, graph_id: str, checkpointer: BaseCheckpointSaver | None
    ) -> dict[str, Any]:
        """What a served graph is copied with: our checkpointer and store, and the graph's
        id as its name when it has LangGraph's default one, as the Platform names it (the
        root run of `events` streams and traces is called after it)."""
        update: dict[str, Any] = {"checkpointer": checkpointer, "store": self.store}
        if graph.name == _DEFAULT_GRAPH_NAME:
            update["name"] = graph_id
        return update

    @property
    def graph_ids(self) -> list[str]:
        return list(self._graphs)

    def __contains__(self, graph_id: object) -> bool:
        return graph_id in self._graphs

    def description(self, graph_id: str) -> str | None:
        return self._graphs[graph_id].spec.description

    def display_name(self, graph_id: str) -> str:
        """The name of the graph's system assistant: the compiled graph's own name when it
        was given one (`compile(name=...)`), else its id, as on the Platform."""
        graph = self._graphs[graph_id].graph
        name = getattr(graph, "name", None)
        return name if isinstance(name, str) and name and name != _DEFAULT_GRAPH_NAME else graph_id

    @contextlib.asynccontextmanager
    async def open(
        self,
        graph_id: str,
        config: RunnableConfig | None = None,
        *,
        access: AccessContext = "threads.read",
        context: Any = None,
        user: Any = None,
    ) -> AsyncIterator[Pregel]:
        """The graph for `config` with our checkpointer attached, while the block runs.

        A factory returning a context manager keeps it entered for the block, so the resources
        it opened for a run live exactly as long as the run. `user` becomes the factory's
        `runtime.user`: the run's user, or the user of the request reading the graph.
        """
        loaded = self._graphs[graph_id]
        if loaded.graph is not None:
            yield loaded.graph
            return
        assert loaded.factory is not None and loaded.arguments is not None
        runtime = server_runtime(access, self.store, context, user)
        made = loaded.factory(**loaded.arguments(factory_config(config, access), runtime))
        async with entered(made) as result:
            graph = _as_pregel(result)
            if graph is None:
                raise TypeError(
                    f"graph factory {graph_id!r} returned {type(result).__name__}, not a graph"
                )
            yield graph.copy(update=self._bound(graph, graph_id, self._checkpointer))


def _warn_of_own_persistence(graph_id: str, graph: Pregel) -> None:
    """Say once that a graph compiled with its own checkpointer or store (deepagents' examples
    pass `MemorySaver()` and `InMemoryStore()`) is served with the server's instead:
    langgraph-api refuses to start such a graph; here threads persist, and the store a node
    writes is the one the API reads, but its author may expect otherwise."""
    own = [
        f"{what} ({type(value).__name__})"
        for what, value, kind in (
            ("checkpointer", graph.checkpointer, BaseCheckpointSaver),
            ("store", graph.store, BaseStore),
        )
        if isinstance(value, kind)
    ]
    if own:
        logger.warning(
            "graph %r was compiled with its own %s: the server's are used instead",
            graph_id,
            " and ".join(own),
        )
