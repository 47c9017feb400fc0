"""A2A (`/a2a/{assistant_id}`): a message is a run of the assistant on a thread.

`message.contextId` is the thread (created on first use; a new one when it is omitted), the
run is the task (`{contextId}:{runId}`). A message with a `taskId` on a thread waiting at an
interrupt resumes it with the message's answer. Everything goes through the assistant, thread
and run services, so each step is authorized for the caller as on the HTTP API: an assistant
or thread outside the caller's filters is not found. `services/a2a_messages.py` does the
translation between A2A's objects and LangGraph's.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from open_langgraph import __version__
from open_langgraph.errors import NotFound, OLGError
from open_langgraph.services import a2a_messages as a2a
from open_langgraph.services.a2a_messages import INVALID_PARAMS, TASK_NOT_FOUND, A2AError
from open_langgraph.services.assistants import AssistantService
from open_langgraph.services.run_request import RunCommand, RunCreate
from open_langgraph.services.runs import RunService
from open_langgraph.services.threads import ThreadService, check_uuid
from open_langgraph.storage.base import FINISHED_RUN_STATUSES

MAX_HISTORY = 10
#: The A2A protocol version of the objects this endpoint speaks (`kind`-tagged, v0.3).
PROTOCOL_VERSION = "0.3.0"


@dataclass(frozen=True, slots=True)
class StartedTask:
    """A run started for a message: what sending and streaming report on."""

    assistant_id: str
    run: dict[str, Any]
    message: dict[str, Any]

    @property
    def context_id(self) -> str:
        return str(self.run["thread_id"])

    @property
    def task_id(self) -> str:
        return a2a.task_id(self.context_id, self.run["run_id"])


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _params_message(params: Any) -> dict[str, Any]:
    message = params.get("message") if isinstance(params, dict) else None
    if not isinstance(message, dict):
        raise A2AError(INVALID_PARAMS, "Missing or invalid 'message' in params")
    if not isinstance(message.get("parts"), list) or not message["parts"]:
        raise A2AError(INVALID_PARAMS, "message.parts must be a non-empty list")
    for key in ("contextId", "taskId", "messageId"):
        if message.get(key) is not None and not isinstance(message[key], str):
            raise A2AError(INVALID_PARAMS, f"message.{key} must be a string")
    return message


class A2AService:
    def __init__(
        self, assistants: AssistantService, threads: ThreadService, runs: RunService
    ) -> None:
        self._assistants = assistants
        self._threads = threads
        self._runs = runs

    async def _assistant(self, assistant_id: str) -> dict[str, Any]:
        try:
            return await self._assistants.get(assistant_id)
        except NotFound:
            raise A2AError(INVALID_PARAMS, f"Assistant {assistant_id!r} not found") from None
        except OLGError as exc:
            raise A2AError(INVALID_PARAMS, exc.detail) from None

    async def _accepts_messages(self, assistant_id: str) -> bool:
        schemas = await self._assistants.schemas(assistant_id)
        properties = (schemas.get("input_schema") or {}).get("properties") or {}
        return "messages" in properties

    async def _waiting_thread(self, context_id: str) -> bool:
        """Whether the caller's thread exists and waits at an interrupt."""
        try:
            thread = await self._threads.get(context_id)
        except NotFound:
            return False
        return thread["status"] == "interrupted"

    async def start(self, assistant_id: str, params: Any) -> StartedTask:
        """Start the run a `message/send` or `message/stream` asks for."""
        message = _params_message(params)
        assistant = await self._assistant(assistant_id)
        resolved = assistant["assistant_id"]
        context_id = message.get("contextId") or str(uuid.uuid4())
        try:
            check_uuid(context_id, "contextId")
            body = RunCreate(
                assistant_id=resolved,
                if_not_exists="create",
                metadata={"a2a_message_id": message.get("messageId")},
            )
            if message.get("taskId") and await self._waiting_thread(context_id):
                body.command = RunCommand(resume=a2a.resume_value(message["parts"]))
            else:
                accepts = await self._accepts_messages(resolved)
                body.input = a2a.message_input(message["parts"], accepts)
            run = await self._runs.create(context_id, body)
        except A2AError:
            raise
        except OLGError as exc:
            raise A2AError(INVALID_PARAMS, exc.detail) from None
        return StartedTask(resolved, run, message)

    async def _task(
        self,
        assistant_id: str,
        run: dict[str, Any],
        output: Any,
        history_length: int | None,
    ) -> dict[str, Any]:
        """The A2A task for a run, from how it ended (or how far it got)."""
        context_id = str(run["thread_id"])
        tid = a2a.task_id(context_id, run["run_id"])
        thread = await self._threads.get(context_id)
        state = a2a.task_state(run["status"], thread["status"] == "interrupted")
        status: dict[str, Any] = {"state": state, "timestamp": _now()}
        task: dict[str, Any] = {"kind": "task", "id": tid, "contextId": context_id}
        if state == "completed":
            task["artifacts"] = [a2a.response_artifact(output, assistant_id)]
        elif state == "input-required":
            interrupts = [i for found in thread["interrupts"].values() for i in found]
            task["artifacts"] = [a2a.interrupt_artifact(interrupts)]
        elif state == "failed":
            detail = (run.get("error") or {}).get("message") or run["status"]
            status["message"] = a2a.status_message(
                f"Error executing assistant: {detail}", tid, context_id
            )
        task["status"] = status
        if history_length != 0:
            task["history"] = a2a.history(output, tid, context_id, history_length)
        return task

    async def send(self, started: StartedTask) -> dict[str, Any]:
        """`message/send`: the task once its run has ended."""
        outcome = await self._runs.wait_for(started.run)
        run = {**started.run, "status": outcome.status, "error": outcome.error}
        return await self._task(started.assistant_id, run, outcome.output, None)

    async def stream(self, started: StartedTask) -> AsyncIterator[dict[str, Any]]:
        """`message/stream`: the submitted task, `working`, then the reply as an artifact and
        the final status."""
        tid, context_id = started.task_id, started.context_id
        sent = a2a.status_message("", tid, context_id)
        sent.update(role="user", parts=started.message["parts"])
        yield {
            "kind": "task",
            "id": tid,
            "contextId": context_id,
            "status": {"state": "submitted", "timestamp": _now()},
            "history": [sent],
        }
        update = {"kind": "status-update", "taskId": tid, "contextId": context_id}
        yield {**update, "status": {"state": "working", "timestamp": _now()}, "final": False}
        task = await self.send(started)
        for artifact in task.get("artifacts", []):
            yield {
                "kind": "artifact-update",
                "taskId": tid,
                "contextId": context_id,
                "artifact": artifact,
                "lastChunk": True,
            }
        yield {**update, "status": task["status"], "final": True}

    async def get_task(self, assistant_id: str, params: Any) -> dict[str, Any]:
        """`tasks/get`: the task's state now; its artifacts once its run has ended."""
        if not isinstance(params, dict) or not isinstance(params.get("id"), str):
            raise A2AError(INVALID_PARAMS, "Missing required parameter: id (task id)")
        context = params.get("contextId")
        if context is not None and not isinstance(context, str):
            raise A2AError(INVALID_PARAMS, "contextId must be a string")
        length = params.get("historyLength")
        if length is not None and (
            not isinstance(length, int)
            or isinstance(length, bool)
            or not 0 <= length <= MAX_HISTORY
        ):
            raise A2AError(INVALID_PARAMS, f"historyLength must be an integer 0-{MAX_HISTORY}")
        assistant = await self._assistant(assistant_id)
        thread_id, run_id = a2a.split_task_id(params["id"], context)
        try:
            run = await self._runs.get(thread_id, run_id)
        except OLGError:  # unknown, malformed or someone else's: not found either way
            raise A2AError(TASK_NOT_FOUND, f"Task not found: {params['id']}") from None
        if run["assistant_id"] != assistant["assistant_id"]:
            raise A2AError(TASK_NOT_FOUND, f"Task not found: {params['id']}")
        output = run.get("output") if run["status"] in FINISHED_RUN_STATUSES else None
        return await self._task(assistant["assistant_id"], run, output, length)

    async def agent_card(self, assistant_id: str, endpoint_url: str) -> dict[str, Any]:
        """The assistant's A2A agent card; `endpoint_url` is where its `/a2a/` endpoint is.

        Raises:
            NotFound: the assistant does not exist or is outside the caller's filter.
        """
        assistant = await self._assistants.get(assistant_id)
        resolved = assistant["assistant_id"]
        accepts_messages = await self._accepts_messages(resolved)
        input_modes = ["text/plain", "application/json"] if accepts_messages else []
        input_modes = input_modes or ["application/json"]
        output_modes = ["text/plain", "application/json"]
        description = assistant.get("description") or f"The {assistant['name']} agent."
        return {
            "protocolVersion": PROTOCOL_VERSION,
            "name": assistant["name"],
            "description": description,
            "url": endpoint_url,
            "preferredTransport": "JSONRPC",
            "version": __version__,
            "capabilities": {
                "streaming": True,
                "pushNotifications": False,
                "stateTransitionHistory": False,
            },
            "defaultInputModes": input_modes,
            "defaultOutputModes": output_modes,
            "skills": [
                {
                    "id": f"{resolved}-main",
                    "name": f"{assistant['name']} Capabilities",
                    "description": description,
                    "tags": ["assistant", "langgraph"],
                    "inputModes": input_modes,
                    "outputModes": output_modes,
                }
            ],
        }
