"""POST /slack/events on the service: slash commands, events and interactivity all arrive here.

Bolt checks the signature (X-Slack-Signature over `v0:{timestamp}:{body}`, timestamps older than 5 minutes
refused) before anything else; its dispatch runs in a worker thread, so the event loop never waits on a listener
or on the first request's auth.test.
"""
from __future__ import annotations

import logging

from fastapi import APIRouter, FastAPI, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response
from slack_bolt.adapter.starlette.handler import to_bolt_request, to_starlette_response

from bot.service.errors import ServiceError
from bot.service.state import ServiceState
from bot.slack.app import SlackBot, create_slack_bot
from bot.slack.handlers import Verifier
from kb.errors import ConfigError

log = logging.getLogger(__name__)


class SlackSurface:
    def __init__(self, state: ServiceState, verify: Verifier | None = None):
        self.state = state
        self.off_reason: str | None = None
        self.bot: SlackBot | None = None
        try:
            self.bot = create_slack_bot(state.settings, state, verify)
        except ConfigError as exc:
            self.off_reason = exc.user_message
        self.router = APIRouter()
        self.router.add_api_route(
            "/slack/events", self.events, methods=["POST"], tags=["slack"],
            summary="Slack slash commands, events and interactivity; signed with TRIAGE_SLACK_SIGNING_SECRET",
        )

    def start(self, app: FastAPI) -> None:
        if self.off_reason:
            log.info("%s", self.off_reason)

    def stop(self, app: FastAPI) -> None:
        if self.bot is not None:
            self.bot.close()

    async def events(self, request: Request) -> Response:
        if self.bot is None:
            raise ServiceError(503, "slack_not_configured", self.off_reason or "The Slack bot is off.")
        body = await request.body()
        response = await run_in_threadpool(self.bot.app.dispatch, to_bolt_request(request, body))
        if response.status == 401:
            log.warning("Slack request refused: bad or missing signature, or a stale timestamp")
            raise ServiceError(401, "bad_signature", "X-Slack-Signature is missing or wrong, or the request is "
                                                     "older than 5 minutes.")
        return to_starlette_response(response)
