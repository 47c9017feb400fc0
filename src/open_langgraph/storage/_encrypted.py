"""Records encrypted at rest: the JSON fields of what a backend stores go through the user's
handlers (`encryption/fields.py`) on the way in and out, stored run events through the blob
handlers.

`EncryptedRecords` comes first in each backend's bases and does nothing until
`encrypt_with()` is called (`encryption.path` configured). Every method taking a JSON field
encrypts it before the backend's own method stores it; every method returning records
decrypts them, so services, the runtime and the API see plaintext. Searches pass their
filters through unchanged: a filter on a key the handler left in plaintext (an `owner`, a
`graph_id`) matches, one on an encrypted value does not, as on LangGraph Platform. Data
stored before encryption was configured has no context marker and is read as it is.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from open_langgraph.encryption import StorageCipher
from open_langgraph.storage.base import UNSET, StoredEvent, ThreadUpdate

#: The JSON fields of each kind of record that are encrypted, with their model name.
_FIELDS: dict[str, tuple[str, ...]] = {
    "assistant": ("config", "context", "metadata"),
    "thread": ("metadata", "config", "values", "interrupts", "error"),
    "run": ("metadata", "kwargs", "output", "error"),
    "cron": ("payload", "metadata", "user"),
}


class EncryptedRecords:
    """Put first in a backend's bases (before the query mixins it wraps)."""

    _cipher: StorageCipher | None = None

    def encrypt_with(self, cipher: StorageCipher) -> None:
        """Encrypt from now on; the checkpointer's blobs too (`_encrypted_saver.py`)."""
        self._cipher = cipher
        self.checkpointer.encrypt_with(cipher)  # type: ignore[attr-defined]

    # -- the conversions ----------------------------------------------------------------
    async def _sealed(self, model: str, field: str, value: Any) -> Any:
        assert self._cipher is not None and self._cipher.json is not None
        return await self._cipher.json.encrypt(model, field, value)

    async def _sealed_fields(self, model: str, values: Mapping[str, Any]) -> dict[str, Any]:
        """`values` with each of the model's JSON fields it holds encrypted."""
        result = dict(values)
        for field in _FIELDS[model]:
            if field in result:
                result[field] = await self._sealed(model, field, result[field])
        return result

    async def _opened(self, model: str, record: dict[str, Any] | None) -> Any:
        if record is None or self._json is None:
            return record
        result = dict(record)
        for field in _FIELDS[model]:
            if field in result:
                result[field] = await self._json.decrypt(model, field, result[field])
        return result

    async def _all_opened(self, model: str, records: list[dict[str, Any]]) -> list[Any]:
        if self._json is None:
            return records
        return list(await asyncio.gather(*(self._opened(model, r) for r in records)))

    @property
    def _json(self) -> Any:
        return None if self._cipher is None else self._cipher.json

    async def _sealed_update(self, update: ThreadUpdate | None) -> ThreadUpdate | None:
        if update is None or self._json is None:
            return update
        return dataclasses.replace(
            update,
            values=update.values
            if update.values is UNSET
            else await self._sealed("thread", "values", update.values),
            interrupts=await self._sealed("thread", "interrupts", update.interrupts),
            error=update.error
            if update.error is UNSET
            else await self._sealed("thread", "error", update.error),
            metadata=await self._sealed("thread", "metadata", update.metadata),
        )

    # -- assistants ----------------------------------------------------------------------
    async def create_assistant(self, **kwargs: Any) -> dict[str, Any]:
        # Assistants the server creates for its graphs at start-up stay in plaintext, as
        # on the Platform: they hold nothing of a user's, and are found by their metadata.
        system = (kwargs.get("metadata") or {}).get("created_by") == "system"
        if self._json is not None and not system:
            kwargs = await self._sealed_fields("assistant", kwargs)
        return await self._opened("assistant", await super().create_assistant(**kwargs))  # type: ignore[misc]

    async def get_assistant(self, *args: Any, **kwargs: Any) -> dict[str, Any] | None:
        return await self._opened("assistant", await super().get_assistant(*args, **kwargs))  # type: ignore[misc]

    async def patch_assistant(
        self, assistant_id: str, changes: dict[str, Any], *args: Any, **kwargs: Any
    ) -> dict[str, Any] | None:
        if self._json is not None:
            changes = await self._sealed_fields("assistant", changes)
        patched = await super().patch_assistant(assistant_id, changes, *args, **kwargs)  # type: ignore[misc]
        return await self._opened("assistant", patched)

    async def search_assistants(self, **kwargs: Any) -> list[dict[str, Any]]:
        return await self._all_opened("assistant", await super().search_assistants(**kwargs))  # type: ignore[misc]

    async def list_assistant_versions(self, *args: Any, **kwargs: Any) -> list[dict[str, Any]]:
        found = await super().list_assistant_versions(*args, **kwargs)  # type: ignore[misc]
        return await self._all_opened("assistant", found)

    async def set_latest_assistant_version(self, *args: Any) -> dict[str, Any] | None:
        found = await super().set_latest_assistant_version(*args)  # type: ignore[misc]
        return await self._opened("assistant", found)

    # -- threads -------------------------------------------------------------------------
    async def create_thread(self, **kwargs: Any) -> dict[str, Any]:
        if self._json is not None:
            kwargs["metadata"] = await self._sealed("thread", "metadata", kwargs["metadata"])
        return await self._opened("thread", await super().create_thread(**kwargs))  # type: ignore[misc]

    async def get_thread(self, *args: Any, **kwargs: Any) -> dict[str, Any] | None:
        return await self._opened("thread", await super().get_thread(*args, **kwargs))  # type: ignore[misc]

    async def patch_thread(
        self, thread_id: str, metadata: dict[str, Any], *args: Any, **kwargs: Any
    ) -> dict[str, Any] | None:
        if self._json is not None:
            metadata = await self._sealed("thread", "metadata", metadata)
        patched = await super().patch_thread(thread_id, metadata, *args, **kwargs)  # type: ignore[misc]
        return await self._opened("thread", patched)

    async def search_threads(self, **kwargs: Any) -> list[dict[str, Any]]:
        return await self._all_opened("thread", await super().search_threads(**kwargs))  # type: ignore[misc]

    async def update_thread(self, thread_id: str, update: ThreadUpdate) -> None:
        await super().update_thread(thread_id, await self._sealed_update(update))  # type: ignore[misc]

    async def copy_thread(
        self,
        thread_id: str,
        new_thread_id: str,
        auth_filter: Any = None,
        metadata: dict[str, Any] | None = None,
    ) -> dict[str, Any] | None:
        if self._json is not None:
            metadata = await self._sealed("thread", "metadata", metadata)
        copied = await super().copy_thread(thread_id, new_thread_id, auth_filter, metadata)  # type: ignore[misc]
        return await self._opened("thread", copied)

    # -- runs ----------------------------------------------------------------------------
    async def create_run(self, run: dict[str, Any], thread_update: ThreadUpdate) -> None:
        if self._json is not None:
            run = await self._sealed_fields("run", run)
        sealed_update = await self._sealed_update(thread_update)
        await super().create_run(run, sealed_update)  # type: ignore[misc]

    async def get_run(self, run_id: str) -> dict[str, Any] | None:
        return await self._opened("run", await super().get_run(run_id))  # type: ignore[misc]

    async def list_runs(self, *args: Any, **kwargs: Any) -> list[dict[str, Any]]:
        return await self._all_opened("run", await super().list_runs(*args, **kwargs))  # type: ignore[misc]

    async def runs_in_flight(self) -> list[dict[str, Any]]:
        return await self._all_opened("run", await super().runs_in_flight())  # type: ignore[misc]

    async def finish_run(
        self,
        run_id: str,
        *,
        output: Any,
        error: dict[str, Any] | None,
        events: Sequence[StoredEvent],
        thread_update: ThreadUpdate | None,
        trace: bytes | None = None,
        **kwargs: Any,
    ) -> None:
        if self._json is not None:
            output = await self._sealed("run", "output", output)
            error = await self._sealed("run", "error", error)
        blobs = None if self._cipher is None else self._cipher.blobs
        if blobs is not None:
            events = [
                StoredEvent(e.seq, e.event, await blobs.seal("run", "events", e.data))
                for e in events
            ]
            if trace is not None:
                trace = await blobs.seal("run", "trace", trace)
        await super().finish_run(  # type: ignore[misc]
            run_id,
            output=output,
            error=error,
            events=events,
            thread_update=await self._sealed_update(thread_update),
            trace=trace,
            **kwargs,
        )

    async def get_run_trace(self, run_id: str) -> bytes | None:
        trace: bytes | None = await super().get_run_trace(run_id)  # type: ignore[misc]
        blobs = None if self._cipher is None else self._cipher.blobs
        if blobs is None or trace is None:
            return trace
        return await blobs.open("run", "trace", trace)

    async def get_run_events(self, run_id: str, after_seq: int = -1) -> list[StoredEvent]:
        events: list[StoredEvent] = await super().get_run_events(run_id, after_seq)  # type: ignore[misc]
        blobs = None if self._cipher is None else self._cipher.blobs
        if blobs is None:
            return events
        return [
            StoredEvent(e.seq, e.event, await blobs.open("run", "events", e.data)) for e in events
        ]

    # -- crons ---------------------------------------------------------------------------
    async def create_cron(self, cron: Mapping[str, Any]) -> dict[str, Any]:
        if self._json is not None:
            cron = await self._sealed_fields("cron", cron)
        return await self._opened("cron", await super().create_cron(cron))  # type: ignore[misc]

    async def get_cron(self, *args: Any, **kwargs: Any) -> dict[str, Any] | None:
        return await self._opened("cron", await super().get_cron(*args, **kwargs))  # type: ignore[misc]

    async def update_cron(
        self, cron_id: str, changes: Mapping[str, Any], *args: Any, **kwargs: Any
    ) -> dict[str, Any] | None:
        if self._json is not None:
            changes = await self._sealed_fields("cron", changes)
        updated = await super().update_cron(cron_id, changes, *args, **kwargs)  # type: ignore[misc]
        return await self._opened("cron", updated)

    async def search_crons(self, **kwargs: Any) -> list[dict[str, Any]]:
        return await self._all_opened("cron", await super().search_crons(**kwargs))  # type: ignore[misc]

    async def due_crons(self, now: str, limit: int) -> list[dict[str, Any]]:
        return await self._all_opened("cron", await super().due_crons(now, limit))  # type: ignore[misc]
