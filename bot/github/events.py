"""What a webhook event asks of us: a report to diagnose, a `/triage` feedback command, or nothing (and why).

Pure functions of GitHub's payload shapes (`issue.number`, `repository.full_name`, `sender.type`, `comment.body`),
so the route can answer at once and the worker can redo the same reading from the persisted payload.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from bot.github.comment import feedback_command, has_marker

HANDLED = {"issues": {"opened", "edited"}, "issue_comment": {"created"}}


@dataclass
class IssueEvent:
    kind: Literal["report", "feedback"]
    event: str                 # "issues" or "issue_comment"
    repo: str                  # owner/name
    number: int
    title: str
    body: str
    user: str                  # who triggered it
    comment: str = ""          # the new comment's text (issue_comment)
    comment_id: int | None = None
    url: str = ""              # the issue's (or comment's) html_url
    verdict: str | None = None # "wrong" / "fixed" for feedback

    def report_text(self, with_comment: bool = True) -> str:
        parts = [self.title, self.body]
        if with_comment and self.comment:
            parts.append(self.comment)
        return "\n\n".join(p for p in parts if p)


def read_event(event: str, payload: dict) -> IssueEvent | str:
    """The work this delivery asks for, or a one-line reason to ignore it."""
    action = payload.get("action")
    if action not in HANDLED.get(event, ()):
        return f"{event}.{action} is not handled"
    sender = payload.get("sender") or {}
    if sender.get("type") == "Bot" or str(sender.get("login", "")).endswith("[bot]"):
        return "sent by a bot"
    issue = payload.get("issue") or {}
    repo = (payload.get("repository") or {}).get("full_name")
    if not repo or not isinstance(issue.get("number"), int):
        return "no repository.full_name or issue.number in the payload"
    if issue.get("pull_request"):
        return "pull requests are not triaged"
    base = dict(event=event, repo=repo, number=issue["number"], title=issue.get("title") or "",
                body=issue.get("body") or "", user=sender.get("login", ""))
    if event == "issues":
        if has_marker(base["body"]):
            return "the issue carries our marker"
        return IssueEvent(kind="report", url=issue.get("html_url", ""), **base)
    comment = payload.get("comment") or {}
    text = comment.get("body") or ""
    if has_marker(text):
        return "the comment carries our marker"
    extra = dict(comment=text, comment_id=comment.get("id"), url=comment.get("html_url", ""))
    verdict = feedback_command(text)
    if verdict:
        return IssueEvent(kind="feedback", verdict=verdict, **base, **extra)
    return IssueEvent(kind="report", **base, **extra)
