"""Reading a local dependency's package discovery as its build backend would, and importing
its packages by name (a dotted, templated name too) without installing the project."""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
from pathlib import Path

import pytest

from open_langgraph import local_packages
from open_langgraph.importing import missing_module_hint
from open_langgraph.local_packages import poetry_requirement, read_project

TEMPLATE = Path(__file__).parent.parent / "fixtures" / "projects" / "src_layout"


def _project(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_a_directory_without_a_project_file_is_no_project(tmp_path: Path) -> None:
    _project(tmp_path, {"src/agent/__init__.py": ""})
    assert read_project(tmp_path) is None


def test_setuptools_package_dir_maps_each_named_package(tmp_path: Path) -> None:
    project = read_project(TEMPLATE)
    assert project is not None
    src = (TEMPLATE / "src" / "react_agent").resolve()
    assert project.packages == {"react_agent": src, "langgraph.templates.react_agent": src}
    assert project.roots == ()
    assert project.requirement_for("langchain") == "langchain>=1.0"
    assert project.requirement_for("dotenv") is None  # python-dotenv: not a name match


def test_setuptools_source_roots(tmp_path: Path) -> None:
    where = _project(
        tmp_path / "where",
        {"pyproject.toml": '[tool.setuptools.packages.find]\nwhere = ["lib"]\n'},
    )
    empty_key = _project(
        tmp_path / "empty-key", {"pyproject.toml": '[tool.setuptools.package-dir]\n"" = "code"\n'}
    )
    setup_cfg = _project(
        tmp_path / "cfg",
        {
            "setup.cfg": "[options]\npackage_dir =\n    =source\npackages = find:\n\n"
            "[options.packages.find]\nwhere = source\n",
        },
    )
    assert read_project(where).roots == ((tmp_path / "where" / "lib").resolve(),)  # type: ignore[union-attr]
    assert read_project(empty_key).roots == ((tmp_path / "empty-key" / "code").resolve(),)  # type: ignore[union-attr]
    assert read_project(setup_cfg).roots == ((tmp_path / "cfg" / "source").resolve(),)  # type: ignore[union-attr]


def test_hatch_and_poetry_packages(tmp_path: Path) -> None:
    hatch = _project(
        tmp_path / "hatch",
        {
            "pyproject.toml": '[tool.hatch.build.targets.wheel]\npackages = ["src/my_agent"]\n',
            "src/my_agent/__init__.py": "",
        },
    )
    poetry = _project(
        tmp_path / "poetry",
        {
            "pyproject.toml": '[tool.poetry]\npackages = [{include = "bot", from = "lib"}]\n\n'
            '[tool.poetry.dependencies]\npython = "^3.11"\nlangchain-openai = "^1.0"\n',
            "lib/bot/__init__.py": "",
        },
    )
    hatched = read_project(hatch)
    poetic = read_project(poetry)
    assert hatched is not None and poetic is not None
    assert hatched.packages == {"my_agent": (hatch / "src" / "my_agent").resolve()}
    assert poetic.packages == {"bot": (poetry / "lib" / "bot").resolve()}
    assert poetic.requirement_for("langchain_openai") == "langchain-openai>=1.0,<2.0"


def test_without_discovery_settings_a_src_directory_is_the_root(tmp_path: Path) -> None:
    src_layout = _project(
        tmp_path / "a", {"pyproject.toml": '[project]\nname = "a"\n', "src/a/__init__.py": ""}
    )
    flat = _project(tmp_path / "b", {"setup.py": "", "b/__init__.py": ""})
    assert read_project(src_layout).roots == ((tmp_path / "a" / "src").resolve(),)  # type: ignore[union-attr]
    assert read_project(flat).roots == ()  # type: ignore[union-attr]


def test_graphs_named_by_module_import_from_the_mapped_directory(tmp_path: Path) -> None:
    """`react_agent.graph:graph` and `langgraph.templates.react_agent.graph:graph` both load,
    from the project's directory, in a fresh interpreter (sys.path and sys.meta_path are
    process-wide)."""
    config = tmp_path / "by_module.json"
    graphs = {
        "plain": "react_agent.graph:graph",
        "templated": "langgraph.templates.react_agent.graph:graph",
    }
    config.write_text(json.dumps({"dependencies": [str(TEMPLATE)], "graphs": graphs}))
    probe = (
        "import sys\n"
        "from pathlib import Path\n"
        "from open_langgraph.config import load_config\n"
        "from open_langgraph.runtime.graphs import GraphRegistry\n"
        f"registry = GraphRegistry(load_config(Path({str(config)!r})))\n"
        "print(registry.graph_ids)\n"
        "print(sys.modules['langgraph.templates.react_agent'].__file__)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    ids, location = done.stdout.strip().splitlines()
    assert ids == "['plain', 'templated']"
    assert Path(location) == (TEMPLATE / "src" / "react_agent" / "__init__.py").resolve()


def test_a_missing_module_of_an_extra_names_the_extra() -> None:
    """The bundled graphs' packages: the extra that installs them, both ways."""
    hint = missing_module_hint("bm25s")
    assert f"`{sys.executable} -m pip install -e '{Path(__file__).parents[2]}[agents]'`" in hint
    assert "(from PyPI: `pip install 'open-langgraph[agents]'`)" in hint
    assert "[local-models]'" in missing_module_hint("xllamacpp")
    assert "-m pip install <package>`" in missing_module_hint("no_such_module_anywhere")


@pytest.mark.parametrize(
    ("constraint", "requirement"),
    [
        ("^0.3.9", "langchain>=0.3.9,<0.4.0"),
        ("^1.2", "langchain>=1.2,<2.0"),
        ("~1.2.3", "langchain>=1.2.3,<1.3.0"),
        ("1.0.5", "langchain==1.0.5"),
        (">=0.2,<0.4", "langchain>=0.2,<0.4"),
        ({"version": "^0.2.1", "extras": ["x"]}, "langchain>=0.2.1,<0.3.0"),
        ("*", "langchain"),
    ],
)
def test_poetry_constraints_become_pep_508_requirements(constraint: object, requirement: str):
    assert poetry_requirement("langchain", constraint) == requirement


def test_a_missing_submodule_names_the_installed_version_and_the_pinned_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A project pinned to langchain 0.3 importing a module langchain 1.x dropped is told
    which version is installed and which the project asks for, not to install langchain."""
    project = tmp_path / "old_project"
    (project / "agent").mkdir(parents=True)
    (project / "agent" / "__init__.py").write_text("")
    (project / "pyproject.toml").write_text(
        '[tool.poetry]\nname = "old"\npackages = [{include = "agent"}]\n'
        '[tool.poetry.dependencies]\npython = "^3.11"\nlangchain = "^0.3.9"\n'
    )
    found = read_project(project)
    assert found is not None
    monkeypatch.setattr(local_packages, "_PROJECTS", [found])
    installed = importlib.metadata.version("langchain")
    hint = missing_module_hint("langchain.chains.summarize")
    assert (
        f"langchain {installed} is installed and has no module 'langchain.chains.summarize'" in hint
    )
    assert f"{project} requires 'langchain>=0.3.9,<0.4.0'" in hint
    assert "pip install 'langchain>=0.3.9,<0.4.0'`" in hint
