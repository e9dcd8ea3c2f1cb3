"""A fake GitHub REST API: a real HTTP server on 127.0.0.1 that keeps issue comments and labels, records every
call, and fails or stalls on script (`fail`, `hold`), so tests exercise our real client, retries and pagination.

With `app=FakeApp(...)` it is also a GitHub App's side of GitHub: GET /app and POST
/app/installations/{id}/access_tokens accept only a JWT that verifies with the App's public key and keeps GitHub's
rules (RS256, `iss` the App's id, `iat` not in the future, `exp` after now and at most 10 minutes after `iat`), and
hand out installation tokens that expire (on the fake's `clock`, which also writes the Date header) and reach only
the installation's own accounts.
"""
from __future__ import annotations

import json
import re
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

BOT = {"login": "triage-kb[bot]", "type": "Bot"}


@dataclass
class Call:
    method: str
    path: str
    query: dict
    body: object
    auth: str
    installation: int | None = None   # whose installation token it carried (App mode)


@dataclass
class FakeApp:
    app_id: str
    public_key: object                       # the App's RSA public key (cryptography)
    slug: str = "triage-kb"
    installations: dict[int, set[str]] = field(default_factory=lambda: {42: {"acme"}})  # id -> accounts it reaches
    token_ttl_s: float = 3600.0


@dataclass
class Minted:
    installation: int
    token: str
    expires_at: float


@dataclass
class _Rule:
    method: str
    pattern: re.Pattern
    status: int
    times: int
    headers: dict
    apply: bool          # do the work, then answer with the failure anyway (a 502 that did create the comment)


@dataclass
class _Hold:
    method: str
    pattern: re.Pattern
    release: threading.Event = field(default_factory=threading.Event)


class FakeGitHub:
    def __init__(self, token: str | None = "test-token", page_size: int = 100, bot: dict | None = None,
                 app: FakeApp | None = None, clock: Callable[[], float] = time.time):
        self.token = token         # the static token (None: only an App's installation tokens are accepted)
        self.app = app
        self.clock = clock
        # the account the token acts as: GET /user answers it, and it writes comments (an App's is `<slug>[bot]`)
        self.bot = bot or ({"login": f"{app.slug}[bot]", "type": "Bot"} if app else BOT)
        self.minted: list[Minted] = []      # every installation token handed out, oldest first
        self._tokens: dict[str, Minted] = {}
        self.page_size = page_size
        self._lock = threading.Condition()
        self.calls: list[Call] = []
        self.comments: dict[tuple[str, int], list[dict]] = {}
        self.labels: dict[tuple[str, int], list[str]] = {}
        self.reactions: list[tuple[int, str]] = []
        self._rules: list[_Rule] = []
        self._holds: list[_Hold] = []
        self._next_id = 1000
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> FakeGitHub:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        for hold in self._holds:
            hold.release.set()
        self.server.shutdown()
        self.server.server_close()

    # --- scripting -------------------------------------------------------------------------------------------
    def fail(self, method: str, path_regex: str, status: int, times: int = 1, headers: dict | None = None,
             apply: bool = False) -> None:
        with self._lock:
            self._rules.append(_Rule(method, re.compile(path_regex), status, times, headers or {}, apply))

    def hold(self, method: str, path_regex: str) -> threading.Event:
        """Stall matching requests until the returned event is set (or the server stops)."""
        h = _Hold(method, re.compile(path_regex))
        with self._lock:
            self._holds.append(h)
        return h.release

    def add_comment(self, repo: str, number: int, body: str, user: dict | None = None) -> dict:
        with self._lock:
            return self._new_comment(repo, number, body, user or {"login": "someone", "type": "User"})

    def revoke(self, token: str) -> None:
        """The installation token stops working (as when GitHub revokes it)."""
        with self._lock:
            self._tokens.pop(token, None)

    def reset(self) -> None:
        """Forget what happened (installation tokens already handed out stay valid)."""
        with self._lock:
            self.minted.clear()
            self.calls.clear()
            self.comments.clear()
            self.labels.clear()
            self.reactions.clear()
            self._rules.clear()
            for hold in self._holds:
                hold.release.set()
            self._holds.clear()

    # --- inspecting ------------------------------------------------------------------------------------------
    def calls_to(self, method: str, path_regex: str = "") -> list[Call]:
        with self._lock:
            return [c for c in self.calls if c.method == method and re.search(path_regex, c.path)]

    def wait_for_call(self, method: str, path_regex: str, count: int = 1, timeout: float = 30.0) -> bool:
        with self._lock:
            return self._lock.wait_for(
                lambda: sum(c.method == method and bool(re.search(path_regex, c.path)) for c in self.calls) >= count,
                timeout)

    def bot_comments(self, repo: str, number: int) -> list[dict]:
        with self._lock:
            return [c for c in self.comments.get((repo, number), []) if c["user"] == self.bot]

    # --- the server ------------------------------------------------------------------------------------------
    def _new_comment(self, repo: str, number: int, body: str, user: dict) -> dict:
        self._next_id += 1
        c = {"id": self._next_id, "body": body, "user": user,
             "html_url": f"https://github.com/{repo}/issues/{number}#issuecomment-{self._next_id}"}
        self.comments.setdefault((repo, number), []).append(c)
        return c

    def _jwt_refused(self, auth: str) -> str | None:
        """Why GitHub would refuse this as the App's JWT, or None when it is good."""
        import jwt

        if self.app is None or not auth.startswith("Bearer "):
            return "A JSON web token could not be decoded"
        try:
            claims = jwt.decode(auth[7:], self.app.public_key, algorithms=["RS256"],
                                options={"verify_exp": False, "verify_iat": False, "require": ["iat", "exp", "iss"]})
        except jwt.InvalidTokenError:
            return "A JSON web token could not be decoded"
        now = self.clock()
        if not isinstance(claims["iat"], int) or claims["iat"] > now + 1:
            return "'Issued at' claim ('iat') must be an Integer representing a time in the past"
        if not isinstance(claims["exp"], int) or claims["exp"] <= now:
            return "'Expiration time' claim ('exp') must be a numeric value representing the future time"
        if claims["exp"] - claims["iat"] > 600:
            return "'Expiration time' claim ('exp') is too far in the future"
        if str(claims["iss"]) != self.app.app_id:
            return "Integration not found"
        return None

    def _refused(self, path: str, call: Call) -> tuple[int, object, dict] | None:
        """The answer to a call whose credentials do not reach `path`, or None (sets call.installation)."""
        if path.startswith("/app"):
            why = self._jwt_refused(call.auth)
            return (401, {"message": why}, {}) if why else None
        scheme, _, secret = call.auth.partition(" ")
        if scheme not in ("Bearer", "token") or not secret:
            return 401, {"message": "Requires authentication"}, {}
        if self.token is not None and secret == self.token:
            return None
        minted = self._tokens.get(secret)
        if minted is None or minted.expires_at <= self.clock():
            return 401, {"message": "Bad credentials"}, {}
        call.installation = minted.installation
        m = re.match(r"/repos/([^/]+)/", path)
        if path == "/user" or (m and m.group(1) not in self.app.installations.get(minted.installation, set())):
            return 403, {"message": "Resource not accessible by integration"}, {}
        return None

    def _handle(self, method: str, path: str, query: dict, body: object) -> tuple[int, object, dict]:
        if path == "/user" and method == "GET":
            return 200, {**self.bot, "id": 4242}, {}
        if path == "/app" and method == "GET":
            return 200, {"id": int(self.app.app_id), "slug": self.app.slug, "name": self.app.slug}, {}
        m = re.fullmatch(r"/app/installations/(\d+)/access_tokens", path)
        if m and method == "POST":
            installation = int(m.group(1))
            if installation not in self.app.installations:
                return 404, {"message": "Not Found"}, {}
            minted = Minted(installation, "ghs_" + secrets.token_hex(16), self.clock() + self.app.token_ttl_s)
            self.minted.append(minted)
            self._tokens[minted.token] = minted
            expires = datetime.fromtimestamp(minted.expires_at, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
            return 201, {"token": minted.token, "expires_at": expires, "permissions": {"issues": "write"}}, {}
        m = re.fullmatch(r"/repos/([^/]+/[^/]+)/issues/(\d+)/comments", path)
        if m and method == "GET":
            repo, number = m.group(1), int(m.group(2))
            size = min(int(query.get("per_page", ["30"])[0]), self.page_size)
            page = int(query.get("page", ["1"])[0])
            items = self.comments.get((repo, number), [])
            chunk = items[(page - 1) * size: page * size]
            headers = {}
            if page * size < len(items):
                headers["Link"] = f'<{self.url}{path}?per_page={size}&page={page + 1}>; rel="next"'
            return 200, chunk, headers
        if m and method == "POST":
            return 201, self._new_comment(m.group(1), int(m.group(2)), body["body"], self.bot), {}
        m = re.fullmatch(r"/repos/([^/]+/[^/]+)/issues/comments/(\d+)", path)
        if m and method == "PATCH":
            for items in self.comments.values():
                for c in items:
                    if c["id"] == int(m.group(2)):
                        c["body"] = body["body"]
                        return 200, c, {}
            return 404, {"message": "Not Found"}, {}
        m = re.fullmatch(r"/repos/([^/]+/[^/]+)/issues/comments/(\d+)/reactions", path)
        if m and method == "POST":
            self.reactions.append((int(m.group(2)), body["content"]))
            return 201, {"content": body["content"]}, {}
        m = re.fullmatch(r"/repos/([^/]+/[^/]+)/issues/(\d+)/labels", path)
        if m and method == "POST":
            have = self.labels.setdefault((m.group(1), int(m.group(2))), [])
            have.extend(name for name in body["labels"] if name not in have)
            return 200, [{"name": name} for name in have], {}
        m = re.fullmatch(r"/repos/([^/]+/[^/]+)/issues/(\d+)/labels/(.+)", path)
        if m and method == "DELETE":
            have = self.labels.get((m.group(1), int(m.group(2))), [])
            label = unquote(m.group(3))
            if label not in have:
                return 404, {"message": "Label does not exist"}, {}
            have.remove(label)
            return 200, [{"name": name} for name in have], {}
        return 404, {"message": "Not Found"}, {}

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def date_time_string(self, timestamp=None):  # the Date header tells the fake's own time
                return formatdate(fake.clock() if timestamp is None else timestamp, usegmt=True)

            def _serve(self):
                split = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                body = json.loads(raw) if raw else None
                call = Call(self.command, split.path, parse_qs(split.query), body,
                            self.headers.get("Authorization", ""))
                with fake._lock:
                    fake.calls.append(call)
                    fake._lock.notify_all()
                    hold = next((h for h in fake._holds if h.method == self.command
                                 and h.pattern.search(split.path)), None)
                if hold is not None:
                    hold.release.wait()
                with fake._lock:
                    refused = fake._refused(split.path, call)
                    if refused is not None:
                        status, payload, headers = refused
                    else:
                        rule = next((r for r in fake._rules if r.method == self.command and r.times > 0
                                     and r.pattern.search(split.path)), None)
                        if rule is not None:
                            rule.times -= 1
                            if rule.apply:
                                fake._handle(self.command, split.path, call.query, body)
                            status, payload, headers = rule.status, {"message": "scripted failure"}, rule.headers
                        else:
                            status, payload, headers = fake._handle(self.command, split.path, call.query, body)
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PATCH = do_DELETE = do_PUT = _serve

        return Handler
