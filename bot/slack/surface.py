"""POST /slack/events on the service: slash commands, events and interactivity all arrive here.

Before Bolt sees a request, the route checks it: a timestamp that is a number, Slack's signature
(X-Slack-Signature over `v0:{timestamp}:{body}`, timestamps older than 5 minutes refused), a body it can read
(`payload=` JSON, event JSON), and that it is not a request already handled (slash commands by trigger_id,
actions by action_ts and user, events by event_id). Bolt then acks in this thread (lazy listeners: the work runs
later in its pool), so the answer reaches Slack well within its 3 seconds whatever else the bot is doing.
"""
from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from pathlib import Path
from urllib.parse import parse_qs

from fastapi import APIRouter, FastAPI, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response
from slack_bolt.adapter.starlette.handler import to_bolt_request, to_starlette_response
from slack_sdk.signature import SignatureVerifier

from bot.service.errors import ServiceError, error_responses
from bot.service.jsonbody import has_lone_surrogate, parse_json
from bot.service.state import ServiceState
from bot.slack.app import SlackBot, create_slack_bot, secret
from bot.slack.handlers import Verifier
from kb.errors import ConfigError
from kb.state import StateDB, first_line, state_for

log = logging.getLogger(__name__)

# A request is refused when older than 5 minutes, so remembering what was handled for longer than that suffices.
SEEN_FOR_S = 10 * 60
SEEN_MAX = 100_000


_SEEN_SCHEMA = """
CREATE TABLE IF NOT EXISTS slack_seen (
    key TEXT PRIMARY KEY,          -- command:<trigger_id>, action:<action_ts>:<user>, event:<event_id>
    seen_at {real} NOT NULL
)
"""


class SeenRequests:
    """Keys of requests already handled, each kept SEEN_FOR_S seconds (and at most SEEN_MAX of them in memory).

    With a state store (`db`: the KB folder's SQLite file, or the PostgreSQL database replicas share) the keys are
    kept there too, so a request replayed to another replica behind the same load balancer is refused as well.
    """

    def __init__(self, keep_s: float = SEEN_FOR_S, max_keys: int = SEEN_MAX, db: StateDB | None = None):
        self.keep_s, self.max_keys = keep_s, max_keys
        self._seen: OrderedDict[str, float] = OrderedDict()
        self._lock = threading.Lock()
        self.db = db
        self._purged_at = 0.0
        if db is not None:
            db.ensure(lambda tx: tx.script(db.schema(_SEEN_SCHEMA)))

    def first_time(self, key: str) -> bool:
        """True the first time `key` is offered (and remembers it); False for a repeat."""
        now = time.monotonic()
        with self._lock:
            while self._seen and (next(iter(self._seen.values())) < now - self.keep_s
                                  or len(self._seen) >= self.max_keys):
                self._seen.popitem(last=False)
            if key in self._seen:
                return False
            self._seen[key] = now
        if self.db is None:
            return True
        try:
            return self._first_in_store(key)
        except Exception as exc:  # noqa: BLE001 - the store went away: this replica's memory still refuses replays
            log.warning("Slack replay check fell back to this replica's memory: %s",
                        getattr(exc, "user_message", None) or first_line(exc))
            return True

    def _first_in_store(self, key: str) -> bool:
        now = time.time()
        with self.db.transaction(write=True) as tx:
            if now - self._purged_at > self.keep_s / 10:
                tx.execute("DELETE FROM slack_seen WHERE seen_at < ?", (now - self.keep_s,))
                self._purged_at = now
            cur = tx.execute("INSERT INTO slack_seen (key, seen_at) VALUES (?, ?) ON CONFLICT (key) DO NOTHING",
                             (key, now))
            return cur.rowcount == 1


class SlackSurface:
    def __init__(self, state: ServiceState, verify: Verifier | None = None, kb_dir: Path | None = None):
        """`kb_dir`: the KB folder when the caller already knows it (else the one `triage serve` would open); its
        state store keeps the keys of handled requests for every replica."""
        self.state = state
        self.off_reason: str | None = None
        self.bot: SlackBot | None = None
        self.seen = SeenRequests()
        try:
            self.bot = create_slack_bot(state.settings, state, verify)
        except ConfigError as exc:
            self.off_reason = exc.user_message
        self.kb_dir = kb_dir
        self.router = APIRouter()
        self.router.add_api_route(
            "/slack/events", self.events, methods=["POST"], tags=["slack"],
            summary="Slack slash commands, events and interactivity; signed with TRIAGE_SLACK_SIGNING_SECRET",
            responses=error_responses(400, 401, 409, 413, 503),
        )

    def start(self, app: FastAPI) -> None:
        if self.off_reason:
            log.info("%s", self.off_reason)
            return
        settings = self.state.settings
        try:
            folder = self.kb_dir
            if folder is None:
                from bot.compose import kb_folder

                folder = kb_folder(settings, settings.kb)
            self.seen = SeenRequests(db=state_for(settings, folder))
        except Exception as exc:  # noqa: BLE001 - replays are then refused by this replica only
            log.warning("Slack replays are checked by this replica only: the state store did not open: %s",
                        getattr(exc, "user_message", None) or exc)

    def stop(self, app: FastAPI) -> None:
        if self.bot is not None:
            self.bot.close()

    async def events(self, request: Request) -> Response:
        if self.bot is None:
            raise ServiceError(503, "slack_not_configured", self.off_reason or "The Slack bot is off.")
        body = await request.body()
        timestamp = request.headers.get("x-slack-request-timestamp", "")
        if not (timestamp.isascii() and timestamp.isdigit()):
            raise ServiceError(400, "bad_request", "X-Slack-Request-Timestamp is missing or not a number of seconds.")
        verifier = SignatureVerifier(secret(self.state.settings.slack_signing_secret))
        if not verifier.is_valid(body, timestamp, request.headers.get("x-slack-signature", "")):
            log.warning("Slack request refused: bad or missing signature, or a stale timestamp")
            raise ServiceError(401, "bad_signature", "X-Slack-Signature is missing or wrong, or the request is "
                                                     "older than 5 minutes.")
        key = request_key(body, request.headers.get("content-type", ""))
        if key and not self.seen.first_time(key):
            if request.headers.get("x-slack-retry-num"):
                return Response(status_code=200)   # Slack retrying an event we already have: nothing more to do
            log.warning("Slack request refused: %s was already handled", key)
            raise ServiceError(409, "duplicate", f"This request was already handled ({key.split(':')[0]} replayed).")
        response = await run_in_threadpool(self.bot.app.dispatch, to_bolt_request(request, body))
        if response.status == 401:
            raise ServiceError(401, "bad_signature", "X-Slack-Signature is missing or wrong, or the request is "
                                                     "older than 5 minutes.")
        return to_starlette_response(response)


def request_key(body: bytes, content_type: str) -> str | None:
    """What identifies this request among Slack's: `command:<trigger_id>`, `action:<action_ts>:<user>` or
    `event:<event_id>` (None when it carries none). Raises a 400 ServiceError when the body cannot be read."""
    if content_type.split(";")[0].strip().lower() == "application/json":
        data = _json_object(body, "the body")
        if data.get("type") == "event_callback":
            return f"event:{data['event_id']}" if isinstance(data.get("event_id"), str) else None
        return None
    try:
        form = {k: v[0] for k, v in parse_qs(body.decode("utf-8"), keep_blank_values=True).items()}
    except UnicodeDecodeError:
        raise ServiceError(400, "bad_request", "The body is not UTF-8 form data.") from None
    if "payload" in form:
        data = _json_object(form["payload"].encode("utf-8", errors="surrogatepass"), "payload")
        user = (data.get("user") or {}).get("id") if isinstance(data.get("user"), dict) else None
        actions = data.get("actions") if isinstance(data.get("actions"), list) else []
        action_ts = data.get("action_ts") or next(
            (a.get("action_ts") for a in actions if isinstance(a, dict) and a.get("action_ts")), None)
        if action_ts:
            return f"action:{action_ts}:{user}"
        return f"action:{data['trigger_id']}" if isinstance(data.get("trigger_id"), str) else None
    if has_lone_surrogate(form):
        raise ServiceError(400, "bad_request", "The form holds text that is not valid Unicode.")
    if "command" in form and form.get("trigger_id"):
        return f"command:{form['trigger_id']}"
    return None


def _json_object(raw: bytes, what: str) -> dict:
    try:
        data = parse_json(raw)
    except ValueError as exc:
        raise ServiceError(400, "bad_request", f"Slack's {what} cannot be read: {exc}.") from None
    if not isinstance(data, dict):
        raise ServiceError(400, "bad_request", f"Slack's {what} must be a JSON object.")
    return data
