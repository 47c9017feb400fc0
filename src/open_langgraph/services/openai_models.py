"""Which embedded model answers a `/v1` request's `model`, and the errors the endpoint raises.

Names resolve in this order: the config's `models.aliases` (the name as sent, then with an
`openai:` prefix, since a project writes `init_chat_model("openai:gpt-4o-mini")` while the
client sends `gpt-4o-mini`); a catalogue name, bare or as `local/<name>`; then a name shaped
like one of OpenAI's chat models (`gpt-*`, `o1*`, `o3*`, `o4*`, `chatgpt-*`) goes to the
default embedded model, so a public project runs offline without any configuration. Any other
name is a 404, as OpenAI answers an unknown model.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from open_langgraph.model_aliases import alias_target
from open_langgraph.models_config import local_name

if TYPE_CHECKING:
    from open_langgraph.models.local.catalog import LocalModelSpec


def _catalogue() -> dict[str, LocalModelSpec]:
    """The embedded models; imported on first use, since importing the package loads the
    chat model class and LangChain's model machinery (not needed to start `olg serve`)."""
    from open_langgraph.models.local.catalog import LOCAL_MODELS

    return LOCAL_MODELS


#: OpenAI's chat model families; a request naming one of them without an alias is answered by
#: the default embedded model.
_OPENAI_CHAT = re.compile(r"^(gpt-|chatgpt-|o[1-9](-|$))")


@dataclass(slots=True)
class OpenAIError(Exception):
    """An error answered in OpenAI's shape: `{"error": {"message", "type", "code"}}`."""

    status: int
    message: str
    type: str = "invalid_request_error"
    code: str | None = None
    param: str | None = None

    def __str__(self) -> str:
        return self.message


def model_not_found(name: str) -> OpenAIError:
    known = ", ".join(sorted(_catalogue()))
    return OpenAIError(
        404,
        f"The model {name!r} does not exist here; the embedded models are {known} (also as "
        "local/<name>), or add an alias in the config's models.aliases",
        code="model_not_found",
        param="model",
    )


def default_local_model() -> str:
    """`$OLG_MODEL` when it names an embedded model, else the catalogue's default."""
    from open_langgraph.models.settings import DEFAULT_MODEL, default_model

    configured = default_model()
    if configured.startswith("local/") and local_name(configured) in _catalogue():
        return local_name(configured)
    return local_name(DEFAULT_MODEL)


def resolve_chat_model(name: str, aliases: Mapping[str, str]) -> LocalModelSpec:
    """The embedded model a request's `model` names.

    Raises:
        OpenAIError: 404 for a name that is neither an alias, a catalogue model nor OpenAI's.
    """
    catalogue = _catalogue()
    target = alias_target(aliases, name, "openai")
    if target is None:
        target = local_name(name)
        if target not in catalogue:
            if not _OPENAI_CHAT.match(name):
                raise model_not_found(name)
            target = default_local_model()
    return catalogue[target]


def model_list(aliases: Mapping[str, str]) -> list[dict[str, object]]:
    """`/v1/models`' `data`: the catalogue, then each alias (its `owned_by` names the target)."""
    entries: list[dict[str, object]] = [
        {"id": name, "object": "model", "created": 0, "owned_by": "open-langgraph"}
        for name in _catalogue()
    ]
    entries += [
        {"id": alias, "object": "model", "created": 0, "owned_by": f"local/{target}"}
        for alias, target in aliases.items()
    ]
    return entries
