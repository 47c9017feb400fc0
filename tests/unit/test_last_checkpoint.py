"""At a run's end the thread's state is read from the checkpoint the run stored last, kept
in memory (`storage/_last_checkpoint.py`): the state must be exactly what the database
gives, and the database must still answer whenever memory might differ from it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

from open_langgraph.storage._last_checkpoint import KeptCheckpoint
from open_langgraph.storage.sqlite._inline import connect_inline
from open_langgraph.storage.sqlite._inline_writes import InlineWrites
from open_langgraph.storage.sqlite._saver import SqliteCheckpointer


class State(TypedDict):
    items: Annotated[list[str], lambda a, b: [*a, *b]]


@pytest.fixture
async def saver(tmp_path: Path) -> AsyncIterator[SqliteCheckpointer]:
    conn = await connect_inline(tmp_path / "checkpoints.db")
    try:
        saver = SqliteCheckpointer(conn)
        await saver.setup()
        yield saver
    finally:
        await conn.close()


@pytest.fixture
def database_reads(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The configs the official saver was asked to read."""
    reads: list[dict[str, Any]] = []
    official = AsyncSqliteSaver.aget_tuple

    async def counted(self: AsyncSqliteSaver, config: Any) -> Any:
        reads.append(config)
        return await official(self, config)

    monkeypatch.setattr(AsyncSqliteSaver, "aget_tuple", counted)
    return reads


def _two_steps(saver: SqliteCheckpointer, **compile_kwargs: Any) -> Any:
    builder = StateGraph(State)
    builder.add_node("a", lambda s: {"items": ["a"]})
    builder.add_node("b", lambda s: {"items": ["b"]})
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    builder.add_edge("b", END)
    return builder.compile(checkpointer=saver, **compile_kwargs)


def _asking(saver: SqliteCheckpointer) -> Any:
    def ask(state: State) -> dict[str, Any]:
        return {"items": [interrupt({"question": "go on?"})]}

    builder = StateGraph(State)
    builder.add_node("a", lambda s: {"items": ["a"]})
    builder.add_node("ask", ask)
    builder.add_edge(START, "a")
    builder.add_edge("a", "ask")
    builder.add_edge("ask", END)
    return builder.compile(checkpointer=saver)


async def _run_and_read(graph: Any, thread_id: str, graph_input: Any) -> tuple[Any, Any]:
    """The state read as the run's end reads it, and as any later reader does."""
    config = {"configurable": {"thread_id": thread_id}}
    kept = KeptCheckpoint(thread_id)
    with kept.keep():
        await graph.ainvoke(graph_input, config)
        with kept.serving():
            at_the_end = await graph.aget_state(config)
    return at_the_end, await graph.aget_state(config)


async def test_a_finished_run_reads_its_last_checkpoint_from_memory_as_the_database_has_it(
    saver: SqliteCheckpointer, database_reads: list[dict[str, Any]]
) -> None:
    graph = _two_steps(saver)
    config = {"configurable": {"thread_id": "t1"}, "metadata": {"run_id": "r1"}}
    kept = KeptCheckpoint("t1")
    with kept.keep():
        await graph.ainvoke({"items": ["start"]}, config)
        reads_during_the_run = len(database_reads)
        with kept.serving():
            at_the_end = await graph.aget_state(config)
    assert len(database_reads) == reads_during_the_run  # memory answered
    stored = await graph.aget_state(config)
    assert len(database_reads) == reads_during_the_run + 1
    assert at_the_end == stored
    assert at_the_end.values == {"items": ["start", "a", "b"]}
    assert at_the_end.next == ()
    assert at_the_end.metadata["run_id"] == "r1"


async def test_an_interrupted_run_reads_the_database_so_its_interrupt_is_in_the_state(
    saver: SqliteCheckpointer, database_reads: list[dict[str, Any]]
) -> None:
    at_the_end, stored = await _run_and_read(_asking(saver), "t2", {"items": []})
    assert at_the_end == stored
    assert at_the_end.next == ("ask",)
    assert [i.value for i in at_the_end.interrupts] == [{"question": "go on?"}]
    # The pending interrupt write made the end's read go to the database.
    assert sum(1 for c in database_reads if c["configurable"]["thread_id"] == "t2") >= 2


async def test_a_run_stopped_before_a_node_shows_the_node_next(
    saver: SqliteCheckpointer,
) -> None:
    at_the_end, stored = await _run_and_read(
        _two_steps(saver, interrupt_before=["b"]), "t3", {"items": []}
    )
    assert at_the_end == stored
    assert at_the_end.next == ("b",)


async def test_a_resumed_run_ends_with_the_resumed_state(saver: SqliteCheckpointer) -> None:
    graph = _asking(saver)
    await _run_and_read(graph, "t4", {"items": []})
    at_the_end, stored = await _run_and_read(graph, "t4", Command(resume="yes"))
    assert at_the_end == stored
    assert at_the_end.values == {"items": ["a", "yes"]} and at_the_end.next == ()


async def test_checkpoints_of_other_threads_and_subgraphs_are_not_kept(
    saver: SqliteCheckpointer,
) -> None:
    inner = _two_steps(saver)

    async def calls_others(state: State) -> dict[str, Any]:
        # Another thread on the same saver, from inside the run.
        await inner.ainvoke({"items": ["other"]}, {"configurable": {"thread_id": "elsewhere"}})
        return {"items": ["outer"]}

    sub = StateGraph(State)
    sub.add_node("s", lambda s: {"items": ["sub"]})
    sub.add_edge(START, "s")
    builder = StateGraph(State)
    builder.add_node("calls_others", calls_others)
    builder.add_node("subgraph", sub.compile(checkpointer=True))
    builder.add_edge(START, "calls_others")
    builder.add_edge("calls_others", "subgraph")
    graph = builder.compile(checkpointer=saver)

    config = {"configurable": {"thread_id": "t5"}}
    elsewhere_config = {"configurable": {"thread_id": "elsewhere"}}
    kept = KeptCheckpoint("t5")
    with kept.keep():
        await graph.ainvoke({"items": []}, config)
        with kept.serving():
            at_the_end = await graph.aget_state(config)
            elsewhere = await inner.aget_state(elsewhere_config)
    assert at_the_end == await graph.aget_state(config)
    assert at_the_end.values["items"][-2:] == ["outer", "sub"]
    assert elsewhere == await inner.aget_state(elsewhere_config)
    assert elsewhere.values == {"items": ["other", "a", "b"]}


async def test_a_failed_write_leaves_the_answer_to_the_database(
    saver: SqliteCheckpointer, monkeypatch: pytest.MonkeyPatch
) -> None:
    graph = _two_steps(saver)
    config = {"configurable": {"thread_id": "t6"}}
    kept = KeptCheckpoint("t6")
    with kept.keep():
        await graph.ainvoke({"items": []}, config)
        assert kept.found is not None
        stored_before = await graph.aget_state(config)

        async def broken(*args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("disk full")

        monkeypatch.setattr(AsyncSqliteSaver, "aput", broken)
        monkeypatch.setattr(InlineWrites, "aput", broken)
        with pytest.raises(RuntimeError):
            await graph.ainvoke({"items": ["more"]}, config)
        assert kept.found is None
        with kept.serving():
            assert await graph.aget_state(config) == stored_before


async def test_memory_is_only_served_inside_serving_and_for_the_latest_checkpoint(
    saver: SqliteCheckpointer, database_reads: list[dict[str, Any]]
) -> None:
    graph = _two_steps(saver)
    config = {"configurable": {"thread_id": "t7"}}
    kept = KeptCheckpoint("t7")
    with kept.keep():
        await graph.ainvoke({"items": []}, config)
        before = len(database_reads)
        await graph.aget_state(config)  # not serving: the database
        assert len(database_reads) == before + 1
        with kept.serving():
            history = [s async for s in graph.aget_state_history(config, limit=2)]
            parent = await graph.aget_state(history[1].config)  # a given checkpoint id
    assert len(database_reads) == before + 2
    assert parent.values == {"items": ["a"]}
