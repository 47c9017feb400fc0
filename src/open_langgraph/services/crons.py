"""Crons: runs an assistant makes on a schedule, on a thread of the user's or (stateless) on
a new thread each time, as LangGraph Platform's `/runs/crons` routes define them.

Every action authorizes as the Platform does (`crons.create`, `read`, `update`, `delete`,
`search`); the filter a handler returns is applied inside the storage query, so another
user's cron is as missing (404) as an unknown id, and a new cron gets the filter's owner
keys in its metadata. A firing (`fire`, called by `cron_scheduler`) creates its run through
the run service, as the user who created the cron, so it is authorized, queued and
executed like any run that user could start.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from pydantic import ValidationError

from open_langgraph.auth.authorize import Authorizer
from open_langgraph.auth.context import acting_as, current_user
from open_langgraph.auth.filters import stamped
from open_langgraph.auth.users import AuthUser
from open_langgraph.errors import BadRequest, NotFound, OLGError
from open_langgraph.runtime.run_spec import mirrored_context
from open_langgraph.runtime.webhooks import WebhookSender
from open_langgraph.services.assistants import AssistantService
from open_langgraph.services.cron_request import CronCount, CronCreate, CronPatch
from open_langgraph.services.cron_schedule import check_schedule, check_timezone, next_due
from open_langgraph.services.run_request import RunCreate
from open_langgraph.services.runs import RunService
from open_langgraph.services.threads import check_uuid
from open_langgraph.storage.base import SortOrder, Storage, utc_now
from open_langgraph.storage.cron_base import CronStorage, public_cron, timestamp

logger = logging.getLogger(__name__)

Clock = Callable[[], datetime]


def system_clock() -> datetime:
    return datetime.now(UTC)


def _utc(moment: datetime | None) -> str | None:
    """An `end_time` as stored; a time without an offset is taken as UTC."""
    if moment is None:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return timestamp(moment)


def cron_storage(storage: Storage) -> CronStorage:
    """The backend's cron side: every backend implements both interfaces."""
    if not isinstance(storage, CronStorage):
        raise TypeError(f"{type(storage).__name__} does not store crons")
    return storage


class CronService:
    """Creating, reading, changing and deleting crons, and firing one when it is due."""

    def __init__(
        self,
        storage: Storage,
        assistants: AssistantService,
        runs: RunService,
        webhooks: WebhookSender,
        authorizer: Authorizer | None = None,
        clock: Clock = system_clock,
    ) -> None:
        self._storage = storage
        self._crons = cron_storage(storage)
        self._assistants = assistants
        self._runs = runs
        self._webhooks = webhooks
        self._auth = authorizer or Authorizer()
        self._clock = clock

    # -- creating --------------------------------------------------------------------------
    async def create(self, thread_id: str | None, body: CronCreate) -> dict[str, Any]:
        """Store a cron on `thread_id` (None: stateless, a new thread per firing)."""
        check_schedule(body.schedule)
        check_timezone(body.timezone)
        if thread_id is not None:
            check_uuid(thread_id, "thread ID")
        if body.webhook is not None:
            await self._webhooks.check(body.webhook)
        payload = body.run_payload()
        # Both `configurable` and `context`: refused now rather than at every firing.
        mirrored_context(payload.get("config"), payload.get("context"))
        if thread_id is None:
            payload.pop("multitask_strategy", None)  # a new thread has nothing to collide with
        cron_id = str(uuid.uuid4())
        user = current_user()
        end_time = _utc(body.end_time)
        value: dict[str, Any] = {
            "cron_id": cron_id,
            "thread_id": thread_id,
            "user_id": user.identity if user is not None else None,
            "schedule": body.schedule,
            "end_time": end_time,
            "payload": payload,
            "metadata": dict(payload.get("metadata") or {}),
        }
        auth_filter = await self._auth.authorize("crons", "create", value)
        assistant = await self._assistants.for_run(body.assistant_id)
        if thread_id is not None:
            read_filter = await self._auth.authorize("threads", "read", {"thread_id": thread_id})
            if await self._storage.get_thread(thread_id, read_filter) is None:
                raise NotFound(f"Thread with ID {thread_id} not found")
        metadata = stamped(value.get("metadata"), auth_filter)
        if metadata:
            # The firing's run metadata is made from the payload's: the owner keys too.
            payload["metadata"] = {**(payload.get("metadata") or {}), **metadata}
        # As the Platform shows it: the request as made, its assistant resolved to an id.
        payload["assistant_id"] = assistant["assistant_id"]
        payload["schedule"] = body.schedule
        now = self._clock()
        created = utc_now()
        cron = {
            "cron_id": cron_id,
            "assistant_id": assistant["assistant_id"],
            "thread_id": thread_id,
            "on_run_completed": (body.on_run_completed or "delete") if thread_id is None else None,
            "end_time": end_time,
            "schedule": body.schedule,
            "timezone": body.timezone,
            "created_at": created,
            "updated_at": created,
            "user_id": value["user_id"],
            "payload": payload,
            "next_run_date": timestamp(next_due(body.schedule, body.timezone, now)),
            "metadata": metadata,
            "enabled": True if body.enabled is None else body.enabled,
            "user": user.to_json() if user is not None else None,
        }
        return public_cron(await self._crons.create_cron(cron))

    # -- reading ---------------------------------------------------------------------------
    async def get(self, cron_id: str) -> dict[str, Any]:
        check_uuid(cron_id, "cron ID")
        auth_filter = await self._auth.authorize("crons", "read", {"cron_id": cron_id})
        cron = await self._crons.get_cron(cron_id, auth_filter)
        if cron is None:
            raise NotFound(f"Cron with ID {cron_id} not found")
        return public_cron(cron)

    def _resolved_filters(
        self, assistant_id: str | None, thread_id: str | None
    ) -> tuple[str | None, str | None]:
        if thread_id is not None:
            check_uuid(thread_id, "thread ID")
        resolved = None if assistant_id is None else self._assistants.resolve_id(assistant_id)
        return resolved, thread_id

    async def search(
        self,
        *,
        assistant_id: str | None,
        thread_id: str | None,
        enabled: bool | None,
        metadata: dict[str, Any] | None,
        limit: int,
        offset: int,
        sort_by: str,
        sort_order: SortOrder,
    ) -> list[dict[str, Any]]:
        assistant_id, thread_id = self._resolved_filters(assistant_id, thread_id)
        value = {
            "assistant_id": assistant_id,
            "thread_id": thread_id,
            "limit": limit,
            "offset": offset,
        }
        auth_filter = await self._auth.authorize("crons", "search", value)
        found = await self._crons.search_crons(
            assistant_id=assistant_id,
            thread_id=thread_id,
            enabled=enabled,
            metadata=metadata,
            limit=limit,
            offset=offset,
            sort_by=sort_by,
            sort_order=sort_order,
            auth_filter=auth_filter,
        )
        return [public_cron(cron) for cron in found]

    async def count(self, body: CronCount) -> int:
        assistant_id, thread_id = self._resolved_filters(body.assistant_id, body.thread_id)
        value = {"assistant_id": assistant_id, "thread_id": thread_id}
        auth_filter = await self._auth.authorize("crons", "search", value)
        return await self._crons.count_crons(
            assistant_id=assistant_id,
            thread_id=thread_id,
            metadata=body.metadata,
            auth_filter=auth_filter,
        )

    # -- changing --------------------------------------------------------------------------
    async def patch(self, cron_id: str, body: CronPatch) -> dict[str, Any]:
        """Change the fields the body sets. A new schedule or timezone, or enabling a
        disabled cron, counts the next due time from now, so a change never fires at once
        for a time that passed while it was off."""
        check_uuid(cron_id, "cron ID")
        sent = body.model_fields_set
        if not sent:
            raise BadRequest("Request body cannot be empty")
        if body.schedule is not None:
            check_schedule(body.schedule)
        if "timezone" in sent:
            check_timezone(body.timezone)
        if body.webhook is not None:
            await self._webhooks.check(body.webhook)
        run_changes = {
            field: value
            for field, value in body.run_payload().items()
            if field in sent and field != "metadata"
        }
        value: dict[str, Any] = {
            "cron_id": cron_id,
            "payload": run_changes,
            "schedule": body.schedule,
            "metadata": dict(body.metadata or {}),
        }
        auth_filter = await self._auth.authorize("crons", "update", value)
        current = await self._crons.get_cron(cron_id, auth_filter)
        if current is None:
            raise NotFound(f"Cron with ID {cron_id} not found")
        changes: dict[str, Any] = {}
        payload = {**current["payload"], **run_changes}
        if body.schedule is not None and "schedule" in payload:
            payload["schedule"] = body.schedule
        if body.metadata is not None:
            metadata = stamped(value.get("metadata"), auth_filter)
            changes["metadata"] = metadata
            payload["metadata"] = {**(payload.get("metadata") or {}), **metadata}
        if payload != current["payload"]:
            changes["payload"] = payload
        if body.schedule is not None:
            changes["schedule"] = body.schedule
        if "timezone" in sent:
            changes["timezone"] = body.timezone
        if "end_time" in sent:
            changes["end_time"] = _utc(body.end_time)
        if body.enabled is not None:
            changes["enabled"] = body.enabled
        if body.on_run_completed is not None and current["thread_id"] is None:
            changes["on_run_completed"] = body.on_run_completed
        rescheduled = "schedule" in changes or "timezone" in changes
        if rescheduled or (body.enabled and not current["enabled"]):
            changes["next_run_date"] = timestamp(
                next_due(
                    changes.get("schedule", current["schedule"]),
                    changes.get("timezone", current["timezone"]),
                    self._clock(),
                )
            )
        updated = await self._crons.update_cron(cron_id, changes, auth_filter)
        if updated is None:
            raise NotFound(f"Cron with ID {cron_id} not found")
        return public_cron(updated)

    async def delete(self, cron_id: str) -> None:
        check_uuid(cron_id, "cron ID")
        auth_filter = await self._auth.authorize("crons", "delete", {"cron_id": cron_id})
        if not await self._crons.delete_cron(cron_id, auth_filter):
            raise NotFound(f"Cron with ID {cron_id} not found")

    # -- firing ----------------------------------------------------------------------------
    async def fire(self, cron: dict[str, Any]) -> dict[str, Any] | None:
        """Create the run of one firing, as the cron's user; returns it, or None when the
        run could not be made (logged: a firing has no client to answer)."""
        payload = dict(cron["payload"])
        payload["metadata"] = {**cron["metadata"], **(payload.get("metadata") or {})}
        if cron["thread_id"] is None:
            payload["on_completion"] = cron["on_run_completed"] or "delete"
        user = AuthUser.from_json(cron["user"]) if cron.get("user") else None
        try:
            request = RunCreate.model_validate({k: v for k, v in payload.items() if v is not None})
            with acting_as(user):
                return await self._runs.create(cron["thread_id"], request, cron_id=cron["cron_id"])
        except NotFound as exc:
            if (
                cron["thread_id"] is not None
                and await self._storage.get_thread(cron["thread_id"]) is None
            ):
                # Its thread is gone: the cron could never fire again.
                await self._crons.delete_cron(cron["cron_id"])
                logger.warning("cron %s deleted: its thread is gone", cron["cron_id"])
            else:
                logger.warning("cron %s did not fire: %s", cron["cron_id"], exc.detail)
        except (OLGError, ValidationError) as exc:
            logger.warning("cron %s did not fire: %s", cron["cron_id"], exc)
        return None
