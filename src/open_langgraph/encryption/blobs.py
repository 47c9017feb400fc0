"""Encrypting opaque bytes (checkpoints, stored run events) with the user's blob handlers.

Each ciphertext is stored in an envelope holding the context it was encrypted with, which the
decrypting handler gets back as `ctx.metadata`:

    b"\\x00olgenc1" | context length (4 bytes, big-endian) | context JSON | handler's bytes

Checkpoints are encrypted by LangGraph's own `EncryptedSerializer` around the saver's
serializer (`HandlerCipher` is its cipher): the type column says `msgpack+olg`, and rows
written before encryption was configured are still read as plaintext. LangGraph serializes
synchronously while the handlers are coroutines, so `run_handler` runs one to completion
without the event loop when it never waits (a local cipher: the usual case, no cost); one that
awaits I/O (a KMS call) runs on the server's loop when called from a saver's worker thread,
and otherwise on a helper thread of its own while the caller waits.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import orjson
from langgraph.checkpoint.serde.base import CipherProtocol
from langgraph_sdk.encryption.types import (
    BlobDecryptor,
    BlobEncryptor,
    DecryptResult,
    EncryptionContext,
)

from open_langgraph.encryption.context import current_context

logger = logging.getLogger(__name__)

MAGIC = b"\x00olgenc1"
#: The cipher name LangGraph's `EncryptedSerializer` appends to the type (`msgpack+olg`).
CIPHER_NAME = "olg"
T = TypeVar("T")


class BlobError(Exception):
    """A handler returned something that is not bytes, or stored bytes are not an envelope."""


class _HelperLoop:
    """An event loop on a thread of its own, for handlers that must wait while the caller
    (LangGraph's synchronous serializer, on the server's loop thread) cannot."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()

    def run(self, coro: Awaitable[T]) -> T:
        with self._lock:
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
                threading.Thread(
                    target=self._loop.run_forever, name="olg-encryption", daemon=True
                ).start()
        return asyncio.run_coroutine_threadsafe(_awaited(coro), self._loop).result()


async def _awaited(coro: Awaitable[T]) -> T:
    return await coro


class Bridge:
    """Runs async handlers from synchronous code (`run_handler`)."""

    def __init__(self, loop: asyncio.AbstractEventLoop | None) -> None:
        self._loop = loop
        self._helper = _HelperLoop()
        self._warned = False

    def call(self, fn: Callable[..., Awaitable[T]], *args: Any) -> T:
        try:
            asyncio.get_running_loop()
            on_a_loop = True
        except RuntimeError:
            on_a_loop = False
        coro = fn(*args)
        if not asyncio.iscoroutine(coro):
            raise BlobError(f"{fn!r} is not an async function")
        try:
            coro.send(None)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]
        except RuntimeError:
            # On a thread without a loop, asking for one (`asyncio.sleep`) fails at once.
            if on_a_loop:
                raise
        else:
            coro.close()
        # It waits for something only an event loop can give: start it again on one.
        if not on_a_loop and self._loop is not None and self._loop.is_running():
            # A saver's worker thread: the server's loop is free to run it.
            return asyncio.run_coroutine_threadsafe(_awaited(fn(*args)), self._loop).result()
        return self._on_helper(fn, args)

    def _on_helper(self, fn: Callable[..., Awaitable[T]], args: tuple[Any, ...]) -> T:
        if not self._warned:
            self._warned = True
            logger.warning(
                "an encryption blob handler awaited I/O while LangGraph serialized a "
                "checkpoint on the event loop; it runs on a helper thread, and the server "
                "waits for it: prefer a handler that encrypts locally (a cached data key)"
            )
        return self._helper.run(fn(*args))


def _envelope(context: dict[str, Any], ciphertext: Any) -> bytes:
    if not isinstance(ciphertext, bytes | bytearray):
        raise BlobError(f"the blob encryptor returned a {type(ciphertext).__name__}, not bytes")
    header = orjson.dumps(context)
    return MAGIC + len(header).to_bytes(4, "big") + header + bytes(ciphertext)


def _open_envelope(data: bytes) -> tuple[dict[str, Any], bytes]:
    if not data.startswith(MAGIC):
        raise BlobError("stored bytes are not an encrypted envelope")
    start = len(MAGIC) + 4
    length = int.from_bytes(data[len(MAGIC) : start], "big")
    context = orjson.loads(data[start : start + length])
    return (context if isinstance(context, dict) else {}), data[start + length :]


def _plaintext(opened: Any) -> bytes:
    if isinstance(opened, DecryptResult):
        opened = opened.plaintext
    if not isinstance(opened, bytes | bytearray):
        raise BlobError(f"the blob decryptor returned a {type(opened).__name__}, not bytes")
    return bytes(opened)


class Blobs:
    """The user's blob handlers, with the envelope around what they return."""

    def __init__(
        self,
        encryptor: BlobEncryptor,
        decryptor: BlobDecryptor,
        loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        self._encryptor = encryptor
        self._decryptor = decryptor
        self.bridge = Bridge(loop)

    async def seal(self, model: str, field: str | None, data: bytes) -> bytes:
        context = current_context()
        return _envelope(
            context, await self._encryptor(EncryptionContext(model, context, field), data)
        )

    async def open(self, model: str, field: str | None, data: bytes) -> bytes:
        """`data` decrypted; bytes that are not an envelope are plaintext stored before."""
        if not data.startswith(MAGIC):
            return data
        context, ciphertext = _open_envelope(data)
        return _plaintext(
            await self._decryptor(EncryptionContext(model, context, field), ciphertext)
        )

    def seal_now(self, model: str, data: bytes) -> bytes:
        context = current_context()
        sealed = self.bridge.call(self._encryptor, EncryptionContext(model, context, None), data)
        return _envelope(context, sealed)

    def open_now(self, model: str, data: bytes) -> bytes:
        context, ciphertext = _open_envelope(data)
        return _plaintext(
            self.bridge.call(self._decryptor, EncryptionContext(model, context, None), ciphertext)
        )


class HandlerCipher(CipherProtocol):
    """LangGraph's cipher protocol over the blob handlers, for its `EncryptedSerializer`."""

    def __init__(self, blobs: Blobs) -> None:
        self._blobs = blobs

    def encrypt(self, plaintext: bytes) -> tuple[str, bytes]:
        return CIPHER_NAME, self._blobs.seal_now("checkpoint", plaintext)

    def decrypt(self, ciphername: str, ciphertext: bytes) -> bytes:
        if ciphername != CIPHER_NAME:
            raise BlobError(f"a checkpoint encrypted with {ciphername!r}, not by this server")
        return self._blobs.open_now("checkpoint", ciphertext)
