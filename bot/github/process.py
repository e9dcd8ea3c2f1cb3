"""Processing one persisted delivery: diagnose the issue, keep one bot comment up to date, label, record feedback.

Runs in the GitHub worker thread (bot/github/pump.py) of whichever replica claimed the delivery. Every step is
safe to repeat (the comment is found again by its marker before any post), so a delivery interrupted by a crash or
a failing API is simply processed again.
"""
from __future__ import annotations

import logging
import time
from bot.github.api import GitHubAPIError, GitHubClient, IssueComment
from bot.github.comment import has_marker, parse_marker
from bot.github.deliveries import MAX_ATTEMPTS, Delivery, DeliveryStore
from bot.github.events import BadPayload, IssueEvent, installation_of, read_event
from bot.render.markdown import render_match, render_no_match
from bot.service.state import ServiceState
from kb.config import Settings
from kb.feedback import Feedback, github_scope
from kb.report_input import cap_report

log = logging.getLogger(__name__)


class Processor:
    def __init__(self, state: ServiceState, client: GitHubClient, deliveries: DeliveryStore, owner: str):
        self.state = state
        self.settings = state.settings
        self.client = client
        self.deliveries = deliveries
        self.owner = owner               # this replica's name on the deliveries it claims
        self._login: str | None = settings_login(state.settings)

    @property
    def known_login(self) -> str | None:
        """Our login if already known (configured or looked up); never calls the API."""
        return self._login

    def bot_login(self) -> str:
        """The login our comments are written by: TRIAGE_GITHUB_BOT_LOGIN, else asked once: the App's
        `<slug>[bot]` (GET /app) in App mode, the token's user (GET /user) otherwise."""
        if self._login is None:
            self._login = self.client.authenticated_login()
            log.info("commenting as GitHub %s %s", "App" if self.client.app else "user", self._login)
        return self._login

    def run(self, delivery: Delivery) -> None:
        """Process a delivery this replica claimed, and record how it ended."""
        delivery_id = delivery.id
        try:
            # In App mode every call acts for the installation the delivery came through (the client says so when
            # there is none); the static token ignores it.
            installation = installation_of(delivery.payload) if self.client.app is not None else None
            with self.client.installation(installation):
                work = read_event(delivery.event, delivery.payload, self.settings.feedback_roles(), self.bot_login())
                if isinstance(work, str):
                    result = f"ignored: {work}"
                elif work.kind == "feedback":
                    result = self.feedback(work)
                else:
                    result = self.report(work)
        except BadPayload as exc:
            log.error("delivery %s (%s) cannot be read: %s", delivery_id, delivery.event, exc)
            self._finish(delivery_id, "failed", f"cannot be read: {exc}")
            return
        except GitHubAPIError as exc:
            # Still failing after the client's retries: a transient failure is tried again later, the waits going
            # on doubling from where the client's left off; one that retrying cannot fix fails now.
            if exc.retryable and delivery.attempts < MAX_ATTEMPTS:
                delay = self.client.policy.backoff(self.client.policy.attempts + delivery.attempts - 1)
                log.error("delivery %s (%s) failed (attempt %d of %d), next try in %.1f s: %s", delivery_id,
                          delivery.event, delivery.attempts, MAX_ATTEMPTS, delay, exc)
                self._finish(delivery_id, "pending", str(exc), retry_in=delay)
                return
            why = str(exc) if not exc.retryable else f"given up after {delivery.attempts} attempts: {exc}"
            log.error("delivery %s (%s) failed: %s", delivery_id, delivery.event, why)
            self._finish(delivery_id, "failed", why)
            return
        except Exception as exc:  # noqa: BLE001 - a bug here must not retry forever; the log has the traceback
            log.exception("delivery %s (%s) failed", delivery_id, delivery.event)
            self._finish(delivery_id, "failed", f"{type(exc).__name__}: {exc}")
            return
        log.info("delivery %s (%s): %s", delivery_id, delivery.event, result)
        self._finish(delivery_id, "done", result)

    def _finish(self, delivery_id: str, status: str, result: str, retry_in: float = 0.0) -> None:
        if not self.deliveries.finish(delivery_id, status, result, retry_in=retry_in, owner=self.owner):
            log.warning("delivery %s was taken over by another replica before it finished here (%s: %s)",
                        delivery_id, status, result)

    def report(self, ev: IssueEvent) -> str:
        diag = self.state.diagnose(self._report(ev), name=f"{ev.repo}#{ev.number}", scope=github_scope(ev.repo),
                                   exclude=(f"github:{ev.repo}#{ev.number}",),   # never the issue itself
                                   not_by=not_by(ev))
        existing = self.find_ours(ev)
        where = f"{ev.repo}#{ev.number}"
        if diag.verdict == "match":
            self.upsert(ev, existing, render_match(diag))
            self.client.add_label(ev.repo, ev.number, self.settings.github_label)
            return f"{where}: answered with {diag.matches[0].entry_id}"
        previous = parse_marker(existing.body) if existing else None
        if previous and previous.entry_id and ev.event == "issues":
            # The edited issue no longer fits the entry we proposed: say so rather than leave a wrong answer.
            # (A new comment never downgrades an answer: "+1, same here" is not a different report.)
            self.upsert(ev, existing, render_no_match(diag, previous))
            self.client.remove_label(ev.repo, ev.number, self.settings.github_label)
            return f"{where}: no match any more; comment updated"
        if existing is None and self.settings.github_comment_no_match:
            self.upsert(ev, None, render_no_match(diag))
            return f"{where}: no match; said so"
        return f"{where}: no match; nothing posted"

    def feedback(self, ev: IssueEvent) -> str:
        ours = self.find_ours(ev)
        mark = parse_marker(ours.body) if ours else None
        if mark is None or not mark.entry_id:
            self._react(ev, "confused")
            return f"{ev.repo}#{ev.number}: /triage {ev.verdict} but no answer of ours to judge"
        self.state.record_feedback(Feedback(
            source="github", user=ev.user, entry_id=mark.entry_id, signature=mark.signature, sig_ref=mark.ref,
            sig_version=mark.version, verdict=ev.verdict,
            context={"repo": ev.repo, "issue": ev.number, "comment_url": ev.url}, scope=github_scope(ev.repo),
            role=ev.role,
        ))
        self._react(ev, "+1")
        result = f"{ev.repo}#{ev.number}: {ev.user} ({ev.role}) marked {mark.entry_id} {ev.verdict}"
        if ev.verdict == "wrong":
            result += "; " + self._rediagnose(ev, ours, mark)
        return result

    def _rediagnose(self, ev: IssueEvent, ours: IssueComment, mark) -> str:
        """After `/triage wrong`, answer again from the issue itself: the matcher now skips the rejected entry."""
        diag = self.state.diagnose(self._report(ev, with_comment=False), name=f"{ev.repo}#{ev.number}",
                                   scope=github_scope(ev.repo), exclude=(f"github:{ev.repo}#{ev.number}",),
                                   not_by=not_by(ev))
        if diag.verdict == "match" and diag.matches[0].entry_id != mark.entry_id:
            self.upsert(ev, ours, render_match(diag))
            return f"now answered with {diag.matches[0].entry_id}"
        if diag.verdict == "match":
            return "the matcher still proposes it"
        self.upsert(ev, ours, render_no_match(diag, mark, why=f"{ev.user} marked it wrong"))
        self.client.remove_label(ev.repo, ev.number, self.settings.github_label)
        return "no other entry fits; comment updated"

    def _report(self, ev: IssueEvent, with_comment: bool = True) -> str:
        return cap_report(ev.report_text(with_comment), self.settings.max_report_bytes)

    def find_ours(self, ev: IssueEvent) -> IssueComment | None:
        """The bot's comment on this issue: the oldest one written by the bot's own login that carries the marker.
        (Anyone can paste the marker into a comment; such a comment is never edited nor taken as our answer.)"""
        login = self.bot_login().lower()
        return next((c for c in self.client.issue_comments(ev.repo, ev.number)
                     if c.user.lower() == login and has_marker(c.body)), None)

    def upsert(self, ev: IssueEvent, existing: IssueComment | None, body: str) -> None:
        """Edit our comment in place, or post it. A failed post is retried only after looking again, since a
        5xx can hide a comment that was in fact created."""
        policy = self.client.policy
        for attempt in range(1, policy.attempts + 1):
            if existing is not None:
                if existing.body != body:
                    self.client.update_comment(ev.repo, existing.id, body)
                return
            try:
                self.client.create_comment(ev.repo, ev.number, body)
                return
            except GitHubAPIError as exc:
                if not exc.retryable or attempt == policy.attempts:
                    raise
                # The POST is tried once per call, so its own wait does not grow: double it here as for any call.
                wait = max(exc.wait, policy.backoff(attempt))
                log.warning("%s; looking for our comment again, then try %d of %d in %.1f s",
                            exc, attempt + 1, policy.attempts, wait)
                self.client.sleep(wait)
                existing = self.find_ours(ev)

    def _react(self, ev: IssueEvent, content: str) -> None:
        if ev.comment_id is None:
            return
        try:
            self.client.react(ev.repo, ev.comment_id, content)
        except GitHubAPIError as exc:  # an acknowledgement only; the feedback itself is recorded
            log.warning("could not react to %s: %s", ev.url or ev.comment_id, exc)


def not_by(ev: IssueEvent):
    """The issue's author and when it was opened (now, when the payload does not say): a thread the same person
    opened within the hour is their own report again, never proposed as the known fix (kb.diagnose.NotBy)."""
    from kb.diagnose import NotBy

    if not ev.author:
        return None
    return NotBy(author=ev.author, at=ev.created_at or time.time())


def settings_login(settings: Settings) -> str | None:
    return (settings.github_bot_login or "").strip() or None
