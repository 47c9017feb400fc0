"""Checkpoints encrypted at rest, in either official saver.

Channel values and pending writes go through LangGraph's own `EncryptedSerializer` with the
user's blob handlers as its cipher (`encryption/blobs.py`). Checkpoint metadata, which the
savers store as JSON, goes through the JSON handlers as the field `checkpoint.metadata`, its
execution fields and ids left in plaintext (rollback finds a run's checkpoints by `run_id`).

The PostgreSQL saver keeps a channel's value inside the checkpoint row, as plain JSON, when it
is a string, number or boolean; with blob handlers such values are handed to it boxed, so
they are stored (encrypted) beside the others.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Collection
from typing import Any, ClassVar

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    get_serializable_checkpoint_metadata,
)
from langgraph.checkpoint.serde.encrypted import EncryptedSerializer

from open_langgraph.encryption import StorageCipher
from open_langgraph.encryption.blobs import HandlerCipher


class _Boxed:
    """A primitive channel value the PostgreSQL saver must store as a blob, not inline."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


class _Sealing(EncryptedSerializer):
    """`EncryptedSerializer` that serializes a boxed value as the value itself."""

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        return super().dumps_typed(obj.value if isinstance(obj, _Boxed) else obj)


class EncryptedCheckpoints:
    """Put before the official saver in the bases; inactive until `encrypt_with()`."""

    #: Whether the saver stores primitive channel values inline (PostgreSQL's does).
    inlines_primitives: ClassVar[bool] = False
    _cipher: StorageCipher | None = None
    serde: Any

    def encrypt_with(self, cipher: StorageCipher) -> None:
        self._cipher = cipher
        if cipher.blobs is not None:
            self.serde = _Sealing(HandlerCipher(cipher.blobs), self.serde)

    def with_allowlist(self, extra_allowlist: Collection[tuple[str, ...]]) -> Any:
        # LangGraph's strict msgpack mode clones the saver with a new `EncryptedSerializer`
        # of its own class: keep ours, which knows boxed values.
        clone = super().with_allowlist(extra_allowlist)  # type: ignore[misc]
        serde = clone.serde
        if isinstance(serde, EncryptedSerializer) and not isinstance(serde, _Sealing):
            clone.serde = _Sealing(serde.cipher, serde.serde)
        return clone

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        cipher = self._cipher
        if cipher is not None and cipher.json is not None:
            # Merged from the config as the saver would (so it finds nothing left to add),
            # then encrypted.
            merged = get_serializable_checkpoint_metadata(config, metadata)
            metadata = await cipher.json.encrypt("checkpoint", "metadata", merged)
        if cipher is not None and cipher.blobs is not None and self.inlines_primitives:
            checkpoint, new_versions = _boxed(checkpoint, new_versions)
        return await super().aput(config, checkpoint, metadata, new_versions)  # type: ignore[misc]

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        found: CheckpointTuple | None = await super().aget_tuple(config)  # type: ignore[misc]
        return None if found is None else await self._opened(found)

    async def alist(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        found: AsyncIterator[CheckpointTuple] = super().alist(  # type: ignore[misc]
            config, filter=filter, before=before, limit=limit
        )
        async for item in found:
            yield await self._opened(item)

    async def _opened(self, item: CheckpointTuple) -> CheckpointTuple:
        if self._cipher is None or self._cipher.json is None:
            return item
        metadata = await self._cipher.json.decrypt("checkpoint", "metadata", item.metadata)
        return item._replace(metadata=metadata)


def _boxed(
    checkpoint: Checkpoint, new_versions: ChannelVersions
) -> tuple[Checkpoint, ChannelVersions]:
    """The checkpoint with its primitive values boxed, and every boxed channel among the new
    versions: one whose value was stored inline before encryption was configured has no blob
    to be found by its version, so it gets one now."""
    values = dict(checkpoint["channel_values"])
    versions = dict(new_versions)
    for channel, value in values.items():
        if isinstance(value, str | int | float | bool):
            values[channel] = _Boxed(value)
            if channel in checkpoint["channel_versions"]:
                versions.setdefault(channel, checkpoint["channel_versions"][channel])
    return {**checkpoint, "channel_values": values}, versions
