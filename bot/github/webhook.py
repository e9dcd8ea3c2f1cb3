"""POST /github/webhook: verify, read, persist, answer; the work itself happens in the GitHub worker.

Order matters: the signature is checked over the raw body before anything is parsed, and a delivery is stored
before we answer 202, so GitHub's "delivered" always means "will be processed", across restarts and by whichever
replica gets to it first. The deliveries table opens when the service starts (in the state store: the KB folder's
SQLite file, or the PostgreSQL database of TRIAGE_DATABASE_URL; before the KB itself has loaded), so deliveries
are accepted while the KB loads and processed once it is ready. A signed delivery that cannot be read is stored as
failed with the reason and answered 400.
"""
from __future__ import annotations

import logging
import socket
from pathlib import Path

from fastapi import APIRouter, FastAPI, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse

from bot.github.api import GitHubAppError, GitHubClient
from bot.github.deliveries import DeliveryStore
from bot.github.events import BadPayload, read_event
from bot.github.process import Processor
from bot.github.pump import DeliveryPump
from bot.github.signature import signature_ok
from bot.service.errors import ServiceError, error_responses
from bot.service.jsonbody import parse_json
from bot.service.state import ServiceState
from kb.config import Settings
from kb.errors import KBError
from kb.state import state_for

log = logging.getLogger(__name__)


class GitHubSurface:
    def __init__(self, state: ServiceState, kb_dir: Path | None = None):
        """`kb_dir`: the KB folder when the caller already knows it (else the one `triage serve` would open)."""
        self.state = state
        self.kb_dir = kb_dir
        self.pump: DeliveryPump | None = None
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
        """Open the deliveries table and start the worker, which takes up what was accepted but not finished (here
        or by another replica) once the KB is loaded."""
        settings = self.state.settings
        try:
            folder = self.kb_dir
            if folder is None:
                from bot.compose import kb_folder

                folder = kb_folder(settings, settings.kb)
            self.deliveries = DeliveryStore(state_for(settings, folder))
        except Exception as exc:  # noqa: BLE001 - the route says 503; the rest of the service runs on
            log.error("GitHub webhooks are unavailable: the deliveries table did not open: %s",
                      getattr(exc, "user_message", None) or exc)
            return
        owner = replica_id(settings)
        self.processor = Processor(self.state, GitHubClient(settings), self.deliveries, owner)
        self._say_auth(settings, self.processor.client)
        self.pump = DeliveryPump(self.deliveries, self.processor.run, owner, settings.delivery_lease_s,
                                 wait_ready=lambda: self.state.wait_ready(timeout=None))
        try:
            self.pump.start()
        except Exception as exc:  # noqa: BLE001 - the store went away between opening and now
            log.error("GitHub webhooks are unavailable: %s", getattr(exc, "user_message", None) or exc)
            self.pump = None

    @staticmethod
    def _say_auth(settings: Settings, client: GitHubClient) -> None:
        """One line at start on how the bot will authenticate, and what is wrong with it if anything."""
        token = settings.github_token
        has_token = bool(token and token.get_secret_value())
        if client.app is None:
            if settings.github_webhook_secret and not has_token:
                log.warning("TRIAGE_GITHUB_TOKEN is not set: webhooks are accepted but comments will fail")
            return
        try:
            client.app.check()
        except GitHubAppError as exc:
            log.error("%s; deliveries will fail until it is fixed", exc)
            return
        log.info("GitHub App mode (app %s): each installation's calls use its own installation token%s",
                 client.app.app_id, "; TRIAGE_GITHUB_TOKEN is not used" if has_token else "")

    def stop(self, app: FastAPI) -> None:
        if self.pump is not None:
            self.pump.stop()
        if self.processor is not None:
            self.processor.client.close()
        if self.deliveries is not None:
            self.deliveries.close()

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
        if self.deliveries is None or self.pump is None:  # the store did not open at start (the log says why)
            raise ServiceError(503, "unavailable",
                               "GitHub webhooks are unavailable: the deliveries table did not open (see the log).")
        subject = f"{work.repo.lower()}#{work.number}"
        try:
            outcome = await run_in_threadpool(self.deliveries.accept, delivery_id, event, body.decode("utf-8"),
                                              subject)
        except KBError as exc:  # the database is down: GitHub shows the 503 and can redeliver later
            log.error("delivery %s not stored: %s", delivery_id, exc.user_message)
            raise ServiceError(503, "unavailable", f"The delivery could not be stored: {exc.user_message}") from None
        if outcome == "duplicate":
            return JSONResponse({"ok": True, "status": "duplicate", "delivery": delivery_id})
        self.pump.wake()
        log.info("%s delivery %s: %s %s#%d", outcome, delivery_id, event, work.repo, work.number)
        return JSONResponse({"ok": True, "status": outcome, "delivery": delivery_id}, status_code=202)

    async def _reject(self, delivery_id: str, event: str, body: bytes, reason: str) -> None:
        log.warning("delivery %s (%s) cannot be read: %s", delivery_id, event, reason)
        if self.deliveries is not None:
            try:
                await run_in_threadpool(self.deliveries.reject, delivery_id, event,
                                        body.decode("utf-8", errors="replace"), f"cannot be read: {reason}")
            except KBError as exc:
                log.error("delivery %s: its failure could not be stored: %s", delivery_id, exc.user_message)


def replica_id(settings: Settings) -> str:
    """This replica's name on the deliveries it claims: TRIAGE_REPLICA_ID, else the host name (a pod's name in
    Kubernetes, a container's id in Compose; it stays the same across a container's restarts, so a restarted
    replica takes its own unfinished deliveries back at once)."""
    return (settings.replica_id or "").strip() or socket.gethostname() or "triage-kb"


def read_body(body: bytes) -> object:
    """The JSON value of a delivery's body, or BadPayload saying in one line why it cannot be read."""
    return parse_json(body, BadPayload)
