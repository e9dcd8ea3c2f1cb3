"""What a webhook event asks of us: a report to diagnose, a `/triage` feedback command, or nothing (and why).

Pure functions of GitHub's payload shapes (`issue.number`, `repository.full_name`, `sender.type`, `comment.body`,
`comment.author_association`), so the route can answer at once and the worker can redo the same reading from the
persisted payload. A payload whose fields have the wrong types raises BadPayload with a one-line reason.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from bot.github.comment import feedback_command

HANDLED = {"issues": {"opened", "edited"}, "issue_comment": {"created"}}
DEFAULT_FEEDBACK_ROLES = frozenset({"OWNER", "MEMBER", "COLLABORATOR"})
ISSUE_AUTHOR = "issue author"

# owner/name as GitHub allows them: the only shape that may go into an API path.
_REPO = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}")


class BadPayload(ValueError):
    """The delivery cannot be read: a field is missing or of the wrong type. The message is one line."""


@dataclass
class IssueEvent:
    kind: Literal["report", "feedback"]
    event: str                 # "issues" or "issue_comment"
    repo: str                  # owner/name
    number: int
    title: str
    body: str
    user: str                  # who triggered it (the comment's author for comments)
    comment: str = ""          # the new comment's text (issue_comment)
    comment_id: int | None = None
    url: str = ""              # the issue's (or comment's) html_url
    verdict: str | None = None # "wrong" / "fixed" for feedback
    role: str = ""             # why `user` may give feedback: their author_association, or "issue author"
    author: str = ""           # who opened the issue (issue.user.login)
    created_at: str = ""       # when it was opened (issue.created_at), "" when the payload does not say

    def report_text(self, with_comment: bool = True) -> str:
        parts = [self.title, self.body]
        if with_comment and self.comment:
            parts.append(self.comment)
        return "\n\n".join(p for p in parts if p)


def valid_repo(full_name: object) -> bool:
    return (isinstance(full_name, str) and bool(_REPO.fullmatch(full_name))
            and full_name.split("/")[1] not in (".", ".."))


def read_event(event: str, payload: object, roles: frozenset[str] | set[str] = DEFAULT_FEEDBACK_ROLES,
               bot_login: str | None = None) -> IssueEvent | str:
    """The work this delivery asks for, or a one-line reason to ignore it.

    `roles`: the author_association values whose `/triage` commands count (the issue's author always counts on
    their own issue). `bot_login`: our own login, when known; comments by it are never work.
    """
    if not isinstance(payload, dict):
        raise BadPayload(f"the payload must be a JSON object, not {_kind(payload)}")
    action = payload.get("action")
    if action is not None and not isinstance(action, str):
        raise BadPayload(f"action must be a string, not {_kind(action)}")
    if action not in HANDLED.get(event, ()):
        return f"{event}.{action} is not handled"
    sender = _object(payload, "sender", "sender")
    issue = _object(payload, "issue", "issue")
    repository = _object(payload, "repository", "repository")
    repo = repository.get("full_name")
    if not valid_repo(repo):
        raise BadPayload(f"repository.full_name must be owner/name, not {_shown(repo)}")
    number = issue.get("number")
    if not isinstance(number, int) or isinstance(number, bool) or number < 1:
        raise BadPayload(f"issue.number must be a positive integer, not {_shown(number)}")
    login = _string(sender, "login", "sender")
    if _string(sender, "type", "sender") == "Bot" or login.endswith("[bot]"):
        return "sent by a bot"
    if issue.get("pull_request"):
        return "pull requests are not triaged"
    base = dict(event=event, repo=repo, number=number, title=_string(issue, "title", "issue"),
                body=_string(issue, "body", "issue"),
                author=_string(_object(issue, "user", "issue.user", required=False), "login", "issue.user"),
                created_at=_string(issue, "created_at", "issue"))
    if event == "issues":
        return IssueEvent(kind="report", url=_string(issue, "html_url", "issue"), user=login, **base)
    comment = _object(payload, "comment", "comment")
    author = _string(_object(comment, "user", "comment.user", required=False), "login", "comment.user") or login
    if bot_login and author.lower() == bot_login.lower():
        return "our own comment"
    comment_id = comment.get("id")
    if comment_id is not None and (not isinstance(comment_id, int) or isinstance(comment_id, bool)):
        raise BadPayload(f"comment.id must be an integer, not {_shown(comment_id)}")
    text = _string(comment, "body", "comment")
    extra = dict(comment=text, comment_id=comment_id, url=_string(comment, "html_url", "comment"), user=author)
    verdict = feedback_command(text)
    if not verdict:
        return IssueEvent(kind="report", **base, **extra)
    association = _string(comment, "author_association", "comment").upper()
    issue_author = base["author"]
    if association in roles:
        role = association
    elif issue_author and author.lower() == issue_author.lower():
        role = ISSUE_AUTHOR
    else:
        allowed = ", ".join(sorted(roles)) or "nobody"
        return (f"/triage {verdict} from {author} ({association or 'no association'}) is not counted: only "
                f"{allowed} or the issue's author may judge answers")
    return IssueEvent(kind="feedback", verdict=verdict, role=role, **base, **extra)


def installation_of(payload: object) -> int | None:
    """The App installation a delivery came through (`installation.id`), or None when it has none; BadPayload when
    it is there but not an id."""
    if not isinstance(payload, dict) or payload.get("installation") is None:
        return None
    installation = _object(payload, "installation", "installation")
    value = installation.get("id")
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise BadPayload(f"installation.id must be a positive integer, not {_shown(value)}")
    return value


def _object(parent: dict, key: str, where: str, required: bool = True) -> dict:
    value = parent.get(key)
    if value is None and not required:
        return {}
    if not isinstance(value, dict):
        raise BadPayload(f"{where} must be an object, not {_kind(value)}")
    return value


def _string(parent: dict, key: str, where: str) -> str:
    value = parent.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise BadPayload(f"{where}.{key} must be a string, not {_kind(value)}")
    return value


def _kind(value: object) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", int: "a number",
            float: "a number", type(None): "null"}.get(type(value), type(value).__name__)


def _shown(value: object) -> str:
    if isinstance(value, str):
        return repr(value[:60])
    return _kind(value)
