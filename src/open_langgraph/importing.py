"""Importing what a config file names as `path/to/file.py:attribute` or `package.module:attr`.

Graphs (`graphs.<id>`) and the auth object (`auth.path`) are named the same way, and a path
that cannot be imported must stop start-up with a `ConfigError` naming the key, not a
traceback on the first request. A module that is not installed is named with the command that
installs it: an extra of ours, the requirement a local project declares for it, or the project.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

from open_langgraph.config import ConfigError
from open_langgraph.extras import extra_for, install_hint
from open_langgraph.local_packages import LocalProject, local_projects


def one_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {' '.join(str(exc).split())}"


def _python() -> str:
    """The interpreter running olg, as a user would type it from here."""
    executable = Path(sys.executable)
    with contextlib.suppress(ValueError):
        return str(executable.relative_to(Path.cwd()))
    return str(executable)


def _owning_project(top: str) -> LocalProject | None:
    """A local project holding a package of that name it does not declare as one."""
    for project in local_projects():
        if any(project.root.glob(f"{top}/__init__.py")) or any(
            project.root.glob(f"*/{top}/__init__.py")
        ):
            return project
    return None


def missing_module_hint(module: str) -> str:
    """What installs `module` into the Python running olg, in one clause."""
    top = module.split(".")[0]
    pip = f"{_python()} -m pip install"
    for project in local_projects():
        if (requirement := project.requirement_for(top)) is not None:
            return f"{project.root} requires it: install it with `{pip} '{requirement}'`"
    if (extra := extra_for(top, in_graph=True)) is not None:
        return install_hint(extra)
    if (project := _owning_project(top)) is not None:
        return (
            f"it is in {project.root} but not among the packages its build configuration "
            f"declares: install the project with `{pip} -e {project.root}`"
        )
    return f"install the package that provides it with `{pip} <package>`"


def _sibling_module_hint(module: str, file: Path, config_dir: Path) -> str | None:
    """When `module` is a file or package beside the graph's file (a project written to run
    from its own folder, `from prompts import ...`): which directory to put on the path."""
    top = module.split(".")[0]
    directory = file.parent
    if not ((directory / f"{top}.py").is_file() or (directory / top / "__init__.py").is_file()):
        return None
    with contextlib.suppress(ValueError):
        shown = f"./{directory.relative_to(config_dir).as_posix()}".rstrip("/.") or "."
        return (
            f"{top!r} is beside {file.name} in {shown}, which is not on the import path: add "
            f'"{shown}" to `dependencies` in the config file'
        )
    return f"{top!r} is beside {file.name} in {directory}, which is not on the import path"


def _import_failure(
    what: str, exc: BaseException, file: Path | None = None, config_dir: Path | None = None
) -> str:
    """Why importing `what` failed; a missing module with the command that installs it, or
    the directory to add when it is a file beside the graph's own."""
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        hint = None
        if file is not None:
            hint = _sibling_module_hint(exc.name, file, config_dir or file.parent)
        return (
            f"importing {what} failed: no module named {exc.name!r}; "
            f"{hint or missing_module_hint(exc.name)}"
        )
    return f"importing {what} failed: {one_line(exc)}"


def import_attribute(
    config_path: Path, key: str, location: str, attribute: str, module_name: str
) -> Any:
    """Import `location` (a file relative to the config, or a module) and return `attribute`.

    A file is imported under `module_name` (made unique per file), so two configs' files of
    the same name do not collide in `sys.modules`.
    """
    if location.endswith(".py") or "/" in location:
        file = (config_path.parent / location).resolve()
        if not file.is_file():
            raise ConfigError(config_path, key, f"file {location!r} does not exist")
        unique_name = f"{module_name}_{abs(hash(str(file)))}"
        module_spec = importlib.util.spec_from_file_location(unique_name, file)
        if module_spec is None or module_spec.loader is None:
            raise ConfigError(config_path, key, f"cannot import {location!r}")
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[unique_name] = module
        try:
            module_spec.loader.exec_module(module)
        except (Exception, SystemExit) as exc:
            failure = _import_failure(repr(location), exc, file, config_path.parent.resolve())
            raise ConfigError(config_path, key, failure) from exc
    else:
        try:
            module = importlib.import_module(location)
        except (Exception, SystemExit) as exc:
            failure = _import_failure(f"module {location!r}", exc)
            raise ConfigError(config_path, key, failure) from exc
    if not hasattr(module, attribute):
        raise ConfigError(config_path, key, f"{location!r} has no attribute {attribute!r}")
    return getattr(module, attribute)
