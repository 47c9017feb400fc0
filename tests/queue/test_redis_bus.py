"""The Redis event bus through a Redis that goes away: it must come back by itself.

Each test has a `redis-server` of its own, so it can be killed, restarted or refuse commands
without touching the machine's Redis.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest
import redis.asyncio as redis

from open_langgraph.runtime.bus import Subscription
from open_langgraph.runtime.bus_redis import RedisBus
from tests.fixtures.local_services import RedisServer

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture
async def bus(redis_server: RedisServer) -> AsyncIterator[RedisBus]:
    started = RedisBus(redis_server.url, f"olg-test-{uuid.uuid4().hex}:")
    await started.start()
    try:
        yield started
    finally:
        await started.close()


async def _until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition did not become true in time"
        await asyncio.sleep(0.05)


async def _delivered(bus: RedisBus, subscription: Subscription, message: bytes) -> bool:
    """Publish `message` and report whether the subscription received it."""
    await bus.publish(subscription.channel, message)
    return await subscription.get(timeout=1.0) == message


async def test_wake_ups_flow_again_once_a_restarted_redis_is_back(
    redis_server: RedisServer, bus: RedisBus
) -> None:
    subscription = await bus.subscribe("wake")
    assert bus.healthy
    assert await _delivered(bus, subscription, b"before")

    redis_server.kill()
    await _until(lambda: not bus.healthy)
    # Publishing to a Redis that is down is a silent no-op, not an error for the run.
    await bus.publish("wake", b"lost")
    await bus.publish_many([("wake", b"lost too")])

    redis_server.start()
    await _until(lambda: bus.healthy)
    # The reader re-subscribed its channels, and the publishing pool replaced its dead
    # connections: the first publication after the restart arrives.
    assert await _delivered(bus, subscription, b"after")
    assert subscription.messages.empty()


async def test_a_refused_publish_does_not_leave_the_bus_degraded(
    redis_server: RedisServer, bus: RedisBus
) -> None:
    """A publish can fail while the reader's connection stays up; the bus must not stay
    marked unhealthy (readers would poll the database four times as often, for ever)."""
    subscription = await bus.subscribe("wake")
    admin = redis.Redis.from_url(redis_server.url)
    try:
        await admin.execute_command("ACL", "SETUSER", "default", "-publish")
        await bus.publish("wake", b"refused")
        assert not bus.healthy
        await admin.execute_command("ACL", "SETUSER", "default", "+publish")
        # Publishing pauses briefly after a failure, then resumes and restores health.
        deadline = time.monotonic() + 10.0
        while not await _delivered(bus, subscription, b"accepted"):
            assert time.monotonic() < deadline, "publishing did not resume"
        assert bus.healthy
    finally:
        await admin.aclose()
