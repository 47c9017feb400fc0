"""The tools the Agent may call: a chosen set of Playwright MCP browser tools, `extract_data`
and `finish`.

Browser tools are forwarded to the MCP server under their own names and argument names
(element tools take `target`, the ref from the snapshot such as `e12` or a unique CSS selector;
this server version has no `ref` argument). Their schemas are restated here rather than copied
from the server: the server's schemas carry keywords a grammar-constrained local model cannot
enforce and free strings without a length bound, and the agent should not see tools such as
`browser_run_code_unsafe` or `browser_file_upload` at all. `check_server_tools` fails fast if
the installed server lacks one of them.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from graphs.web_agent.snapshots import refs_with_roles

Schema = dict[str, Any]


def _text(description: str, max_length: int) -> Schema:
    return {"type": "string", "description": description, "maxLength": max_length}


_TARGET = _text("the element's ref from the latest snapshot, e.g. e12, or a CSS selector", 80)
_ELEMENT = _text("what the element is, in a few words", 80)


def _tool(name: str, description: str, properties: Schema, required: Iterable[str]) -> Schema:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": list(required),
                "additionalProperties": False,
            },
        },
    }


BROWSER_TOOLS: list[Schema] = [
    _tool("browser_navigate", "Open a URL.", {"url": _text("the URL to open", 300)}, ["url"]),
    _tool("browser_snapshot", "Read the current page again (refs are updated).", {}, []),
    _tool(
        "browser_click",
        "Click an element (link, button, option).",
        {"target": _TARGET, "element": _ELEMENT},
        ["target"],
    ),
    _tool(
        "browser_type",
        "Type text into a text box; submit=true presses Enter afterwards.",
        {
            "target": _TARGET,
            "text": _text("the text to type", 200),
            "submit": {"type": "boolean", "description": "press Enter after typing"},
        },
        ["target", "text", "submit"],
    ),
    _tool(
        "browser_select_option",
        "Choose values in a drop-down list.",
        {
            "target": _TARGET,
            "values": {"type": "array", "items": _text("an option", 100), "maxItems": 5},
        },
        ["target", "values"],
    ),
    _tool("browser_press_key", "Press a key, e.g. Enter.", {"key": _text("key name", 30)}, ["key"]),
    _tool("browser_navigate_back", "Go back to the previous page.", {}, []),
    _tool(
        "browser_wait_for",
        "Wait until a text appears on the page.",
        {"text": _text("the text to wait for", 100)},
        ["text"],
    ),
]
BROWSER_TOOL_NAMES = frozenset(t["function"]["name"] for t in BROWSER_TOOLS)
# Tools after which the page may have changed, so the Tools node takes a fresh snapshot.
PAGE_CHANGING = BROWSER_TOOL_NAMES - {"browser_snapshot"}

FINISH = _tool(
    "finish",
    "Stop: the task is done (e.g. a purchase is confirmed), or cannot be done. Ends the work.",
    {"result": _text("what was achieved, or why it cannot be done", 300)},
    ["result"],
)
EXTRACT_DATA = _tool(
    "extract_data",
    "Store a finding the task asks for (e.g. name=price, value=$12.99).",
    {"name": _text("what the value is", 60), "value": _text("the value as seen on the page", 300)},
    ["name", "value"],
)
AGENT_TOOLS: list[Schema] = [*BROWSER_TOOLS, EXTRACT_DATA, FINISH]
AGENT_TOOL_NAMES = frozenset(t["function"]["name"] for t in AGENT_TOOLS)


def agent_tools(snapshot: str) -> list[Schema]:
    """The tools offered for the page shown: no `browser_snapshot` while a page is shown.

    The Tools node reads the page after every action, so the page in the prompt is always
    fresh; the 1.5B model still re-read it after each click (WebShop goal 0, issue 18: the 15
    steps alternated click and snapshot, 6 of them refused as repeats). Refs stay free strings:
    an enum of the page's refs in the schema would put the page into the tool definitions, which
    come before everything else in the prompt, so no call could re-use the cached prefix."""
    if not snapshot:
        return AGENT_TOOLS
    return [t for t in AGENT_TOOLS if t["function"]["name"] != "browser_snapshot"]


#: ARIA roles each element tool may act on; its `target` is decoded as one of these refs.
CLICKABLE = frozenset(
    {"link", "button", "checkbox", "radio", "option", "tab", "switch", "treeitem", "combobox"}
    | {"menuitem", "menuitemcheckbox", "menuitemradio"}
)
TYPABLE = frozenset(["textbox", "searchbox", "combobox", "spinbutton"])
SELECTABLE = frozenset(["combobox", "listbox"])
_TARGET_ROLES = {
    "browser_click": CLICKABLE,
    "browser_type": TYPABLE,
    "browser_select_option": SELECTABLE,
}


def decode_tools(offered: list[Schema], snapshot: str) -> list[Schema]:
    """`offered` as the model may call them on this page: an element tool's `target` is one of
    the page's refs of a role that tool acts on, and a tool with no such element is left out.

    For a grammar-constrained model only (`decode_tools` of the local model's `bind_tools`):
    the prompt keeps the general schemas, so its cached prefix holds. Without it the 1.5B model
    clicked `e7`, the ref of the first page's Search button, on three later pages."""
    narrowed: list[Schema] = []
    for tool in offered:
        name = tool["function"]["name"]
        roles = _TARGET_ROLES.get(name)
        if roles is None:
            narrowed.append(tool)
            continue
        refs = refs_with_roles(snapshot, roles)
        if not refs:
            continue
        function = copy.deepcopy(tool["function"])
        target = function["parameters"]["properties"]["target"]
        target.pop("maxLength", None)
        target["enum"] = refs
        narrowed.append({"type": "function", "function": function})
    return narrowed


def check_server_tools(available: Iterable[str]) -> None:
    """Raise if the running MCP server does not offer every browser tool the agent is given."""
    missing = sorted(BROWSER_TOOL_NAMES - set(available))
    if missing:
        raise RuntimeError(
            f"the Playwright MCP server lacks {', '.join(missing)}; "
            "install the version pinned in graphs/web_agent/mcp/package.json"
        )


def check_arguments(name: str, args: Any) -> str | None:
    """Why a call cannot run (unknown tool, missing or stray argument), or None when it can.

    Hosted models are not grammar-constrained, so their calls are checked before they reach the
    browser; the error goes back to the model as the tool's result.
    """
    spec = next((t["function"] for t in AGENT_TOOLS if t["function"]["name"] == name), None)
    if spec is None:
        return f"unknown tool {name!r}; use one of {', '.join(sorted(AGENT_TOOL_NAMES))}"
    if not isinstance(args, dict):
        return f"{name} needs an object of arguments"
    params = spec["parameters"]
    missing = [key for key in params["required"] if key not in args]
    stray = [key for key in args if key not in params["properties"]]
    if missing or stray:
        parts = [f"missing {', '.join(missing)}"] if missing else []
        parts += [f"unknown {', '.join(stray)}"] if stray else []
        return f"{name}: {'; '.join(parts)}"
    return None
