"""What the bot does for each way in: `/diagnose`, a mention in a thread, the "Diagnose this" message shortcut, and
the feedback buttons. Every listener acks first; what fails afterwards is logged and told to the user in one line,
never as a traceback in a channel.
"""
from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from slack_bolt import App
from slack_sdk.errors import SlackApiError

from bot.render.slack import diagnosis_blocks, fallback_text
from bot.slack import blocks
from bot.slack.report import Report, ReportReader, plain_text, text_report
from kb.errors import KBError
from kb.feedback import Feedback, slack_scope
from kb.models import Diagnosis

log = logging.getLogger(__name__)

COMMAND = "/diagnose"
SHORTCUT = "diagnose_message"
VERIFY_FLAG = "--verify"
USAGE = f"Usage: `{COMMAND} [{VERIFY_FLAG}] <traceback or error message>`"
THREAD_PAGES = 5          # conversations.replies pages read (200 messages each)
SEEN_EVENTS = 1000        # event ids remembered, so Slack's retries do not answer twice

# A verification: given the report and its diagnosis, run the top entry's reproduction and say what came of it
# (mrkdwn, a line or two). bot/slack/verify.py has the one backed by the repro-runner.
Verifier = Callable[[str, Diagnosis], str]


class Reply:
    """Where an answer goes: into a thread with chat.postMessage, or back through a response_url."""

    def __init__(self, client, channel: str, thread_ts: str | None = None, respond=None, response_type: str = ""):
        self.client, self.channel, self.thread_ts = client, channel, thread_ts
        self.respond, self.response_type = respond, response_type

    def post(self, blocks_: list[dict], text: str) -> None:
        if self.respond is not None:
            _check(self.respond(blocks=blocks_, text=text, response_type=self.response_type,
                                replace_original=False))
        else:
            self.client.chat_postMessage(channel=self.channel, thread_ts=self.thread_ts, blocks=blocks_, text=text)


class Handlers:
    def __init__(self, state, verify: Verifier):
        self.state = state
        self.verify = verify
        self._verifying = ThreadPoolExecutor(max_workers=1, thread_name_prefix="slack-verify")
        self._seen: OrderedDict[str, None] = OrderedDict()
        self._seen_lock = threading.Lock()

    def register(self, app: App) -> None:
        """Lazy listeners: each request is acked by a function that only looks at the request (no diagnosis, no
        lock, no Web API call), in the request's own thread; the work runs afterwards in Bolt's listener pool."""
        app.command(COMMAND)(ack=self.ack_command, lazy=[self.on_command])
        app.event("app_mention")(ack=_ack, lazy=[self.on_mention])
        app.shortcut(SHORTCUT)(ack=_ack, lazy=[self.on_shortcut])
        app.action(blocks.ACTION_FIXED)(ack=_ack, lazy=[self.on_feedback])
        app.action(blocks.ACTION_WRONG)(ack=_ack, lazy=[self.on_feedback])

    @staticmethod
    def ack_command(ack, command):
        _, text = _split_verify(command.get("text") or "")
        if text:
            ack()
        else:
            ack(text=USAGE)

    # --- ways in -------------------------------------------------------------------------------------------------

    def on_command(self, command, respond, client):
        verify, text = _split_verify(command.get("text") or "")
        if not text:
            return  # the ack said how to use it
        reply = Reply(client, command.get("channel_id", ""), respond=respond,
                      response_type=self.state.settings.slack_response_type)
        report = text_report(text, self.state.settings.max_report_bytes)
        self._answer(report, reply, verify, tell=lambda msg: _tell_via(respond, msg),
                     scope=_team_scope(command.get("team_id")))

    def on_mention(self, event, body, client, context):
        if self._already_seen(body.get("event_id")):
            return
        channel, user = event["channel"], event.get("user", "")
        thread_ts = event.get("thread_ts") or event["ts"]

        def tell(msg: str) -> None:
            _tell_ephemeral(client, channel, user, thread_ts, msg)

        try:
            messages = self._thread(client, channel, thread_ts)
            report = self._reader(client).read(messages, skip_user=context.bot_user_id, skip_bot=context.bot_id)
        except SlackApiError as exc:
            _log_api_error("reading the thread", exc)
            tell(f"I could not read this thread ({_api_error(exc)}). Is the bot invited to this channel?")
            return
        verify, _ = _split_verify(plain_text(event.get("text", "")))
        self._answer(report, Reply(client, channel, thread_ts), verify, tell, scope=_team_scope(body.get("team_id")))

    def on_shortcut(self, shortcut, client, respond):
        message = shortcut.get("message") or {}
        channel = (shortcut.get("channel") or {}).get("id", "")
        thread_ts = message.get("thread_ts") or message.get("ts")
        try:
            report = self._reader(client).read([message])
        except SlackApiError as exc:
            _log_api_error("reading the message", exc)
            _tell_via(respond, f"I could not read that message ({_api_error(exc)}).")
            return
        self._answer(report, Reply(client, channel, thread_ts), False, tell=lambda msg: _tell_via(respond, msg),
                     scope=_team_scope((shortcut.get("team") or {}).get("id")))

    def on_feedback(self, body, action, client, respond):
        verdict = "fixed" if action["action_id"] == blocks.ACTION_FIXED else "wrong"
        user = body.get("user") or {}
        container = body.get("container") or {}
        message = body.get("message")
        channel = container.get("channel_id") or (body.get("channel") or {}).get("id", "")
        message_ts = container.get("message_ts") or (message or {}).get("ts", "")
        team = (body.get("team") or {}).get("id")
        try:
            entry_id, signature, ref, version = blocks.parse_feedback_value(action.get("value", ""))
            self.state.record_feedback(Feedback(
                source="slack", user=user.get("id", ""), entry_id=entry_id, signature=signature, sig_ref=ref,
                sig_version=version, verdict=verdict,
                context={"team": team, "channel": channel, "message_ts": message_ts,
                         "user_name": user.get("username") or user.get("name")},
                scope=_team_scope(team) or "", role="workspace member",
            ))
        except (ValueError, KeyError, TypeError):
            log.warning("feedback button with an unreadable value %r", action.get("value", "")[:100])
            _tell_via(respond, "That button is not one of mine any more; your feedback was not recorded.")
            return
        except KBError as exc:
            _tell_via(respond, f"Your feedback was not recorded: {exc.user_message}")
            return
        except Exception:  # noqa: BLE001 - a storage failure is told, not raised into Bolt
            log.exception("recording Slack feedback failed")
            _tell_via(respond, "Your feedback was not recorded: the server could not store it (see its log).")
            return
        log.info("feedback %s on %s from Slack user %s", verdict, entry_id, user.get("id"))
        if container.get("is_ephemeral") or not message:
            # Ephemeral answers cannot be edited by the bot and their blocks are not sent back: just confirm.
            _tell_via(respond, f"Thanks, recorded: {blocks.VERDICT_LABEL[verdict]} for `{entry_id}`.")
            return
        try:
            client.chat_update(channel=channel, ts=message_ts, text=message.get("text", ""),
                               blocks=blocks.with_feedback(message.get("blocks", []), user.get("id", ""), verdict))
        except SlackApiError as exc:
            _log_api_error("updating the answer", exc)
            _tell_via(respond, f"Your feedback was recorded, but I could not update the message ({_api_error(exc)}).")

    # --- the common path -----------------------------------------------------------------------------------------

    def _answer(self, report: Report, reply: Reply, verify: bool, tell: Callable[[str], None],
                scope: str | None = None) -> None:
        """`scope`: the workspace the answer is given in (its vetoes apply; kb.feedback)."""
        if not report.text.strip():
            tell("I found no report to diagnose: paste the traceback or error message (a code block or a text "
                 f"snippet), then ask again. {_files_note(report)}".rstrip())
            return
        try:
            diag = self.state.diagnose(report.text, name="slack", scope=scope)
        except KBError as exc:
            tell(f"Could not diagnose this report: {exc.user_message}")
            return
        except Exception:  # noqa: BLE001 - logged with its traceback; the user gets one line
            log.exception("diagnosis failed")
            tell("Could not diagnose this report: the server hit an internal error (see its log).")
            return
        answer = diagnosis_blocks(diag)
        note = _files_note(report)
        if note:
            answer = blocks.fit([*answer, blocks.context(blocks.escape(note))])
        try:
            reply.post(answer, fallback_text(diag))
        except (SlackApiError, _ResponseUrlError) as exc:
            _log_api_error("posting the answer", exc)
            tell(f"I diagnosed the report but Slack refused my answer ({_api_error(exc)}).")
            return
        log.info("answered on Slack: %s %s", diag.verdict, diag.matches[0].entry_id if diag.matches else "-")
        if verify:
            self._verifying.submit(self._verify, report.text, diag, reply, tell)

    def _verify(self, text: str, diag: Diagnosis, reply: Reply, tell: Callable[[str], None]) -> None:
        """Slow work, after the answer is out: run the top entry's reproduction and post the outcome."""
        if diag.verdict != "match":
            tell("Nothing to verify: no knowledge-base entry matched this report.")
            return
        entry = diag.matches[0].entry_id
        try:
            reply.post(blocks.notice(f"Verification running for {entry}: reproducing the failure..."),
                       f"Verification running for {entry}")
            outcome = self.verify(text, diag)
        except (SlackApiError, _ResponseUrlError) as exc:
            _log_api_error("posting verification progress", exc)
            return
        except KBError as exc:
            outcome = f"Verification of `{entry}` failed: {exc.user_message}"
        except Exception:  # noqa: BLE001
            log.exception("verification of %s failed", entry)
            outcome = f"Verification of `{entry}` failed: internal error (see the server log)."
        try:
            reply.post([blocks.section(blocks.cut(outcome, blocks.SECTION_MAX))], blocks.cut(outcome, 300))
        except (SlackApiError, _ResponseUrlError) as exc:
            _log_api_error("posting the verification result", exc)

    def _thread(self, client, channel: str, thread_ts: str) -> list[dict]:
        messages: list[dict] = []
        cursor = None
        for _ in range(THREAD_PAGES):
            page = client.conversations_replies(channel=channel, ts=thread_ts, limit=200, cursor=cursor)
            messages.extend(page.get("messages", []))
            cursor = (page.get("response_metadata") or {}).get("next_cursor")
            if not cursor:
                break
        return messages

    def _reader(self, client) -> ReportReader:
        return ReportReader(client, self.state.settings.max_report_bytes)

    def _already_seen(self, event_id: str | None) -> bool:
        if not event_id:
            return False
        with self._seen_lock:
            if event_id in self._seen:
                return True
            self._seen[event_id] = None
            while len(self._seen) > SEEN_EVENTS:
                self._seen.popitem(last=False)
        return False

    def close(self) -> None:
        self._verifying.shutdown(wait=False, cancel_futures=True)


class _ResponseUrlError(Exception):
    """A response_url POST that Slack did not accept."""

    def __init__(self, status: int, body: str):
        super().__init__(f"response_url answered {status}: {body[:100]}")
        self.status, self.body = status, body


def _check(webhook_response) -> None:
    if webhook_response.status_code != 200:
        raise _ResponseUrlError(webhook_response.status_code, webhook_response.body or "")


def _api_error(exc: Exception) -> str:
    if isinstance(exc, SlackApiError):
        return str(exc.response.get("error") or "error")
    if isinstance(exc, _ResponseUrlError):
        return exc.body.strip() or f"HTTP {exc.status}"
    return type(exc).__name__


def _log_api_error(doing: str, exc: Exception) -> None:
    log.warning("Slack API error while %s: %s", doing, _api_error(exc))


def _tell_via(respond, text: str) -> None:
    """An ephemeral line to the user through the response_url."""
    try:
        _check(respond(text=text, response_type="ephemeral", replace_original=False))
    except Exception as exc:  # noqa: BLE001 - the last resort: nowhere left to report it but the log
        log.warning("could not tell the user %r: %s", text[:80], _api_error(exc))


def _tell_ephemeral(client, channel: str, user: str, thread_ts: str, text: str) -> None:
    try:
        client.chat_postEphemeral(channel=channel, user=user, thread_ts=thread_ts, text=text)
    except SlackApiError as exc:
        log.warning("could not tell user %s %r: %s", user, text[:80], _api_error(exc))


def _ack(ack):
    ack()


def _team_scope(team_id: object) -> str | None:
    return slack_scope(team_id) if isinstance(team_id, str) and team_id else None


def _split_verify(text: str) -> tuple[bool, str]:
    stripped = text.strip()
    if stripped == VERIFY_FLAG or stripped.startswith(VERIFY_FLAG + " ") or stripped.startswith(VERIFY_FLAG + "\n"):
        return True, stripped[len(VERIFY_FLAG):].strip()
    return False, stripped


def _files_note(report: Report) -> str:
    """Which attached files the answer read, and which it could not (and why)."""
    parts = []
    if report.files_used:
        parts.append("Read: " + ", ".join(report.files_used) + ".")
    if report.files_skipped:
        parts.append("Not read: " + "; ".join(report.files_skipped) + ".")
    return " ".join(parts)
