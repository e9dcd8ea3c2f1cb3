"""One GitHub issue thread (the issue, its comments, its timeline events) as a knowledge-base `Document`.

What the thread says about the failure comes from the reporter: the opening post and the reporter's own follow-ups
give the error lines, tracebacks, versions and libraries. What fixed it comes from the thread, in this order:

1. a comment by someone the repository trusts (author_association OWNER, MEMBER or COLLABORATOR; bots and our own
   answers left out) that names a cause or a fix, not only asks a question or closes the issue;
2. the reporter confirming what worked ("solved", "fixed by ...", "works now", "解决了"); a bare "thanks, works
   now" carries the suggestion it answers;
3. the pull request that closed the issue (its title), else the closing commit.

A thread closed without any of these (stale, not planned) or closed as a duplicate has no resolution: it is imported
as unresolved, and an answer may show it as related but never as the fix. "Duplicate of #M" is kept as
`duplicate_of` so that answers point to #M. A thread reopened after its close is unresolved too (what closed it did
not hold); closed again, its resolution is taken from what was said after the reopen.
"""
from __future__ import annotations

import hashlib
import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any

from kb.models import Document, Fix, Resolution, VerifiedBy

from ingest.extract.document import extract_document
from ingest.extract.error_lines import find_all_error_lines
from ingest.extract.libraries import find_libraries
from ingest.extract.sentences import CAUSE_CUE, FIX_CUE, split_sentences
from ingest.extract.tracebacks import find_tracebacks
from ingest.extract.versions import find_versions
from ingest.read import RawDocument, normalise_text
from ingest.sections import fence_mask

TRUSTED = frozenset({"OWNER", "MEMBER", "COLLABORATOR"})
THREAD_FORMAT = 2                 # bump when the fields below that feed content_hash change meaning (or the document
                                  # gains fields made from them: 2 = author and created_at); the importer then
                                  # rebuilds every thread it holds from its cache
_OUR_MARKER = "<!-- triage-kb"    # the auto-commenter's answers: never a thread's resolution

_CONFIRM = re.compile(
    r"\b(?:solved|resolved)\b|\bfixed (?:it|by|with|after|now)\b|\bthat fixed\b|\bthis fixed\b|\bworks? now\b|"
    r"\bworking now\b|\bit works\b|\bworked(?: for me| like a charm)?\b|\bthat (?:did it|helped|was it)\b|"
    r"\bdid the trick\b|\bproblem (?:is )?gone\b|解决了|已解决|问题解决|搞定|可以了|好了|成功了|有效", re.I)
_NEGATION = re.compile(r"\bnot\b|n't\b|\bstill\b|\bno longer\b|\bunsolved\b|\bunresolved\b|\bneither\b|\bnor\b|"
                       r"没有?|还是|仍然|依然|不行|没用|未", re.I)
_CLOSING_NOTE = re.compile(
    r"\bstale\b|\binactiv\w*|\bno (?:recent )?activity\b|\bclosing (?:this|as|due|because)\b|\bduplicate of\b|"
    r"\bwon'?t fix\b|\bnot planned\b|\bplease (?:open|file) a new\b|自动关闭|长期未|重复", re.I)
_DUPLICATE = re.compile(
    r"\bduplicate (?:of|to)\s+(?:(?P<repo>[\w.-]+/[\w.-]+)?#(?P<num>\d+)|"
    r"https?://github\.com/(?P<urepo>[\w.-]+/[\w.-]+)/issues/(?P<unum>\d+))|"
    r"(?:重复|同)\s*(?:于|问题)?\s*#(?P<znum>\d+)", re.I)


def _login(obj: Any) -> str:
    user = obj.get("user") if isinstance(obj, dict) else None
    return str(user.get("login") or "") if isinstance(user, dict) else ""


def _is_bot(comment: dict) -> bool:
    user = comment.get("user") or {}
    return (user.get("type") == "Bot" or str(user.get("login", "")).endswith("[bot]")
            or _OUR_MARKER in str(comment.get("body") or ""))


def _prose(text: str) -> str:
    """Text outside fenced code blocks and quotes (`> ...` lines quote someone else)."""
    lines = text.split("\n")
    code = fence_mask(lines)
    return "\n".join(ln for ln, c in zip(lines, code) if not c and not ln.lstrip().startswith(">"))


def _statements(text: str) -> list[str]:
    """Sentences of a comment's prose that state something (questions left out)."""
    return [s for s in split_sentences(_prose(text)) if not s.rstrip().endswith(("?", "？"))]


def names_cause_or_fix(text: str) -> bool:
    """Whether a comment states a cause or a fix (not only asks, thanks, or closes the issue)."""
    if _CLOSING_NOTE.search(text) and len(_prose(text)) < 400:
        return False
    return any(CAUSE_CUE.search(s) or FIX_CUE.search(s) for s in _statements(text))


def confirms(text: str) -> bool:
    """Whether a reporter's comment says that something worked ("solved", "works now", "解决了"), not that it
    still fails ("not solved", "still broken", "还是不行")."""
    for m in _CONFIRM.finditer(_prose(text)):
        before = _prose(text)[max(0, m.start() - 30):m.start()]
        clause = re.split(r"[.;!?。；！？,，\n]", before)[-1]
        if not _NEGATION.search(clause):
            return True
    return False


def _cause_text(text: str) -> str:
    return " ".join(s for s in _statements(text) if CAUSE_CUE.search(s))[:1500]


def _trim(text: str, limit: int = 2000) -> str:
    text = normalise_text(text).strip()
    return text if len(text) <= limit else text[:limit].rstrip() + " …"


def duplicate_target(repo: str, comments: list[dict], body: str = "") -> str | None:
    """OWNER/REPO#M of the issue a thread is a duplicate of, from "Duplicate of #M" in a comment (latest first)."""
    for text in [str(c.get("body") or "") for c in reversed(comments)] + [body]:
        m = _DUPLICATE.search(text)
        if m:
            target_repo = m.group("repo") or m.group("urepo") or repo
            return f"{target_repo}#{m.group('num') or m.group('unum') or m.group('znum')}"
    return None


def _stamp(value: Any) -> float | None:
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def closing_reference(repo: str, events: list[dict]) -> tuple[dict | None, str | None]:
    """(the merged pull request that closed the issue as the timeline's cross-reference shows it, the closing
    commit's sha) from timeline events; a PR counts when it was merged within ten minutes of the last close."""
    closes = [e for e in events if e.get("event") == "closed"]
    if not closes:
        return None, None
    close = closes[-1]
    commit = close.get("commit_id") or None
    closed_at = _stamp(close.get("created_at"))
    best, best_gap = None, None
    for e in events:
        if e.get("event") not in ("cross-referenced", "connected"):
            continue
        issue = ((e.get("source") or {}).get("issue")) or {}
        pr = issue.get("pull_request") or {}
        if not pr or not pr.get("merged_at"):
            continue
        other_repo = ((issue.get("repository") or {}).get("full_name")) or repo
        if other_repo.lower() != repo.lower():
            continue
        merged = _stamp(pr.get("merged_at"))
        gap = abs(merged - closed_at) if merged is not None and closed_at is not None else None
        if gap is not None and gap <= 600 and (best_gap is None or gap < best_gap):
            best, best_gap = issue, gap
    return best, commit


def reopened(issue: dict, events: list[dict]) -> bool:
    """Whether the thread is open again after a close: open with state_reason "reopened" or a `reopened` event
    in its timeline, or (a timeline ahead of the issue's state) a last close followed by a reopen."""
    turns = [e.get("event") for e in events if e.get("event") in ("closed", "reopened")]
    if issue.get("state") != "closed":
        return issue.get("state_reason") == "reopened" or "reopened" in turns
    return bool(turns) and turns[-1] == "reopened"


def last_reopen(events: list[dict]) -> float | None:
    """When the thread was last reopened (epoch seconds), or None when it never was."""
    stamps = [_stamp(e.get("created_at")) for e in events if e.get("event") == "reopened"]
    stamps = [t for t in stamps if t is not None]
    return max(stamps) if stamps else None


def content_hash(repo: str, issue: dict, comments: list[dict], events: list[dict]) -> str:
    """What the document is made of, hashed: the same thread gives the same hash (updated_at is left out, so a
    thread touched without a change of substance stays unchanged)."""
    keep_issue = {k: issue.get(k) for k in ("number", "title", "body", "state", "state_reason", "closed_at",
                                            "created_at", "html_url", "author_association")}
    keep_issue["user"] = _login(issue)
    keep_issue["labels"] = sorted(_labels(issue))
    keep_comments = [{"id": c.get("id"), "body": c.get("body"), "user": _login(c),
                      "type": (c.get("user") or {}).get("type"), "role": c.get("author_association")}
                     for c in comments]
    keep_events = [{"event": e.get("event"), "commit": e.get("commit_id"), "at": e.get("created_at"),
                    "source": ((e.get("source") or {}).get("issue") or {}).get("number"),
                    "pr": ((e.get("source") or {}).get("issue") or {}).get("pull_request"),
                    "title": ((e.get("source") or {}).get("issue") or {}).get("title")}
                   for e in events if e.get("event") in ("closed", "reopened", "cross-referenced", "connected")]
    blob = json.dumps({"format": THREAD_FORMAT, "repo": repo, "issue": keep_issue, "comments": keep_comments,
                       "events": keep_events}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _labels(issue: dict) -> list[str]:
    return [str(lb.get("name") if isinstance(lb, dict) else lb) for lb in issue.get("labels") or []]


def source_of(repo: str, number: int) -> str:
    return f"github:{repo}#{number}"


def doc_id_of(repo: str, number: int) -> str:
    return "gh__" + re.sub(r"[^\w.-]+", "-", repo.replace("/", "__")) + f"__{number}"


def find_resolution(repo: str, issue: dict, comments: list[dict], events: list[dict]
                    ) -> tuple[Resolution | None, str, list[Fix], str | None]:
    """(resolution or None, root cause, fixes, duplicate_of) of a thread.

    A thread reopened after it was closed has none: whatever closed it did not hold. Closed again, only what was
    said after the last reopen counts (the comments before it are the resolution that did not hold)."""
    reporter = _login(issue)
    if reopened(issue, events):
        return None, "", [], None
    people = [c for c in comments if not _is_bot(c) and str(c.get("body") or "").strip()]
    since = last_reopen(events)
    if since is not None:
        people = [c for c in people if (_stamp(c.get("created_at")) or 0.0) > since]
    pr, commit = closing_reference(repo, events) if issue.get("state") == "closed" else (None, None)
    pr_number = int(pr["number"]) if pr and str(pr.get("number", "")).isdigit() else None
    # A duplicate: closed as one, or closed after someone the repository trusts said "Duplicate of #M".
    trusted = [c for c in people if c.get("author_association") in TRUSTED]
    if issue.get("state_reason") == "duplicate" or (
            issue.get("state") == "closed" and any(_DUPLICATE.search(str(c.get("body") or "")) for c in trusted)):
        return None, "", [], duplicate_target(repo, trusted or people, str(issue.get("body") or ""))

    confirmation = None
    for i, c in enumerate(people):
        if _login(c) == reporter and i > 0 and confirms(str(c["body"])):
            confirmation = (i, c)
    maintainer = None
    for c in people:
        if c.get("author_association") in TRUSTED and _login(c) != reporter and names_cause_or_fix(str(c["body"])):
            maintainer = c                 # the latest diagnosis wins
    if maintainer is not None:
        body = str(maintainer["body"])
        confirmed = confirmation is not None and people.index(confirmation[1]) > people.index(maintainer)
        verified: VerifiedBy = "reporter" if confirmed else "maintainer"
        res = Resolution(text=_trim(body), kind="maintainer", comment_id=maintainer.get("id"),
                         author_association=maintainer.get("author_association"), pull_request=pr_number,
                         commit=commit)
        return res, _cause_text(body), [Fix(text=_trim(_prose(body), 1500), verified_by=verified)], None
    if confirmation is not None:
        i, c = confirmation
        body = str(c["body"])
        text = _trim(body)
        if len(_prose(body).strip()) < 80:
            # "Thanks, that fixed it": the fix is the suggestion it answers (the last one before it by someone else).
            before = next((p for p in reversed(people[:i]) if _login(p) != reporter), None)
            if before is not None:
                text = _trim(str(before["body"])) + f"\n\n(confirmed by the reporter: {_trim(body, 300)})"
        res = Resolution(text=text, kind="reporter", comment_id=c.get("id"), author_association=c.get(
            "author_association"), pull_request=pr_number, commit=commit)
        return res, _cause_text(text), [Fix(text=_trim(_prose(text), 1500), verified_by="reporter")], None
    if pr is not None:
        title = str(pr.get("title") or "").strip()
        text = f"{title} (pull request #{pr_number})" if title else f"pull request #{pr_number}"
        res = Resolution(text=text, kind="pull_request", pull_request=pr_number, commit=commit)
        return res, "", [Fix(text=text, verified_by="maintainer")], None
    if commit:
        text = f"closed by commit {commit[:12]}"
        return Resolution(text=text, kind="commit", commit=commit), "", [Fix(text=text, verified_by="maintainer")], None
    return None, "", [], None


def thread_document(repo: str, issue: dict, comments: list[dict], events: list[dict]) -> Document:
    """The Document of one thread: `source` github:OWNER/REPO#N, error lines and environment from the reporter's
    posts, root cause and fix from the resolution (none when the thread is unresolved)."""
    number = int(issue["number"])
    reporter = _login(issue)
    title = str(issue.get("title") or "").strip() or f"{repo}#{number}"
    opening = normalise_text(str(issue.get("body") or "")).strip()
    followups = [normalise_text(str(c.get("body") or "")).strip() for c in comments
                 if _login(c) == reporter and not _is_bot(c) and str(c.get("body") or "").strip()]
    resolution, root_cause, fixes, duplicate = find_resolution(repo, issue, comments, events)
    state = str(issue.get("state") or "")
    state_reason = "reopened" if reopened(issue, events) else issue.get("state_reason")
    about = ", ".join(x for x in (state, state_reason and str(state_reason).replace("_", " "),
                                  f"reported by @{reporter}" if reporter else "") if x)
    parts = [f"# {title}", "", f"Source: {repo}#{number}" + (f" ({about})" if about else ""), "", opening, ""]
    for text in followups:
        parts += ["## Reporter follow-up", "", text, ""]
    if duplicate:
        parts += ["## Notes", "", f"Closed as a duplicate of {duplicate}.", ""]
    if resolution is not None:
        who = {"maintainer": f"a maintainer ({resolution.author_association})", "reporter": "the reporter",
               "pull_request": "the closing pull request", "commit": "the closing commit"}[resolution.kind]
        if root_cause:
            parts += ["## Root cause", "", root_cause, ""]
        parts += [f"## Fix (from {who})", "", resolution.text, ""]
    markdown = "\n".join(parts).strip() + "\n"
    digest = content_hash(repo, issue, comments, events)
    raw = RawDocument(path=Path(f"{number}.md"), text=markdown, format="md", content_hash=digest)
    source = source_of(repo, number)
    doc = extract_document(raw, source)
    reporter_text = "\n\n".join([opening, *followups])
    # A duplicate of a thread of the same repository is that thread's failure told again: it keeps its words (for
    # search) but not its error lines, so that it never competes with the thread it duplicates for an answer.
    same_failure_elsewhere = bool(duplicate) and duplicate.rpartition("#")[0].lower() == repo.lower()
    signed_text = "" if same_failure_elsewhere else reporter_text
    return doc.model_copy(update={
        "doc_id": doc_id_of(repo, number),
        "title": title,
        "error_lines": find_all_error_lines(signed_text),
        "tracebacks": find_tracebacks(signed_text),
        "versions": find_versions(reporter_text),
        "libraries": list(dict.fromkeys(find_libraries(reporter_text) + doc.libraries)),
        "root_cause": root_cause,
        "fixes": fixes,
        "url": issue.get("html_url"),
        "state": state or None,
        "state_reason": state_reason,
        "labels": _labels(issue),
        "closed_at": issue.get("closed_at"),
        "author": reporter or None,
        "created_at": issue.get("created_at"),
        "resolution": resolution,
        "duplicate_of": duplicate,
    })
