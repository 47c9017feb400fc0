"""Importing what a config file names as `path/to/file.py:attribute` or `package.module:attr`.

Graphs (`graphs.<id>`) and the auth object (`auth.path`) are named the same way, and a path
that cannot be imported must stop start-up with a `ConfigError` naming the key, not a
traceback on the first request.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

from open_langgraph.config import ConfigError


def one_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {' '.join(str(exc).split())}"


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
            raise ConfigError(
                config_path, key, f"importing {location!r} failed: {one_line(exc)}"
            ) from exc
    else:
        try:
            module = importlib.import_module(location)
        except (Exception, SystemExit) as exc:
            raise ConfigError(
                config_path, key, f"importing module {location!r} failed: {one_line(exc)}"
            ) from exc
    if not hasattr(module, attribute):
        raise ConfigError(config_path, key, f"{location!r} has no attribute {attribute!r}")
    return getattr(module, attribute)
