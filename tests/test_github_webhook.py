"""The GitHub auto-commenter end to end: signed deliveries in GitHub's shapes, POSTed over real HTTP to the app
under uvicorn, with a fake GitHub API (a real HTTP server on 127.0.0.1) receiving the bot's calls."""
from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
import uuid

import httpx
import pytest

from bot.github.signature import sign
from bot.service.app import create_app
from kb.config import Settings
from kb.feedback import FeedbackStore
from kb.index.hybrid import KnowledgeBase
from kb.traceback.signature import SIGNATURE_VERSION
from tests.fakes.github_api import FakeGitHub
from tests.service_support import (REPORTS, LiveServer, ServeProcess, comment_payload, issue_payload, live_app, post_webhook,
                                   small_kb, wait_until)

pytestmark = pytest.mark.slow

SECRET = "webhook-secret-for-tests"
TOKEN = "token-for-tests"
REPO = "acme/trainer"
LABEL = "triage:known-issue"
ZERO3 = (REPORTS / "zero3_model_side.txt").read_text()
NCCL = ("NCCL crashes at start inside our training container\n\n```\n"
        "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1275, unhandled system error\n"
        "Error while creating shared memory segment /dev/shm/nccl-abc123 (size 9637888)\n```\n")
UNRELATED = (REPORTS / "unrelated.txt").read_text()


def gh_settings(cache_dir, kb_dir, api_url, **extra) -> Settings:
    # English answers (lang="en"), whose labels these tests read, although ZERO3's reporter writes Chinese; the
    # answer in the report's own language is test_a_chinese_issue_is_answered_in_chinese.
    values = dict(cache_dir=cache_dir, kb=kb_dir, github_webhook_secret=SECRET, github_token=TOKEN,
                  github_api_url=api_url, github_retry_backoff_s=0.01, github_retry_max_wait_s=0.05, lang="en")
    return Settings(**{**values, **extra})


@pytest.fixture(scope="module")
def fake():
    # Two comments per page, so finding our comment among a few others means following the Link header.
    with FakeGitHub(token=TOKEN, page_size=2) as f:
        yield f


@pytest.fixture(scope="module")
def service(cache_dir, tmp_path_factory, fake):
    with live_app(cache_dir, tmp_path_factory.mktemp("github"), lambda kb: gh_settings(cache_dir, kb, fake.url)) as srv:
        yield srv


@pytest.fixture(autouse=True)
def clean_fake(fake):
    fake.reset()


def delivery(kb_dir, delivery_id) -> tuple[str, int, str] | None:
    conn = sqlite3.connect(kb_dir / "state.sqlite")
    try:
        return conn.execute("SELECT status, attempts, result FROM deliveries WHERE id = ?", (delivery_id,)).fetchone()
    finally:
        conn.close()


def processed(service, delivery_id) -> tuple[str, int, str]:
    row = wait_until(lambda: (r := delivery(service.kb_dir, delivery_id)) and r[0] in ("done", "failed") and r, 30)
    assert row, f"delivery {delivery_id} was not processed: {delivery(service.kb_dir, delivery_id)}"
    return row


def send(service, event, payload, **kw) -> tuple[httpx.Response, str]:
    delivery_id = kw.pop("delivery", None) or str(uuid.uuid4())
    return post_webhook(service.url, event, payload, kw.pop("secret", SECRET), delivery=delivery_id, **kw), delivery_id


def never_closes_or_locks(fake) -> None:
    assert not fake.calls_to("PATCH", r"/issues/\d+$")
    assert not fake.calls_to("PUT", r"/lock$")


def test_opened_issue_with_a_known_traceback_gets_one_comment_and_the_label(service, fake):
    resp, did = send(service, "issues", issue_payload(1, "ZeRO-3 value head load fails", ZERO3))
    assert resp.status_code == 202 and resp.json()["status"] == "accepted"
    assert processed(service, did)[0] == "done"

    [comment] = fake.bot_comments(REPO, 1)
    body = comment["body"]
    assert body.startswith("<!-- triage-kb entry=zero3_load ref=ref:")
    for part in ("resuming under ZeRO-3", "Root cause", "GatheredParameters", "verified by the reporter",
                 "your line: ", "source `zero3_load.md`", "/triage wrong", "/triage fixed"):
        assert part in body
    assert fake.labels[(REPO, 1)] == [LABEL]
    assert all(c.auth == f"Bearer {TOKEN}" for c in fake.calls)
    never_closes_or_locks(fake)

    # GitHub redelivers the same delivery: nothing new happens.
    before = len(fake.calls)
    again = post_webhook(service.url, "issues", issue_payload(1, "ZeRO-3 value head load fails", ZERO3), SECRET,
                         delivery=did)
    assert again.status_code == 200 and again.json()["status"] == "duplicate"
    time.sleep(0.3)
    assert len(fake.calls) == before and len(fake.bot_comments(REPO, 1)) == 1


def test_a_chinese_issue_is_answered_in_chinese(cache_dir, tmp_path, fake):
    with live_app(cache_dir, tmp_path, lambda kb: gh_settings(cache_dir, kb, fake.url, lang="auto")) as srv:
        resp, did = send(srv, "issues", issue_payload(31, "ZeRO-3 下加载 value head 失败", ZERO3))
        assert resp.status_code == 202 and processed(srv, did)[0] == "done"
    [comment] = fake.bot_comments(REPO, 31)
    body = comment["body"]
    assert body.startswith("<!-- triage-kb entry=zero3_load ref=ref:")
    for part in ("triage-kb：这看起来是一个已知问题", "**根因**", "**修复方法**", "已由报告者验证", "GatheredParameters",
                 "/triage wrong"):
        assert part in body, part
    assert "Root cause" not in body
    never_closes_or_locks(fake)


def test_an_edit_updates_the_same_comment_and_a_non_match_takes_the_answer_back(service, fake):
    for i in range(3):  # other people's comments first: ours lands on the second page
        fake.add_comment(REPO, 2, f"same here ({i})")
    _, did = send(service, "issues", issue_payload(2, "load fails", ZERO3))
    assert processed(service, did)[0] == "done"
    [first] = fake.bot_comments(REPO, 2)

    _, did = send(service, "issues", issue_payload(2, "NCCL fails in the container", NCCL, action="edited"))
    assert processed(service, did)[0] == "done"
    [edited] = fake.bot_comments(REPO, 2)
    assert edited["id"] == first["id"]
    assert "entry=nccl_shm" in edited["body"] and "--shm-size" in edited["body"]
    assert [c.path for c in fake.calls_to("PATCH")] == [f"/repos/{REPO}/issues/comments/{first['id']}"]
    assert len(fake.calls_to("POST", r"/comments$")) == 1
    assert any(c.query.get("page") == ["2"] for c in fake.calls_to("GET", r"/issues/2/comments"))

    _, did = send(service, "issues", issue_payload(2, "yaml missing", UNRELATED, action="edited"))
    assert processed(service, did)[0] == "done"
    [taken_back] = fake.bot_comments(REPO, 2)
    assert taken_back["id"] == first["id"]
    assert "no known postmortem fits" in taken_back["body"] and "`nccl_shm`" in taken_back["body"]
    assert fake.labels[(REPO, 2)] == []
    never_closes_or_locks(fake)


@pytest.mark.parametrize("how", ["missing", "bad", "wrong_secret", "sha1"])
def test_unsigned_or_badly_signed_deliveries_get_401_and_nothing_happens(service, fake, how):
    payload = issue_payload(3, "load fails", ZERO3)
    kw = {"missing": dict(secret=None), "bad": dict(signature="sha256=" + "0" * 64),
          "wrong_secret": dict(secret="not-the-secret"), "sha1": dict(signature="sha1=" + "0" * 40)}[how]
    resp, did = send(service, "issues", payload, **kw)
    assert resp.status_code == 401
    assert resp.json() == {"ok": False, "status": 401, "code": "bad_signature", "error": resp.json()["error"],
                           "request_id": resp.headers["x-request-id"]}
    time.sleep(0.2)
    assert fake.calls == []
    assert delivery(service.kb_dir, did) is None


def test_the_bot_never_answers_bots_or_itself(service, fake):
    resp, did1 = send(service, "issues", issue_payload(4, "load fails", ZERO3, sender="ci[bot]", sender_type="Bot"))
    assert resp.status_code == 200 and resp.json() == {"ok": True, "status": "ignored", "reason": "sent by a bot"}
    ours = "<!-- triage-kb entry=zero3_load sig=x -->\n### triage-kb: this looks like a known issue\n" + ZERO3
    resp, did2 = send(service, "issue_comment", comment_payload(4, "load fails", "", ours, sender="triage-kb[bot]",
                                                                sender_type="Bot"))
    assert resp.status_code == 200 and resp.json()["reason"] == "sent by a bot"
    time.sleep(0.2)
    assert fake.calls == []
    assert delivery(service.kb_dir, did1) is None and delivery(service.kb_dir, did2) is None


def test_ping_other_events_and_bad_headers(service, fake):
    resp, _ = send(service, "ping", {"zen": "Keep it logically awesome.", "hook_id": 7})
    assert resp.status_code == 200 and resp.json()["status"] == "pong"
    resp, _ = send(service, "push", {"ref": "refs/heads/main"})
    assert resp.status_code == 200 and resp.json()["status"] == "ignored"
    resp, _ = send(service, "issues", issue_payload(5, "t", ZERO3, action="closed"))
    assert resp.json()["reason"] == "issues.closed is not handled"
    resp = httpx.post(f"{service.url}/github/webhook", content=b"not json",
                      headers={"X-GitHub-Event": "issues", "X-GitHub-Delivery": "d-1",
                               "X-Hub-Signature-256": sign(SECRET.encode(), b"not json")})
    assert resp.status_code == 400 and resp.json()["code"] == "bad_request"
    assert fake.calls == []


def test_api_failures_are_retried_and_a_lost_post_is_not_doubled(service, fake):
    fake.fail("POST", r"/issues/10/comments$", 502)
    _, did = send(service, "issues", issue_payload(10, "load fails", ZERO3))
    assert processed(service, did)[0] == "done"
    assert len(fake.bot_comments(REPO, 10)) == 1
    assert [c.path for c in fake.calls_to("POST", r"/comments$")] == [f"/repos/{REPO}/issues/10/comments"] * 2

    # A 502 that in fact created the comment: looking again before posting again keeps it to one.
    fake.fail("POST", r"/issues/11/comments$", 502, apply=True)
    _, did = send(service, "issues", issue_payload(11, "load fails", ZERO3))
    assert processed(service, did)[0] == "done"
    assert len(fake.bot_comments(REPO, 11)) == 1 and len(fake.calls_to("POST", r"/issues/11/comments$")) == 1

    # Rate limits: 429 with Retry-After, and 403 with x-ratelimit-remaining: 0.
    fake.fail("GET", r"/issues/12/comments$", 429, headers={"Retry-After": "1"})
    fake.fail("POST", r"/issues/12/labels$", 403, times=2,
              headers={"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(time.time()) + 1)})
    _, did = send(service, "issues", issue_payload(12, "load fails", ZERO3))
    assert processed(service, did)[0] == "done"
    assert fake.labels[(REPO, 12)] == [LABEL] and len(fake.calls_to("POST", r"/issues/12/labels$")) == 3

    # A refusal that retrying cannot fix (no rate-limit headers) fails the delivery at once.
    fake.fail("POST", r"/issues/13/labels$", 403)
    _, did = send(service, "issues", issue_payload(13, "load fails", ZERO3))
    status, attempts, result = processed(service, did)
    assert (status, attempts) == ("failed", 1) and "403" in result
    assert len(fake.calls_to("POST", r"/issues/13/labels$")) == 1


def test_no_match_posts_nothing_by_default(service, fake):
    _, did = send(service, "issues", issue_payload(14, "yaml", UNRELATED))
    assert "no match; nothing posted" in processed(service, did)[2]
    assert not fake.calls_to("POST") and not fake.calls_to("PATCH")


def test_triage_fixed_and_wrong_are_recorded_and_wrong_takes_the_answer_back(service, fake):
    _, did = send(service, "issues", issue_payload(20, "load fails", ZERO3))
    processed(service, did)
    [ours] = fake.bot_comments(REPO, 20)
    diag = httpx.post(f"{service.url}/v1/diagnose", json={"text": "load fails\n\n" + ZERO3}).json()
    signature = diag["query"]["signature"]

    _, did = send(service, "issue_comment", comment_payload(20, "load fails", ZERO3, "/triage fixed",
                                                            sender="carol", comment_id=902))
    assert "carol (MEMBER) marked zero3_load fixed" in processed(service, did)[2]
    _, did = send(service, "issue_comment", comment_payload(20, "load fails", ZERO3, "/triage wrong\nnot my case",
                                                            sender="bob", comment_id=901))
    assert "bob (MEMBER) marked zero3_load wrong" in processed(service, did)[2]

    got = {(f.user, f.verdict): f for f in FeedbackStore(service.kb_dir).list()}
    wrong, fixed = got[("bob", "wrong")], got[("carol", "fixed")]
    assert (wrong.source, wrong.entry_id, wrong.signature) == ("github", "zero3_load", signature)
    assert wrong.sig_version == SIGNATURE_VERSION and f"ver={SIGNATURE_VERSION.replace(':', '%3A')} " in ours["body"]
    assert wrong.context["issue"] == 20 and wrong.context["repo"] == REPO
    assert fixed.entry_id == "zero3_load" and fixed.signature == signature
    assert (901, "+1") in fake.reactions and (902, "+1") in fake.reactions
    # The issue is answered again without the rejected entry: the small KB has no other, so our one comment now
    # says so and the label goes. The commands themselves were not diagnosed as reports.
    [after] = fake.bot_comments(REPO, 20)
    assert after["id"] == ours["id"]
    assert "no known postmortem fits" in after["body"] and "`zero3_load`; bob marked it wrong" in after["body"]
    assert fake.labels[(REPO, 20)] == []
    # The matcher itself no longer proposes it for this report.
    again = httpx.post(f"{service.url}/v1/diagnose", json={"text": "load fails\n\n" + ZERO3}).json()
    assert "zero3_load" not in [m["entry_id"] for m in again["matches"]]

    # A command on an issue we never answered is acknowledged as not understood, and nothing is recorded.
    count = len(FeedbackStore(service.kb_dir).list())
    _, did = send(service, "issue_comment", comment_payload(21, "t", UNRELATED, "/triage wrong", comment_id=903))
    assert "no answer of ours" in processed(service, did)[2]
    assert (903, "confused") in fake.reactions and len(FeedbackStore(service.kb_dir).list()) == count


def test_webhooks_are_refused_without_a_secret(cache_dir, tmp_path, fake, caplog):
    kb_dir = small_kb(cache_dir, tmp_path / "kb")
    settings = gh_settings(cache_dir, kb_dir, fake.url, github_webhook_secret=None)
    kb = KnowledgeBase.open(kb_dir, settings)
    caplog.set_level(logging.ERROR, logger="bot.github.webhook")
    with LiveServer(create_app(settings, kb=kb)) as srv:
        for _ in range(2):
            resp = post_webhook(srv.url, "issues", issue_payload(30, "t", ZERO3), "anything")
            assert resp.status_code == 503 and resp.json()["code"] == "webhook_not_configured"
    assert [r.getMessage() for r in caplog.records].count(
        "refusing GitHub webhooks: TRIAGE_GITHUB_WEBHOOK_SECRET is not set") == 1
    assert fake.calls == []


def test_a_delivery_accepted_before_a_crash_is_processed_after_the_restart(cache_dir, tmp_path, fake):
    kb_dir = small_kb(cache_dir, tmp_path / "kb")
    env = {"TRIAGE_CACHE_DIR": str(cache_dir), "TRIAGE_GITHUB_WEBHOOK_SECRET": SECRET, "TRIAGE_GITHUB_TOKEN": TOKEN,
           "TRIAGE_GITHUB_API_URL": fake.url, "TRIAGE_GITHUB_RETRY_BACKOFF_S": "0.01"}
    server = ServeProcess(kb_dir, env, tmp_path / "serve.log")
    release = fake.hold("GET", r"/issues/40/comments$")  # the worker stalls on its first API call...
    try:
        server.start()
        payload = issue_payload(40, "load fails", ZERO3)
        resp = post_webhook(server.url, "issues", payload, SECRET, delivery="d-restart", request_id="rid-restart-1")
        assert resp.status_code == 202 and resp.headers["x-request-id"] == "rid-restart-1"
        assert fake.wait_for_call("GET", r"/issues/40/comments$")
        server.kill()  # ...and the process dies there, accepted but not done
        release.set()
        assert fake.bot_comments(REPO, 40) == []
        assert delivery(kb_dir, "d-restart")[0] == "processing"

        server.start()
        assert wait_until(lambda: delivery(kb_dir, "d-restart")[0] == "done", 30)
        assert len(fake.bot_comments(REPO, 40)) == 1 and fake.labels[(REPO, 40)] == [LABEL]
        again = post_webhook(server.url, "issues", payload, SECRET, delivery="d-restart")
        assert again.json()["status"] == "duplicate"
    finally:
        release.set()
        server.stop()
    log = server.log()
    assert "[rid-restart-1]" in log and "accepted delivery d-restart" in log
    assert "resuming delivery d-restart" in log
    assert SECRET not in log and TOKEN not in log


def votes(kb_dir, scope: str) -> list[tuple[str, str, str, str]]:
    return sorted((f.user, f.entry_id, f.verdict, f.role) for f in FeedbackStore(kb_dir).list() if f.scope == scope)


def test_only_people_the_repository_trusts_judge_answers_one_vote_each(service, fake):
    repo = "acme/trust"
    _, did = send(service, "issues", issue_payload(60, "load fails", ZERO3, repo=repo))
    assert "answered with zero3_load" in processed(service, did)[2]

    # An outsider (and a mere contributor) cannot veto: answered at once as ignored, nothing stored or recorded.
    for who, association in (("mallory", "NONE"), ("eve", "CONTRIBUTOR")):
        resp, did = send(service, "issue_comment", comment_payload(60, "load fails", ZERO3, "/triage wrong",
                                                                   repo=repo, sender=who, association=association))
        assert resp.status_code == 200 and resp.json()["status"] == "ignored"
        assert f"/triage wrong from {who} ({association}) is not counted" in resp.json()["reason"]
        assert delivery(service.kb_dir, did) is None
    assert votes(service.kb_dir, f"github:{repo}") == []

    # The issue's author counts on their own issue; a member counts, once, however often they say it.
    _, did = send(service, "issue_comment", comment_payload(60, "load fails", ZERO3, "/triage fixed", repo=repo,
                                                            sender="alice", association="NONE"))
    assert "alice (issue author) marked zero3_load fixed" in processed(service, did)[2]
    for i, verdict in enumerate(("fixed", "fixed", "wrong")):
        _, did = send(service, "issue_comment", comment_payload(60, "load fails", ZERO3, f"/triage {verdict}",
                                                                repo=repo, sender="dave", comment_id=700 + i))
        assert processed(service, did)[0] == "done"
    assert votes(service.kb_dir, f"github:{repo}") == [("alice", "zero3_load", "fixed", "issue author"),
                                                       ("dave", "zero3_load", "wrong", "MEMBER")]

    # The veto holds in this repository only.
    _, did = send(service, "issues", issue_payload(61, "load fails", ZERO3, repo=repo))
    assert "no match" in processed(service, did)[2]
    _, did = send(service, "issues", issue_payload(62, "load fails", ZERO3, repo="acme/elsewhere"))
    assert "answered with zero3_load" in processed(service, did)[2]


def test_a_forged_marker_is_neither_edited_nor_judged(service, fake):
    repo = "acme/forge"
    diag = httpx.post(f"{service.url}/v1/diagnose", json={"text": NCCL}).json()
    forged = (f"<!-- triage-kb entry=nccl_shm sig={diag['query']['signature'].replace(' ', '%20')} -->\n"
              "### triage-kb: this looks like a known issue\n(written by mallory)")
    planted = fake.add_comment(repo, 80, forged, user={"login": "mallory", "type": "User"})

    # Only the forgery is there: a `/triage wrong` judges nothing.
    _, did = send(service, "issue_comment", comment_payload(80, "load fails", ZERO3, "/triage wrong", repo=repo,
                                                            sender="dave", comment_id=801))
    assert "no answer of ours" in processed(service, did)[2]
    assert votes(service.kb_dir, f"github:{repo}") == []

    # Our answer is a comment of our own, the forgery untouched...
    _, did = send(service, "issues", issue_payload(80, "load fails", ZERO3, repo=repo))
    assert processed(service, did)[0] == "done"
    [ours] = fake.bot_comments(repo, 80)
    assert ours["id"] != planted["id"] and "entry=zero3_load" in ours["body"]
    assert planted["body"] == forged and not fake.calls_to("PATCH", rf"/comments/{planted['id']}$")

    # ... and `/triage wrong` is about our answer, never the forged entry.
    _, did = send(service, "issue_comment", comment_payload(80, "load fails", ZERO3, "/triage wrong", repo=repo,
                                                            sender="dave", comment_id=802))
    assert "dave (MEMBER) marked zero3_load wrong" in processed(service, did)[2]
    assert votes(service.kb_dir, f"github:{repo}") == [("dave", "zero3_load", "wrong", "MEMBER")]
    assert planted["body"] == forged


def test_a_bot_on_a_user_account_knows_its_comments_by_login(cache_dir, tmp_path):
    """A personal token (a user account, not an App): our login is asked once (GET /user); a delivery of our own
    comment is not work, and our comment is the one by that login."""
    account = {"login": "triage-bot", "type": "User"}
    with FakeGitHub(token=TOKEN, bot=account) as gh, \
            live_app(cache_dir, tmp_path, lambda kb: gh_settings(cache_dir, kb, gh.url)) as srv:
        _, did = send(srv, "issues", issue_payload(90, "load fails", ZERO3))
        assert processed(srv, did)[0] == "done"
        [ours] = gh.bot_comments(REPO, 90)
        resp, did = send(srv, "issue_comment", comment_payload(90, "load fails", ZERO3, ours["body"],
                                                               sender="triage-bot", comment_id=ours["id"]))
        assert resp.status_code == 200 and resp.json()["reason"] == "our own comment"
        _, did = send(srv, "issues", issue_payload(90, "NCCL fails", NCCL, action="edited"))
        assert processed(srv, did)[0] == "done"
        [edited] = gh.bot_comments(REPO, 90)
        assert edited["id"] == ours["id"] and "entry=nccl_shm" in edited["body"]
        assert len(gh.calls_to("GET", r"^/user$")) == 1


def post_raw(url: str, body: bytes, event: str = "issues", delivery_id: str | None = None) -> tuple[httpx.Response, str]:
    delivery_id = delivery_id or str(uuid.uuid4())
    headers = {"Content-Type": "application/json", "X-GitHub-Event": event, "X-GitHub-Delivery": delivery_id,
               "X-Hub-Signature-256": sign(SECRET.encode(), body)}
    return httpx.post(f"{url}/github/webhook", content=body, headers=headers, timeout=30), delivery_id


def test_an_unreadable_delivery_fails_at_once_with_the_reason_and_blocks_nothing(service, fake):
    good = json.dumps(issue_payload(100, "load fails", ZERO3, repo="acme/unreadable")).encode()
    resp, bom = post_raw(service.url, b"\xef\xbb\xbf" + good)
    assert resp.status_code == 400 and resp.json()["code"] == "bad_request"
    assert "byte-order mark" in resp.json()["error"]
    assert delivery(service.kb_dir, bom)[0] == "failed" and "byte-order mark" in delivery(service.kb_dir, bom)[2]

    wrong = issue_payload(100, "load fails", ZERO3, repo="acme/unreadable")
    wrong["sender"] = "alice"
    resp, typed = post_raw(service.url, json.dumps(wrong).encode())
    assert resp.status_code == 400 and "sender must be an object, not a string" in resp.json()["error"]
    assert delivery(service.kb_dir, typed)[:2] == ("failed", 0)

    _, did = send(service, "issues", json.loads(good))
    assert processed(service, did)[0] == "done" and len(fake.bot_comments("acme/unreadable", 100)) == 1
    assert delivery(service.kb_dir, bom)[0] == "failed"


def test_a_transient_failure_is_retried_by_the_worker_with_backoff_without_a_restart(service, fake):
    # Five 502s: every try the client makes within the first attempt fails, so the delivery goes back to pending.
    fake.fail("GET", r"/acme/retry/issues/101/comments$", 502, times=5)
    _, did = send(service, "issues", issue_payload(101, "load fails", ZERO3, repo="acme/retry"))
    assert processed(service, did)[:2] == ("done", 2)
    assert len(fake.bot_comments("acme/retry", 101)) == 1


def test_a_redelivery_of_a_failed_delivery_queues_it_again(service, fake):
    fake.fail("POST", r"/acme/redeliver/issues/102/labels$", 403)
    payload = issue_payload(102, "load fails", ZERO3, repo="acme/redeliver")
    _, did = send(service, "issues", payload)
    assert processed(service, did)[0] == "failed"
    resp, _ = send(service, "issues", payload, delivery=did)
    assert resp.status_code == 202 and resp.json()["status"] == "requeued"
    assert wait_until(lambda: delivery(service.kb_dir, did)[0] == "done", 30)
    assert fake.labels[("acme/redeliver", 102)] == [LABEL] and len(fake.bot_comments("acme/redeliver", 102)) == 1
    resp, _ = send(service, "issues", payload, delivery=did)
    assert resp.status_code == 200 and resp.json()["status"] == "duplicate"


def test_deliveries_are_stored_while_the_kb_loads_and_processed_once_it_is_ready(cache_dir, tmp_path, fake):
    kb_dir = small_kb(cache_dir, tmp_path / "kb")
    app = create_app(gh_settings(cache_dir, kb_dir, fake.url))
    hold = threading.Event()
    app.state.triage.ready_hooks.append(lambda state: hold.wait(60))
    with LiveServer(app, wait_ready=False) as srv:
        try:
            assert httpx.get(f"{srv.url}/healthz", timeout=10).status_code == 503
            resp, did = send(srv, "issues", issue_payload(103, "load fails", ZERO3))
            assert resp.status_code == 202 and resp.json()["status"] == "accepted"
            assert delivery(kb_dir, did)[0] == "pending"
        finally:
            hold.set()
        assert wait_until(lambda: delivery(kb_dir, did)[0] == "done", 60)
        assert len(fake.bot_comments(REPO, 103)) == 1


@pytest.mark.parametrize("body,says", [
    (b"[" * 30_000 + b"]" * 30_000, "nested too deeply"),
    (json.dumps(issue_payload(104, "t", "x")).replace('"x"', '"\\ud800"').encode(), "lone surrogate"),
    (json.dumps(issue_payload(104, "t", ZERO3)).encode("utf-16"), "UTF-16"),
])
def test_malformed_deliveries_get_a_clear_400(service, fake, body, says):
    resp, did = post_raw(service.url, body)
    assert resp.status_code == 400 and resp.json()["code"] == "bad_request" and says in resp.json()["error"]
    assert delivery(service.kb_dir, did)[0] == "failed"
