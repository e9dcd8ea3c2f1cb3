"""A fake GitHub REST API for issue import: a real HTTP server on 127.0.0.1 serving repositories' issues (pull
requests among them, as GitHub lists them), comments and timeline events, paginated with Link headers (a small page
size so that a handful of issues spans several pages), with ETags that answer 304 to a matching If-None-Match, rate
limit headers, and failures on script (a 403 with Retry-After, a 429, a 5xx). Every request is recorded.
"""
from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit


@dataclass
class Request:
    path: str
    query: dict
    if_none_match: str | None
    auth: str
    status: int = 0


@dataclass
class _Rule:
    pattern: re.Pattern
    status: int
    times: int
    headers: dict


@dataclass
class _Hold:
    pattern: re.Pattern
    release: threading.Event = field(default_factory=threading.Event)


def stamp(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


class FakeIssuesAPI:
    def __init__(self, token: str = "test-token", page_size: int = 2):
        self.token = token
        self.page_size = page_size
        self.issues: dict[str, dict[int, dict]] = {}          # repo -> number -> issue
        self.comments: dict[tuple[str, int], list[dict]] = {}
        self.timeline: dict[tuple[str, int], list[dict]] = {}
        self.requests: list[Request] = []
        self.remaining = 4999
        self._rules: list[_Rule] = []
        self._holds: list[_Hold] = []
        self._lock = threading.Condition()
        self._next_id = 5000
        self.clock = 1_700_000_000.0                             # updated_at stamps, one second apart
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> FakeIssuesAPI:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        for h in self._holds:
            h.release.set()
        self.server.shutdown()
        self.server.server_close()

    # --- content ---------------------------------------------------------------------------------------------
    def _tick(self) -> str:
        self.clock += 1
        return stamp(self.clock)

    def add_issue(self, repo: str, number: int, title: str, body: str, user: str = "reporter", *,
                  state: str = "closed", state_reason: str | None = "completed", labels: tuple[str, ...] = (),
                  pull_request: bool = False, association: str = "NONE") -> dict:
        with self._lock:
            now = self._tick()
            issue = {"number": number, "title": title, "body": body, "user": {"login": user, "type": "User"},
                     "state": state, "state_reason": state_reason if state == "closed" else None,
                     "labels": [{"name": n} for n in labels], "comments": 0, "created_at": now, "updated_at": now,
                     "closed_at": now if state == "closed" else None, "author_association": association,
                     "html_url": f"https://github.com/{repo}/{'pull' if pull_request else 'issues'}/{number}"}
            if pull_request:
                issue["pull_request"] = {"url": f"{self.url}/repos/{repo}/pulls/{number}"}
            self.issues.setdefault(repo, {})[number] = issue
            self.comments.setdefault((repo, number), [])
            self.timeline.setdefault((repo, number), [])
            return issue

    def add_comment(self, repo: str, number: int, body: str, user: str, association: str = "NONE",
                    user_type: str = "User") -> dict:
        with self._lock:
            self._next_id += 1
            now = self._tick()
            c = {"id": self._next_id, "body": body, "user": {"login": user, "type": user_type},
                 "author_association": association, "created_at": now, "updated_at": now,
                 "html_url": f"https://github.com/{repo}/issues/{number}#issuecomment-{self._next_id}"}
            self.comments[(repo, number)].append(c)
            issue = self.issues[repo][number]
            issue["comments"] += 1
            issue["updated_at"] = now
            return c

    def close_with_pr(self, repo: str, number: int, pr: int, pr_title: str, commit: str = "a1b2c3d4e5f6") -> None:
        with self._lock:
            now = self._tick()
            self.timeline[(repo, number)] += [
                {"event": "cross-referenced", "created_at": now, "actor": {"login": "maint"},
                 "source": {"type": "issue", "issue": {
                     "number": pr, "title": pr_title, "state": "closed",
                     "html_url": f"https://github.com/{repo}/pull/{pr}", "repository": {"full_name": repo},
                     "pull_request": {"merged_at": now, "html_url": f"https://github.com/{repo}/pull/{pr}"}}}},
                {"event": "closed", "created_at": now, "commit_id": commit, "actor": {"login": "maint"},
                 "state_reason": "completed"},
            ]
            issue = self.issues[repo][number]
            issue.update(state="closed", state_reason="completed", closed_at=now, updated_at=now)

    def close(self, repo: str, number: int, state_reason: str = "completed") -> None:
        with self._lock:
            now = self._tick()
            self.timeline[(repo, number)].append({"event": "closed", "created_at": now, "commit_id": None,
                                                  "state_reason": state_reason, "actor": {"login": "maint"}})
            self.issues[repo][number].update(state="closed", state_reason=state_reason, closed_at=now,
                                             updated_at=now)

    def reopen(self, repo: str, number: int, user: str = "reporter") -> None:
        """Reopen a closed issue as GitHub does: state open, state_reason "reopened", closed_at cleared, and a
        `reopened` event in its timeline."""
        with self._lock:
            now = self._tick()
            self.timeline[(repo, number)].append({"event": "reopened", "created_at": now, "actor": {"login": user}})
            self.issues[repo][number].update(state="open", state_reason="reopened", closed_at=None, updated_at=now)

    # --- scripting -------------------------------------------------------------------------------------------
    def fail(self, path_regex: str, status: int, times: int = 1, headers: dict | None = None) -> None:
        with self._lock:
            self._rules.append(_Rule(re.compile(path_regex), status, times, headers or {}))

    def hold(self, path_regex: str) -> threading.Event:
        h = _Hold(re.compile(path_regex))
        with self._lock:
            self._holds.append(h)
        return h.release

    def wait_for(self, path_regex: str, timeout: float = 60.0) -> bool:
        with self._lock:
            return self._lock.wait_for(lambda: any(re.search(path_regex, r.path) for r in self.requests), timeout)

    def clear_requests(self) -> None:
        with self._lock:
            self.requests.clear()

    def requests_to(self, path_regex: str) -> list[Request]:
        with self._lock:
            return [r for r in self.requests if re.search(path_regex, r.path)]

    # --- the server ------------------------------------------------------------------------------------------
    def _paged(self, path: str, query: dict, items: list) -> tuple[list, dict]:
        size = min(int(query.get("per_page", ["30"])[0]), self.page_size)
        page = int(query.get("page", ["1"])[0])
        chunk = items[(page - 1) * size: page * size]
        last = max(1, -(-len(items) // size))
        links = []
        flat = {k: v[0] for k, v in query.items()}
        if page < last:
            links.append(f'<{self.url}{path}?{urlencode({**flat, "page": page + 1})}>; rel="next"')
            links.append(f'<{self.url}{path}?{urlencode({**flat, "page": last})}>; rel="last"')
        return chunk, ({"Link": ", ".join(links)} if links else {})

    def _answer(self, path: str, query: dict) -> tuple[int, object, dict]:
        m = re.fullmatch(r"/repos/([^/]+/[^/]+)/issues", path)
        if m:
            repo = m.group(1)
            if repo not in self.issues:
                return 404, {"message": "Not Found"}, {}
            state = query.get("state", ["open"])[0]
            since = query.get("since", [None])[0]
            items = [i for i in self.issues[repo].values()
                     if (state == "all" or i["state"] == state) and (since is None or i["updated_at"] >= since)]
            items.sort(key=lambda i: (i["updated_at"], i["number"]),
                       reverse=query.get("direction", ["desc"])[0] == "desc")
            return (200, *self._paged(path, query, items))
        m = re.fullmatch(r"/repos/([^/]+/[^/]+)/issues/(\d+)/(comments|timeline)", path)
        if m:
            key = (m.group(1), int(m.group(2)))
            table = self.comments if m.group(3) == "comments" else self.timeline
            if key not in table:
                return 404, {"message": "Not Found"}, {}
            return (200, *self._paged(path, query, list(table[key])))
        return 404, {"message": "Not Found"}, {}

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                split = urlsplit(self.path)
                query = parse_qs(split.query)
                req = Request(split.path, query, self.headers.get("If-None-Match"),
                              self.headers.get("Authorization", ""))
                with fake._lock:
                    fake.requests.append(req)
                    fake._lock.notify_all()
                    hold = next((h for h in fake._holds if h.pattern.search(split.path)), None)
                if hold is not None:
                    hold.release.wait()
                with fake._lock:
                    headers = {"X-RateLimit-Limit": "5000", "X-RateLimit-Reset": str(int(time.time()) + 3600)}
                    if req.auth != f"Bearer {fake.token}":
                        status, payload = 401, {"message": "Bad credentials"}
                    else:
                        rule = next((r for r in fake._rules if r.times > 0 and r.pattern.search(split.path)), None)
                        if rule is not None:
                            rule.times -= 1
                            status, payload = rule.status, {"message": "You have exceeded a secondary rate limit"}
                            headers.update(rule.headers)
                        else:
                            status, payload, extra = fake._answer(split.path, query)
                            headers.update(extra)
                    headers.setdefault("X-RateLimit-Remaining", str(fake.remaining))
                    data = json.dumps(payload).encode()
                    etag = f'W/"{hashlib.sha1(data).hexdigest()}"'
                    if status == 200:
                        headers["ETag"] = etag
                        if req.if_none_match == etag:
                            status, data = 304, b""
                    req.status = status
                self.send_response(status)
                if status != 304:
                    self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

        return Handler
