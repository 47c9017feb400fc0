"""The `python` tool: model-written Python run in WebAssembly, out of reach of the host.

A small coder model writes correct Python for letters, dates, primes, sequences, sorting and
unit sums far more often than it picks the right special-purpose parser; code as the agent's
action raised agents' success rates by up to 20 points in CodeAct (Wang et al., "Executable
Code Actions Elicit Better LLM Agents", ICML 2024). The code runs in CPython compiled to
WebAssembly (Pyodide) under Node.js with its permission model: no host files, no network, no
programs, limits on time, memory and output (docs/agents/python_sandbox.md).
"""

from __future__ import annotations

import ast
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


def answer_of(run: SandboxResult, code: str = "") -> str:
    """What the model reads: the output, then the last expression's value."""
    parts = [run.stdout.rstrip("\n")] if run.stdout.strip() else []
    if run.result is not None:
        parts.append(run.result)
    tree = _parsed(code)  # once, for every note below
    if not parts:
        return silent_run_note(tree)
    text = "\n".join(parts) + ("\n[output cut]" if run.truncated else "")
    notes = [note for note in (typed_in_note(tree), written_code_note(tree)) if note]
    return "\n".join([text, *notes])


def silent_run_note(tree: ast.Module | None) -> str:
    """What a run that printed nothing tells the model.

    Asked to write a function, the 1.5B model put it in this tool, which defined it and printed
    nothing, and then answered with an invented value ("True") instead of the code: 9 of 9 such
    requests on the tuning set. Naming what the code defined lets the model see that it wrote
    code rather than computed a value, and says what to do in each case.
    """
    defined = defined_names(tree)
    if not defined:
        return "(no output: print() the answer, or end with an expression)"
    return (
        f"(no output: the code only defined {', '.join(defined)}.) If the user asked for this "
        "code, give it to them in your answer; to compute a value, call it and print() it."
    )


def typed_in_note(tree: ast.Module | None) -> str | None:
    """A note for code that only prints constants: the model worked the answer out itself.

    The 1.5B model sometimes "computes" by printing the value it already guessed
    (`print('nelpel')`), and then trusts the tool's echo as a computed result.
    """
    if tree is None or not tree.body or not all(_prints_constants(s) for s in tree.body):
        return None
    return (
        "(note: this code computed nothing, it printed a value written into it. To be sure, "
        "compute it in the code from the question's own data.)"
    )


def written_code_note(tree: ast.Module | None) -> str | None:
    """A reminder, when the code defines functions, that code the user asked for is an answer.

    Asked to write a function, the model often ran it here and answered with one value it
    returned instead of the code (tuning set: 8 of 9 such requests).
    """
    defined = defined_names(tree)
    if not defined:
        return None
    return (
        f"(the code defined {', '.join(defined)}: if the user asked you to write code, answer "
        "with the code itself.)"
    )


def _prints_constants(statement: ast.stmt) -> bool:
    if not isinstance(statement, ast.Expr):
        return False
    value = statement.value
    if isinstance(value, ast.Constant):
        return True
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id == "print"
        and all(isinstance(arg, ast.Constant) for arg in value.args)
    )


def _parsed(code: str) -> ast.Module | None:
    """`code`'s tree, or None if it does not parse: `ast.parse` builds a tree and runs nothing,
    so the host never executes the model's code."""
    try:
        return ast.parse(code)
    except (SyntaxError, ValueError):
        return None


def defined_names(tree: ast.Module | None) -> list[str]:
    """The functions and classes the code defines at its top level (none if it did not parse)."""
    if tree is None:
        return []
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return [node.name for node in tree.body if isinstance(node, kinds)]


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
    """Run Python code to compute a value exactly: counting or reversing letters,
    primes, sequences, sorting. Standard library only: no internet, no files, no
    installed packages. Code the user asks you to write goes in your answer, not here."""
    try:
        run = shared_sandbox().run(code, timeout_s=TIMEOUT_SECONDS)
    except SandboxUnavailable as exc:
        raise ToolException(f"python is unavailable: {exc}") from exc
    if not run.ok:
        output = run.stdout.strip()
        raise ToolException(f"{output}\n{run.error}".strip() if output else str(run.error))
    return answer_of(run, code)


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
