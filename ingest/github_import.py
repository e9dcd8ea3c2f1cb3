"""`triage import github OWNER/REPO...`: learn from an issue tracker.

Lists a repository's issues (pull requests skipped; with --state closed, open ones never imported too) oldest update
first, reads each thread's comments and, for closed or reopened issues, its timeline (which pull request or commit
closed it, when it was reopened), turns each thread into a Document
(ingest.github_thread) and writes it into the knowledge base through the ingest build (ingest.build, `prepared`):
a new generation, published atomically, unchanged threads keep their chunks and vectors.

Incremental, cheap and crash-safe:

- every GET is conditional when an ETag is known (`If-None-Match`); a 304 costs no rate limit and no work;
- the cursor (`since`: the last `updated_at` imported) and the ETags live beside the KB in `DIR/github/state.json`,
  written (atomically) only after the generation holding those threads was published;
- each thread read is cached in `DIR/github/threads/` as soon as it is read, so a run killed half way (SIGKILL
  included) asks again only for the list pages: the next run finds the threads it already read in the cache, builds
  what the killed run did not publish, and carries on. The KB itself is only ever replaced by a whole generation.

A run ends by listing again from its new cursor until nothing new comes back; the ETag of that last listing is what
the next run sends, so a run after which nothing changed makes one request per repository, answered 304.

Rate limits: before a request, when `X-RateLimit-Remaining` was 0, it waits until `X-RateLimit-Reset`; a secondary
limit (403 or 429 with `Retry-After`) waits that long; waits are capped by TRIAGE_GITHUB_RETRY_MAX_WAIT_S and tries
by TRIAGE_GITHUB_RETRY_ATTEMPTS, after which the run stops with one line (what was imported so far is kept).
"""
from __future__ import annotations

import fcntl
import json
import logging
import os
import random
import re
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx

from kb.config import Settings
from kb.errors import BadInput
from kb.github_http import error_message, next_link
from kb.index import store

from ingest.build import Prepared, Progress, ingest
from ingest.github_thread import THREAD_FORMAT, source_of, thread_document

log = logging.getLogger(__name__)

API_VERSION = "2022-11-28"
PER_PAGE = 100
BATCH = 100                       # threads per generation: a kill loses at most this much embedding work
STATE_VERSION = 1
_REPO = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?(?:Z|[+-]\d{2}:?\d{2})?)?$")


class ImportFailed(BadInput):
    """A run that cannot go on: one line for the user (exit 2)."""


@dataclass
class ImportReport:
    fetched: int = 0              # threads read from the API in this run (the others came from the cache)
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    resolved: int = 0             # of the threads built in this run
    unresolved: int = 0
    skipped: Counter = field(default_factory=Counter)
    requests: int = 0
    not_modified: int = 0
    embedded: int = 0
    documents: int = 0
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        """The object `triage import github --json` prints."""
        return {"fetched": self.fetched, "added": self.added, "updated": self.updated, "unchanged": self.unchanged,
                "resolved": self.resolved, "unresolved": self.unresolved, "skipped": dict(self.skipped),
                "requests": self.requests, "not_modified": self.not_modified}


def check_repo(name: str) -> str:
    if not _REPO.match(name):
        raise ImportFailed(f"{name!r} is not a repository name: give OWNER/REPO, such as huggingface/transformers")
    return name


def check_since(value: str | None) -> str | None:
    """An ISO date or time (2024-05-01, 2024-05-01T12:00:00Z) as GitHub's `since` wants it."""
    if value is None:
        return None
    value = value.strip()
    if not _DATE.match(value):
        raise ImportFailed(f"--since {value!r}: give a date such as 2024-05-01 or 2024-05-01T12:00:00Z")
    if len(value) == 10:
        value += "T00:00:00Z"
    return value


# ---------------------------------------------------------------------------------------------------------------
# HTTP: conditional GETs, rate limits, retries
# ---------------------------------------------------------------------------------------------------------------

@dataclass
class Page:
    status: int                   # 200, or 304 (not modified: the caller uses what it kept)
    data: Any
    etag: str | None
    next: str | None
    last_page: int | None
    links: bool = True            # the answer carried a Link header (a 304 may not)


class _Api:
    def __init__(self, settings: Settings, report: ImportReport, sleep: Callable[[float], None] = time.sleep):
        headers = {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": API_VERSION,
                   "User-Agent": "triage-kb-import"}
        token = settings.github_token.get_secret_value() if settings.github_token is not None else ""
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self.base = settings.github_api_url.rstrip("/")
        self.http = httpx.Client(base_url=self.base + "/", headers=headers, timeout=30.0)
        self.attempts = settings.github_retry_attempts
        self.backoff_s = settings.github_retry_backoff_s
        self.max_wait_s = settings.github_retry_max_wait_s
        self.report = report
        self.sleep = sleep
        self._reset_at: float | None = None     # the primary limit is spent until then

    def close(self) -> None:
        self.http.close()

    def _wait(self, seconds: float, why: str) -> None:
        seconds = max(0.0, min(seconds, self.max_wait_s))
        if seconds > 0:
            log.warning("GitHub %s: waiting %.1f s", why, seconds)
            self.sleep(seconds)

    def get(self, url: str, etag: str | None = None, what: str = "") -> Page:
        """GET `url` (a path with its query, or a full URL the API gave), conditionally when `etag` is known."""
        what = what or url
        headers = {"If-None-Match": etag} if etag else {}
        target = url if url.startswith("http") else url.lstrip("/")
        for attempt in range(1, self.attempts + 1):
            if self._reset_at is not None:
                self._wait(self._reset_at - time.time(), "rate limit spent (X-RateLimit-Remaining: 0)")
                self._reset_at = None
            self.report.requests += 1
            try:
                resp = self.http.get(target, headers=headers)
            except httpx.TransportError as exc:
                if attempt == self.attempts:
                    raise ImportFailed(f"cannot reach the GitHub API at {self.base} ({type(exc).__name__}); "
                                       f"check TRIAGE_GITHUB_API_URL and the network") from None
                self._wait(self._backoff(attempt), f"unreachable ({type(exc).__name__})")
                continue
            h = resp.headers
            if h.get("x-ratelimit-remaining") == "0" and h.get("x-ratelimit-reset", "").isdigit():
                self._reset_at = float(h["x-ratelimit-reset"])
            status = resp.status_code
            if status == 304:
                # Not modified: its Link header still says whether a page follows (a list that grew has a new one).
                self.report.not_modified += 1
                return Page(304, None, etag, next_link(resp, self.http.base_url), _last_page(resp),
                            links="link" in h)
            if resp.is_success:
                try:
                    data = resp.json()
                except ValueError:
                    raise ImportFailed(f"GitHub answered {what} with something that is not JSON; is "
                                       f"TRIAGE_GITHUB_API_URL ({self.base}) the API?") from None
                return Page(status, data, h.get("etag"), next_link(resp, self.http.base_url), _last_page(resp))
            limited = status == 429 or (status == 403 and (h.get("x-ratelimit-remaining") == "0"
                                                           or "retry-after" in h))
            if limited or status >= 500:
                if attempt == self.attempts:
                    if limited:
                        until = ""
                        if h.get("x-ratelimit-reset", "").isdigit():
                            until = " until " + time.strftime("%H:%M UTC", time.gmtime(int(h["x-ratelimit-reset"])))
                        raise ImportFailed(f"GitHub rate limit reached{until} ({status} on {what}, {attempt} tries); "
                                           f"what was imported so far is kept: run again later")
                    raise ImportFailed(f"GitHub API answered {status} on {what} {attempt} times; try again later")
                if h.get("retry-after", "").strip().isdigit():
                    self._wait(float(h["retry-after"]), f"secondary rate limit ({status}, Retry-After)")
                elif limited and self._reset_at is not None:
                    pass              # waited for at the top of the next try
                else:
                    self._wait(self._backoff(attempt), f"answered {status}")
                continue
            raise ImportFailed(_refusal(status, error_message(resp), what))
        raise AssertionError("unreachable")

    def _backoff(self, attempt: int) -> float:
        return self.backoff_s * 2 ** (attempt - 1) * random.uniform(0.8, 1.2)


def _refusal(status: int, message: str, what: str) -> str:
    if status == 401:
        return "GitHub refused the token (401 Bad credentials): check TRIAGE_GITHUB_TOKEN"
    if status == 404:
        return f"{what}: not found (404); check the OWNER/REPO name, and that TRIAGE_GITHUB_TOKEN can read it"
    if status == 410:
        return f"{what}: gone (410); are issues turned off for this repository?"
    if status == 403:
        return f"GitHub refused {what} (403 {message}); check TRIAGE_GITHUB_TOKEN's access"
    return f"GitHub answered {status} {message} on {what}"


def _last_page(resp: httpx.Response) -> int | None:
    last = resp.links.get("last", {}).get("url")
    m = re.search(r"[?&]page=(\d+)", last or "")
    return int(m.group(1)) if m else None


# ---------------------------------------------------------------------------------------------------------------
# state beside the KB: cursor, ETags, cached threads
# ---------------------------------------------------------------------------------------------------------------

def _write_json(path: Path, obj: Any) -> None:
    """Replace `path` atomically: a kill leaves the old file or the new one, never half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(obj, fh, ensure_ascii=False)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


class ImportState:
    """`DIR/github/state.json` (per repository and issue state: cursor and the last listing's ETags) and the cache
    of threads read (`DIR/github/threads/OWNER/REPO/N.json`: issue, comments, events, their pages' ETags)."""

    def __init__(self, kb_dir: Path):
        self.root = kb_dir / "github"
        self.path = self.root / "state.json"
        data = _read_json(self.path)
        if not isinstance(data, dict) or data.get("version") != STATE_VERSION:
            data = {"version": STATE_VERSION, "repos": {}}
        if store.current_generation(kb_dir) is None:
            # No KB to build on (new, or its generations were removed): a cursor would skip what it lacks.
            data["repos"] = {}
        if data.get("thread_format") != THREAD_FORMAT:
            # The threads were made into documents by a version that put less in them (before format 2: no author
            # nor created_at): list everything again. The threads themselves come from the cache (an unchanged one
            # costs no request beyond the listing), and their chunks keep their vectors where the text is the same.
            data["repos"] = {}
            data["thread_format"] = THREAD_FORMAT
        self.data = data

    def repo(self, repo: str, state: str) -> dict:
        return self.data["repos"].setdefault(f"{repo.lower()}?state={state}", {})

    def save(self) -> None:
        _write_json(self.path, self.data)

    def _thread_path(self, repo: str, number: int) -> Path:
        owner, name = repo.lower().split("/")
        return self.root / "threads" / owner / name / f"{number}.json"

    def thread(self, repo: str, number: int) -> dict | None:
        got = _read_json(self._thread_path(repo, number))
        return got if isinstance(got, dict) and isinstance(got.get("issue"), dict) else None

    def keep_thread(self, repo: str, number: int, thread: dict) -> None:
        _write_json(self._thread_path(repo, number), thread)

    @contextmanager
    def locked(self) -> Iterator[None]:
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.root / ".lock", "w") as fh:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise ImportFailed(f"another `triage import github` is writing to {self.root.parent}; wait for "
                                   f"it to finish") from None
            yield


# ---------------------------------------------------------------------------------------------------------------
# the run
# ---------------------------------------------------------------------------------------------------------------

def _list_url(repo: str, since: str | None) -> str:
    # Always every state: with --state closed, an issue imported when closed and reopened since is open now, and
    # only a listing of open issues too says so (it is imported again, as unresolved).
    query = {"state": "all", "sort": "updated", "direction": "asc", "per_page": PER_PAGE}
    if since:
        query["since"] = since
    return f"/repos/{repo}/issues?{urlencode(query)}"


class _Importer:
    def __init__(self, kb_dir: Path, settings: Settings, report: ImportReport, progress: Progress,
                 sleep: Callable[[float], None]):
        self.kb_dir = kb_dir
        self.settings = settings
        self.report = report
        self.tick = progress
        self.api = _Api(settings, report, sleep)
        self.state = ImportState(kb_dir)
        self.pending: list[Prepared] = []
        self.handled = 0

    def _pages(self, url: str, cached: dict, expected: int | None = None) -> tuple[list, dict]:
        """Every item of a paginated list, each page asked for conditionally; `cached` (url -> etag, items, next)
        answers the pages that come back 304. `expected`: how many items there are (an issue's comment count), so
        that a page added after a last page that did not change is asked for even when a 304 carries no Link.
        Returns the items and the new cache."""
        items: list = []
        fresh: dict = {}
        next_url: str | None = url
        page_no = 1
        while next_url:
            kept = cached.get(next_url) if isinstance(cached.get(next_url), dict) else None
            page = self.api.get(next_url, kept and kept.get("etag"), what=url.split("?")[0])
            if page.status == 304 and kept is not None:
                entry = {**kept, "next": page.next if page.links else kept.get("next")}
                if not entry["next"] and expected is not None and len(items) + len(kept["items"]) < expected:
                    entry["next"] = f"{url}&page={page_no + 1}"
            else:
                entry = {"etag": page.etag, "items": page.data if isinstance(page.data, list) else [],
                         "next": page.next}
            fresh[next_url] = entry
            items.extend(entry["items"])
            next_url = entry["next"]
            page_no += 1
        return items, fresh

    def thread(self, repo: str, issue: dict) -> dict:
        """The thread of a listed issue: from the cache when the issue is unchanged since it was read, else read
        (comments, and the timeline of a closed issue) and cached at once."""
        number = int(issue["number"])
        cached = self.state.thread(repo, number) or {}
        if cached.get("issue", {}).get("updated_at") == issue.get("updated_at"):
            return cached
        self.report.fetched += 1
        comments, comment_pages = [], {}
        if issue.get("comments", 1):
            comments, comment_pages = self._pages(f"/repos/{repo}/issues/{number}/comments?per_page={PER_PAGE}",
                                                  cached.get("comment_pages") or {}, expected=issue.get("comments"))
        events, event_pages = [], {}
        # The timeline says which pull request or commit closed an issue, and whether (and when) it was reopened.
        if (issue.get("state") == "closed" or issue.get("state_reason") == "reopened"
                or cached.get("issue", {}).get("state") == "closed"):
            events, event_pages = self._pages(f"/repos/{repo}/issues/{number}/timeline?per_page={PER_PAGE}",
                                              cached.get("event_pages") or {})
        thread = {"issue": issue, "comments": comments, "events": events, "comment_pages": comment_pages,
                  "event_pages": event_pages}
        self.state.keep_thread(repo, number, thread)
        return thread

    def commit(self) -> None:
        """Build the pending threads into a new generation (nothing is written when none changed)."""
        if not self.pending:
            return
        built = ingest([], self.kb_dir, self.settings, prepared=self.pending, progress=self.tick)
        self.report.added += len(built.added)
        self.report.updated += len(built.updated)
        self.report.unchanged += len(built.unchanged)
        self.report.embedded += built.embedded
        self.report.documents = built.documents
        for source, reason in built.skipped:
            self.report.skipped[reason] += 1
        self.report.notes.extend(built.notes)
        self.pending = []

    def run_repo(self, repo: str, state_filter: str, since: str | None, limit: int | None) -> None:
        rs = self.state.repo(repo, state_filter)
        cursor = rs.get("cursor")
        start = max(x for x in (cursor, since) if x) if (cursor or since) else None
        old_pages: dict = rs.get("pages") or {}
        seen: dict[int, str] = {}        # number -> updated_at handled in this run
        while True:
            url: str | None = _list_url(repo, start)
            walked: dict = {}
            last = start
            fresh_work = stopped = False
            while url:
                kept = old_pages.get(url) if isinstance(old_pages.get(url), dict) else None
                page = self.api.get(url, kept and kept.get("etag"), what=f"{repo} issues")
                if page.status == 304 and kept is not None:
                    # Nothing changed on this page since the listing that ended the last run: all of it was built.
                    walked[url] = {**kept, "next": page.next if page.links else kept.get("next")}
                    url = walked[url]["next"]
                    continue
                walked[url] = {"etag": page.etag, "next": page.next}
                items = page.data if isinstance(page.data, list) else []
                for issue in items:
                    if not isinstance(issue, dict) or "number" not in issue:
                        continue
                    number, updated = int(issue["number"]), str(issue.get("updated_at") or "")
                    if seen.get(number) == updated:
                        continue
                    first_time = number not in seen
                    if "pull_request" in issue:
                        seen[number] = updated
                        if first_time:
                            self.report.skipped["pull request"] += 1
                        last = max(last or updated, updated)
                        continue
                    if (state_filter == "closed" and issue.get("state") != "closed"
                            and self.state.thread(repo, number) is None):
                        # Open and never imported: --state closed leaves it out (until it is closed).
                        seen[number] = updated
                        if first_time:
                            self.report.skipped["open"] += 1
                        last = max(last or updated, updated)
                        continue
                    if limit is not None and self.handled >= limit:
                        stopped = True
                        break
                    seen[number] = updated
                    thread = self.thread(repo, issue)
                    self.pending.append(self.prepare(repo, thread))
                    self.handled += 1
                    fresh_work = True
                    last = max(last or updated, updated)
                    total = max(self.handled, (page.last_page or 0) * PER_PAGE)
                    self.tick("fetch", self.handled, total)
                    if len(self.pending) >= BATCH:
                        self.commit()
                        rs["cursor"] = last
                        self.state.save()
                if stopped:
                    break
                url = page.next
            self.commit()
            if last:
                rs["cursor"] = last
            if stopped:
                rs.pop("pages", None)        # this listing was not walked to its end: its ETags say nothing
                self.state.save()
                self.report.notes.append(f"{repo}: stopped after {limit} threads (--max); run again to go on")
                return
            if not fresh_work or last == start:
                rs["pages"] = walked         # the listing the next run starts with, asked for with these ETags
                self.state.save()
                return
            self.state.save()
            # List again from the new cursor: anything updated meanwhile is read now, and the ETag of a listing
            # that brings nothing new is what lets the next run cost one 304.
            start = last
            old_pages = {}

    def prepare(self, repo: str, thread: dict) -> Prepared:
        doc = thread_document(repo, thread["issue"], thread.get("comments") or [], thread.get("events") or [])
        if doc.resolution is not None:
            self.report.resolved += 1
        else:
            self.report.unresolved += 1
        return Prepared(doc=doc, origin=doc.url or source_of(repo, int(thread["issue"]["number"])))


def import_github(repos: list[str], kb_dir: Path, settings: Settings, *, state: str = "closed",
                  since: str | None = None, limit: int | None = None, progress: Progress | None = None,
                  sleep: Callable[[float], None] = time.sleep) -> ImportReport:
    """Import the issue threads of `repos` (OWNER/REPO) into the KB at `kb_dir` (created when missing).

    `state`: closed or all; `since`: an ISO date, the earliest update to import (a stored cursor that is later
    wins); `limit`: at most this many threads in this run (the next run goes on from there)."""
    if state not in ("closed", "all"):
        raise ImportFailed(f"--state {state!r}: give closed or all")
    repos = [check_repo(r) for r in repos]
    if not repos:
        raise ImportFailed("give at least one repository, as OWNER/REPO")
    since = check_since(since)
    report = ImportReport()
    tick = progress or (lambda stage, done, total: None)
    kb_dir = Path(kb_dir)
    if kb_dir.exists() and not kb_dir.is_dir():
        raise ImportFailed(f"{kb_dir}: is a file, not a knowledge-base folder")
    importer = _Importer(kb_dir, settings, report, tick, sleep)
    try:
        with importer.state.locked():
            for repo in repos:
                importer.run_repo(repo, state, since, limit)
    finally:
        importer.api.close()
    if report.documents == 0 and store.current_generation(kb_dir) is not None:
        prev = store.open_store(kb_dir, verify=False)
        try:
            report.documents = len(prev.doc_index())
        finally:
            prev.close()
    return report
