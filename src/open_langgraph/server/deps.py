"""The services a request handler needs, reached through one `Annotated` dependency."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request

from open_langgraph.runtime.dispatch import RunDispatcher
from open_langgraph.services.a2a import A2AService
from open_langgraph.services.assistants import AssistantService
from open_langgraph.services.crons import CronService
from open_langgraph.services.generative_ui import GenerativeUiService
from open_langgraph.services.protocol_commands import ProtocolCommands
from open_langgraph.services.protocol_stream import ProtocolStreams
from open_langgraph.services.runs import RunService
from open_langgraph.services.store import StoreService
from open_langgraph.services.thread_stream import ThreadStreams
from open_langgraph.services.threads import ThreadService


@dataclass(frozen=True, slots=True)
class Services:
    assistants: AssistantService
    threads: ThreadService
    runs: RunService
    dispatcher: RunDispatcher
    thread_streams: ThreadStreams
    a2a: A2AService
    crons: CronService
    store: StoreService
    protocol_commands: ProtocolCommands
    protocol_streams: ProtocolStreams
    generative_ui: GenerativeUiService


async def _services(request: Request) -> Services:
    return request.app.state.services


ServicesDep = Annotated[Services, Depends(_services)]
