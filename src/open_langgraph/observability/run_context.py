"""Who a run is: the ids every observer attaches to it (metrics, logs, traces)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from open_langgraph.auth.users import USER_ID_KEY


@dataclass(frozen=True, slots=True)
class RunIdentity:
    run_id: str
    thread_id: str
    assistant_id: str
    graph_id: str
    user_id: str | None

    @classmethod
    def of(cls, run: dict[str, Any]) -> RunIdentity:
        config = run["kwargs"].get("config") or {}
        configurable = config.get("configurable") or {}
        identity = configurable.get(USER_ID_KEY)
        return cls(
            run_id=str(run["run_id"]),
            thread_id=str(run["thread_id"]),
            assistant_id=str(run.get("assistant_id") or configurable.get("assistant_id") or ""),
            graph_id=str(configurable.get("graph_id") or ""),
            user_id=str(identity) if identity else None,
        )

    def attributes(self) -> dict[str, str]:
        """The ids as span attributes / log fields (`langgraph.*` names for spans)."""
        found = {
            "run_id": self.run_id,
            "thread_id": self.thread_id,
            "assistant_id": self.assistant_id,
            "graph_id": self.graph_id,
        }
        if self.user_id:
            found["user_id"] = self.user_id
        return found
