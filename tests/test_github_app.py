"""GitHub App mode: installation tokens minted with the App's key against the fake GitHub (a real HTTP server on
127.0.0.1 that verifies the JWT with the App's public key and hands out expiring tokens), first through the client
alone, then end to end through the service's webhook."""
from __future__ import annotations

import logging
import sqlite3
import time

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from bot.github.api import GitHubAppError, GitHubClient
from bot.github.events import BadPayload, installation_of
from bot.github.webhook import GitHubSurface
from kb.config import Settings
from tests.fakes.github_api import FakeApp, FakeGitHub
from tests.service_support import REPORTS, issue_payload, live_app, post_webhook, wait_until

APP_ID = "31337"
SECRET = "webhook-secret-for-app-tests"
INSTALLS = {42: {"acme"}, 43: {"umbrella"}}


def new_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def pem(key: rsa.RSAPrivateKey) -> str:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                             serialization.NoEncryption()).decode()


@pytest.fixture(scope="module")
def app_key() -> rsa.RSAPrivateKey:
    return new_key()


class Clock:
    """One clock for the client and the fake GitHub, moved by hand."""

    def __init__(self):
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


def app_settings(url: str, key: str, **extra) -> Settings:
    values = dict(github_api_url=url, github_app_id=APP_ID, github_app_private_key=key, github_retry_attempts=3,
                  github_retry_backoff_s=0.01, github_retry_max_wait_s=0.05)
    return Settings(**{**values, **extra})


def fake_app(app_key, **kw) -> FakeApp:
    return FakeApp(APP_ID, app_key.public_key(), installations={k: set(v) for k, v in INSTALLS.items()}, **kw)


# --- the client on its own -------------------------------------------------------------------------------------
def test_each_installation_gets_its_own_token_minted_once_and_used_on_later_calls(app_key, tmp_path):
    key_file = tmp_path / "app.pem"
    key_file.write_text(pem(app_key))
    with FakeGitHub(token=None, app=fake_app(app_key)) as gh:
        # A static token beside the App is not used: the fake would refuse it.
        client = GitHubClient(app_settings(gh.url, str(key_file), github_token="left-over-static-token"))
        assert client.authenticated_login() == "triage-kb[bot]"
        with client.installation(42):
            list(client.issue_comments("acme/trainer", 1))
            client.add_label("acme/trainer", 1, "triage:known-issue")
        with client.installation(43):
            client.add_label("umbrella/infra", 7, "triage:known-issue")
        with client.installation(42):
            client.create_comment("acme/trainer", 1, "hello")

        assert [m.installation for m in gh.minted] == [42, 43]
        tokens = {m.installation: m.token for m in gh.minted}
        assert tokens[42] != tokens[43]
        repo_calls = [c for c in gh.calls if c.path.startswith("/repos/")]
        assert [(c.path.split("/")[2], c.installation) for c in repo_calls] == [
            ("acme", 42), ("acme", 42), ("umbrella", 43), ("acme", 42)]
        assert all(c.auth == f"Bearer {tokens[c.installation]}" for c in repo_calls)
        assert gh.labels[("umbrella/infra", 7)] == ["triage:known-issue"]
        assert not gh.calls_to("GET", r"^/user$")

        # The App's own calls carry the JWT GitHub asks for: RS256 by the App's key, iat a minute back, exp within
        # ten minutes of it, iss the App's id.
        app_calls = [c for c in gh.calls if c.path.startswith("/app")]
        assert [c.path for c in app_calls] == ["/app", "/app/installations/42/access_tokens",
                                               "/app/installations/43/access_tokens"]
        for call in app_calls:
            claims = jwt.decode(call.auth.removeprefix("Bearer "), app_key.public_key(), algorithms=["RS256"])
            assert claims["iss"] == APP_ID and claims["exp"] - claims["iat"] <= 600
            assert time.time() - 70 <= claims["iat"] <= time.time() - 55


def test_a_token_near_its_expiry_is_replaced_before_use(app_key):
    clock = Clock()
    with FakeGitHub(token=None, app=fake_app(app_key), clock=clock) as gh:
        client = GitHubClient(app_settings(gh.url, pem(app_key)), clock=clock)
        with client.installation(42):
            client.add_label("acme/trainer", 1, "a")
            first = gh.minted[-1].token
            clock.now += 3600 - 305          # 5 min 5 s left: still good
            client.add_label("acme/trainer", 1, "b")
            assert len(gh.minted) == 1
            clock.now += 10                  # 4 min 55 s left: replaced before the call
            client.add_label("acme/trainer", 1, "c")
        assert len(gh.minted) == 2
        second = gh.minted[-1].token
        assert second != first
        assert [c.auth for c in gh.calls_to("POST", r"/labels$")] == [f"Bearer {first}"] * 2 + [f"Bearer {second}"]


def test_the_token_lifetime_is_read_against_githubs_clock_not_ours(app_key):
    """Our clock an hour behind GitHub's: the token's hour is measured from GitHub's Date, so it is still used for
    the hour (on our clock), and replaced when less than five minutes of it are left."""
    ours, theirs = Clock(), Clock()
    ours.now -= 3600
    with FakeGitHub(token=None, app=fake_app(app_key), clock=theirs) as gh:
        client = GitHubClient(app_settings(gh.url, pem(app_key)), clock=ours)
        # (the JWT is dated on our clock: GitHub would refuse it; the fake is told to trust it here)
        gh._jwt_refused = lambda auth: None
        with client.installation(42):
            client.add_label("acme/trainer", 1, "a")
            ours.now += 3000; theirs.now += 3000
            client.add_label("acme/trainer", 1, "b")
            assert len(gh.minted) == 1
            ours.now += 400; theirs.now += 400
            client.add_label("acme/trainer", 1, "c")
            assert len(gh.minted) == 2


def test_a_refused_token_is_replaced_once(app_key):
    with FakeGitHub(token=None, app=fake_app(app_key)) as gh:
        client = GitHubClient(app_settings(gh.url, pem(app_key)), sleep=lambda s: None)
        with client.installation(42):
            client.add_label("acme/trainer", 1, "a")
            gh.revoke(gh.minted[-1].token)
            client.create_comment("acme/trainer", 1, "after the revocation")
        assert len(gh.minted) == 2 and len(gh.comments[("acme/trainer", 1)]) == 1
        assert gh.calls_to("POST", r"/comments$")[-1].auth == f"Bearer {gh.minted[-1].token}"


def one_line(exc: BaseException, *absent: str) -> str:
    text = str(exc)
    assert "\n" not in text and "Traceback" not in text
    for part in absent:
        assert part not in text
    return text


def test_what_goes_wrong_in_app_mode_is_said_in_one_line(app_key, tmp_path):
    other = pem(new_key())
    with FakeGitHub(token=None, app=fake_app(app_key)) as gh:
        # A key that is not the App's: GitHub refuses the JWT.
        client = GitHubClient(app_settings(gh.url, other))
        with client.installation(42), pytest.raises(GitHubAppError) as err:
            client.add_label("acme/trainer", 1, "a")
        text = one_line(err.value, "PRIVATE KEY", other[40:80])
        assert "access token for installation 42" in text and "A JSON web token could not be decoded" in text
        assert "TRIAGE_GITHUB_APP_PRIVATE_KEY this App's key" in text and not err.value.retryable
        with pytest.raises(GitHubAppError, match="the App's identity.*401"):
            client.authenticated_login()

        good = GitHubClient(app_settings(gh.url, pem(app_key)))
        # No installation to act for (a delivery from a repository webhook).
        with pytest.raises(GitHubAppError, match=r"no installation\.id") as err:
            good.add_label("acme/trainer", 1, "a")
        assert not err.value.retryable and gh.calls_to("POST", r"/labels$") == []
        # An installation GitHub does not know.
        with good.installation(99), pytest.raises(GitHubAppError, match="installation 99.*404.*installed") as err:
            good.add_label("acme/trainer", 1, "a")
        # The token endpoint failing: retried, then said, and worth trying again later.
        gh.fail("POST", r"/access_tokens$", 502, times=3)
        asked = len(gh.calls_to("POST", r"/access_tokens$"))
        with good.installation(42), pytest.raises(GitHubAppError, match="installation 42.*502") as err:
            good.add_label("acme/trainer", 1, "a")
        assert err.value.retryable and len(gh.calls_to("POST", r"/access_tokens$")) == asked + 3
        assert gh.minted == []

    junk = tmp_path / "junk.pem"
    junk.write_text("-----BEGIN RSA PRIVATE KEY-----\nnot a key\n-----END RSA PRIVATE KEY-----\n")
    encrypted = tmp_path / "locked.pem"
    encrypted.write_bytes(app_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                serialization.BestAvailableEncryption(b"pw")))
    for setting, says in ((str(junk), f"file {junk} is not a readable PEM private key"),
                          (str(tmp_path / "absent.pem"), "neither a PEM nor a file that can be read"),
                          (str(encrypted), "is encrypted"),
                          ("-----BEGIN PRIVATE KEY-----\\nAAAA\\n-----END PRIVATE KEY-----", "the PEM in")):
        client = GitHubClient(app_settings("http://127.0.0.1:9", setting))
        with pytest.raises(GitHubAppError) as err:
            client.app.check()
        assert says in one_line(err.value, "AAAA")
    half = GitHubClient(app_settings("http://127.0.0.1:9", None))
    with pytest.raises(GitHubAppError, match="TRIAGE_GITHUB_APP_ID is set but TRIAGE_GITHUB_APP_PRIVATE_KEY is not"):
        half.app.check()


def test_without_the_github_app_extra_the_reason_is_the_extra(app_key, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "jwt" else real(name, *a))
    client = GitHubClient(app_settings("http://127.0.0.1:9", pem(app_key)))
    with client.installation(42), pytest.raises(GitHubAppError) as err:
        client.add_label("acme/trainer", 1, "a")
    assert str(err.value) == "GitHub App mode needs PyJWT: pip install 'triage-kb[github-app]'"


def test_the_installation_comes_from_the_payload():
    assert installation_of(issue_payload(1, "t", "b")) == 42
    assert installation_of({"action": "opened"}) is None and installation_of({"installation": None}) is None
    for bad in ("42", True, 0, None):
        with pytest.raises(BadPayload, match="installation.id must be a positive integer"):
            installation_of({"installation": {"id": bad}})


def test_the_pem_itself_may_come_with_escaped_newlines(app_key):
    with FakeGitHub(token=None, app=fake_app(app_key)) as gh:
        client = GitHubClient(app_settings(gh.url, pem(app_key).replace("\n", "\\n")))
        assert client.authenticated_login() == "triage-kb[bot]"


def test_the_static_token_mode_is_unchanged(app_key):
    with FakeGitHub(token="static-t", app=fake_app(app_key)) as gh:
        client = GitHubClient(Settings(github_api_url=gh.url, github_token="static-t"))
        assert client.app is None
        with client.installation(42):   # ignored without an App
            client.add_label("umbrella/infra", 1, "a")
        client.add_label("acme/trainer", 1, "a")
        assert client.authenticated_login() == "triage-kb[bot]"
        assert [c.path for c in gh.calls] == ["/repos/umbrella/infra/issues/1/labels",
                                              "/repos/acme/trainer/issues/1/labels", "/user"]
        assert all(c.auth == "Bearer static-t" for c in gh.calls) and gh.minted == []


def test_the_service_says_at_start_how_it_authenticates(app_key, caplog):
    caplog.set_level(logging.INFO, logger="bot.github.webhook")
    for key, says in ((pem(app_key), "GitHub App mode (app 31337)"),
                      ("/nonexistent/app.pem", "neither a PEM nor a file that can be read")):
        caplog.clear()
        settings = app_settings("http://127.0.0.1:9", key, github_token="also-set")
        GitHubSurface._say_auth(settings, GitHubClient(settings))
        [record] = caplog.records
        assert says in record.getMessage() and record.exc_info is None


# --- end to end through the service ----------------------------------------------------------------------------
ZERO3 = (REPORTS / "zero3_model_side.txt").read_text()


def delivery_row(kb_dir, delivery_id) -> tuple[str, int, str] | None:
    conn = sqlite3.connect(kb_dir / "state.sqlite")
    try:
        return conn.execute("SELECT status, attempts, result FROM deliveries WHERE id = ?", (delivery_id,)).fetchone()
    finally:
        conn.close()


def delivered(srv, event: str, payload: dict) -> tuple[str, int, str]:
    resp = post_webhook(srv.url, event, payload, SECRET)
    assert resp.status_code == 202, resp.text
    did = resp.json()["delivery"]
    row = wait_until(lambda: (r := delivery_row(srv.kb_dir, did)) and r[0] in ("done", "failed") and r, 60)
    assert row, f"delivery {did} was not processed"
    return row


def for_installation(payload: dict, installation: int | None) -> dict:
    if installation is None:
        payload.pop("installation")
    else:
        payload["installation"] = {"id": installation}
    return payload


@pytest.mark.slow
def test_the_bot_comments_as_the_app_in_each_installation(cache_dir, tmp_path, app_key):
    key_file = tmp_path / "app.pem"
    key_file.write_text(pem(app_key))
    with FakeGitHub(token=None, app=fake_app(app_key)) as gh, \
            live_app(cache_dir, tmp_path, lambda kb: app_settings(
                gh.url, str(key_file), cache_dir=cache_dir, kb=kb, github_webhook_secret=SECRET)) as srv:
        row = delivered(srv, "issues", for_installation(issue_payload(1, "load fails", ZERO3), 42))
        assert row[0] == "done" and "answered with zero3_load" in row[2]
        row = delivered(srv, "issues", for_installation(
            issue_payload(2, "load fails", ZERO3, repo="umbrella/infra"), 43))
        assert row[0] == "done" and "answered with zero3_load" in row[2]
        [ours] = gh.bot_comments("acme/trainer", 1)
        assert gh.bot_comments("umbrella/infra", 2) and gh.bot == {"login": "triage-kb[bot]", "type": "Bot"}

        # Later deliveries reuse the installation's token; the App's identity was asked once.
        row = delivered(srv, "issues", for_installation(issue_payload(1, "load fails", ZERO3 + "\n",
                                                                      action="edited"), 42))
        assert row[0] == "done"
        assert [m.installation for m in gh.minted] == [42, 43]
        assert len(gh.calls_to("GET", r"^/app$")) == 1 and not gh.calls_to("GET", r"^/user$")
        tokens = {m.installation: m.token for m in gh.minted}
        repo_calls = [c for c in gh.calls if c.path.startswith("/repos/")]
        assert repo_calls and all(c.auth == f"Bearer {tokens[c.installation]}" for c in repo_calls)
        assert {c.installation for c in repo_calls if "/umbrella/" in c.path} == {43}
        # Our comment was found again by the App's login (`slug[bot]`, from GET /app): same answer, left as it is.
        assert gh.calls_to("PATCH") == [] and len(gh.calls_to("POST", r"/issues/1/comments$")) == 1
        assert gh.bot_comments("acme/trainer", 1) == [ours]

        # A delivery with no installation, and a token endpoint that fails: failed, with the reason.
        row = delivered(srv, "issues", for_installation(issue_payload(3, "load fails", ZERO3), None))
        assert row[0] == "failed" and "no installation.id" in row[2]
        gh.fail("POST", r"/app/installations/44/access_tokens$", 403)
        gh.app.installations[44] = {"initech"}
        row = delivered(srv, "issues", for_installation(issue_payload(4, "load fails", ZERO3, repo="initech/x"), 44))
        assert row[0] == "failed" and "could not get an access token for installation 44" in row[2]
        assert "403 scripted failure" in row[2]


@pytest.mark.slow
def test_a_wrong_key_fails_the_delivery_with_a_clear_reason_and_no_traceback(cache_dir, tmp_path, app_key, caplog):
    caplog.set_level(logging.INFO)
    with FakeGitHub(token=None, app=fake_app(app_key)) as gh, \
            live_app(cache_dir, tmp_path, lambda kb: app_settings(
                gh.url, pem(new_key()), cache_dir=cache_dir, kb=kb, github_webhook_secret=SECRET)) as srv:
        status, attempts, result = delivered(srv, "issues", for_installation(issue_payload(5, "t", ZERO3), 42))
    assert (status, attempts) == ("failed", 1)
    assert result.startswith("GitHub App mode: could not get the App's identity: GitHub GET /app: 401")
    assert "TRIAGE_GITHUB_APP_PRIVATE_KEY this App's key" in result and "\n" not in result
    assert gh.minted == [] and not [c for c in gh.calls if c.path.startswith("/repos/")]
    failures = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(failures) == 1 and failures[0].exc_info is None and result in failures[0].getMessage()
    assert "BEGIN" not in caplog.text
