"""The agent's tools and the manifest the prompts show.

Every tool takes one string argument, so a plan step's `input` (or an earlier step's output,
through `input_from`) is exactly what the tool receives and what the audit trail records.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, StructuredTool, ToolException
from langgraph.constants import TAG_NOSTREAM

from graphs.plan_execute.prompts import SUMMARIZE_PROMPT
from graphs.plan_execute.weather import WeatherService
from graphs.toolkit.calculator import CalculatorError, evaluate
from graphs.toolkit.search import search

ToolsFactory = Callable[[BaseChatModel], Sequence[BaseTool]]
"""Builds a run's tools from its chat model (tools such as `summarize` call the model)."""

SEARCH_RESULTS = 5
RESULT_CHARS = 700


def make_web_search() -> BaseTool:
    def web_search(query: str) -> str:
        results = search(query, max_results=SEARCH_RESULTS)
        if not results:
            return f"No results for {query!r}."
        return "\n\n".join(
            f"[{n}] {hit['title']} ({hit['url']})\n{hit['content'][:RESULT_CHARS]}"
            for n, hit in enumerate(results, start=1)
        )

    return StructuredTool.from_function(
        web_search,
        name="web_search",
        description="Search the web (offline: the project's documentation). Input: a query.",
    )


def make_summarize(model: BaseChatModel) -> BaseTool:
    def summarize(text: str, config: RunnableConfig) -> str:
        # Not streamed: a chat UI should show the final answer, not intermediate summaries.
        quiet = model.with_config(tags=[TAG_NOSTREAM])
        reply = quiet.invoke([SystemMessage(SUMMARIZE_PROMPT), HumanMessage(text)], config)
        return reply.text

    return StructuredTool.from_function(
        summarize,
        name="summarize",
        description="Summarize a text in a few sentences (uses the language model). Input: text.",
    )


def make_get_weather(service: WeatherService | None = None) -> BaseTool:
    weather = service or WeatherService()

    def get_weather(location: str) -> str:
        return weather.current(location)

    return StructuredTool.from_function(
        get_weather,
        name="get_weather",
        description="Current weather at a place (Open-Meteo). Input: a city name, e.g. Seoul.",
    )


def make_calculator() -> BaseTool:
    def calculator(expression: str) -> str:
        try:
            return evaluate(expression)
        except CalculatorError as exc:
            raise ToolException(f"calculator refused {expression!r}: {exc}") from exc

    tool = StructuredTool.from_function(
        calculator,
        name="calculator",
        description="Exact arithmetic with units (the toolkit's calculator). Input: one "
        "expression, e.g. 2340 * 17%, (1200 - 300) / 4, 2.5 kg * 4 in g.",
    )
    tool.handle_tool_error = True
    return tool


def default_tools(model: BaseChatModel) -> list[BaseTool]:
    return [make_calculator(), make_web_search(), make_summarize(model), make_get_weather()]


def input_name(tool: BaseTool) -> str:
    """The tool's single argument; a tool with another signature cannot be a plan step."""
    names = list(tool.args)
    if len(names) != 1:
        raise ValueError(
            f"plan_execute tools take exactly one string argument; {tool.name!r} takes {names}"
        )
    return names[0]


def tool_manifest(tools: Sequence[BaseTool]) -> str:
    return "\n".join(f"- {t.name}({input_name(t)}): {t.description}" for t in tools)
