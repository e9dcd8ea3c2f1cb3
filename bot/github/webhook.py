"""POST /github/webhook: verify, read, persist, answer; the work itself happens in the GitHub worker.

Order matters: the signature is checked over the raw body before anything is parsed, and a delivery is stored
before we answer 202, so GitHub's "delivered" always means "will be processed", across restarts too.
"""
from __future__ import annotations

import json
import logging

from fastapi import APIRouter, FastAPI, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse

from bot.github.api import GitHubClient
from bot.github.deliveries import DeliveryStore
from bot.github.events import read_event
from bot.github.process import Processor
from bot.github.signature import signature_ok
from bot.service.errors import NotReady, ServiceError
from bot.service.logs import request_id_var
from bot.service.state import ServiceState
from bot.service.worker import Worker

log = logging.getLogger(__name__)


class GitHubSurface:
    def __init__(self, state: ServiceState):
        self.state = state
        self.worker = Worker("github")
        self.deliveries: DeliveryStore | None = None
        self.processor: Processor | None = None
        self._said_unconfigured = False
        self.router = APIRouter()
        self.router.add_api_route(
            "/github/webhook", self.webhook, methods=["POST"], status_code=202, tags=["github"],
            summary="GitHub webhook (issues, issue_comment, ping); signed with TRIAGE_GITHUB_WEBHOOK_SECRET",
        )
        state.ready_hooks.append(self._on_ready)

    def start(self, app: FastAPI) -> None:
        self.worker.start()

    def stop(self, app: FastAPI) -> None:
        self.worker.stop()
        if self.processor is not None:
            self.processor.client.close()
        if self.deliveries is not None:
            self.deliveries.close()

    def _on_ready(self, state: ServiceState) -> None:
        """Open the deliveries table in the KB folder and queue what a previous run accepted but did not finish.

        Runs before the service reports ready, so no webhook is accepted yet: the unfinished list is exactly what
        the last run left, and the route never sees a half-built surface.
        """
        deliveries = DeliveryStore(state.kb.path)
        self.processor = Processor(state, GitHubClient(state.settings), deliveries)
        self.deliveries = deliveries
        token = state.settings.github_token
        if state.settings.github_webhook_secret and not (token and token.get_secret_value()):
            log.warning("TRIAGE_GITHUB_TOKEN is not set: webhooks are accepted but comments will fail")
        unfinished = deliveries.unfinished()
        if unfinished:
            self.worker.submit(self._resume, unfinished)

    def _resume(self, delivery_ids: list[str]) -> None:
        self.state.wait_ready()  # queued by the ready hook, which runs just before the service is ready
        for delivery_id in delivery_ids:
            token = request_id_var.set(delivery_id)
            try:
                log.info("resuming delivery %s accepted before the last stop", delivery_id)
                self.processor.run(delivery_id)
            finally:
                request_id_var.reset(token)

    def _secret(self) -> bytes:
        secret = self.state.settings.github_webhook_secret
        value = secret.get_secret_value() if secret is not None else ""
        if not value:
            if not self._said_unconfigured:
                log.error("refusing GitHub webhooks: TRIAGE_GITHUB_WEBHOOK_SECRET is not set")
                self._said_unconfigured = True
            raise ServiceError(503, "webhook_not_configured",
                               "GitHub webhooks are off: set TRIAGE_GITHUB_WEBHOOK_SECRET on the service.")
        return value.encode()

    async def webhook(self, request: Request) -> JSONResponse:
        secret = self._secret()
        body = await request.body()
        if not signature_ok(secret, body, request.headers.get("x-hub-signature-256")):
            log.warning("webhook refused: X-Hub-Signature-256 missing or wrong (delivery %s)",
                        request.headers.get("x-github-delivery", "?")[:64])
            raise ServiceError(401, "bad_signature", "X-Hub-Signature-256 is missing or does not match the secret.")
        event = request.headers.get("x-github-event", "")
        delivery_id = request.headers.get("x-github-delivery", "")
        if not event or not delivery_id or len(delivery_id) > 100:
            raise ServiceError(400, "bad_request", "X-GitHub-Event and X-GitHub-Delivery headers are required.")
        try:
            payload = json.loads(body)
        except ValueError:
            raise ServiceError(400, "bad_request", "The body is not JSON (set the webhook's content type to "
                                                   "application/json).") from None
        if event == "ping":
            return JSONResponse({"ok": True, "status": "pong", "hook_id": payload.get("hook_id")})
        work = read_event(event, payload if isinstance(payload, dict) else {})
        if isinstance(work, str):
            return JSONResponse({"ok": True, "status": "ignored", "reason": work})
        self.state.require_ready()
        if self.deliveries is None:  # the ready hook failed to open the deliveries table (the log says why)
            raise NotReady("GitHub webhooks are unavailable: the deliveries table did not open (see the service log).")
        if not await run_in_threadpool(self.deliveries.accept, delivery_id, event, body):
            return JSONResponse({"ok": True, "status": "duplicate", "delivery": delivery_id})
        self.worker.submit(self.processor.run, delivery_id)
        log.info("accepted delivery %s: %s %s#%d", delivery_id, event, work.repo, work.number)
        return JSONResponse({"ok": True, "status": "accepted", "delivery": delivery_id}, status_code=202)
