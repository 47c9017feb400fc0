"""Encrypting a stored JSON field with the user's `@encryption.encrypt.json` handler.

The handler gets the field's dict and must return one with the same keys (values encrypted),
as on LangGraph Platform: keys stay visible, so a metadata filter on a key left in plaintext
still matches, and merging a patch into a stored field (thread metadata) still merges key by
key. What the server itself must read in SQL stays plaintext and never reaches the handler:
the ids (`thread_id`, `run_id`, ... rollback finds a run's checkpoints by `run_id`), and the
execution fields of checkpoint metadata (`source`, `step`, `parents`).

A stored field that was encrypted carries the context it was encrypted with under
`__encryption_context__`; a field without it is plaintext (written before encryption was
configured) and is returned as it is. Some dicts inside a field are encrypted on their own,
with their own `ctx.field` (a run's `kwargs.input`, `kwargs.config`, its `configurable`...),
as the Platform does, so a handler written for it sees the same calls. A field whose value
is not a dict (a run's output, a list-shaped state) is encrypted as `{"value": ...}`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph_sdk.encryption.types import (
    DecryptResult,
    EncryptionContext,
    JsonDecryptor,
    JsonEncryptor,
)

from open_langgraph.encryption.context import current_context

#: Where the context a field was encrypted with is kept; its presence means "encrypted".
MARKER = "__encryption_context__"
#: Marks a non-dict value stored as `{"value": <encrypted>}`.
BOXED = "__olg_boxed__"

#: Keys never handed to the handler, wherever they appear.
PLAIN_KEYS = frozenset(
    {
        "thread_id",
        "run_id",
        "assistant_id",
        "graph_id",
        "cron_id",
        "checkpoint_id",
        "checkpoint_ns",
        "task_id",
        MARKER,
        BOXED,
    }
)
#: Per (model, field): further keys left in plaintext.
_PLAIN_BY_FIELD: dict[tuple[str, str], frozenset[str]] = {
    ("checkpoint", "metadata"): frozenset({"source", "step", "parents", "run_attempt"}),
}
#: Per (model, field): the dict-valued keys encrypted separately, each as its own field.
NESTED: dict[tuple[str, str], tuple[str, ...]] = {
    ("run", "kwargs"): ("input", "config", "context", "command"),
    ("run", "config"): ("configurable", "metadata"),
    ("cron", "payload"): ("metadata", "context", "input", "config"),
    ("cron", "config"): ("configurable", "metadata"),
    ("assistant", "config"): ("configurable",),
}


class EncryptionError(Exception):
    """A handler broke the contract (not a dict, keys added or removed)."""


def _is_plain(model: str, field: str, key: str) -> bool:
    return (
        key in PLAIN_KEYS
        or key.startswith("__pregel_")
        or key in _PLAIN_BY_FIELD.get((model, field), ())
    )


class JsonFields:
    """The user's JSON handlers, applied to whole stored fields."""

    def __init__(self, encryptor: JsonEncryptor, decryptor: JsonDecryptor) -> None:
        self._encryptor = encryptor
        self._decryptor = decryptor

    async def encrypt(self, model: str, field: str, value: Any) -> Any:
        """The stored form of `value`: None stays None; an encrypted dict is left alone."""
        if value is None:
            return None
        if not isinstance(value, Mapping):
            boxed = await self._encrypt_dict(model, field, {"value": value})
            return {**boxed, BOXED: True}
        if MARKER in value:
            return value
        return await self._encrypt_dict(model, field, value)

    async def _encrypt_dict(self, model: str, field: str, value: Mapping[str, Any]) -> Any:
        nested = {
            key: value[key]
            for key in NESTED.get((model, field), ())
            if isinstance(value.get(key), Mapping)
        }
        secret = {
            k: v for k, v in value.items() if k not in nested and not _is_plain(model, field, k)
        }
        result = {k: v for k, v in value.items() if k not in secret}
        if secret:
            context = current_context()
            encrypted = await self._encryptor(EncryptionContext(model, context, field), secret)
            if not isinstance(encrypted, Mapping):
                raise EncryptionError(
                    f"the JSON encryptor returned a {type(encrypted).__name__}, not a dict "
                    f"(encrypting {model}.{field}); encrypt each value, keep the keys"
                )
            if set(encrypted) != set(secret):
                raise EncryptionError(
                    f"the JSON encryptor changed the keys of {model}.{field} "
                    f"(added {sorted(set(encrypted) - set(secret))}, removed "
                    f"{sorted(set(secret) - set(encrypted))}); encrypt each value, keep the keys"
                )
            result.update(encrypted)
            result[MARKER] = context
        for key, inner in nested.items():
            result[key] = await self._encrypt_dict(model, key, inner)
        return result

    async def decrypt(self, model: str, field: str, stored: Any) -> Any:
        """The value `encrypt` was given, from its stored form (plaintext passes through)."""
        if not isinstance(stored, Mapping):
            return stored
        plain = await self._decrypt_dict(model, field, stored)
        return plain["value"] if stored.get(BOXED) is True else plain

    async def _decrypt_dict(self, model: str, field: str, stored: Mapping[str, Any]) -> Any:
        # A nested key holding a dict was encrypted on its own; one holding anything else
        # (an `input` string) was a value of this dict.
        nested_keys = [
            k for k in NESTED.get((model, field), ()) if isinstance(stored.get(k), Mapping)
        ]
        result = {k: v for k, v in stored.items() if k not in (MARKER, BOXED)}
        if MARKER in stored:
            context = stored[MARKER] if isinstance(stored[MARKER], dict) else {}
            secret = {
                k: v
                for k, v in result.items()
                if k not in nested_keys and not _is_plain(model, field, k)
            }
            if secret:
                opened = await self._decryptor(EncryptionContext(model, context, field), secret)
                if isinstance(opened, DecryptResult):
                    opened = opened.plaintext
                if not isinstance(opened, Mapping):
                    raise EncryptionError(
                        f"the JSON decryptor returned a {type(opened).__name__}, not a dict "
                        f"(decrypting {model}.{field})"
                    )
                result.update(opened)
        for key in nested_keys:
            result[key] = await self._decrypt_dict(model, key, result[key])
        return result
