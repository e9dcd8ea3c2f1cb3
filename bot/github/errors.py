"""The GitHub client's errors (apart from api.py, so the App's token code can raise them without a cycle)."""
from __future__ import annotations


class GitHubAPIError(Exception):
    def __init__(self, method: str, path: str, status: int | None, message: str, retryable: bool, wait: float):
        where = f"GitHub {method} {path}"
        super().__init__(f"{where}: {status} {message}" if status else f"{where}: {message}")
        self.status = status
        self.retryable = retryable
        self.wait = wait  # how long to wait before trying again, when retryable


class GitHubAppError(GitHubAPIError):
    """GitHub App mode could not authenticate: a missing or unreadable key, a delivery without an installation, or
    GitHub refusing the App's JWT. The message is one line and says what to check."""

    def __init__(self, message: str, retryable: bool = False, status: int | None = None, wait: float = 0.0):
        Exception.__init__(self, message)
        self.status = status
        self.retryable = retryable
        self.wait = wait
