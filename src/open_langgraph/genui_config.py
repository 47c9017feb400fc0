"""`ui` and `ui_config` of the config file: generative UI components, as langgraph.json names
them.

    "ui": {"agent": "./src/agent/ui.tsx"},
    "ui_config": {"shared": ["@acme/design-system"]}

Each `ui` entry is a file whose default export maps component names to React components; it is
bundled at start-up (`genui/build.py`) and served to the JS SDK's `LoadExternalComponent`.
`ui_config.shared` names npm packages the page provides instead of the bundle (besides React
and the SDK, which always are). Only the shape is checked here, and that each file exists:
building needs Node.js, whose absence turns the feature off at start-up instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from open_langgraph.config_errors import ConfigError

#: A component namespace: it becomes a URL path segment and part of a JavaScript name.
_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")


@dataclass(frozen=True, slots=True)
class GenerativeUiConfig:
    #: Namespace (usually a graph id) -> the component file, relative to the config file.
    components: dict[str, str] = field(default_factory=dict)
    #: npm packages the host page shares with the bundles instead of bundling them.
    shared: tuple[str, ...] = ()


def parse_generative_ui(path: Path, ui: Any, ui_config: Any) -> GenerativeUiConfig:
    """Validate `ui` (namespace -> file) and `ui_config` (`{"shared": [...]}`)."""
    components: dict[str, str] = {}
    if ui is not None:
        if not isinstance(ui, dict):
            raise ConfigError(path, "ui", "must map names to files, like {'agent': './ui.tsx'}")
        for name, file in ui.items():
            key = f"ui.{name}"
            if not _NAME.match(name):
                raise ConfigError(
                    path, key, "a name may hold only letters, digits, '_', '-' and '.'"
                )
            if not isinstance(file, str) or not file:
                raise ConfigError(path, key, "must be the path of a .tsx, .jsx, .ts or .js file")
            if not (path.parent / file).is_file():
                raise ConfigError(path, key, f"file {file!r} does not exist")
            components[name] = file
    shared: tuple[str, ...] = ()
    if ui_config is not None:
        if not isinstance(ui_config, dict) or set(ui_config) - {"shared"}:
            raise ConfigError(path, "ui_config", "must be an object like {'shared': [...]}")
        packages = ui_config.get("shared", [])
        if not isinstance(packages, list) or not all(isinstance(p, str) and p for p in packages):
            raise ConfigError(path, "ui_config.shared", "must be a list of npm package names")
        shared = tuple(packages)
    return GenerativeUiConfig(components=components, shared=shared)
