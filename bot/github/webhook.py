"""POST /github/webhook: verify, read, persist, answer; the work itself happens in the GitHub worker.

Order matters: the signature is checked over the raw body before anything is parsed, and a delivery is stored
before we answer 202, so GitHub's "delivered" always means "will be processed", across restarts too. The
deliveries table opens when the service starts (in the KB folder, before the KB itself has loaded), so deliveries
are accepted while the KB loads and processed once it is ready. A signed delivery that cannot be read is stored as
failed with the reason and answered 400.
"""
from __future__ import annotations

import logging
from pathlib import Path

from fastapi import APIRouter, FastAPI, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse

from bot.github.api import GitHubClient
from bot.github.deliveries import DeliveryStore
from bot.github.events import BadPayload, read_event
from bot.github.process import Processor
from bot.github.signature import signature_ok
from bot.service.errors import ServiceError, error_responses
from bot.service.jsonbody import parse_json
from bot.service.logs import request_id_var
from bot.service.state import ServiceState
from bot.service.worker import Worker

log = logging.getLogger(__name__)


class GitHubSurface:
    def __init__(self, state: ServiceState, kb_dir: Path | None = None):
        """`kb_dir`: the KB folder when the caller already knows it (else the one `triage serve` would open)."""
        self.state = state
        self.kb_dir = kb_dir
        self.worker = Worker("github")
        self.deliveries: DeliveryStore | None = None
        self.processor: Processor | None = None
        self._said_unconfigured = False
        self.router = APIRouter()
        self.router.add_api_route(
            "/github/webhook", self.webhook, methods=["POST"], status_code=202, tags=["github"],
            summary="GitHub webhook (issues, issue_comment, ping); signed with TRIAGE_GITHUB_WEBHOOK_SECRET",
            responses=error_responses(400, 401, 413, 503),
        )

    def start(self, app: FastAPI) -> None:
        """Open the deliveries table in the KB folder and queue what a previous run accepted but did not finish
        (the worker waits for the KB before processing anything)."""
        self.worker.start()
        settings = self.state.settings
        try:
            folder = self.kb_dir
            if folder is None:
                from bot.cli import kb_folder

                folder = kb_folder(settings, settings.kb)
            self.deliveries = DeliveryStore(folder)
        except Exception as exc:  # noqa: BLE001 - the route says 503; the rest of the service runs on
            log.error("GitHub webhooks are unavailable: the deliveries table did not open: %s", exc)
            return
        self.processor = Processor(self.state, GitHubClient(settings), self.deliveries, retry_later=self._retry_later)
        token = settings.github_token
        if settings.github_webhook_secret and not (token and token.get_secret_value()):
            log.warning("TRIAGE_GITHUB_TOKEN is not set: webhooks are accepted but comments will fail")
        for delivery_id, wait in self.deliveries.unfinished():
            self.worker.submit_later(wait, self._resume, delivery_id)

    def stop(self, app: FastAPI) -> None:
        self.worker.stop()
        if self.processor is not None:
            self.processor.client.close()
        if self.deliveries is not None:
            self.deliveries.close()

    def _resume(self, delivery_id: str) -> None:
        token = request_id_var.set(delivery_id)
        try:
            log.info("resuming delivery %s accepted before the last stop", delivery_id)
            self.processor.run(delivery_id)
        finally:
            request_id_var.reset(token)

    def _retry_later(self, delivery_id: str, delay: float) -> None:
        self.worker.submit_later(delay, self.processor.run, delivery_id)

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
            log.warning("webhook refused: X-Hub-Signature-256 missing or wrong (delivery %r)",
                        request.headers.get("x-github-delivery", "?")[:64])
            raise ServiceError(401, "bad_signature", "X-Hub-Signature-256 is missing or does not match the secret.")
        event = request.headers.get("x-github-event", "")
        delivery_id = request.headers.get("x-github-delivery", "")
        if not event or not delivery_id or len(delivery_id) > 100 or len(event) > 100:
            raise ServiceError(400, "bad_request", "X-GitHub-Event and X-GitHub-Delivery headers are required.")
        try:
            payload = read_body(body)
            if event == "ping":
                hook_id = payload.get("hook_id") if isinstance(payload, dict) else None
                return JSONResponse({"ok": True, "status": "pong", "hook_id": hook_id})
            work = read_event(event, payload, self.state.settings.feedback_roles(),
                              self.processor.known_login if self.processor else None)
        except BadPayload as exc:
            await self._reject(delivery_id, event, body, str(exc))
            raise ServiceError(400, "bad_request", f"The delivery cannot be read: {exc}.") from None
        if isinstance(work, str):
            return JSONResponse({"ok": True, "status": "ignored", "reason": work})
        if self.deliveries is None:  # the deliveries table did not open at start (the log says why)
            raise ServiceError(503, "unavailable",
                               "GitHub webhooks are unavailable: the deliveries table did not open (see the log).")
        outcome = await run_in_threadpool(self.deliveries.accept, delivery_id, event, body.decode("utf-8"))
        if outcome == "duplicate":
            return JSONResponse({"ok": True, "status": "duplicate", "delivery": delivery_id})
        self.worker.submit(self.processor.run, delivery_id)
        log.info("%s delivery %s: %s %s#%d", outcome, delivery_id, event, work.repo, work.number)
        return JSONResponse({"ok": True, "status": outcome, "delivery": delivery_id}, status_code=202)

    async def _reject(self, delivery_id: str, event: str, body: bytes, reason: str) -> None:
        log.warning("delivery %s (%s) cannot be read: %s", delivery_id, event, reason)
        if self.deliveries is not None:
            await run_in_threadpool(self.deliveries.reject, delivery_id, event,
                                    body.decode("utf-8", errors="replace"), f"cannot be read: {reason}")


def read_body(body: bytes) -> object:
    """The JSON value of a delivery's body, or BadPayload saying in one line why it cannot be read."""
    return parse_json(body, BadPayload)
