"""Importing what a config file names as `path/to/file.py:attribute` or `package.module:attr`.

Graphs (`graphs.<id>`) and the auth object (`auth.path`) are named the same way, and a path
that cannot be imported must stop start-up with a `ConfigError` naming the key, not a
traceback on the first request. A module that is not installed is named with the command that
installs it: an extra of ours, the requirement a local project declares for it, or the project.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.metadata
import importlib.util
import sys
import traceback
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


def installed_version(top: str) -> tuple[str, str] | None:
    """(distribution, version) of the installed package that provides module `top`."""
    try:
        for distribution in importlib.metadata.packages_distributions().get(top, []):
            return distribution, importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None
    return None


def _satisfies(version: str, requirement: str) -> bool | None:
    """Whether `version` meets `requirement`'s specifier (None when that cannot be told)."""
    try:
        from packaging.requirements import Requirement

        return Requirement(requirement).specifier.contains(version, prereleases=True)
    except Exception:
        return None


def missing_submodule_hint(module: str, requirement: str | None, root: Path | None) -> str | None:
    """For `a.b` missing while `a` is installed: which version is installed, and whether it
    meets the project's requirement (a project pinned to langchain 0.3 imports modules that
    langchain 1.x no longer has); None when `a` is not installed."""
    top = module.split(".")[0]
    if module == top or (installed := installed_version(top)) is None:
        return None
    distribution, version = installed
    have = f"{distribution} {version} is installed and has no module {module!r}"
    if requirement is None:
        return f"{have}: the code may be written for another version of {distribution}"
    pip = f"{_python()} -m pip install"
    if _satisfies(version, requirement) is False:
        return f"{have}; {root} requires {requirement!r}: install it with `{pip} '{requirement}'`"
    return f"{have}, although {root} requires {requirement!r}, which it meets"


def missing_module_hint(module: str) -> str:
    """What installs `module` into the Python running olg, in one clause."""
    top = module.split(".")[0]
    pip = f"{_python()} -m pip install"
    for project in local_projects():
        if (requirement := project.requirement_for(top)) is not None:
            if hint := missing_submodule_hint(module, requirement, project.root):
                return hint
            return f"{project.root} requires it: install it with `{pip} '{requirement}'`"
    if hint := missing_submodule_hint(module, None, None):
        return hint
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
    summary = f"importing {what} failed: {one_line(exc)}"
    chain = cause_chain(exc)
    if len(chain) > 1:
        summary += f"; cause: {one_line(chain[-1])}"
    places = [p for p in (raised_at(chain[-1], config_dir), project_line(chain, config_dir)) if p]
    if places:
        summary += f" ({', from '.join(dict.fromkeys(places))})"
    return summary


def cause_chain(exc: BaseException) -> list[BaseException]:
    """`exc` and what lies below it, down to the innermost cause: an exception group's first
    sub-exception, and the cause or context of each, in turn (a TaskGroup's "unhandled
    errors" hides the real one)."""
    chain = [exc]
    while True:
        if isinstance(exc, BaseExceptionGroup) and exc.exceptions:
            below: BaseException | None = exc.exceptions[0]
        else:
            below = exc.__cause__ or (None if exc.__suppress_context__ else exc.__context__)
        if below is None or any(below is seen for seen in chain):
            return chain
        chain.append(below)
        exc = below


def _frames(exc: BaseException) -> list[traceback.FrameSummary]:
    return list(traceback.extract_tb(exc.__traceback__)) if exc.__traceback__ else []


def _in_project(path: Path, config_dir: Path | None) -> bool:
    return (
        config_dir is not None
        and "site-packages" not in path.parts
        and path.is_relative_to(config_dir)
    )


def _place(frame: traceback.FrameSummary, config_dir: Path | None) -> str:
    """`file:line`: the project's files from the config's folder (`./agent.py:5`), an installed
    package's from the package down (`httpx/_client.py:1768`)."""
    path = Path(frame.filename)
    if config_dir is not None and _in_project(path, config_dir):
        shown = f"./{path.relative_to(config_dir).as_posix()}"
    elif "site-packages" in path.parts:
        shown = "/".join(path.parts[path.parts.index("site-packages") + 1 :])
    else:
        shown = frame.filename
    return f"{shown}:{frame.lineno}"


def raised_at(exc: BaseException, config_dir: Path | None = None) -> str | None:
    """Where `exc` was raised."""
    frames = _frames(exc)
    return _place(frames[-1], config_dir) if frames else None


def project_line(chain: list[BaseException], config_dir: Path | None) -> str | None:
    """The deepest line of the project's own code (under `config_dir`, outside installed
    packages) on the way to the failure."""
    for frame in reversed([f for exc in chain for f in _frames(exc)]):
        if _in_project(Path(frame.filename), config_dir):
            return _place(frame, config_dir)
    return None


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
            raise ConfigError(config_path, key, failure, traceback_of=exc) from exc
    else:
        try:
            module = importlib.import_module(location)
        except (Exception, SystemExit) as exc:
            failure = _import_failure(
                f"module {location!r}", exc, None, config_path.parent.resolve()
            )
            raise ConfigError(config_path, key, failure, traceback_of=exc) from exc
    if not hasattr(module, attribute):
        raise ConfigError(config_path, key, f"{location!r} has no attribute {attribute!r}")
    return getattr(module, attribute)
