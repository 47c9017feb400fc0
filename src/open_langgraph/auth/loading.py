"""Loading the `langgraph_sdk.Auth` object the config's `auth.path` names.

The path is written as graphs are (`./auth.py:auth`, relative to the config file, or
`package.module:auth`). Anything that would make the server run without the protection the
config asks for stops start-up with a `ConfigError` (exit code 2): a path that does not
import, an object that is not an `Auth`, an `Auth` without an `@auth.authenticate` handler
(every request would be anonymous), or a handler asking for parameters no request has.
"""

from __future__ import annotations

from langgraph_sdk import Auth

from open_langgraph.auth.authenticate import Authenticator
from open_langgraph.config import AppConfig, ConfigError, split_target
from open_langgraph.importing import import_attribute

KEY = "auth.path"


def load_auth(config: AppConfig) -> Auth | None:
    """The config's `Auth` object, or None when the config has no `auth.path`."""
    if config.auth_path is None:
        return None
    location, attribute = split_target(config.path, KEY, config.auth_path)
    auth = import_attribute(config.path, KEY, location, attribute, "olg_auth")
    if not isinstance(auth, Auth):
        raise ConfigError(
            config.path,
            KEY,
            f"{config.auth_path!r} is a {type(auth).__name__}, not a langgraph_sdk.Auth",
        )
    try:
        Authenticator(auth)
    except ValueError as exc:
        raise ConfigError(config.path, KEY, str(exc)) from None
    return auth
