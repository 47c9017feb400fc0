"""One cost LangGraph adds to every run, taken away from whichever official saver we use.

Each graph invocation asks `inspect.signature` whether the saver's `aput_writes` accepts
`task_path`; building that signature took about a tenth of the server's CPU per run. Giving
the method a precomputed `__signature__` answers the same question at no cost.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

from langchain_core.runnables import RunnableConfig


class PrecomputedSignature:
    """Put before the saver class in the bases; storage, schema and serialisation stay the
    saver's own, untouched."""

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        await super().aput_writes(config, writes, task_id, task_path)  # type: ignore[misc]

    aput_writes.__signature__ = inspect.signature(aput_writes)  # type: ignore[attr-defined]
