"""A project laid out as LangChain's templates (react-agent, new-langgraph-project) are, served
from its own `langgraph.json` as it stands: a `src/` layout, `"dependencies": ["."]`, and a
pyproject.toml mapping the package onto `src/react_agent`. LangGraph's build installs the
project; `olg serve` makes its packages importable the same way without installing anything,
and names the command that fixes a module that is still missing."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fixtures.sdk import sdk_client
from tests.fixtures.server import ServerProcess, serving

pytestmark = pytest.mark.e2e

TEMPLATE = Path(__file__).parent.parent / "fixtures" / "projects" / "src_layout"


def _copy_project(directory: Path) -> Path:
    """The template as a user has it after `cp .env.example .env`, as its README asks."""
    project = directory / "agent-project"
    shutil.copytree(TEMPLATE, project)
    shutil.copy(project / ".env.example", project / ".env")
    return project


@pytest.fixture(scope="module")
def template_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory = tmp_path_factory.mktemp("olg-template")
    project = _copy_project(directory)
    with serving(directory, project / "langgraph.json", cwd=project) as process:
        yield process


async def test_a_src_layout_template_serves_unchanged(template_server: ServerProcess) -> None:
    async with sdk_client(template_server.url) as client:
        thread = await client.threads.create()
        result = await client.runs.wait(
            thread["thread_id"],
            "agent",
            input={"messages": [{"role": "user", "content": "What is 6 times 7?"}]},
            context={"model": "scripted/multiply"},
        )
    messages = result["messages"]
    assert [m["type"] for m in messages] == ["human", "ai", "tool", "ai"]
    assert messages[-1]["content"] == "The product is 42 (hello from .env)."


def test_serving_installed_nothing() -> None:
    """The project was imported from its directory, not installed into this environment."""
    probe = "import importlib.metadata as m; m.distribution('src-layout-agent')"
    completed = subprocess.run([sys.executable, "-c", probe], capture_output=True, check=False)
    assert completed.returncode != 0
    assert b"PackageNotFoundError" in completed.stderr


def test_a_missing_dependency_is_one_line_naming_the_install_command(tmp_path: Path) -> None:
    """A module the project needs but this environment lacks: the module, the graph and the
    command, from the requirement the project declares, on the last line, after the traceback
    of the import; exit code 2."""
    project = _copy_project(tmp_path)
    pyproject = project / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text().replace(
            '"python-dotenv>=1.0.1"]', '"python-dotenv>=1.0.1", "langchain-tavily>=0.1"]'
        )
    )
    tools = project / "src" / "react_agent" / "tools.py"
    tools.write_text(
        tools.read_text().replace("import os\n", "import os\n\nimport langchain_tavily\n")
    )
    completed = subprocess.run(
        [sys.executable, "-m", "open_langgraph.cli", "serve", "--db", str(tmp_path / "x.db")],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert completed.returncode == 2, completed.stderr
    *traceback, line = completed.stderr.strip().splitlines()
    assert traceback[0] == "Traceback (most recent call last):", completed.stderr
    assert any("react_agent/tools.py" in frame for frame in traceback), completed.stderr
    assert "`graphs.agent`" in line
    assert "no module named 'langchain_tavily'" in line
    assert "-m pip install 'langchain-tavily>=0.1'`" in line
