"""`GET /threads/{id}/storage`: what a thread's checkpoints take, in the Platform's shape.

Kept apart from `ThreadService` because it answers an operator's question (why is this thread
big?) from the checkpointer's tables, not a client's question about the conversation.
"""

from __future__ import annotations

from typing import Any

from open_langgraph.storage.base import CheckpointBytes, StoredBytes


def _section(stored: StoredBytes) -> dict[str, int]:
    return {"count": stored.count, "bytes": stored.bytes}


def thread_storage_body(thread_id: str, measured: CheckpointBytes) -> dict[str, Any]:
    """The Platform's `ThreadStorage` object; `total_bytes` is the sum of the three sections."""
    total = measured.checkpoints.bytes + measured.channel_values.bytes
    total += measured.pending_writes.bytes
    return {
        "thread_id": thread_id,
        "total_bytes": total,
        "checkpoints": _section(measured.checkpoints),
        "channel_values": {
            **_section(measured.channel_values),
            "by_channel": {
                channel: {"versions": stored.count, "bytes": stored.bytes}
                for channel, stored in measured.by_channel.items()
            },
        },
        "pending_writes": _section(measured.pending_writes),
    }
