"""What the storage layer encrypts with: the JSON and blob handlers of one `Encryption`."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from langgraph_sdk import Encryption

from open_langgraph.encryption.blobs import Blobs
from open_langgraph.encryption.fields import JsonFields


@dataclass(frozen=True, slots=True)
class StorageCipher:
    """Either part may be missing: an `Encryption` with only JSON handlers leaves
    checkpoints and run events in plaintext, one with only blob handlers the JSON fields."""

    json: JsonFields | None
    blobs: Blobs | None

    @classmethod
    def of(
        cls, encryption: Encryption, loop: asyncio.AbstractEventLoop | None = None
    ) -> StorageCipher:
        """The handlers of `encryption` (checked to come in pairs by `loading.py`); `loop` is
        the server's, where a blob handler awaiting I/O runs when called from a thread."""
        json = encryption.get_json_encryptor()
        json_back = encryption.get_json_decryptor()
        blob = encryption._blob_encryptor
        blob_back = encryption._blob_decryptor
        return cls(
            json=JsonFields(json, json_back) if json and json_back else None,
            blobs=Blobs(blob, blob_back, loop) if blob and blob_back else None,
        )
