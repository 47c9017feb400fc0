"""The FastAPI application: storage, graphs and the run manager live for the app's lifespan."""

from __future__ import annotations

import contextlib
import inspect
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastapi import APIRouter, FastAPI
from langgraph_sdk import Auth, Encryption
from starlette.applications import Starlette
from starlette.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp, Receive, Scope, Send

from open_langgraph import __version__
from open_langgraph.auth.authorize import Authorizer
from open_langgraph.config import AppConfig, CorsConfig
from open_langgraph.genui import GenerativeUi
from open_langgraph.http_config import HttpConfig
from open_langgraph.observability import runs as observed_runs
from open_langgraph.observability.access_log import AccessLog
from open_langgraph.observability.http import RequestMetrics
from open_langgraph.observability.metrics import enabled as metrics_enabled
from open_langgraph.readiness import Readiness
from open_langgraph.redact import install_log_redaction
from open_langgraph.runtime.broker import Broker
from open_langgraph.runtime.bus import EventBus
from open_langgraph.runtime.dispatch import LocalDispatcher, RunDispatcher
from open_langgraph.runtime.graphs import GraphRegistry
from open_langgraph.runtime.manager import RunManager
from open_langgraph.runtime.queue_settings import QueueSettings
from open_langgraph.runtime.webhooks import WebhookSender
from open_langgraph.server import custom_app as custom
from open_langgraph.server.auth import AuthMiddleware
from open_langgraph.server.deps import Services
from open_langgraph.server.direct_routes import DirectRoutes
from open_langgraph.server.errors import install_error_handlers
from open_langgraph.server.mcp import McpEndpoint
from open_langgraph.server.mount_prefix import MountPrefix
from open_langgraph.server.request_limits import RequestLimitsMiddleware
from open_langgraph.server.routes import (
    a2a,
    assistants,
    crons,
    genui,
    mcp,
    meta,
    metrics,
    openai,
    runs,
    store,
    thread_protocol,
    threads,
    ui,
)
from open_langgraph.server.security import (
    DEFAULT_CORS,
    HostPolicy,
    OriginPolicy,
    RequestGuard,
)
from open_langgraph.server.warmup import warm_up
from open_langgraph.services.a2a import A2AService
from open_langgraph.services.agent_tools import AgentTools
from open_langgraph.services.assistants import AssistantService
from open_langgraph.services.cron_scheduler import CronScheduler, poll_seconds_from_env
from open_langgraph.services.crons import CronService, cron_storage
from open_langgraph.services.event_retention import EventSweeper
from open_langgraph.services.generative_ui import GenerativeUiService
from open_langgraph.services.protocol_commands import ProtocolCommands
from open_langgraph.services.protocol_stream import ProtocolStreams
from open_langgraph.services.request_headers import serving_headers
from open_langgraph.services.runs import RunService
from open_langgraph.services.store import StoreService
from open_langgraph.services.thread_stream import ThreadStreams
from open_langgraph.services.thread_ttl import ThreadSweeper
from open_langgraph.services.threads import ThreadService
from open_langgraph.storage.backend import database_label, open_storage
from open_langgraph.storage.base import Storage, StoreSettings
from open_langgraph.storage.checkpoint_serde import checkpoint_serializer

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ServerSettings:
    config: AppConfig
    db_path: Path
    max_concurrency: int = 32
    #: A `postgresql://` URL chooses the PostgreSQL backend; None keeps SQLite at `db_path`.
    database_url: str | None = None
    host: str | None = None
    """The address `olg serve` binds; on a loopback one, other `Host` names are refused."""
    auth: Auth | None = None
    """The config's `auth.path` object (`auth/loading.py`); None serves without auth."""
    queue: QueueSettings | None = None
    """Queue mode (PostgreSQL + Redis): runs go through the durable queue."""
    worker_in_process: bool = True
    """In queue mode, whether this process executes queued runs too (not with
    `--workers N`, whose children do, nor with `--api-only`)."""
    store: StoreSettings = field(default_factory=StoreSettings)
    """LangGraph's store as the config's `store` asks (embedder loaded, TTL)."""
    encryption: Encryption | None = None
    """The config's `encryption.path` object (`encryption/loading.py`); None stores
    plaintext."""
    generative_ui: GenerativeUi | None = None
    """The config's `ui` components as built at start-up (`genui/build.py`); None without."""
    custom_app: Starlette | None = None
    """The config's `http.app` (server/custom_app.py, loaded by the CLI); None: none."""


# Headers browser clients (Studio, Agent Chat UI) must be able to read across origins.
EXPOSED_HEADERS = ["x-pagination-next", "content-location", "location"]


def _add_cors(app: FastAPI, cors: CorsConfig | None) -> None:
    """CORS headers for the origins `http.cors` allows (by default LangGraph Studio's)."""
    cors = cors or DEFAULT_CORS
    app.add_middleware(
        CORSMiddleware,
        allow_origins=cors.allow_origins,
        allow_methods=cors.allow_methods,
        allow_headers=cors.allow_headers,
        allow_credentials=cors.allow_credentials,
        expose_headers=cors.expose_headers or EXPOSED_HEADERS,
        max_age=cors.max_age,
        allow_origin_regex=cors.allow_origin_regex,
        # Chrome's Private Network Access: a public page (LangGraph Studio) calling a server
        # on this machine must be told so on the preflight; only allowed origins are.
        allow_private_network=True,
    )


def _serves_thread_protocol(http: HttpConfig) -> bool:
    """The thread protocol starts runs, so `disable_runs` removes it too (as on the
    Platform); `disable_event_streaming` is the Platform's key for it alone."""
    return http.serves("runs") and http.serves("event_streaming")


def info_flags(
    http: HttpConfig | None = None, generative_ui: GenerativeUi | None = None
) -> dict[str, bool]:
    """`/info`'s `flags`: the Platform's keys (`assistants`, `crons`, `langsmith`), then the
    other APIs this server has, each true only when served (`http.disable_*` removes them;
    `ui` is the built-in web UI, `generative_ui` the config's `ui` components)."""
    http = http or HttpConfig()
    return {
        "assistants": http.serves("assistants"),
        "crons": http.serves("runs"),  # the cron routes are part of the runs API
        "langsmith": False,  # no LangSmith control plane behind a self-hosted server
        "store": http.serves("store"),
        "thread_protocol": _serves_thread_protocol(http),
        "mcp": http.serves("mcp"),
        "a2a": http.serves("a2a"),
        "ui": ui.is_built() and http.serves("ui"),
        "generative_ui": generative_ui is not None
        and bool(generative_ui.bundles)
        and http.serves("ui"),
        "metrics": metrics_enabled() and http.serves("meta"),
    }


def _routers(http: HttpConfig) -> tuple[list[APIRouter], list[APIRouter]]:
    """The API's routers, less those `http.disable_*` removes, in the order they match:
    those an `http.app` may not shadow (`/ok`, `/metrics`; FastAPI's `/docs` and
    `/openapi.json` come before all), then the others, which it may."""
    front = [meta.health, *([metrics.router] if http.serves("meta") else [])]
    # Runs and threads first: routing tries each route in turn, and these serve nearly every
    # request (a run is `POST /threads` then `POST /threads/{id}/runs/wait`); matching them
    # after the meta and assistant routes was a twentieth of a run's CPU. No path of theirs
    # is matched by a route of another of these routers (tests/unit/test_route_order.py), so
    # the order among them changes no answer.
    served = [
        (runs.router, http.serves("runs")),
        (threads.router, http.serves("threads")),
        (meta.router, http.serves("meta")),
        (assistants.router, http.serves("assistants")),
        (thread_protocol.router, _serves_thread_protocol(http)),
        (store.router, http.serves("store")),
        (crons.router, http.serves("runs")),
        (mcp.router, http.serves("mcp")),
        (a2a.router, http.serves("a2a")),
        # Before the web UI, which serves the rest of `/ui/...`.
        (genui.router, http.serves("ui")),
        (ui.router, http.serves("ui")),
    ]
    return front, [router for router, on in served if on]


def _fastapi_telemetry_off() -> dict[str, Any]:
    """FastAPI 0.165 and later trace, time and log each request on OpenTelemetry's global
    providers whenever the package is installed, looking the three providers up on every
    request (21 of the 565 Python calls of a bare `GET /ok`). The server's spans and metrics
    have one place, `observability/` (docs/observability.md): a second set of request spans
    under a global provider would only duplicate them."""
    if "telemetry" not in inspect.signature(FastAPI.__init__).parameters:
        return {}
    return {"telemetry": {"tracing": False, "metrics": False, "logs": False}}


class _RequestHeaders:
    """Keeps each request's headers for the services creating its runs
    (`services/request_headers.py`: `http.configurable_headers`)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        with serving_headers(scope.get("headers", ())):
            await self.app(scope, receive, send)


def served_app(app: FastAPI, settings: ServerSettings) -> ASGIApp:
    """What uvicorn serves: `app`, under `http.mount_prefix` when the config sets one."""
    prefix = settings.config.http.mount_prefix
    return app if prefix is None else MountPrefix(app, prefix)


def _add_request_guard(app: FastAPI, settings: ServerSettings) -> None:
    """The guard refusing other origins and misdirected `Host` names (server/security.py).
    Added after CORS, so it runs first: a refused request gets no CORS headers."""
    app.add_middleware(
        RequestGuard,
        hosts=HostPolicy(settings.host, settings.config.hosts.allowed_hosts),
        origins=OriginPolicy.from_cors(settings.config.cors or DEFAULT_CORS),
    )


@contextlib.asynccontextmanager
async def _dispatcher(
    settings: ServerSettings, storage: Storage, graphs: GraphRegistry, webhooks: WebhookSender
) -> AsyncIterator[tuple[RunDispatcher, EventBus | None]]:
    """Queue mode with Redis settings (and a worker in this process unless `--workers`
    started others), else runs executed in this process; with the bus of queue mode."""
    if settings.queue is None:
        yield _local_dispatcher(settings, storage, graphs, webhooks), None
        return
    from open_langgraph.runtime.queue_dispatch import QueueDispatcher
    from open_langgraph.runtime.queue_mode import open_bus, run_queue, running_worker

    assert settings.database_url is not None
    async with open_bus(settings.queue, settings.database_url) as bus:
        dispatcher = QueueDispatcher(
            storage,
            run_queue(storage),
            bus,
            max_queued_events=settings.config.limits.max_queued_events,
            poll_seconds=settings.queue.poll_seconds,
        )
        if not settings.worker_in_process:
            yield dispatcher, bus
            return
        async with running_worker(
            storage,
            bus,
            graphs,
            settings.queue,
            concurrency=settings.max_concurrency,
            webhooks=webhooks,
            run_timeout_seconds=settings.config.limits.run_timeout_seconds,
        ):
            yield dispatcher, bus


def _local_dispatcher(
    settings: ServerSettings, storage: Storage, graphs: GraphRegistry, webhooks: WebhookSender
) -> RunDispatcher:
    """Runs executed in this process, events fanned out in its memory."""
    broker = Broker(settings.config.limits.max_queued_events)
    manager = RunManager(
        storage,
        graphs,
        broker,
        max_concurrency=settings.max_concurrency,
        webhooks=webhooks,
        run_timeout_seconds=settings.config.limits.run_timeout_seconds,
    )
    return LocalDispatcher(storage, manager, broker)


def create_app(settings: ServerSettings, graphs: GraphRegistry) -> FastAPI:
    """Build the app; nothing is opened until the lifespan starts."""

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        install_log_redaction()  # uvicorn has configured its log handlers by now
        async with contextlib.AsyncExitStack() as stack:
            stack.callback(observed_runs.uninstall)  # last out: flushes the runs' traces
            storage = await stack.enter_async_context(
                open_storage(
                    settings.database_url,
                    settings.db_path,
                    settings.store,
                    settings.encryption,
                    serde=checkpoint_serializer(settings.config.checkpointer.serde),
                )
            )
            app.state.storage = storage
            graphs.bind(storage.checkpointer, storage.store)
            webhooks = WebhookSender(settings.config.webhooks)
            dispatcher, bus = await stack.enter_async_context(
                _dispatcher(settings, storage, graphs, webhooks)
            )
            # `GET /ok?check_db=1`: the database, and Redis in queue mode.
            app.state.readiness = Readiness.of(storage, bus)
            authorizer = Authorizer(settings.auth)
            assistant_service = AssistantService(storage, graphs, authorizer)
            await assistant_service.ensure_system_assistants()
            sweeper = ThreadSweeper(storage, dispatcher, settings.config.thread_ttl)
            event_sweeper = EventSweeper(storage, settings.config.limits)
            thread_service = ThreadService(
                storage, graphs, dispatcher, settings.config.thread_ttl, authorizer
            )
            run_service = RunService(
                storage,
                graphs,
                dispatcher,
                assistant_service,
                settings.config.default_config,
                webhooks,
                settings.config.thread_ttl,
                authorizer,
                settings.config.http.configurable_headers,
            )
            cron_service = CronService(
                storage, assistant_service, run_service, webhooks, authorizer
            )
            cron_scheduler = CronScheduler(
                cron_storage(storage), cron_service.fire, poll_seconds=poll_seconds_from_env()
            )
            thread_streams = ThreadStreams(storage, dispatcher, authorizer)
            app.state.services = Services(
                assistants=assistant_service,
                threads=thread_service,
                runs=run_service,
                dispatcher=dispatcher,
                thread_streams=thread_streams,
                a2a=A2AService(assistant_service, thread_service, run_service),
                crons=cron_service,
                store=StoreService(storage.store, authorizer, settings.store.index_off),
                protocol_commands=ProtocolCommands(run_service, thread_service),
                protocol_streams=ProtocolStreams(storage, thread_streams),
                generative_ui=GenerativeUiService(settings.generative_ui, assistant_service),
            )
            app.state.mcp = McpEndpoint(AgentTools(assistant_service, run_service))
            await dispatcher.recover()
            sweeper.start()
            event_sweeper.start()
            cron_scheduler.start()
            await warm_up(app.router.routes, serves_files=ui.is_built() and http.serves("ui"))
            logger.info(
                "serving graphs %s from %s",
                graphs.graph_ids,
                database_label(settings.database_url, settings.db_path),
            )
            try:
                # The custom app's lifespan runs inside ours: up once our services are,
                # down before them; a state it yields reaches `request.state`.
                async with custom.custom_lifespan(settings.custom_app) as state:
                    yield state
            finally:
                await cron_scheduler.stop()
                await sweeper.stop()
                await event_sweeper.stop()
                await dispatcher.shutdown()
                await webhooks.aclose()

    http = settings.config.http
    docs = {} if http.serves("meta") else {"openapi_url": None, "docs_url": None, "redoc_url": None}
    app = FastAPI(
        title="Open LangGraph",
        version=__version__,
        description="The LangGraph Platform API, self-hosted.",
        lifespan=lifespan,
        **docs,
        **_fastapi_telemetry_off(),
    )
    user_app = settings.custom_app
    if user_app is not None:
        # The custom app's routes see the server's `app.state` as their own.
        app.state = user_app.state
    # FastAPI's own routes (`/openapi.json`, `/docs`) are tried before the API's.
    fastapi_routes = list(app.router.routes)
    front, rest = _routers(http)
    for router in front:
        app.include_router(router)
    # The custom app's routes come next, before the API's others, as on the Platform.
    custom_routes = None if user_app is None else custom.add_routes(app, user_app)
    for router in rest:
        app.include_router(router)
    # OpenAI's API on the embedded models, for projects that name hosted models (issue 32).
    openai.install(app, settings.config.models.aliases)
    # The routes FastAPI tries first, in its order: a custom app's routes may shadow those
    # after `front`, so they are left to FastAPI then.
    routed = [*front, *(rest if user_app is None else ())]
    app.router.middleware_stack = DirectRoutes(
        app.router.middleware_stack,
        [*fastapi_routes, *(route for router in routed for route in router.routes)],
        app.router,
    )
    app.add_middleware(_RequestHeaders)
    if user_app is not None and http.middleware_order == "auth_first":
        custom.add_custom_middleware(app, user_app)
    if settings.encryption is not None:
        from open_langgraph.server.encryption_context import EncryptionContextMiddleware

        # Inside auth: an `@encryption.context` handler derives the context from the user.
        app.add_middleware(EncryptionContextMiddleware, encryption=settings.encryption)
    if settings.auth is not None:
        # Inside all but encryption's: a 401 still carries CORS headers, a body read for the
        # handler is bounded.
        unauthenticated = (
            custom_routes.serves
            if custom_routes is not None and not http.enable_custom_route_auth
            else None
        )
        app.add_middleware(AuthMiddleware, auth=settings.auth, unauthenticated=unauthenticated)
    # Inside CORS, so a 413 still carries CORS headers a browser client can read.
    app.add_middleware(RequestLimitsMiddleware, limits=settings.config.limits)
    _add_cors(app, settings.config.cors)
    if user_app is not None and http.middleware_order == "middleware_first":
        # Before authentication and CORS, as on the Platform; after the request guard.
        custom.add_custom_middleware(app, user_app)
    _add_request_guard(app, settings)
    # Tracers are opened before the app is built, so that the request spans' middleware
    # exists only when OpenTelemetry is configured (nothing is imported otherwise).
    observed_runs.install()
    if (otel := observed_runs.otel_tracing()) is not None:
        from open_langgraph.observability.otel import RequestSpans

        app.add_middleware(RequestSpans, tracing=otel)
    app.add_middleware(AccessLog, headers=http.logging_headers)
    if metrics_enabled():
        # Outermost: every request is counted and timed, refused ones too.
        app.add_middleware(RequestMetrics)
    install_error_handlers(app, postgres=settings.database_url is not None)
    if user_app is not None:
        custom.add_custom_exception_handlers(app, user_app)
    app.state.info_flags = info_flags(http, settings.generative_ui)
    app.state.generative_ui = settings.generative_ui
    return app
