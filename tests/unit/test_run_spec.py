"""What a run executes: merged config, stream modes and the `Command` built from a request."""

from __future__ import annotations

import copy
import operator
from typing import Annotated, Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Send, interrupt
from typing_extensions import TypedDict

from open_langgraph.errors import InvalidInput
from open_langgraph.runtime.run_spec import (
    STREAM_MODES,
    build_run_config,
    merge_configs,
    normalize_stream_modes,
    to_command,
)

# -- merge_configs ------------------------------------------------------------------------


def test_merge_configs_of_nothing_is_empty() -> None:
    assert merge_configs() == {}
    assert merge_configs(None, {}, None) == {}


def test_merge_configs_later_config_wins_for_plain_keys() -> None:
    merged = merge_configs(
        {"recursion_limit": 5, "run_name": "a"},
        None,
        {"recursion_limit": 50},
    )
    assert merged == {"recursion_limit": 50, "run_name": "a"}


def test_merge_configs_merges_configurable_and_metadata_key_by_key() -> None:
    merged = merge_configs(
        {"configurable": {"model": "small", "temperature": 0}, "metadata": {"team": "a"}},
        {"configurable": {"model": "large"}, "metadata": {"owner": "b"}},
    )
    assert merged["configurable"] == {"model": "large", "temperature": 0}
    assert merged["metadata"] == {"team": "a", "owner": "b"}


def test_merge_configs_replaces_nested_values_inside_configurable() -> None:
    # Key by key, not deep: a later object value replaces the earlier one whole.
    merged = merge_configs(
        {"configurable": {"llm": {"name": "x", "temperature": 1}}},
        {"configurable": {"llm": {"name": "y"}}},
    )
    assert merged["configurable"] == {"llm": {"name": "y"}}


def test_merge_configs_concatenates_tags_in_order() -> None:
    merged = merge_configs({"tags": ["default"]}, {"tags": []}, {"tags": ["run", "extra"]})
    assert merged["tags"] == ["default", "run", "extra"]


def test_merge_configs_treats_null_sections_as_absent() -> None:
    merged = merge_configs(
        {"configurable": {"model": "small"}, "metadata": {"team": "a"}, "tags": ["t"]},
        {"configurable": None, "metadata": None, "tags": None},
    )
    assert merged == {"configurable": {"model": "small"}, "metadata": {"team": "a"}, "tags": ["t"]}


@pytest.mark.parametrize(
    "config",
    [
        {"configurable": "model=large"},
        {"configurable": ["model"]},
        {"metadata": 3},
        {"tags": "one-tag"},
        {"tags": {"a": 1}},
    ],
)
def test_merge_configs_rejects_malformed_sections(config: dict[str, Any]) -> None:
    with pytest.raises(InvalidInput) as info:
        merge_configs({"configurable": {"a": 1}}, config)
    assert f"config.{next(iter(config))}" in info.value.detail
    assert info.value.status_code == 422


def test_merge_configs_result_shares_no_mutable_state_with_inputs() -> None:
    first = {"configurable": {"opts": {"k": [1]}}, "metadata": {"m": {"x": 1}}, "tags": ["a"]}
    second = {"callbacks_data": {"nested": [1, 2]}, "configurable": {"more": [1]}}
    originals = copy.deepcopy((first, second))

    merged = merge_configs(first, second)
    merged["configurable"]["opts"]["k"].append(2)
    merged["configurable"]["more"].append(2)
    merged["configurable"]["new"] = 1
    merged["metadata"]["m"]["x"] = 2
    merged["tags"].append("b")
    merged["callbacks_data"]["nested"].append(3)

    assert (first, second) == originals


# -- normalize_stream_modes ---------------------------------------------------------------


@pytest.mark.parametrize("value", [None, []])
def test_stream_mode_defaults_to_values(value: Any) -> None:
    assert normalize_stream_modes(value) == ["values"]


def test_stream_mode_string_is_one_mode() -> None:
    assert normalize_stream_modes("updates") == ["updates"]
    assert normalize_stream_modes("messages-tuple") == ["messages-tuple"]


def test_stream_mode_list_keeps_order_and_drops_repeats() -> None:
    assert normalize_stream_modes(["updates", "values", "updates", "custom", "values"]) == [
        "updates",
        "values",
        "custom",
    ]


@pytest.mark.parametrize(
    "mode",
    [
        "values",
        "updates",
        "custom",
        "tasks",
        "checkpoints",
        "debug",
        "messages",
        "messages-tuple",
        "events",
    ],
)
def test_every_api_stream_mode_is_accepted(mode: str) -> None:
    assert mode in STREAM_MODES
    assert normalize_stream_modes(mode) == [mode]
    assert normalize_stream_modes(["values", mode]) == list(dict.fromkeys(["values", mode]))


@pytest.mark.parametrize("value", ["value", "Values", "", ["values", "stream"], "messages_tuple"])
def test_unknown_stream_modes_are_invalid(value: Any) -> None:
    with pytest.raises(InvalidInput) as info:
        normalize_stream_modes(value)
    bad = value if isinstance(value, str) else value[-1]
    assert repr(bad) in info.value.detail
    assert "not a stream mode" in info.value.detail
    assert "updates" in info.value.detail  # lists the valid modes


def test_normalize_stream_modes_does_not_modify_the_request_list() -> None:
    requested = ["values", "values"]
    normalize_stream_modes(requested)
    assert requested == ["values", "values"]


# -- to_command ---------------------------------------------------------------------------


def test_empty_command() -> None:
    assert to_command({}) == Command()


@pytest.mark.parametrize("resume", ["yes", {"answer": 42}, [1, 2], 0, False, ""])
def test_command_resume_value_is_passed_as_is(resume: Any) -> None:
    command = to_command({"resume": resume})
    assert command.resume == resume
    assert type(command.resume) is type(resume)
    assert command.update is None
    assert command.goto == ()


def test_command_update_object() -> None:
    assert to_command({"update": {"count": 3}}) == Command(update={"count": 3})


def test_command_update_list_of_pairs_becomes_tuples() -> None:
    # JSON has no tuples: the SDK sends [[key, value], ...]
    command = to_command({"update": [["count", 3], ["trail", ["x"]]]})
    assert command.update == [("count", 3), ("trail", ["x"])]
    assert all(type(item) is tuple for item in command.update)


def test_command_goto_node_name() -> None:
    assert to_command({"goto": "review"}) == Command(goto="review")


def test_command_goto_send_object() -> None:
    command = to_command({"goto": {"node": "worker", "input": {"job": 1}}})
    assert command.goto == Send("worker", {"job": 1})


def test_command_goto_send_without_input() -> None:
    assert to_command({"goto": {"node": "worker"}}).goto == Send("worker", None)


def test_command_goto_list_mixes_names_and_sends() -> None:
    command = to_command(
        {"goto": ["a", {"node": "worker", "input": {"job": 1}}, {"node": "worker", "input": 2}]}
    )
    assert command.goto == ["a", Send("worker", {"job": 1}), Send("worker", 2)]


def test_command_with_everything() -> None:
    command = to_command(
        {"resume": {"ok": True}, "update": {"count": 1}, "goto": {"node": "b", "input": {}}}
    )
    assert command == Command(resume={"ok": True}, update={"count": 1}, goto=Send("b", {}))


class _State(TypedDict, total=False):
    count: int
    trail: Annotated[list[str], operator.add]
    answer: str


def _graph() -> Any:
    def ask(state: _State) -> _State:
        return {"answer": interrupt("question?"), "trail": ["ask"]}

    def worker(state: _State) -> _State:
        return {"trail": [f"worker:{state.get('count')}"]}

    builder = StateGraph(_State)
    builder.add_node("ask", ask)
    builder.add_node("worker", worker)
    builder.add_edge(START, "ask")
    builder.add_edge("ask", END)
    builder.add_edge("worker", END)
    return builder.compile(checkpointer=InMemorySaver())


async def test_commands_drive_a_real_graph() -> None:
    # The Commands built from API requests are ones LangGraph executes as the client meant.
    graph = _graph()
    config = {"configurable": {"thread_id": "t1"}}
    first = await graph.ainvoke({"count": 1}, config)
    assert first["__interrupt__"][0].value == "question?"

    resumed = await graph.ainvoke(to_command({"resume": "42"}), config)
    assert resumed["answer"] == "42"
    assert resumed["trail"] == ["ask"]

    sent = await graph.ainvoke(
        to_command(
            {
                "update": [["count", 7], ["trail", ["updated"]]],
                "goto": [{"node": "worker", "input": {"count": 9}}, "worker"],
            }
        ),
        config,
    )
    assert sent["count"] == 7
    assert sent["trail"][0] == "ask"
    assert sorted(sent["trail"][1:]) == ["updated", "worker:7", "worker:9"]


# -- build_run_config ---------------------------------------------------------------------

ASSISTANT = {
    "assistant_id": "a-1",
    "graph_id": "agent",
    "config": {
        "configurable": {"model": "assistant-model", "temperature": 0.5},
        "metadata": {"source": "assistant", "level": "assistant"},
        "tags": ["assistant"],
        "recursion_limit": 30,
    },
}
DEFAULT_CONFIG = {
    "configurable": {"model": "default-model", "region": "eu"},
    "metadata": {"source": "default", "env": "prod"},
    "tags": ["default"],
    "recursion_limit": 10,
    "max_concurrency": 4,
}


def _build(**overrides: Any) -> dict[str, Any]:
    kwargs: dict[str, Any] = {
        "default_config": DEFAULT_CONFIG,
        "assistant": ASSISTANT,
        "run_config": None,
        "metadata": {},
        "run_id": "r-1",
        "thread_id": "t-1",
        "checkpoint": None,
    }
    kwargs.update(overrides)
    return build_run_config(**kwargs)


def test_run_config_sets_server_keys() -> None:
    config = _build()
    assert config["configurable"]["thread_id"] == "t-1"
    assert config["configurable"]["run_id"] == "r-1"
    assert config["configurable"]["assistant_id"] == "a-1"
    assert config["configurable"]["graph_id"] == "agent"


def test_run_config_precedence_default_then_assistant_then_run() -> None:
    config = _build(
        run_config={"configurable": {"temperature": 0.9}, "tags": ["run"], "recursion_limit": 99}
    )
    assert config["configurable"]["model"] == "assistant-model"  # assistant over default
    assert config["configurable"]["temperature"] == 0.9  # run over assistant
    assert config["configurable"]["region"] == "eu"  # default kept
    assert config["recursion_limit"] == 99
    assert config["max_concurrency"] == 4
    assert config["tags"] == ["default", "assistant", "run"]


def test_run_config_without_run_config_uses_assistant_over_default() -> None:
    config = _build()
    assert config["recursion_limit"] == 30
    assert config["configurable"]["model"] == "assistant-model"


def test_run_config_client_cannot_override_server_keys() -> None:
    spoof = {"thread_id": "other", "run_id": "x", "assistant_id": "y", "graph_id": "z"}
    config = _build(
        default_config={"configurable": dict(spoof)},
        assistant={**ASSISTANT, "config": {"configurable": dict(spoof)}},
        run_config={"configurable": {**spoof, "user_key": 1}},
    )
    assert {k: config["configurable"][k] for k in spoof} == {
        "thread_id": "t-1",
        "run_id": "r-1",
        "assistant_id": "a-1",
        "graph_id": "agent",
    }
    assert config["configurable"]["user_key"] == 1


def test_run_config_metadata_merges_with_run_metadata_last() -> None:
    config = _build(
        run_config={"metadata": {"source": "run-config", "extra": True}},
        metadata={"source": "run", "run_attempt": 1},
    )
    assert config["metadata"] == {
        "source": "run",
        "env": "prod",
        "level": "assistant",
        "extra": True,
        "run_attempt": 1,
    }


def test_run_config_without_any_metadata() -> None:
    config = _build(default_config={}, assistant={**ASSISTANT, "config": {}})
    assert config["metadata"] == {}
    assert config["configurable"] == {
        "thread_id": "t-1",
        "run_id": "r-1",
        "assistant_id": "a-1",
        "graph_id": "agent",
    }


def test_run_config_checkpoint_selects_where_the_run_starts() -> None:
    config = _build(
        checkpoint={
            "checkpoint_id": "cp-1",
            "checkpoint_ns": "child:1",
            "checkpoint_map": {"": "cp-0"},
        }
    )
    assert config["configurable"]["checkpoint_id"] == "cp-1"
    assert config["configurable"]["checkpoint_ns"] == "child:1"
    assert config["configurable"]["checkpoint_map"] == {"": "cp-0"}


def test_run_config_checkpoint_without_id_or_namespace() -> None:
    config = _build(checkpoint={"checkpoint_id": None, "checkpoint_ns": None})
    assert "checkpoint_id" not in config["configurable"]
    assert "checkpoint_map" not in config["configurable"]
    assert config["configurable"]["checkpoint_ns"] == ""


def test_run_config_drops_stale_checkpoint_keys_from_stored_configs() -> None:
    # A checkpoint id saved in an assistant or default config must not pin every run to it.
    stale = {"checkpoint_id": "old", "checkpoint_ns": "old-ns", "checkpoint_map": {"": "old"}}
    config = _build(
        default_config={"configurable": dict(stale)},
        assistant={**ASSISTANT, "config": {"configurable": dict(stale)}},
    )
    for key in stale:
        assert key not in config["configurable"]

    chosen = _build(
        assistant={**ASSISTANT, "config": {"configurable": dict(stale)}},
        checkpoint={"checkpoint_id": "new"},
    )
    assert chosen["configurable"]["checkpoint_id"] == "new"
    # No namespace named, none set: as on the Platform, chunks keep their node's namespace.
    assert "checkpoint_ns" not in chosen["configurable"]
    assert "checkpoint_map" not in chosen["configurable"]


def test_run_config_null_sections_from_the_client_keep_stored_ones() -> None:
    config = _build(run_config={"configurable": None, "metadata": None, "tags": None})
    assert config["configurable"]["model"] == "assistant-model"
    assert config["configurable"]["thread_id"] == "t-1"
    assert config["metadata"]["level"] == "assistant"
    assert config["tags"] == ["default", "assistant"]


def test_run_config_malformed_configurable_is_invalid_input() -> None:
    with pytest.raises(InvalidInput, match=r"config\.configurable"):
        _build(run_config={"configurable": "model=large"})


def test_run_config_does_not_modify_stored_configs() -> None:
    default_config = copy.deepcopy(DEFAULT_CONFIG)
    assistant = copy.deepcopy(ASSISTANT)
    run_config = {"configurable": {"x": [1]}, "metadata": {"m": 1}, "tags": ["run"]}
    run_config_before = copy.deepcopy(run_config)

    config = _build(
        default_config=default_config,
        assistant=assistant,
        run_config=run_config,
        metadata={"run_attempt": 1},
        checkpoint={"checkpoint_id": "cp"},
    )
    config["configurable"]["x"].append(2)
    config["tags"].append("more")

    assert default_config == DEFAULT_CONFIG
    assert assistant == ASSISTANT
    assert run_config == run_config_before


def test_run_config_keeps_a_checkpoint_the_client_put_in_its_own_config() -> None:
    config = _build(run_config={"configurable": {"checkpoint_id": "client-chosen"}})
    assert config["configurable"]["checkpoint_id"] == "client-chosen"
