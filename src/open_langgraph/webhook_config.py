"""`webhooks` keys beyond the URL policy (config.py): header templates and `allowed_fields`.

`webhooks.headers` values may hold `${{ env.NAME }}` templates, resolved once at start-up. As
on LangGraph Platform, a header value may name environment variables, so a secret stays
out of the config file: `"Authorization": "Bearer ${{ env.LG_WEBHOOK_TOKEN }}"`. Only names
starting with `webhooks.env_prefix` (`LG_WEBHOOK_` by default; `""` allows any) can be used,
so the config cannot send the server's other secrets (model API keys, the database URL) to a
webhook receiver. A template naming anything else, or a variable that is not set, stops
start-up (exit code 2) with the header named.

`webhooks.allowed_fields` (langgraph-api's key) names the only payload fields sent.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from open_langgraph.config_errors import ConfigError

DEFAULT_ENV_PREFIX = "LG_WEBHOOK_"
_TEMPLATE = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")


def render_headers(
    config_path: Path, headers: Mapping[str, str], env_prefix: str, env: Mapping[str, str]
) -> dict[str, str]:
    """`headers` with every template replaced by its variable's value from `env`.

    Raises:
        ConfigError: a template is not `env.NAME`, `NAME` lacks the prefix or is not set.
    """
    rendered: dict[str, str] = {}
    for name, value in headers.items():
        key = f"webhooks.headers.{name}"

        def substitute(match: re.Match[str], key: str = key) -> str:
            expression = match.group(1)
            variable = expression.removeprefix("env.")
            if variable == expression or not variable or "." in variable:
                raise ConfigError(
                    config_path,
                    key,
                    f"'${{{{ {expression} }}}}' must name an environment variable as "
                    f"'${{{{ env.{env_prefix}NAME }}}}'",
                )
            if not variable.startswith(env_prefix):
                raise ConfigError(
                    config_path,
                    key,
                    f"environment variable {variable!r} must start with webhooks.env_prefix "
                    f"{env_prefix!r}",
                )
            if variable not in env:
                raise ConfigError(config_path, key, f"environment variable {variable!r} is not set")
            return env[variable]

        rendered[name] = _TEMPLATE.sub(substitute, value)
    return rendered


#: What a webhook payload holds (`runtime/webhooks.py`), the names `allowed_fields` takes.
WEBHOOK_FIELDS = frozenset(
    {
        "run_id",
        "thread_id",
        "assistant_id",
        "created_at",
        "updated_at",
        "metadata",
        "kwargs",
        "multitask_strategy",
        "status",
        "run_started_at",
        "run_ended_at",
        "webhook_sent_at",
        "values",
        "error",
    }
)


def parse_allowed_fields(config_path: Path, value: Any) -> frozenset[str] | None:
    """`webhooks.allowed_fields`: None (send every field) or names of `WEBHOOK_FIELDS`."""
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(f, str) for f in value):
        raise ConfigError(config_path, "webhooks.allowed_fields", "must be a list of field names")
    unknown = sorted(set(value) - WEBHOOK_FIELDS)
    if unknown:
        raise ConfigError(
            config_path,
            "webhooks.allowed_fields",
            f"unknown fields {unknown}; expected some of {sorted(WEBHOOK_FIELDS)}",
        )
    return frozenset(value)
