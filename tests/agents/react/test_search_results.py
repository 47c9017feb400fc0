"""The checks read back exactly what the search tool showed the model."""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from graphs.react_agent.search_results import ShownResult, format_results, shown_results

_RESULTS = [
    ShownResult(
        "The store: Semantic search",
        "docs/store.md#semantic-search",
        "Set `index`.\n\n| key | meaning |\n| --- | --- |\n| dims | vector size |",
    ),
    ShownResult("Runs (background)", "docs/runs.md#background", "Poll `GET /runs/{id}`."),
]


def _turn(*tool_texts: str) -> list:
    earlier = [
        HumanMessage("old question"),
        ToolMessage("[1] Old (source: old.md)\nold", name="search", tool_call_id="0"),
        AIMessage("old answer"),
    ]
    now = [HumanMessage("new question")]
    for number, text in enumerate(tool_texts, start=1):
        now.append(ToolMessage(text, name="search", tool_call_id=str(number)))
    return [*earlier, *now]


def test_formatted_results_read_back_unchanged() -> None:
    text = format_results(_RESULTS)
    assert text.startswith(
        "[1] The store: Semantic search (source: docs/store.md#semantic-search)\n"
    )
    assert list(shown_results(_turn(text))) == _RESULTS


def test_only_the_current_turns_searches_are_read() -> None:
    calculator = ToolMessage("[1] 4 (source: x)\ny", name="calculator", tool_call_id="9")
    messages = [*_turn(format_results(_RESULTS[:1]), format_results(_RESULTS[1:])), calculator]
    assert [r.source for r in shown_results(messages)] == [
        "docs/store.md#semantic-search",
        "docs/runs.md#background",
    ]
