"""Helpers for tests of `triage serve`: the app under uvicorn on 127.0.0.1 (in a thread or as a subprocess),
a small real KB built once per session, and signed GitHub webhook deliveries."""
from __future__ import annotations

import atexit
import functools
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import httpx

from bot.github.signature import sign

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "data" / "corpus_small"
REPORTS = ROOT / "tests" / "data" / "reports"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(check, timeout: float = 30.0, interval: float = 0.05):
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(interval)


@functools.lru_cache(maxsize=None)
def _built_kb(cache_dir: Path) -> Path:
    from ingest.build import ingest
    from kb.config import Settings

    root = Path(tempfile.mkdtemp(prefix="triage-service-kb-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    ingest([CORPUS], root / "kb", Settings(cache_dir=cache_dir))
    return root / "kb"


def small_kb(cache_dir: Path, dest: Path) -> Path:
    """A private copy of the small corpus KB (built once per session): each app writes its own state.sqlite."""
    shutil.copytree(_built_kb(cache_dir), dest, ignore=shutil.ignore_patterns("state.sqlite*", ".lock"))
    return dest


class LiveServer:
    """An app under a real uvicorn server on 127.0.0.1, in a thread; ready once /healthz says so."""

    def __init__(self, app, wait_ready: bool = True):
        import uvicorn

        self.app = app
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_config=None,
                                                    lifespan="on"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.wait_ready = wait_ready

    def __enter__(self) -> LiveServer:
        self.thread.start()
        if not wait_until(lambda: self.server.started, 30):
            raise RuntimeError("uvicorn did not start")
        if self.wait_ready and not wait_until(lambda: _healthy(self.url), 60):
            raise RuntimeError("the app never became ready")
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(30)


def live_app(cache_dir: Path, folder: Path, make_settings) -> LiveServer:
    """The app over a private copy of the small KB in `folder`, with `make_settings(kb_dir)`; `.kb_dir` says where."""
    from bot.service.app import create_app

    kb_dir = small_kb(cache_dir, folder / "kb")
    server = LiveServer(create_app(make_settings(kb_dir)))
    server.kb_dir = kb_dir
    return server


class ServeProcess:
    """`triage serve` as a subprocess (so it can be killed hard and started again), output kept in a file."""

    def __init__(self, kb_dir: Path, env: dict[str, str], log_path: Path):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        self.args = [sys.executable, "-m", "bot.cli", "serve", "--kb", str(kb_dir), "--port", str(self.port)]
        self.env = {**os.environ, **env}
        self.proc: subprocess.Popen | None = None

    def start(self) -> ServeProcess:
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(self.args, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        if not wait_until(lambda: self.proc.poll() is not None or _healthy(self.url), 90):
            raise RuntimeError(f"triage serve never became ready:\n{self.log()}")
        if self.proc.poll() is not None:
            raise RuntimeError(f"triage serve exited with {self.proc.returncode}:\n{self.log()}")
        return self

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


def _healthy(url: str) -> bool:
    try:
        return httpx.get(f"{url}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def issue_payload(number: int, title: str, body: str, action: str = "opened", repo: str = "acme/trainer",
                  sender_type: str = "User", sender: str = "alice") -> dict:
    """An `issues` event in GitHub's shape (the fields we read, and a few we do not)."""
    return {
        "action": action,
        "issue": {"number": number, "title": title, "body": body, "state": "open", "locked": False,
                  "html_url": f"https://github.com/{repo}/issues/{number}",
                  "user": {"login": sender, "type": sender_type}, "labels": []},
        "repository": {"full_name": repo, "name": repo.split("/")[1], "owner": {"login": repo.split("/")[0]}},
        "sender": {"login": sender, "type": sender_type},
        "installation": {"id": 42},
    }


def comment_payload(number: int, title: str, body: str, comment: str, repo: str = "acme/trainer",
                    sender_type: str = "User", sender: str = "bob", comment_id: int = 555,
                    association: str = "MEMBER", issue_author: str = "alice") -> dict:
    """An `issue_comment` event; `association` is the commenter's author_association in the repository."""
    payload = issue_payload(number, title, body, action="created", repo=repo, sender_type=sender_type, sender=sender)
    payload["issue"]["user"] = {"login": issue_author, "type": "User"}
    payload["comment"] = {"id": comment_id, "body": comment, "user": {"login": sender, "type": sender_type},
                          "author_association": association,
                          "html_url": f"https://github.com/{repo}/issues/{number}#issuecomment-{comment_id}"}
    return payload


def post_webhook(url: str, event: str, payload: dict, secret: str | None, delivery: str | None = None,
                 signature: str | None = None, request_id: str | None = None) -> httpx.Response:
    """POST a delivery the way GitHub does: raw JSON body, event and delivery headers, HMAC signature."""
    body = json.dumps(payload).encode()
    headers = {"Content-Type": "application/json", "X-GitHub-Event": event,
               "X-GitHub-Delivery": delivery or str(uuid.uuid4()), "User-Agent": "GitHub-Hookshot/test"}
    if signature is not None:
        headers["X-Hub-Signature-256"] = signature
    elif secret is not None:
        headers["X-Hub-Signature-256"] = sign(secret.encode(), body)
    if request_id:
        headers["X-Request-ID"] = request_id
    return httpx.post(f"{url}/github/webhook", content=body, headers=headers, timeout=30)
