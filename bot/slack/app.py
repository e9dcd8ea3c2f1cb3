"""The Bolt app: Slack's request checks, the Web API client, and our listeners.

Lazy listeners with `process_before_response=True`: each request's ack function runs in the request's own thread
and Bolt answers Slack as soon as it returns (never waiting for a free listener thread, nor for the diagnosis lock);
the work itself (diagnosis, Web API calls) runs afterwards in Bolt's listener pool.
"""
from __future__ import annotations

import contextvars
import logging
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from slack_bolt import App
from slack_sdk import WebClient

from bot.slack.handlers import Handlers, Verifier
from bot.slack.verify import repro_verifier
from kb.config import Settings
from kb.errors import ConfigError

log = logging.getLogger(__name__)

LISTENER_THREADS = 4
RESPONSE_TYPES = ("in_channel", "ephemeral")


class _ContextExecutor(ThreadPoolExecutor):
    """Runs each job in the context it was submitted from, so log lines keep the request id."""

    def submit(self, fn, /, *args, **kwargs):
        return super().submit(contextvars.copy_context().run, fn, *args, **kwargs)


def secret(value) -> str:
    return value.get_secret_value() if value is not None else ""


def check_settings(settings: Settings, socket: bool = False) -> None:
    """Raise ConfigError naming what is missing: the bot token always, then the signing secret (HTTP) or the
    app-level token (Socket Mode)."""
    missing = [] if secret(settings.slack_bot_token) else ["TRIAGE_SLACK_BOT_TOKEN"]
    if socket and not secret(settings.slack_app_token):
        missing.append("TRIAGE_SLACK_APP_TOKEN")
    if not socket and not secret(settings.slack_signing_secret):
        missing.append("TRIAGE_SLACK_SIGNING_SECRET")
    if missing:
        raise ConfigError(f"The Slack bot is off: set {' and '.join(missing)}.")
    if settings.slack_response_type not in RESPONSE_TYPES:
        raise ConfigError(f"TRIAGE_SLACK_RESPONSE_TYPE must be one of {', '.join(RESPONSE_TYPES)}, "
                          f"not {settings.slack_response_type!r}.")


@dataclass
class SlackBot:
    app: App
    handlers: Handlers

    def close(self) -> None:
        self.app.listener_runner.listener_executor.shutdown(wait=False, cancel_futures=True)
        self.handlers.close()


def create_slack_bot(settings: Settings, state, verify: Verifier | None = None, socket: bool = False) -> SlackBot:
    """A Bolt app answering from `state` (a bot.service.state.ServiceState: diagnose(), record_feedback(), kb).

    `verify` runs `--verify` requests; the default runs the top entry's recipe with the repro-runner.
    """
    check_settings(settings, socket)
    client = WebClient(token=secret(settings.slack_bot_token), base_url=settings.slack_api_url, logger=log)
    app = App(
        name="triage-kb",
        client=client,
        # Socket Mode has no HTTP request to sign; Bolt skips the check there. Over HTTP it is always on.
        signing_secret=secret(settings.slack_signing_secret),
        # auth.test is called on the first verified request instead of at startup, so the service starts offline.
        token_verification_enabled=False,
        process_before_response=True,
        listener_executor=_ContextExecutor(max_workers=LISTENER_THREADS, thread_name_prefix="slack"),
        logger=log,
    )
    handlers = Handlers(state, verify or repro_verifier(state))
    handlers.register(app)

    @app.error
    def _unhandled(error, body, logger):
        # Listeners catch what they can tell the user about; this is for the rest (never shown in a channel).
        logger.error("Slack listener failed: %s: %s (payload type %s)", type(error).__name__, error,
                     (body or {}).get("type"))

    return SlackBot(app, handlers)
