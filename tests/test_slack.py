"""The Slack bot end to end: requests signed as Slack signs them, POSTed over real HTTP to the app under uvicorn,
with a fake Slack (a real HTTP server on 127.0.0.1) receiving the bot's Web API calls, downloads and
response_url posts. A small real KB (real model, FAISS, BM25, SQLite) answers."""
from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from types import SimpleNamespace
from urllib.parse import urlencode

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from bot.service.app import create_app
from bot.service.state import ServiceState
from bot.slack.surface import SlackSurface
from bot.slack.verify import repro_verifier
from kb.config import Settings
from kb.index.hybrid import KnowledgeBase
from kb.models import Diagnosis, MatchOut, QueryOut
from kb.traceback.parse import parse_report
from kb.traceback.signature import SIGNATURE_VERSION, signature_of_event, signature_ref
from tests.fakes.slack_api import BOT_ID, BOT_USER, TEAM, FakeSlack
from tests.service_support import REPORTS, ROOT, LiveServer, live_app, wait_until

pytestmark = pytest.mark.slow

SECRET = "slack-signing-secret-for-tests"
BOT_TOKEN = "xoxb-token-for-tests"
APP_TOKEN = "xapp-token-for-tests"
CHANNEL = "C0TRAIN"
ZERO3 = (REPORTS / "zero3_model_side.txt").read_text()
NCCL_LOG = (b"[rank3] starting NCCL\n"
            b"torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1275, unhandled system error\n"
            b"Error while creating shared memory segment /dev/shm/nccl-abc123 (size 9637888)\n")
LFS = "torch.load fails on the downloaded checkpoint:\n_pickle.UnpicklingError: invalid load key, 'v'.\n"


def slack_settings(cache_dir, kb_dir, api_url, **extra) -> Settings:
    # English answers (lang="en"), whose labels these tests read, although ZERO3's reporter writes Chinese; the
    # answer in the report's own language is test_a_chinese_report_is_answered_in_chinese.
    values = dict(cache_dir=cache_dir, kb=kb_dir, slack_signing_secret=SECRET, slack_bot_token=BOT_TOKEN,
                  slack_api_url=api_url, lang="en")
    return Settings(**{**values, **extra})


@pytest.fixture(scope="module")
def fake():
    with FakeSlack(bot_token=BOT_TOKEN, app_token=APP_TOKEN) as f:
        yield f


@pytest.fixture(scope="module")
def service(cache_dir, tmp_path_factory, fake):
    with live_app(cache_dir, tmp_path_factory.mktemp("slack"), lambda kb: slack_settings(cache_dir, kb, fake.api_url)) as srv:
        yield srv


@pytest.fixture(autouse=True)
def clean_fake(fake):
    fake.reset()


# --- requests as Slack sends them --------------------------------------------------------------------------------

def signature(secret: str, timestamp: str, body: str) -> str:
    base = f"v0:{timestamp}:{body}".encode()
    return "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()


def post(service, body: str, content_type: str, secret: str = SECRET, timestamp: int | str | None = None,
         sig: str | None = None, headers: dict | None = None, client: httpx.Client | None = None) -> httpx.Response:
    ts = str(int(time.time()) if timestamp is None else timestamp)
    headers = {"Content-Type": content_type, "X-Slack-Request-Timestamp": ts,
               "X-Slack-Signature": sig or signature(secret, ts, body), "User-Agent": "Slackbot 1.0", **(headers or {})}
    return (client or httpx).post(f"{service.url}/slack/events", content=body.encode(), headers=headers, timeout=30)


def slash(service, fake, text: str, key: str = "cmd", trigger_id: str | None = None, **kw) -> httpx.Response:
    body = urlencode({"token": "legacy", "team_id": TEAM, "team_domain": "test", "channel_id": CHANNEL,
                      "channel_name": "training", "user_id": "UALICE", "user_name": "alice", "command": "/diagnose",
                      "text": text, "api_app_id": "A0TRIAGE", "response_url": fake.response_url(key),
                      "trigger_id": trigger_id or f"{uuid.uuid4().int % 10**10}.{uuid.uuid4().hex[:8]}"})
    return post(service, body, "application/x-www-form-urlencoded", **kw)


def event(service, ev: dict, event_id: str | None = None, **kw) -> httpx.Response:
    body = json.dumps({"token": "legacy", "team_id": TEAM, "api_app_id": "A0TRIAGE", "type": "event_callback",
                       "event_id": event_id or "Ev" + uuid.uuid4().hex[:10], "event_time": int(time.time()),
                       "event": ev, "authorizations": [{"team_id": TEAM, "user_id": BOT_USER, "is_bot": True}]})
    return post(service, body, "application/json", **kw)


def interactive(service, payload: dict) -> httpx.Response:
    return post(service, urlencode({"payload": json.dumps(payload)}), "application/x-www-form-urlencoded")


def mention(service, thread_ts: str, user: str = "UALICE", text: str = f"<@{BOT_USER}> seen this before?",
            event_id: str | None = None, **kw):
    ts = f"{time.time():.6f}"
    return event(service, {"type": "app_mention", "user": user, "text": text, "ts": ts, "channel": CHANNEL,
                           "thread_ts": thread_ts, "event_ts": ts}, event_id=event_id, **kw)


def entry_of(blocks: list[dict]) -> str | None:
    """The entry the answer's feedback buttons name (None for a no_match answer)."""
    for b in blocks:
        if b.get("type") == "actions":
            return json.loads(b["elements"][0]["value"])["entry"]
    return None


def answer_text(blocks: list[dict]) -> str:
    return json.dumps(blocks)


# --- the ways in -------------------------------------------------------------------------------------------------

def test_slash_command_acks_at_once_then_answers_through_the_response_url(service, fake):
    started = time.monotonic()
    resp = slash(service, fake, ZERO3)
    elapsed = time.monotonic() - started
    assert resp.status_code == 200 and elapsed < 3.0

    [answer] = fake.wait_for("response_url")
    assert answer.path == "/response/cmd"
    assert answer.args["response_type"] == "in_channel"
    assert entry_of(answer.args["blocks"]) == "zero3_load"
    text = answer_text(answer.args["blocks"])
    assert "resuming under ZeRO-3" in text and "GatheredParameters" in text and "Confidence" in text
    assert answer.args["text"].startswith("Known issue: ")
    assert not fake.calls_to("chat.postMessage")


def test_a_chinese_report_is_answered_in_chinese(cache_dir, tmp_path, fake):
    with live_app(cache_dir, tmp_path, lambda kb: slack_settings(cache_dir, kb, fake.api_url, lang="auto")) as srv:
        resp = slash(srv, fake, ZERO3, key="zh")
        assert resp.status_code == 200
        [answer] = fake.wait_for("response_url")
    assert entry_of(answer.args["blocks"]) == "zero3_load"
    text = json.dumps(answer.args["blocks"], ensure_ascii=False)
    for label in ("*根因*", "*修复方法*", "置信度", "已解决", "不是这个"):
        assert label in text, label
    assert "Root cause" not in text and answer.args["text"].startswith("已知问题：")


def test_slash_command_without_text_gets_usage_in_the_ack(service, fake):
    resp = slash(service, fake, "   ")
    assert resp.status_code == 200 and "Usage: `/diagnose" in resp.text
    time.sleep(0.3)
    assert not fake.calls_to("response_url")


def test_mention_in_a_thread_reads_the_thread_and_answers_in_it(service, fake):
    parent = fake.add_thread(CHANNEL, [
        {"user": "UBOB", "text": "Our reward model resume broke after the ZeRO-3 switch:\n```" + ZERO3 + "```"},
        {"user": "UCAROL", "text": "same on our side"},
    ])
    assert mention(service, parent).status_code == 200

    [post_call] = fake.wait_for("chat.postMessage")
    assert post_call.args["channel"] == CHANNEL and post_call.args["thread_ts"] == parent
    assert entry_of(post_call.args["blocks"]) == "zero3_load"
    [replies] = fake.calls_to("conversations.replies")
    assert replies.args["channel"] == CHANNEL and replies.args["ts"] == parent
    assert all(c.auth == f"Bearer {BOT_TOKEN}" for c in fake.calls)


def test_a_mention_slack_retries_is_answered_once_and_verify_answers_in_the_thread(service, fake):
    parent = fake.add_thread(CHANNEL, [{"user": "UBOB", "text": ZERO3}])
    for retry in ({}, {"X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout"}):
        # Slack delivers the same event again (saying so) when it thinks the first try failed
        assert mention(service, parent, text=f"<@{BOT_USER}> --verify", event_id="EvRetried",
                       headers=retry).status_code == 200
    answer, running, result = fake.wait_for("chat.postMessage", 3)
    assert {c.args["thread_ts"] for c in (answer, running, result)} == {parent}
    assert entry_of(answer.args["blocks"]) == "zero3_load"
    assert "Verification running" in running.args["text"]
    assert "*Could not verify* `zero3_load`" in result.args["blocks"][0]["text"]["text"]
    time.sleep(0.5)
    assert len(fake.calls_to("conversations.replies")) == 1 and len(fake.calls_to("chat.postMessage")) == 3


def test_a_text_file_snippet_in_the_thread_is_downloaded_with_the_bot_token_and_used(service, fake):
    stub = fake.add_file("F0LOG", "rank3.log", NCCL_LOG)
    picture = fake.add_file("F0PNG", "dashboard.png", b"\x89PNG\r\n", mimetype="image/png", filetype="png",
                            mode="hosted")
    # A file whose download Slack answers with its sign-in page (as it does when the token may not read it).
    gone = fake.add_file("F0OLD", "old.txt", b"", url_private_download=f"{fake.url}/files/F0NONE/download/old.txt")
    parent = fake.add_thread(CHANNEL, [{"user": "UBOB", "text": "NCCL dies at start, log attached",
                                        "files": [stub, picture, gone]}])
    mention(service, parent)

    [post_call] = fake.wait_for("chat.postMessage")
    assert entry_of(post_call.args["blocks"]) == "nccl_shm"
    assert "--shm-size" in answer_text(post_call.args["blocks"])
    last = post_call.args["blocks"][-1]
    assert last["type"] == "context"
    assert last["elements"][0]["text"] == ("Read: rank3.log. Not read: dashboard.png: not a text file; old.txt: "
                                           "Slack sent a sign-in page instead (does the app have files:read?).")
    assert [c.args["file"] for c in fake.calls_to("files.info")] == ["F0LOG", "F0PNG", "F0OLD"]
    download = fake.calls_to("download")[0]
    assert download.path == "/files/F0LOG/download/rank3.log" and download.auth == f"Bearer {BOT_TOKEN}"


def test_the_bots_own_messages_are_not_taken_as_the_report(service, fake):
    parent = fake.add_thread(CHANNEL, [
        {"bot_id": BOT_ID, "user": BOT_USER, "text": NCCL_LOG.decode()},
        {"user": "UALICE", "text": f"<@{BOT_USER}>"},
    ])
    mention(service, parent, text=f"<@{BOT_USER}>")
    [told] = fake.wait_for("chat.postEphemeral")
    assert told.args["user"] == "UALICE" and "found no report" in told.args["text"]
    assert not fake.calls_to("chat.postMessage")


def test_message_shortcut_answers_in_the_thread_of_that_message(service, fake):
    message = {"type": "message", "user": "UBOB", "ts": "1700000100.000200", "text": LFS}
    resp = interactive(service, {
        "type": "message_action", "callback_id": "diagnose_message", "trigger_id": "1.2.3", "action_ts": "1.25",
        "team": {"id": TEAM}, "channel": {"id": CHANNEL, "name": "training"},
        "user": {"id": "UALICE", "name": "alice"}, "message_ts": message["ts"], "message": message,
        "response_url": fake.response_url("shortcut"),
    })
    assert resp.status_code == 200
    [post_call] = fake.wait_for("chat.postMessage")
    assert post_call.args["thread_ts"] == message["ts"] and post_call.args["channel"] == CHANNEL
    assert entry_of(post_call.args["blocks"]) == "lfs_pointer_zh"


def click_button(service, fake, user: str, button: dict, blocks: list[dict], answer_ts: str, parent: str,
                 text: str) -> None:
    """`user` clicks `button` of the bot's answer (`answer_ts`, in the thread of `parent`)."""
    resp = interactive(service, {
        "type": "block_actions", "team": {"id": TEAM}, "user": {"id": user, "username": user.lower()},
        "api_app_id": "A0TRIAGE", "trigger_id": "1.2.3", "response_url": fake.response_url("click"),
        "container": {"type": "message", "message_ts": answer_ts, "channel_id": CHANNEL, "is_ephemeral": False},
        "channel": {"id": CHANNEL}, "message": {"type": "message", "ts": answer_ts, "thread_ts": parent,
                                                "text": text, "blocks": blocks},
        "actions": [{**button, "block_id": "triage_feedback", "action_ts": f"{time.time():.6f}"}],
    })
    assert resp.status_code == 200


def test_feedback_buttons_are_recorded_and_shown_on_the_message(cache_dir, service, fake):
    parent = fake.add_thread(CHANNEL, [{"user": "UBOB", "text": ZERO3}])
    mention(service, parent)
    [answer] = fake.wait_for("chat.postMessage")
    answer_ts = next(ts for (ch, ts) in fake.messages if ch == CHANNEL)
    buttons = next(b for b in answer.args["blocks"] if b["type"] == "actions")["elements"]

    def click(user: str, button: dict, blocks: list[dict]) -> None:
        click_button(service, fake, user, button, blocks, answer_ts, parent, answer.args["text"])

    click("UALICE", buttons[0], answer.args["blocks"])
    [update] = fake.wait_for("chat.update")
    assert update.args["channel"] == CHANNEL and update.args["ts"] == answer_ts
    status = next(b for b in update.args["blocks"] if b.get("block_id") == "triage_feedback_status")
    assert [e["text"] for e in status["elements"]] == ["<@UALICE>: :white_check_mark: Fixed it"]
    assert any(b["type"] == "actions" for b in update.args["blocks"])  # others can still vote

    click("UDAVE", buttons[1], update.args["blocks"])
    updates = fake.wait_for("chat.update", 2)
    status = next(b for b in updates[1].args["blocks"] if b.get("block_id") == "triage_feedback_status")
    assert len(status["elements"]) == 2 and status["elements"][1]["text"] == "<@UDAVE>: :x: Not it"

    def rows():
        conn = sqlite3.connect(service.kb_dir / "state.sqlite")
        try:
            return conn.execute("SELECT source, user, entry_id, signature, verdict, context FROM feedback "
                                "ORDER BY id").fetchall()
        finally:
            conn.close()

    recorded = wait_until(lambda: len(rows()) == 2 and rows(), 10)
    assert [(r[0], r[1], r[2], r[4]) for r in recorded] == [("slack", "UALICE", "zero3_load", "fixed"),
                                                            ("slack", "UDAVE", "zero3_load", "wrong")]
    signature_in_button = json.loads(buttons[0]["value"])["signature"]
    assert recorded[0][3] == signature_in_button and "RuntimeError" in signature_in_button
    assert json.loads(recorded[0][5]) == {"team": TEAM, "channel": CHANNEL, "message_ts": answer_ts,
                                          "user_name": "ualice"}

    # The matcher listens: "not it" keeps the entry from being proposed for this error again...
    slash(service, fake, ZERO3, key="after-veto")
    [vetoed] = fake.wait_for("response_url")
    assert entry_of(vetoed.args["blocks"]) != "zero3_load"
    # ... until the same person takes it back.
    click("UDAVE", buttons[0], updates[1].args["blocks"])
    fake.wait_for("chat.update", 3)
    slash(service, fake, ZERO3, key="after-fixed")
    assert entry_of(fake.wait_for("response_url", 2)[1].args["blocks"]) == "zero3_load"

    # `triage feedback list --json` shows the same rows, newest first.
    env = {**os.environ, "TRIAGE_CACHE_DIR": str(cache_dir), "TRIAGE_KB": str(service.kb_dir)}
    out = subprocess.run([sys.executable, "-m", "bot.cli", "feedback", "list", "--json"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    listed = json.loads(out.stdout)
    # One vote per person: UDAVE's "fixed" replaced their "not it".
    assert [(f["user"], f["verdict"], f["entry_id"], f["source"], f["scope"]) for f in listed] == [
        ("UDAVE", "fixed", "zero3_load", "slack", f"slack:{TEAM}"), ("UALICE", "fixed", "zero3_load", "slack",
                                                                     f"slack:{TEAM}")]
    assert set(listed[0]) == {"id", "created_at", "source", "user", "entry_id", "signature", "verdict", "context",
                              "scope", "role", "updated_at", "sig_ref", "sig_version"}
    assert listed[0]["sig_ref"] == json.loads(buttons[0]["value"])["ref"] and listed[0]["sig_version"].startswith("sig:")
    assert listed[0]["signature"] == signature_in_button and listed[0]["context"]["channel"] == CHANNEL


def test_not_it_vetoes_even_when_the_reports_signature_is_too_long_for_a_button(service, fake):
    """The longest bundled example's signature (a whole state-dict key list) does not fit a button value: the button
    carries its ref and the rules version (both whole), so the veto is stored under that version and still applies
    to the next report of that error."""
    report = (ROOT / "examples" / "repro_zero3_size0_load.txt").read_text()
    key = signature_of_event(parse_report(report).primary).key
    parent = fake.add_thread(CHANNEL, [{"user": "UBOB", "text": report}])
    mention(service, parent)
    [answer] = fake.wait_for("chat.postMessage")
    assert entry_of(answer.args["blocks"]) == "zero3_load"
    answer_ts = next(ts for (ch, ts) in fake.messages if ch == CHANNEL)
    not_it = next(b for b in answer.args["blocks"] if b["type"] == "actions")["elements"][1]
    carried = json.loads(not_it["value"])
    assert len(carried["signature"]) < len(key) and carried["ref"] == signature_ref(key)
    assert carried["ver"] == SIGNATURE_VERSION
    click_button(service, fake, "UDAVE", not_it, answer.args["blocks"], answer_ts, parent, answer.args["text"])
    fake.wait_for("chat.update")

    def stored():
        conn = sqlite3.connect(service.kb_dir / "state.sqlite")
        try:
            return conn.execute("SELECT verdict, sig_version FROM feedback WHERE user = 'UDAVE' AND sig_ref = ?",
                                (signature_ref(key),)).fetchall()
        finally:
            conn.close()

    assert wait_until(stored, 10) == [("wrong", SIGNATURE_VERSION)]
    again = fake.add_thread(CHANNEL, [{"user": "UBOB", "text": report}])
    mention(service, again)
    later = fake.wait_for("chat.postMessage", 2)[1]
    assert entry_of(later.args["blocks"]) != "zero3_load"


# --- what is refused, and what goes wrong -------------------------------------------------------------------------

def test_forged_signatures_and_stale_timestamps_are_refused_before_anything_happens(service, fake):
    refused = [
        slash(service, fake, ZERO3, secret="not-the-secret"),
        slash(service, fake, ZERO3, timestamp=int(time.time()) - 6 * 60),
        slash(service, fake, ZERO3, sig="v0=" + "0" * 64),
        event(service, {"type": "app_mention", "user": "U1", "text": "hi", "ts": "1.0", "channel": CHANNEL},
              secret="not-the-secret"),
    ]
    for resp in refused:
        assert resp.status_code == 401
        assert resp.json()["code"] == "bad_signature" and resp.json()["ok"] is False
    time.sleep(0.5)
    assert fake.calls == []


def test_url_verification_answers_the_challenge_when_signed(service, fake):
    body = json.dumps({"token": "legacy", "challenge": "c-123", "type": "url_verification"})
    resp = post(service, body, "application/json")
    assert resp.status_code == 200 and resp.json() == {"challenge": "c-123"}


def test_web_api_errors_are_logged_and_the_user_is_told(service, fake, caplog):
    caplog.set_level(logging.WARNING)
    # chat.postMessage refused: the user hears why, ephemerally, in the thread.
    fake.fail("chat.postMessage", "channel_not_found")
    parent = fake.add_thread(CHANNEL, [{"user": "UBOB", "text": ZERO3}])
    mention(service, parent)
    [told] = fake.wait_for("chat.postEphemeral")
    assert told.args["user"] == "UALICE" and told.args["thread_ts"] == parent
    assert "Slack refused my answer (channel_not_found)" in told.args["text"]
    assert any("channel_not_found" in r.getMessage() for r in caplog.records)

    # The thread cannot be read.
    fake.fail("conversations.replies", "not_in_channel")
    mention(service, parent)
    told = fake.wait_for("chat.postEphemeral", 2)[1]
    assert "could not read this thread (not_in_channel)" in told.args["text"]

    # The response_url refuses the answer: the user is told through the next post.
    fake.fail_response_url(404, "expired_url")
    slash(service, fake, ZERO3)
    calls = fake.wait_for("response_url", 2)
    assert calls[1].args["response_type"] == "ephemeral" and "expired_url" in calls[1].args["text"]

    # Nothing crashed: the next request is answered as usual (the first postMessage was the refused one).
    mention(service, parent)
    ok = fake.wait_for("chat.postMessage", 2)[1]
    assert entry_of(ok.args["blocks"]) == "zero3_load"


def test_a_20k_character_traceback_answers_with_valid_blocks(service, fake):
    frames = "".join(f'  File "/opt/train/layer_{i}.py", line {i}, in forward\n    x = self.block_{i}(x)\n'
                     for i in range(300))
    huge = ("Traceback (most recent call last):\n" + frames + "RuntimeError: Error(s) in loading state_dict for "
            "LlamaForCausalLM:\n" + "".join(
                f"\tsize mismatch for model.layers.{i}.mlp.weight: copying a param with shape torch.Size([4096, "
                f"11008]) from checkpoint, the shape in current model is torch.Size([0]).\n" for i in range(40)))
    assert len(huge) > 20_000
    slash(service, fake, huge)
    [answer] = fake.wait_for("response_url")
    # The fake refuses blocks over Slack's limits with HTTP 400; an answer that passed is a valid one.
    assert answer.args["response_type"] == "in_channel" and entry_of(answer.args["blocks"]) == "zero3_load"
    time.sleep(0.3)
    assert len(fake.calls_to("response_url")) == 1


def test_verify_with_the_repro_runner_posts_progress_then_the_outcome(service, fake):
    """The service's own verifier (kb.repro): this small KB's entries have no recipe, which it says plainly."""
    slash(service, fake, "--verify " + ZERO3)
    answer, running, result = fake.wait_for("response_url", 3)
    assert entry_of(answer.args["blocks"]) == "zero3_load"
    assert "Verification running for zero3_load" in running.args["text"]
    said = result.args["blocks"][0]["text"]["text"]
    assert said.startswith(":grey_question: *Could not verify* `zero3_load`") and "no reproduction recipe" in said


def test_repro_verifier_confirms_with_the_entrys_recipe_and_keeps_the_result(tmp_path):
    """The verifier the bot uses, on a starter-KB entry that has a CPU recipe: it really runs, and is recorded."""
    diag = Diagnosis(input="slack", verdict="match", confidence=0.9, query=QueryOut(exception_type=None, message="",
                                                                                    signature=""),
                     matches=[MatchOut(entry_id="zero3-load-state-dict-size0", title="ZeRO-3 size 0", source="s",
                                       score=0.9, root_cause="", fixes=[], evidence=[])])
    state = SimpleNamespace(require_ready=lambda: None, kb=SimpleNamespace(path=tmp_path),
                            settings=Settings(cache_dir=tmp_path, database_url=None))
    said = repro_verifier(state)(ZERO3, diag)
    assert said.startswith(":white_check_mark: *Confirmed* `zero3-load-state-dict-size0`")
    assert "Reproduced: `RuntimeError: size mismatch" in said
    conn = sqlite3.connect(tmp_path / "state.sqlite")
    try:
        rows = conn.execute("SELECT entry_id, status FROM repro_results").fetchall()
    finally:
        conn.close()
    assert rows == [("zero3-load-state-dict-size0", "reproduced")]


def test_verify_runs_after_the_answer_in_the_configured_response_type(cache_dir, service, fake):
    """`/diagnose --verify`: the verification (slow) starts only once the answer and "running" are out."""
    seen = []

    def verify(text, diag):
        seen.append((diag.matches[0].entry_id, "size mismatch" in text, len(fake.calls_to("response_url"))))
        time.sleep(1.0)
        return f"`{diag.matches[0].entry_id}`: *reproduced* (test verifier)"

    settings = slack_settings(cache_dir, service.kb_dir, fake.api_url, slack_response_type="ephemeral")
    state = ServiceState(settings=settings)
    kb = KnowledgeBase.open(service.kb_dir, settings)
    state.load(kb)
    app = FastAPI()
    surface = SlackSurface(state, verify=verify)
    app.include_router(surface.router)
    try:
        with LiveServer(app, wait_ready=False) as srv:
            started = time.monotonic()
            resp = slash(srv, fake, "--verify " + ZERO3, key="verify")
            assert resp.status_code == 200 and time.monotonic() - started < 3.0
            answer, running, result = fake.wait_for("response_url", 3)
    finally:
        surface.stop(app)
        kb.close()
    assert entry_of(answer.args["blocks"]) == "zero3_load"
    assert seen == [("zero3_load", True, 2)]
    assert "Verification running for zero3_load" in running.args["text"]
    assert "*reproduced* (test verifier)" in result.args["blocks"][0]["text"]["text"]
    assert {c.args["response_type"] for c in (answer, running, result)} == {"ephemeral"}


def test_without_slack_settings_the_route_says_the_bot_is_off(cache_dir, tmp_path):
    client = TestClient(create_app(Settings(cache_dir=cache_dir, kb=tmp_path / "kb")))
    resp = client.post("/slack/events", content=b"{}")
    assert resp.status_code == 503 and resp.json()["code"] == "slack_not_configured"
    assert "TRIAGE_SLACK_BOT_TOKEN" in resp.json()["error"]


def test_socket_mode_with_a_refused_app_token_fails_in_one_line(cache_dir, service, fake):
    fake.fail("apps.connections.open", "invalid_auth")
    env = {**os.environ, "TRIAGE_CACHE_DIR": str(cache_dir), "TRIAGE_KB": str(service.kb_dir),
           "TRIAGE_SLACK_BOT_TOKEN": BOT_TOKEN, "TRIAGE_SLACK_APP_TOKEN": APP_TOKEN,
           "TRIAGE_SLACK_API_URL": fake.api_url}
    out = subprocess.run([sys.executable, "-m", "bot.cli", "slack", "--socket", "--log-level", "error"], cwd=ROOT,
                         env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 1
    assert "Slack refused the Socket Mode connection (invalid_auth)" in out.stderr
    assert "Traceback" not in out.stderr
    [opened] = fake.calls_to("apps.connections.open")
    assert opened.auth == f"Bearer {APP_TOKEN}"


def test_socket_mode_answers_a_mention_pushed_over_the_websocket(cache_dir, service, fake, tmp_path):
    """`triage slack --socket` as users run it: it connects, takes an event envelope, acks it, answers in the
    thread through the Web API, and stops cleanly on Ctrl-C."""
    parent = fake.add_thread(CHANNEL, [{"user": "UBOB", "text": ZERO3}])
    env = {**os.environ, "TRIAGE_CACHE_DIR": str(cache_dir), "TRIAGE_KB": str(service.kb_dir),
           "TRIAGE_SLACK_BOT_TOKEN": BOT_TOKEN, "TRIAGE_SLACK_APP_TOKEN": APP_TOKEN,
           "TRIAGE_SLACK_API_URL": fake.api_url}
    log_path = tmp_path / "slack.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([sys.executable, "-m", "bot.cli", "slack", "--socket"], cwd=ROOT, env=env,
                                stdout=log, stderr=subprocess.STDOUT)
    try:
        assert wait_until(lambda: "connected over Socket Mode" in log_path.read_text() or proc.poll() is not None,
                          90), log_path.read_text()
        assert proc.poll() is None, log_path.read_text()
        ts = f"{time.time():.6f}"
        fake.push({"envelope_id": "env-1", "type": "events_api", "accepts_response_payload": False,
                   "retry_attempt": 0, "retry_reason": "", "payload": {
                       "token": "legacy", "team_id": TEAM, "api_app_id": "A0TRIAGE", "type": "event_callback",
                       "event_id": "EvSocket1", "event_time": int(time.time()),
                       "event": {"type": "app_mention", "user": "UALICE", "text": f"<@{BOT_USER}> ?", "ts": ts,
                                 "channel": CHANNEL, "thread_ts": parent, "event_ts": ts}}})
        [answer] = fake.wait_for("chat.postMessage")
        assert answer.args["thread_ts"] == parent and entry_of(answer.args["blocks"]) == "zero3_load"
        assert wait_until(lambda: any(a.get("envelope_id") == "env-1" for a in fake.acks), 10)
        [opened] = fake.calls_to("apps.connections.open")
        assert opened.auth == f"Bearer {APP_TOKEN}"
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, log_path.read_text()
    assert "Traceback" not in log_path.read_text()


def test_forty_slash_commands_at_once_are_all_acked_in_time_even_while_a_diagnosis_holds_the_lock(service, fake):
    from concurrent.futures import ThreadPoolExecutor

    lock = service.app.state.triage._diagnose_lock

    def one(i: int) -> tuple[int, float]:
        started = time.monotonic()
        resp = slash(service, fake, ZERO3, key=f"burst-{i}", client=http)
        return resp.status_code, time.monotonic() - started

    lock.acquire()          # a long diagnosis is running: acks must not wait for it
    try:
        # One client for all (Slack's side of the test runs in this process: 40 clients would cost seconds of CPU)
        with httpx.Client(limits=httpx.Limits(max_connections=40)) as http, ThreadPoolExecutor(max_workers=40) as pool:
            results = list(pool.map(one, range(40)))
    finally:
        lock.release()
    assert [status for status, _ in results] == [200] * 40
    slowest = max(elapsed for _, elapsed in results)
    assert slowest < 3.0, f"slowest ack took {slowest:.2f} s"
    answers = fake.wait_for("response_url", 40, timeout=240)
    assert sorted(a.path for a in answers) == sorted(f"/response/burst-{i}" for i in range(40))
    assert all(entry_of(a.args["blocks"]) == "zero3_load" for a in answers)


def test_replayed_requests_are_refused_and_do_nothing(service, fake):
    first = slash(service, fake, ZERO3, key="replay", trigger_id="1234.replayed")
    assert first.status_code == 200
    fake.wait_for("response_url")
    again = slash(service, fake, ZERO3, key="replay", trigger_id="1234.replayed")
    assert again.status_code == 409 and again.json()["code"] == "duplicate"

    click = {"type": "block_actions", "team": {"id": TEAM}, "user": {"id": "UEVE", "username": "eve"},
             "trigger_id": "9.9", "response_url": fake.response_url("replay-click"), "channel": {"id": CHANNEL},
             "container": {"type": "message", "message_ts": "1.1", "channel_id": CHANNEL, "is_ephemeral": True},
             "actions": [{"action_id": "triage_wrong", "block_id": "triage_feedback", "action_ts": "1700.5",
                          "value": json.dumps({"entry": "zero3_load", "signature": "RuntimeError: replay"})}]}
    assert interactive(service, click).status_code == 200
    assert interactive(service, click).status_code == 409
    time.sleep(0.5)
    assert len(fake.calls_to("response_url")) == 2     # the answer, and one "Thanks, recorded"
    conn = sqlite3.connect(service.kb_dir / "state.sqlite")
    try:
        assert conn.execute("SELECT COUNT(*) FROM feedback WHERE user = 'UEVE'").fetchone()[0] == 1
    finally:
        conn.close()


def test_malformed_slack_requests_get_a_clear_4xx(service, fake):
    for ts in ("soon", "1.5e9", "-5", ""):
        resp = slash(service, fake, ZERO3, timestamp=ts, sig="v0=" + "0" * 64)
        assert resp.status_code == 400 and "X-Slack-Request-Timestamp" in resp.json()["error"]
    resp = post(service, urlencode({"payload": "{not json"}), "application/x-www-form-urlencoded")
    assert resp.status_code == 400 and "payload cannot be read" in resp.json()["error"]
    resp = post(service, urlencode({"payload": "[1, 2]"}), "application/x-www-form-urlencoded")
    assert resp.status_code == 400 and "must be a JSON object" in resp.json()["error"]
    resp = post(service, '{"type": "event_callback", "event": "\\ud800"}', "application/json")
    assert resp.status_code == 400 and "lone surrogate" in resp.json()["error"]
    resp = post(service, "[" * 30_000 + "]" * 30_000, "application/json")
    assert resp.status_code == 400 and "nested too deeply" in resp.json()["error"]
    time.sleep(0.3)
    assert fake.calls == []
