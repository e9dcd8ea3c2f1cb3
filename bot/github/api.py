"""A small GitHub REST client: the calls the commenter makes, with retries and backoff.

Retried: network errors, 5xx, 429, and 403 when it is a rate limit (`x-ratelimit-remaining: 0` or `retry-after`);
the wait honours `retry-after` / `x-ratelimit-reset` (capped by TRIAGE_GITHUB_RETRY_MAX_WAIT_S), else doubles from
TRIAGE_GITHUB_RETRY_BACKOFF_S. Creating a comment is not retried here: a 502 may still have created it, so the
caller looks again before posting again (see process.py).

Two ways to authenticate: a static token (TRIAGE_GITHUB_TOKEN), or GitHub App mode (TRIAGE_GITHUB_APP_ID and
TRIAGE_GITHUB_APP_PRIVATE_KEY), where each call acts for the installation set with `client.installation(id)` and
carries that installation's token (bot/github/app_auth.py).
"""
from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from urllib.parse import quote

import httpx

from bot.github.app_auth import GitHubApp
from bot.github.errors import GitHubAPIError, GitHubAppError
from kb.config import Settings
from kb.github_http import error_message, next_link

log = logging.getLogger(__name__)

API_VERSION = "2022-11-28"
__all__ = ["GitHubAPIError", "GitHubAppError", "GitHubClient", "IssueComment", "RetryPolicy"]

# The installation the calls in this context act for (App mode); each thread has its own.
_installation: ContextVar[int | None] = ContextVar("github_installation", default=None)


@dataclass
class RetryPolicy:
    attempts: int
    backoff_s: float
    max_wait_s: float

    def backoff(self, attempt: int) -> float:
        """The wait before try `attempt + 1`: backoff_s doubled per try, with jitter (±20%, so many workers do not
        retry in step), never over max_wait_s (and jittered there too)."""
        wait = self.backoff_s * 2 ** (attempt - 1) * random.uniform(0.8, 1.2)
        return min(wait, self.max_wait_s * random.uniform(0.8, 1.0))

    def wait_for(self, response: httpx.Response, attempt: int) -> float | None:
        """Seconds to wait before retrying this response, or None when retrying cannot help."""
        h = response.headers
        status = response.status_code
        rate_limited = status == 429 or (status == 403 and (h.get("x-ratelimit-remaining") == "0"
                                                            or "retry-after" in h))
        if not (rate_limited or status >= 500):
            return None
        if h.get("retry-after", "").isdigit():
            return min(self.max_wait_s, float(h["retry-after"]))
        if h.get("x-ratelimit-remaining") == "0" and h.get("x-ratelimit-reset", "").isdigit():
            return min(self.max_wait_s, max(0.0, float(h["x-ratelimit-reset"]) - time.time()))
        return self.backoff(attempt)


@dataclass
class IssueComment:
    id: int
    body: str
    user: str


class GitHubClient:
    def __init__(self, settings: Settings, sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.time):
        headers = {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": API_VERSION,
                   "User-Agent": "triage-kb"}
        self.app = GitHubApp.from_settings(settings, self.request, clock)
        token = settings.github_token.get_secret_value() if settings.github_token is not None else ""
        if token and self.app is None:
            headers["Authorization"] = f"Bearer {token}"
        self.http = httpx.Client(base_url=settings.github_api_url.rstrip("/") + "/", headers=headers, timeout=30.0)
        self.policy = RetryPolicy(settings.github_retry_attempts, settings.github_retry_backoff_s,
                                  settings.github_retry_max_wait_s)
        self.sleep = sleep

    def close(self) -> None:
        self.http.close()

    @contextmanager
    def installation(self, installation_id: int | None) -> Iterator[None]:
        """The calls made inside act for this installation (App mode; the static token ignores it)."""
        reset = _installation.set(installation_id)
        try:
            yield
        finally:
            _installation.reset(reset)

    def _installation_auth(self) -> tuple[int, str]:
        installation_id = _installation.get()
        if installation_id is None:
            raise GitHubAppError("GitHub App mode: the delivery has no installation.id, so there is no installation "
                                 "to act for (is the webhook the App's, rather than a repository's?)")
        return installation_id, self.app.installation_token(installation_id)

    def request(self, method: str, path: str, *, json: object = None, params: dict | None = None,
                retry: bool = True, auth: str | None = None) -> httpx.Response:
        """`auth`: an Authorization header for this call (the App's JWT); else the installation's token in App
        mode, or the static token."""
        url = path if path.startswith("http") else path.lstrip("/")
        installation = token = None
        if auth is None and self.app is not None:
            installation, token = self._installation_auth()
            auth = f"Bearer {token}"
        headers = {"Authorization": auth} if auth else None
        attempts = self.policy.attempts if retry else 1
        attempt, renewed = 0, False
        while attempt < attempts:
            attempt += 1
            try:
                resp = self.http.request(method, url, json=json, params=params, headers=headers)
            except httpx.TransportError as exc:
                error = GitHubAPIError(method, path, None, type(exc).__name__, True, self.policy.backoff(attempt))
            else:
                if resp.is_success:
                    return resp
                if resp.status_code == 401 and token is not None and not renewed:
                    # The installation's token was refused (revoked, or expired early): take a new one, once. A 401
                    # did nothing, so even a POST is safe to send again.
                    log.warning("GitHub %s %s: installation %d's token was refused; taking a new one", method, path,
                                installation)
                    self.app.forget(installation, token)
                    installation, token = self._installation_auth()
                    headers, renewed = {"Authorization": f"Bearer {token}"}, True
                    attempt -= 1
                    continue
                wait = self.policy.wait_for(resp, attempt)
                error = GitHubAPIError(method, path, resp.status_code, error_message(resp), wait is not None,
                                       wait or 0.0)
            if not error.retryable or attempt == attempts:
                raise error
            log.warning("%s; try %d of %d in %.1f s", error, attempt + 1, attempts, error.wait)
            self.sleep(error.wait)
        raise AssertionError("unreachable")

    def authenticated_login(self) -> str:
        """The login our comments carry: the App's `<slug>[bot]` (GET /app), or the token's user (GET /user)."""
        if self.app is not None:
            return self.app.login()
        resp = self.request("GET", "/user")
        login = resp.json().get("login") if isinstance(resp.json(), dict) else None
        if not isinstance(login, str) or not login:
            raise GitHubAPIError("GET", "/user", resp.status_code, "no login in the answer", False, 0.0)
        return login

    def issue_comments(self, repo: str, number: int) -> Iterator[IssueComment]:
        """Every comment of an issue, oldest first, following the Link header's `next` pages."""
        url: str | None = f"/repos/{repo}/issues/{number}/comments"
        params: dict | None = {"per_page": 100}
        while url:
            resp = self.request("GET", url, params=params)
            for c in resp.json():
                yield IssueComment(id=c["id"], body=c.get("body") or "", user=(c.get("user") or {}).get("login", ""))
            url = next_link(resp, self.http.base_url)
            params = None  # the next link carries its own query

    def create_comment(self, repo: str, number: int, body: str) -> IssueComment:
        resp = self.request("POST", f"/repos/{repo}/issues/{number}/comments", json={"body": body}, retry=False)
        return IssueComment(id=resp.json()["id"], body=body, user="")

    def update_comment(self, repo: str, comment_id: int, body: str) -> None:
        self.request("PATCH", f"/repos/{repo}/issues/comments/{comment_id}", json={"body": body})

    def add_label(self, repo: str, number: int, label: str) -> None:
        # Adding a label the issue already has is a no-op on GitHub, so this is safe to retry.
        self.request("POST", f"/repos/{repo}/issues/{number}/labels", json={"labels": [label]})

    def remove_label(self, repo: str, number: int, label: str) -> None:
        try:
            self.request("DELETE", f"/repos/{repo}/issues/{number}/labels/{quote(label, safe='')}")
        except GitHubAPIError as exc:
            if exc.status != 404:  # not there: nothing to remove
                raise

    def react(self, repo: str, comment_id: int, content: str) -> None:
        self.request("POST", f"/repos/{repo}/issues/comments/{comment_id}/reactions", json={"content": content})
