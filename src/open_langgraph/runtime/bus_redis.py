"""The event bus on Redis pub/sub: one subscriber connection per process, shared by readers.

Channel names carry a prefix naming the database, so deployments (or test servers) sharing
one Redis never hear each other: Redis pub/sub ignores the numbered databases. When Redis
is unreachable, publishing does nothing and subscriptions stay silent until it is back (see
`runtime/bus.py` for why that loses nothing); the reader reconnects by itself.

redis-py's default retry policy (ten retries, backoff up to a second each) suits a store, not
a best-effort bus: each publish to a Redis that is down stalled the run publishing it for
seconds, and after a restart every stale pooled connection paid a backoff. Here a command is
retried once at once (a stale connection is replaced), and after a failure publishing pauses
for `_RETRY_SECONDS` instead of waiting on a network that is not there.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

import redis.asyncio as redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from open_langgraph.runtime.bus import EventBus, Subscription

logger = logging.getLogger(__name__)

_KEEPALIVE = "_"  # one channel always subscribed, so the reader always has a connection
_CONFIRM_TIMEOUT = 2.0
_RETRY_SECONDS = 0.25


class RedisBus(EventBus):
    def __init__(self, url: str, prefix: str) -> None:
        self._client = redis.Redis.from_url(
            url, socket_connect_timeout=2.0, retry=Retry(NoBackoff(), retries=1)
        )
        self._prefix = prefix
        self._subscriptions: dict[str, set[Subscription]] = {}
        self._unconfirmed: dict[str, asyncio.Future[None]] = {}
        self._pubsub: redis.client.PubSub | None = None
        self._reader_up = False
        # Loop time of the last failed publish, while publishing is paused; None when fine.
        self._publish_failed_at: float | None = None
        self._reported_down = False
        self._connected = asyncio.Event()
        self._reader: asyncio.Task[None] | None = None

    async def start(self, wait: float = 2.0) -> None:
        """Connect; a Redis that is down now is reported and retried, not fatal."""
        self._reader = asyncio.create_task(self._read(), name="redis-bus")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._connected.wait(), wait)

    @property
    def healthy(self) -> bool:
        return self._reader_up and self._publish_failed_at is None

    async def ping(self) -> None:
        """`PING` on a connection of the publishing pool (the caller bounds the wait)."""
        await self._client.ping()

    async def publish(self, channel: str, message: bytes) -> None:
        if self._publishing_paused():
            return
        try:
            await self._client.publish(self._prefix + channel, message)
        except (redis.RedisError, OSError) as exc:
            self._publish_failed(exc)
        else:
            self._published()

    async def publish_many(self, messages: list[tuple[str, bytes]]) -> None:
        if len(messages) == 1:
            # A pipeline's own machinery costs more client CPU than the command.
            await self.publish(*messages[0])
            return
        if not messages or self._publishing_paused():
            return
        try:
            async with self._client.pipeline(transaction=False) as pipe:
                for channel, message in messages:
                    pipe.publish(self._prefix + channel, message)
                await pipe.execute()
        except (redis.RedisError, OSError) as exc:
            self._publish_failed(exc)
        else:
            self._published()

    def _publishing_paused(self) -> bool:
        failed_at = self._publish_failed_at
        if failed_at is None:
            return False
        return asyncio.get_running_loop().time() - failed_at < _RETRY_SECONDS

    def _publish_failed(self, exc: BaseException) -> None:
        self._publish_failed_at = asyncio.get_running_loop().time()
        self._down(exc)

    def _published(self) -> None:
        if self._publish_failed_at is not None:
            self._publish_failed_at = None
            self._up()

    async def subscribe(self, channel: str) -> Subscription:
        subscription = Subscription(channel)
        listeners = self._subscriptions.setdefault(channel, set())
        first = not listeners
        listeners.add(subscription)
        pubsub = self._pubsub
        if first and pubsub is not None:
            confirmed = asyncio.get_running_loop().create_future()
            self._unconfirmed[channel] = confirmed
            try:
                await pubsub.subscribe(self._prefix + channel)
            except (redis.RedisError, OSError) as exc:
                self._down(exc)
        pending = self._unconfirmed.get(channel)
        if pending is not None:
            # Redis delivers a channel's messages only once it has processed the SUBSCRIBE.
            with contextlib.suppress(TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(pending), _CONFIRM_TIMEOUT)
        return subscription

    async def unsubscribe(self, subscription: Subscription) -> None:
        subscription.closed = True
        listeners = self._subscriptions.get(subscription.channel)
        if listeners is None:
            return
        listeners.discard(subscription)
        if listeners:
            return
        del self._subscriptions[subscription.channel]
        pubsub = self._pubsub
        if pubsub is not None:
            try:
                await pubsub.unsubscribe(self._prefix + subscription.channel)
            except (redis.RedisError, OSError) as exc:
                self._down(exc)

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(BaseException):
                await self._reader
        await self._client.aclose()

    # -- the reader ------------------------------------------------------------------------
    async def _read(self) -> None:
        while True:
            pubsub = self._client.pubsub()
            try:
                await pubsub.subscribe(
                    self._prefix + _KEEPALIVE,
                    *(self._prefix + channel for channel in self._subscriptions),
                )
                self._pubsub = pubsub
                self._reader_up = True
                self._publish_failed_at = None  # Redis answers again: so will publishing
                self._up()
                while True:
                    # Blocking: a read with a timeout costs a timer per message, and a dead
                    # connection ends the read with an error either way.
                    message = await pubsub.get_message(timeout=None)
                    if message is not None:
                        self._dispatch(message)
            except asyncio.CancelledError:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
                raise
            except (redis.RedisError, OSError) as exc:
                self._reader_up = False
                self._down(exc)
                self._pubsub = None
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
                await asyncio.sleep(_RETRY_SECONDS)

    def _dispatch(self, message: dict[str, object]) -> None:
        raw_channel = message.get("channel")
        if not isinstance(raw_channel, bytes):
            return
        channel = raw_channel.decode()[len(self._prefix) :]
        kind = message.get("type")
        if kind == "subscribe":
            confirmed = self._unconfirmed.pop(channel, None)
            if confirmed is not None and not confirmed.done():
                confirmed.set_result(None)
        elif kind == "message":
            data = message.get("data")
            for subscription in self._subscriptions.get(channel, ()):
                subscription.messages.put_nowait(data)  # type: ignore[arg-type]

    def _up(self) -> None:
        if self._reader_up:
            self._connected.set()
        if self._reported_down and self.healthy:
            logger.info("Redis is reachable again: cross-process wake-ups resume")
            self._reported_down = False

    def _down(self, exc: BaseException) -> None:
        for confirmed in self._unconfirmed.values():
            if not confirmed.done():
                confirmed.set_result(None)
        self._unconfirmed.clear()
        if not self._reported_down:
            logger.warning(
                "Redis is unreachable (%s: %s): runs go on, other processes learn of them "
                "by polling the database until it is back",
                type(exc).__name__,
                exc,
            )
            self._reported_down = True
