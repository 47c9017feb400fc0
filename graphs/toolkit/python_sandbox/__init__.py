"""The `python` tool: model-written Python run in WebAssembly, out of reach of the host.

A small coder model writes correct Python for letters, dates, primes, sequences, sorting and
unit sums far more often than it picks the right special-purpose parser; code as the agent's
action raised agents' success rates by up to 20 points in CodeAct (Wang et al., "Executable
Code Actions Elicit Better LLM Agents", ICML 2024). The code runs in CPython compiled to
WebAssembly (Pyodide) under Node.js with its permission model: no host files, no network, no
programs, limits on time, memory and output (docs/agents/python_sandbox.md).
"""

from __future__ import annotations

import logging
from functools import cache
from typing import Annotated

from langchain_core.tools import BaseTool, ToolException, tool
from pydantic import Field

from graphs.toolkit.python_sandbox._client import PythonSandbox, SandboxResult, SandboxUnavailable

__all__ = [
    "PythonSandbox",
    "SandboxResult",
    "SandboxUnavailable",
    "python_tool",
    "python_tool_if_available",
    "shared_sandbox",
]

logger = logging.getLogger(__name__)
TIMEOUT_SECONDS = 10.0


@cache
def shared_sandbox() -> PythonSandbox:
    """The process's one sandbox: one warm interpreter serves every run."""
    return PythonSandbox()


def answer_of(run: SandboxResult) -> str:
    """What the model reads: the output, then the last expression's value."""
    parts = [run.stdout.rstrip("\n")] if run.stdout.strip() else []
    if run.result is not None:
        parts.append(run.result)
    text = "\n".join(parts) or "(no output: print() the answer, or end with an expression)"
    return f"{text}\n[output cut]" if run.truncated else text


@tool("python")
def python_tool(
    code: Annotated[
        str,
        Field(
            description="Python 3 source. print() the answer, or end with an expression "
            "whose value is the answer.",
            min_length=1,
            max_length=2000,
        ),
    ],
) -> str:
    """Run Python code and get its output: for counting or reversing letters, dates and
    weekdays (datetime), primes, sequences, sorting, and any exact computation. Standard
    library only; no internet, no files."""
    try:
        run = shared_sandbox().run(code, timeout_s=TIMEOUT_SECONDS)
    except SandboxUnavailable as exc:
        raise ToolException(f"python is unavailable: {exc}") from exc
    if not run.ok:
        output = run.stdout.strip()
        raise ToolException(f"{output}\n{run.error}".strip() if output else str(run.error))
    return answer_of(run)


python_tool.handle_tool_error = True


@cache
def python_tool_if_available() -> BaseTool | None:
    """The `python` tool, or None (with one warning) where Node.js or Pyodide is missing."""
    if PythonSandbox.available():
        return python_tool
    logger.warning(
        "python tool off: Node.js >= 20 with the pyodide package is needed "
        "(run scripts/_sandbox.sh)"
    )
    return None
