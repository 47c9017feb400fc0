"""Stage messages a model call sends to whoever streams the run.

A first call on an embedded model spends 10-60 s loading it on a CPU before the first token,
and a client that sees nothing for that long takes the run for hung (`olg run` printed nothing
for 35 s). Inside a LangGraph run the message goes out on the `custom` stream mode as
`{"type": "status", "stage": ..., "message": ...}`, which `olg run` and the web UI show;
outside a run (a plain `model.invoke`) it is only logged.
"""

from __future__ import annotations

import logging

logger = logging.getLogger(__name__)

#: The `type` of a stage message on the `custom` stream mode.
STATUS_TYPE = "status"


def report_stage(stage: str, message: str) -> None:
    """Tell the run's stream (if any) and the log that `stage` is under way."""
    logger.info("%s", message)
    try:
        from langgraph.config import get_stream_writer

        writer = get_stream_writer()
    except (ImportError, RuntimeError, KeyError):  # not inside a LangGraph run
        return
    writer({"type": STATUS_TYPE, "stage": stage, "message": message})
