"""Messages between the processes of one deployment: wake-ups, cancellations, live events.

The bus only ever speeds things up. Everything it carries is also in the database (the
queue, cancellation requests, stored events), and every reader re-reads the database when
the bus has been quiet for a while, so a bus that drops messages or restarts (Redis without
persistence) costs latency, never a run or an event. The Redis implementation is
`runtime/bus_redis.py`, the only module that imports `redis`.
"""

from __future__ import annotations

import abc
import asyncio
from dataclasses import dataclass
from typing import Any

import orjson

from open_langgraph.runtime.broker import ThreadEvent
from open_langgraph.storage.base import StoredEvent

#: Workers listen here for "a run may be due".
WAKE_CHANNEL = "wake"
#: Workers listen here for cancellation requests of running runs.
CANCEL_CHANNEL = "cancel"
#: How often readers re-read the database while the bus is down: they hear of nothing else.
DEGRADED_POLL_SECONDS = 0.25


def thread_channel(thread_id: str) -> str:
    """A thread's channel: what its runs stream, their ends, and edits of its state. Run
    followers listen on their run's thread too, so each event is published once."""
    return f"thread:{thread_id}"


def run_end_channel(run_id: str) -> str:
    """Where a run's end is published as well (`end_messages`), for its waiters: they need
    only the end, not every event on the run's thread."""
    return f"run-end:{run_id}"


class Subscription:
    """Messages of one channel, in order, for one reader."""

    def __init__(self, channel: str) -> None:
        self.channel = channel
        self.messages: asyncio.Queue[bytes] = asyncio.Queue()
        self.closed = False

    async def get(self, timeout: float) -> bytes | None:
        """The next message, or None after `timeout` seconds without one."""
        try:
            return await asyncio.wait_for(self.messages.get(), timeout)
        except TimeoutError:
            return None


class EventBus(abc.ABC):
    """Publish/subscribe between processes; best effort, as the module says."""

    @abc.abstractmethod
    async def publish(self, channel: str, message: bytes) -> None:
        """Send to every current subscriber of `channel`; never raises."""

    @abc.abstractmethod
    async def publish_many(self, messages: list[tuple[str, bytes]]) -> None:
        """`publish` each (channel, message), in order, in one round trip; never raises."""

    @abc.abstractmethod
    async def subscribe(self, channel: str) -> Subscription:
        """Listen to `channel`; when this returns, later publications are received (while
        the bus is up)."""

    @abc.abstractmethod
    async def unsubscribe(self, subscription: Subscription) -> None: ...

    @property
    @abc.abstractmethod
    def healthy(self) -> bool:
        """False while the bus is unreachable: readers then poll the database sooner."""

    @abc.abstractmethod
    async def ping(self) -> None:
        """One round trip to the bus; raises when it cannot be reached (readiness.py)."""

    @abc.abstractmethod
    async def close(self) -> None: ...


# -- message formats -------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class ThreadMessage:
    """What a thread's channel carries: a batch of events of one of its runs (`run_id`),
    possibly with the news that the run ended, or events outside runs (state edits).

    The end carries the outcome (`{"status", "output", "error"}`) when its worker knew it:
    a stateless run's thread, and the run with it, may be deleted by the time a waiter
    would read it.
    """

    run_id: str | None
    events: list[StoredEvent]
    ended: bool = False
    outcome: dict[str, Any] | None = None
    last_seq: int | None = None
    """With the end, when its worker knew it: the id of the run's last event, so a reader
    that has it knows it has every event without reading the database again."""

    def encode(self) -> bytes:
        return orjson.dumps(
            {
                "r": self.run_id,
                "e": [[e.seq, e.event, e.data.decode()] for e in self.events],
                "end": self.ended,
                "outcome": self.outcome,
                "last": self.last_seq,
            }
        )

    @classmethod
    def decode(cls, raw: bytes) -> ThreadMessage:
        body: dict[str, Any] = orjson.loads(raw)
        events = [StoredEvent(seq, event, data.encode()) for seq, event, data in body["e"]]
        return cls(body["r"], events, bool(body.get("end")), body.get("outcome"), body.get("last"))

    @classmethod
    def outside_runs(cls, event: ThreadEvent) -> ThreadMessage:
        return cls(None, [StoredEvent(-1, event.event, event.data)])

    def thread_events(self) -> list[ThreadEvent]:
        """The events as a thread stream sends them."""
        if self.run_id is None:
            return [ThreadEvent(e.event, e.data) for e in self.events]
        found = [ThreadEvent.of_run(self.run_id, e) for e in self.events]
        if self.ended:
            found.append(ThreadEvent.run_end(self.run_id))
        return found


def end_messages(thread_id: str, message: ThreadMessage) -> list[tuple[str, bytes]]:
    """(channel, message) pairs publishing `message`, which ends its run, on the run's
    thread and to the run's waiters (`run_end_channel`), in that order."""
    assert message.run_id is not None and message.ended
    encoded = message.encode()
    return [(thread_channel(thread_id), encoded), (run_end_channel(message.run_id), encoded)]


def encode_cancel(run_id: str, action: str) -> bytes:
    return orjson.dumps({"run_id": run_id, "action": action})


def decode_cancel(raw: bytes) -> tuple[str, str]:
    body = orjson.loads(raw)
    return body["run_id"], body["action"]


def poll_seconds(bus: EventBus, usual: float) -> float:
    """How long a reader waits on the bus before re-reading the database."""
    return usual if bus.healthy else min(usual, DEGRADED_POLL_SECONDS)
