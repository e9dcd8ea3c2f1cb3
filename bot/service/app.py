"""create_app(settings, kb=None): the one ASGI app `triage serve` runs.

The KB loads in a thread during startup, so the port answers at once and /healthz says 503 until it is ready
(orchestrators wait on that). Surfaces add their routes here; each keeps its own state beside `app.state.triage`.
"""
from __future__ import annotations

import asyncio
import logging
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from fastapi import FastAPI

from bot.service.errors import install_error_handlers
from bot.service.limits import BodyLimitMiddleware, RequestContextMiddleware
from bot.service.routes import router as api_router
from bot.service.state import ServiceState
from kb.config import Settings

if TYPE_CHECKING:
    from kb.index.hybrid import KnowledgeBase

log = logging.getLogger(__name__)


def create_app(settings: Settings, kb: KnowledgeBase | None = None, workers: int | None = None) -> FastAPI:
    """`workers`: diagnosis worker processes (bot.service.pool); default TRIAGE_WORKERS, else 0 (diagnoses in this
    process, one at a time). `triage serve` defaults to one per core."""
    if workers is None:
        workers = settings.workers or 0
    state = ServiceState(settings=settings, workers=workers)
    # A surface is an object with a `router` and `start(app)` / `stop(app)`, called around the app's life (after
    # start, the KB loads; add a `state.ready_hooks` entry for work that needs it).
    surfaces = []

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        for surface in surfaces:
            surface.start(app)
        loading = asyncio.get_running_loop().run_in_executor(None, state.load, kb)
        try:
            yield
        finally:
            state.stop()
            for surface in reversed(surfaces):
                surface.stop(app)
            state.close()
            if not loading.done():
                log.info("shutting down while the knowledge base is still loading")

    app = FastAPI(title="triage-kb", version=_version(), lifespan=lifespan,
                  description="Diagnose large-model training failures against a knowledge base of postmortems.")
    app.state.triage = state
    install_error_handlers(app)
    app.add_middleware(BodyLimitMiddleware, max_bytes=settings.max_request_bytes)
    app.add_middleware(RequestContextMiddleware)  # added last: outermost, so even a 413 carries the request id
    app.include_router(api_router)

    from bot.github.webhook import GitHubSurface

    github = GitHubSurface(state, kb_dir=kb.path if kb is not None else None)
    surfaces.append(github)
    app.include_router(github.router)

    from bot.slack.surface import SlackSurface

    slack = SlackSurface(state, kb_dir=kb.path if kb is not None else None)
    surfaces.append(slack)
    app.include_router(slack.router)

    return app


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("triage-kb")
    except PackageNotFoundError:
        return "0.0.0"
