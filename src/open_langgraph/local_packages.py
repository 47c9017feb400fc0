"""Local `dependencies` made importable as installing them would make them, installing nothing.

LangGraph's build installs each local dependency (`"dependencies": ["."]`), so a project with a
`src/` layout imports its own package (`from react_agent.state import State`) from the graph
file. `olg serve` reads the same project's package discovery instead and maps the packages it
names onto their directories, so such a project serves unchanged without `pip install -e .`
in the user's environment. Read, in this order:

- setuptools: `[tool.setuptools] package-dir` (a `""` key is a source root, other keys map a
  package, dotted names too) and `packages.find.where`; setup.cfg's `package_dir` and
  `[options.packages.find] where`;
- hatch: `[tool.hatch.build(.targets.wheel)] packages` (each path is a package named after its
  last part) and `sources`;
- poetry: `[tool.poetry] packages` (`include` from `from`);
- pdm's `package-dir`, uv's `module-root`;
- otherwise a `src/` directory, when there is one (every build backend's default src layout).

A directory without a pyproject.toml, setup.py or setup.cfg only goes on `sys.path`, as before.
"""

from __future__ import annotations

import configparser
import importlib.abc
import importlib.machinery
import importlib.util
import re
import sys
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

_PROJECT_FILES = ("pyproject.toml", "setup.py", "setup.cfg")
_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


@dataclass(frozen=True, slots=True)
class LocalProject:
    """A local dependency's importable layout, as its build configuration declares it."""

    root: Path
    #: Source roots: directories whose packages an install would make top-level.
    roots: tuple[Path, ...] = ()
    #: Packages mapped onto a directory of another name (setuptools `package-dir`, ...).
    packages: dict[str, Path] = field(default_factory=dict)
    #: The project's declared requirements (PEP 508), to name the one a failed import lacks.
    requirements: tuple[str, ...] = ()

    def requirement_for(self, module: str) -> str | None:
        """The declared requirement whose distribution is probably `module`'s top level."""
        wanted = _normalized(module.split(".")[0])
        for requirement in self.requirements:
            match = _NAME.match(requirement)
            if match and _normalized(match.group(1)) == wanted:
                return requirement.strip()
        return None


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def _table(data: dict[str, Any], *keys: str) -> dict[str, Any]:
    for key in keys:
        value = data.get(key)
        data = value if isinstance(value, dict) else {}
    return data


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _setuptools(root: Path, tool: dict[str, Any], found: _Found) -> None:
    setuptools = _table(tool, "setuptools")
    for name, directory in _table(setuptools, "package-dir").items():
        if isinstance(directory, str):
            found.add(root, name, directory)
    packages = setuptools.get("packages")
    if isinstance(packages, dict):
        for where in _strings(_table(packages, "find").get("where", [])):
            found.roots.append(root / where)


def _setup_cfg(root: Path, found: _Found) -> None:
    path = root / "setup.cfg"
    if not path.is_file():
        return
    parser = configparser.ConfigParser()
    try:
        parser.read(path, encoding="utf-8")
    except configparser.Error:
        return
    for line in parser.get("options", "package_dir", fallback="").splitlines():
        name, sep, directory = line.partition("=")
        if sep:
            found.add(root, name.strip(), directory.strip())
    for where in parser.get("options.packages.find", "where", fallback="").split():
        found.roots.append(root / where)


def _hatch(root: Path, tool: dict[str, Any], found: _Found) -> None:
    for table in (
        _table(tool, "hatch", "build", "targets", "wheel"),
        _table(tool, "hatch", "build"),
    ):
        for package in _strings(table.get("packages")):
            path = root / package
            found.packages.setdefault(path.name, path)
        sources = table.get("sources")
        if isinstance(sources, dict):
            found.roots.extend(root / k for k, v in sources.items() if v in ("", "/"))
        else:
            found.roots.extend(root / source for source in _strings(sources))


def _poetry(root: Path, tool: dict[str, Any], found: _Found) -> None:
    for package in _table(tool, "poetry").get("packages") or []:
        include = package.get("include") if isinstance(package, dict) else None
        if isinstance(include, str) and not any(c in include for c in "*?["):
            path = root / package.get("from", ".") / include
            found.packages.setdefault(path.stem if path.suffix == ".py" else path.name, path)


@dataclass(slots=True)
class _Found:
    roots: list[Path] = field(default_factory=list)
    packages: dict[str, Path] = field(default_factory=dict)

    def add(self, root: Path, name: str, directory: str) -> None:
        """A `package-dir` entry: `""` is a source root, any other name one package."""
        if name:
            self.packages.setdefault(name, root / directory)
        else:
            self.roots.append(root / directory)


def _requirements(pyproject: dict[str, Any]) -> tuple[str, ...]:
    declared = _strings(_table(pyproject, "project").get("dependencies"))
    poetry = _table(pyproject, "tool", "poetry", "dependencies")
    declared += [
        poetry_requirement(name, value) for name, value in poetry.items() if name != "python"
    ]
    return tuple(declared)


def poetry_requirement(name: str, constraint: Any) -> str:
    """A Poetry dependency as a PEP 508 requirement: `^0.3.9` is `>=0.3.9,<0.4.0`, `~1.2` is
    `>=1.2,<1.3` (Poetry's rules), a bare version is `==`; anything else is kept as written."""
    if isinstance(constraint, dict):
        constraint = constraint.get("version")
    if not isinstance(constraint, str) or constraint.strip() in ("", "*"):
        return name
    text = constraint.strip()
    if text[0] in "^~" and not text.startswith("~="):
        parts = [int(p) for p in text[1:].split(".") if p.isdigit()]
        if parts:
            if text[0] == "^":  # the first non-zero part may not change
                place = next((i for i, p in enumerate(parts) if p), len(parts) - 1)
            else:  # the minor part may not change (the major one if only it is given)
                place = min(1, len(parts) - 1)
            upper = [*parts[:place], parts[place] + 1]
            upper += [0] * (len(parts) - len(upper))
            return f"{name}>={text[1:]},<{'.'.join(map(str, upper))}"
    if text[0].isdigit():
        return f"{name}=={text}"
    return f"{name}{text}"


def read_project(directory: Path) -> LocalProject | None:
    """The layout `directory`'s build configuration declares, or None if it is no project."""
    if not any((directory / name).is_file() for name in _PROJECT_FILES):
        return None
    pyproject: dict[str, Any] = {}
    if (directory / "pyproject.toml").is_file():
        try:
            pyproject = tomllib.loads((directory / "pyproject.toml").read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError):
            pyproject = {}
    tool = _table(pyproject, "tool")
    found = _Found()
    _setuptools(directory, tool, found)
    _setup_cfg(directory, found)
    _hatch(directory, tool, found)
    _poetry(directory, tool, found)
    for backend_root in (
        _table(tool, "pdm", "build").get("package-dir"),
        _table(tool, "uv", "build-backend").get("module-root"),
    ):
        if isinstance(backend_root, str) and backend_root:
            found.roots.append(directory / backend_root)
    if not found.roots and not found.packages and (directory / "src").is_dir():
        found.roots.append(directory / "src")
    roots = tuple(dict.fromkeys(r.resolve() for r in found.roots if r.resolve() != directory))
    packages = {name: path.resolve() for name, path in found.packages.items() if path.exists()}
    return LocalProject(directory, roots, packages, _requirements(pyproject))


class _MappedPackages(importlib.abc.MetaPathFinder):
    """Finds the packages a project maps onto directories of other names, first, as the
    mapping an editable install writes would."""

    def __init__(self) -> None:
        self.packages: dict[str, Path] = {}

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        location = self.packages.get(fullname)
        if location is None:
            return None
        if location.suffix == ".py":
            return importlib.util.spec_from_file_location(fullname, location)
        init = location / "__init__.py"
        if init.is_file():
            return importlib.util.spec_from_file_location(
                fullname, init, submodule_search_locations=[str(location)]
            )
        spec = importlib.machinery.ModuleSpec(fullname, None, is_package=True)
        spec.submodule_search_locations = [str(location)]
        return spec


class _ParentNamespaces(importlib.abc.MetaPathFinder):
    """Last resort for the parents of a mapped dotted name (`langgraph.templates` of
    `langgraph.templates.react_agent`): an empty namespace package when nothing else has one."""

    def __init__(self, mapped: _MappedPackages) -> None:
        self._mapped = mapped

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        prefix = fullname + "."
        if not any(name.startswith(prefix) for name in self._mapped.packages):
            return None
        spec = importlib.machinery.ModuleSpec(fullname, None, is_package=True)
        spec.submodule_search_locations = []
        return spec


_MAPPED = _MappedPackages()
_PARENTS = _ParentNamespaces(_MAPPED)
_PROJECTS: list[LocalProject] = []


def make_importable(directories: Sequence[Path]) -> list[LocalProject]:
    """Put each directory, and the source roots and packages its project declares, where
    `import` finds them, first (the project's own code wins over any installed copy)."""
    projects: list[LocalProject] = []
    paths: list[str] = []
    for directory in directories:
        paths.append(str(directory))
        project = read_project(directory)
        if project is not None:
            projects.append(project)
            paths.extend(str(root) for root in project.roots)
            _MAPPED.packages.update(project.packages)
    for entry in reversed(paths):
        if entry not in sys.path:
            sys.path.insert(0, entry)
    if _MAPPED.packages:
        if _MAPPED not in sys.meta_path:
            sys.meta_path.insert(0, _MAPPED)
        if _PARENTS not in sys.meta_path:
            sys.meta_path.append(_PARENTS)
        importlib.invalidate_caches()
    _PROJECTS.extend(p for p in projects if p not in _PROJECTS)
    return projects


def local_projects() -> list[LocalProject]:
    """The projects made importable so far, for naming what a failed import lacks."""
    return list(_PROJECTS)
