"""The served assistants as tools an agent can call: the business side of `/mcp/`.

Each assistant the caller may see is one tool: its name, its description and its graph's input
schema. Calling a tool is a stateless run of that assistant through the run service (so the run
is authorized, stored, dispatched and, in queue mode, executed by a worker like any other), and
the tool's result is the run's output. Nothing here knows MCP: `server/mcp.py` translates.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from open_langgraph.errors import NotFound, OLGError
from open_langgraph.services.assistants import AssistantService
from open_langgraph.services.run_request import RunCreate
from open_langgraph.services.runs import RunService

#: MCP tool names are 1-128 characters of letters, digits, `_`, `-` and `.`.
_NOT_IN_A_TOOL_NAME = re.compile(r"[^A-Za-z0-9_.-]+")
_MAX_NAME = 128
#: Assistants listed as tools at most (an MCP client puts every tool in a model's prompt).
MAX_TOOLS = 1000
_OBJECT_SCHEMA: dict[str, Any] = {"type": "object"}


class ToolRunFailed(OLGError):
    """The assistant's run ended without an output to return (error, timeout, cancel).

    Reported to the MCP client as a failed tool call, never as an HTTP status."""


@dataclass(frozen=True, slots=True)
class AgentTool:
    name: str
    description: str
    input_schema: dict[str, Any]
    assistant_id: str


def tool_name(assistant: dict[str, Any], taken: set[str]) -> str:
    """The assistant's name as a valid tool name; a second assistant of the same name gets its
    id appended, so every listed name calls exactly one assistant."""
    base = _NOT_IN_A_TOOL_NAME.sub("_", assistant["name"] or "").strip("_")[:_MAX_NAME]
    name = base or assistant["assistant_id"]
    if name in taken:
        name = f"{base[: _MAX_NAME - 37]}_{assistant['assistant_id']}".lstrip("_")
    return name


def _input_schema(schemas: dict[str, Any]) -> dict[str, Any]:
    """The graph's input schema as a tool's: a JSON object schema (MCP requires one)."""
    schema = schemas.get("input_schema")
    if not isinstance(schema, dict) or schema.get("type", "object") != "object":
        return dict(_OBJECT_SCHEMA)
    return {"type": "object", **schema}


class AgentTools:
    """Lists and calls assistants as the request's user: only what `assistants.search` lets
    them see is listed or callable, and runs are authorized as `threads.create_run`."""

    def __init__(self, assistants: AssistantService, runs: RunService) -> None:
        self._assistants = assistants
        self._runs = runs

    async def _named(self) -> list[tuple[str, dict[str, Any]]]:
        """(tool name, assistant) of every assistant the user may see, oldest first, so a
        graph's system assistant keeps the plain name of its graph."""
        found = await self._assistants.search(limit=MAX_TOOLS, sort_by="created_at")
        named: list[tuple[str, dict[str, Any]]] = []
        taken: set[str] = set()
        for assistant in reversed(found):
            name = tool_name(assistant, taken)
            taken.add(name)
            named.append((name, assistant))
        return named

    async def list(self) -> list[AgentTool]:
        tools: list[AgentTool] = []
        for name, assistant in await self._named():
            try:
                schemas = await self._assistants.schemas(assistant["assistant_id"])
            except NotFound:  # its graph is no longer served
                continue
            tools.append(
                AgentTool(
                    name=name,
                    description=assistant.get("description") or f"Run the {name} agent.",
                    input_schema=_input_schema(schemas),
                    assistant_id=assistant["assistant_id"],
                )
            )
        return tools

    async def call(self, name: str, arguments: dict[str, Any] | None) -> Any:
        """Run the tool's assistant on `arguments` (its graph input) and return its output.

        Raises:
            NotFound: no tool of that name is listed for this user.
            ToolRunFailed: the run ended in error, timed out or was interrupted.
        """
        assistant_id = next((a["assistant_id"] for n, a in await self._named() if n == name), None)
        if assistant_id is None:
            raise NotFound(f"Tool {name!r} not found")
        run = await self._runs.create(
            None, RunCreate(assistant_id=assistant_id, input=arguments or {})
        )
        outcome = await self._runs.wait_for(run)
        if outcome.status != "success":
            error = (outcome.error or {}).get("message") or outcome.status
            raise ToolRunFailed(f"The {name} run ended with {outcome.status}: {error}")
        return outcome.output
