"""The GitHub pieces on their own: signatures, the marker, reading events, the comment, and the API client's
retries and pagination against the fake GitHub server (real HTTP on 127.0.0.1)."""
from __future__ import annotations

import re
import socket
import time

import pytest

from bot.github.api import GitHubAPIError, GitHubClient
from bot.github.comment import feedback_command, has_marker, marker, parse_marker
from bot.render.markdown import render_match, render_no_match
from bot.github.events import BadPayload, read_event
from bot.github.signature import sign, signature_ok
from kb.config import Settings
from kb.models import Diagnosis, Evidence, FixOut, MatchOut, QueryOut
from kb.traceback.signature import SIGNATURE_VERSION, signature_ref
from tests.fakes.github_api import FakeGitHub
from tests.service_support import comment_payload, issue_payload


def test_signature_matches_githubs_published_example():
    # The example in GitHub's "Validating webhook deliveries" documentation.
    secret, body = b"It's a Secret to Everybody", b"Hello, World!"
    expected = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
    assert sign(secret, body) == expected and signature_ok(secret, body, expected)
    assert not signature_ok(secret, body + b" ", expected)
    assert not signature_ok(b"another secret", body, expected)
    for bad in (None, "", expected[7:], "sha1=" + expected[7:], expected[:-1], expected.upper()):
        assert not signature_ok(secret, body, bad)


def test_marker_round_trips_any_entry_and_signature():
    sig = "RuntimeError: size mismatch --> <x> for {name}: torch.Size([0])\nsecond line"
    m = marker("my entry/with spaces", sig)
    assert m.startswith("<!-- triage-kb ") and m.count("-->") == 1 and "\n" not in m
    body = f"{m}\n### triage-kb: this looks like a known issue\n..."
    assert has_marker(body)
    got = parse_marker(body)
    assert (got.entry_id, got.signature) == ("my entry/with spaces", sig)
    assert got.ref == signature_ref(sig) and got.version == SIGNATURE_VERSION, "the rules version, as a short hash"
    assert parse_marker("no marker here") is None and not has_marker(None)
    assert parse_marker("<!-- triage-kb entry=e sig=x -->").version == ""    # written before versions


@pytest.mark.parametrize("text,verdict", [
    ("/triage wrong", "wrong"), ("  /TRIAGE Fixed, thanks", "fixed"), ("thanks!\n/triage wrong\nnot my case", "wrong"),
    ("I think `/triage wrong` is", None), ("/triage wrongly", None), ("/triage", None), ("", None),
])
def test_feedback_commands(text, verdict):
    assert feedback_command(text) == verdict


def test_reading_events():
    ev = read_event("issues", issue_payload(3, "T", "body text"))
    assert (ev.kind, ev.repo, ev.number, ev.user, ev.report_text()) == ("report", "acme/trainer", 3, "alice",
                                                                         "T\n\nbody text")
    ev = read_event("issue_comment", comment_payload(3, "T", "body", "more output"))
    assert ev.kind == "report" and ev.report_text() == "T\n\nbody\n\nmore output" and ev.comment_id == 555
    assert read_event("issue_comment", comment_payload(3, "T", "b", "/triage fixed")).verdict == "fixed"
    pr = comment_payload(3, "T", "b", "c")
    pr["issue"]["pull_request"] = {"url": "https://api.github.com/repos/acme/trainer/pulls/3"}
    assert read_event("issue_comment", pr) == "pull requests are not triaged"
    assert read_event("issues", issue_payload(3, "T", "b", sender="dependabot[bot]")) == "sent by a bot"
    assert read_event("issues", issue_payload(3, "T", "b", action="labeled")) == "issues.labeled is not handled"
    with pytest.raises(BadPayload, match="repository must be an object, not null"):
        read_event("issues", {"action": "opened", "issue": {}, "sender": {}})


@pytest.mark.parametrize("change,reason", [
    (lambda p: p.update(issue="x"), "issue must be an object, not a string"),
    (lambda p: p.update(sender=[1]), "sender must be an object, not an array"),
    (lambda p: p.update(repository=7), "repository must be an object, not a number"),
    (lambda p: p.update(action=["opened"]), "action must be a string"),
    (lambda p: p["issue"].update(number="5"), "issue.number must be a positive integer"),
    (lambda p: p["issue"].update(number=True), "issue.number must be a positive integer"),
    (lambda p: p["issue"].update(body={"a": 1}), "issue.body must be a string, not an object"),
    (lambda p: p["sender"].update(login=5), "sender.login must be a string"),
    (lambda p: p["comment"].update(body=["x"]), "comment.body must be a string"),
    (lambda p: p["comment"].update(id="12"), "comment.id must be an integer"),
    (lambda p: p["repository"].update(full_name="../../user"), "repository.full_name must be owner/name"),
    (lambda p: p["repository"].update(full_name="acme/trainer/issues"), "repository.full_name must be owner/name"),
    (lambda p: p["repository"].update(full_name="acme/.."), "repository.full_name must be owner/name"),
    (lambda p: p["repository"].update(full_name="acme/x?y=1"), "repository.full_name must be owner/name"),
    (lambda p: p["repository"].update(full_name=None), "repository.full_name must be owner/name"),
])
def test_payloads_of_the_wrong_shape_are_refused_with_the_reason(change, reason):
    payload = comment_payload(3, "T", "b", "more output")
    change(payload)
    with pytest.raises(BadPayload, match=re.escape(reason)):
        read_event("issue_comment", payload)
    with pytest.raises(BadPayload, match="the payload must be a JSON object, not an array"):
        read_event("issues", [])


def test_feedback_counts_only_from_trusted_roles_or_the_issues_author():
    def vote(association, sender="mallory", roles=None, issue_author="alice"):
        payload = comment_payload(3, "T", "b", "/triage wrong", sender=sender, association=association,
                                  issue_author=issue_author)
        return read_event("issue_comment", payload, **({"roles": roles} if roles is not None else {}))

    for trusted in ("OWNER", "MEMBER", "COLLABORATOR"):
        ev = vote(trusted)
        assert ev.kind == "feedback" and ev.role == trusted and ev.user == "mallory"
    for outsider in ("NONE", "CONTRIBUTOR", "FIRST_TIMER", "FIRST_TIME_CONTRIBUTOR", "MANNEQUIN", ""):
        said = vote(outsider)
        assert isinstance(said, str) and "is not counted" in said and "mallory" in said
    # The issue's author, whatever their association, on their own issue only.
    ev = vote("NONE", sender="Alice")
    assert ev.kind == "feedback" and ev.role == "issue author"
    assert isinstance(vote("NONE", sender="alice", issue_author="bob"), str)
    # TRIAGE_GITHUB_FEEDBACK_ROLES narrows (or widens) who counts.
    settings = Settings(github_feedback_roles=" owner , contributor")
    assert settings.feedback_roles() == {"OWNER", "CONTRIBUTOR"}
    assert isinstance(vote("MEMBER", roles=settings.feedback_roles()), str)
    assert vote("CONTRIBUTOR", roles=settings.feedback_roles()).role == "CONTRIBUTOR"


def test_our_own_comments_are_known_by_their_author_not_by_the_marker():
    ours = marker("zero3_load", "sig") + "\nanswer"
    # A person pasting our marker is a person: their comment is read like any other.
    ev = read_event("issue_comment", comment_payload(3, "T", "b", ours + "\n/triage wrong", sender="mallory"))
    assert ev.kind == "feedback" and ev.user == "mallory"
    assert read_event("issues", issue_payload(3, "T", ours)).kind == "report"
    # The bot's own login (a user account behind a token) is never work.
    assert read_event("issue_comment", comment_payload(3, "T", "b", ours, sender="Triage-Bot"),
                      bot_login="triage-bot") == "our own comment"


def _diag(fixes: list[FixOut], **fields) -> Diagnosis:
    match = MatchOut(entry_id="e1", title="Title with <b>html</b> and @someone", source="e1.md", score=0.9,
                     root_cause="Because\nof <reasons>.", fixes=fixes,
                     evidence_items=[Evidence(kind="line", report_line="RuntimeError: `x`",
                                              entry_line="RuntimeError: y"),
                                     Evidence(kind="type", note="same exception: RuntimeError")], **fields)
    return Diagnosis(input="r", verdict="match", confidence=0.93, matches=[match],
                     query=QueryOut(exception_type="RuntimeError", message="m", signature="RuntimeError: m"))


def test_the_comment_says_what_was_verified_and_how():
    # Everything the comment says of the entry comes with the answer: no KB's documents are needed.
    entry = {"repro": "recipe-1", "affected": "torch>=2.6"}
    diag = _diag([FixOut(text="Do A.", verified=True, verified_by="repro"),
                  FixOut(text="Do B.", verified=True, verified_by="maintainer"),
                  FixOut(text="Do C.", verified=False, verified_by="none")],
                 verified_on={"python": None, "torch": "2.13.0", "cuda": "12.4", "device": "NVIDIA H100"}, **entry)
    body = render_match(diag)
    assert body.splitlines()[0] == marker("e1", "RuntimeError: m")
    assert "✅ **verified by repro** `recipe-1` on torch 2.13.0, cuda 12.4, device NVIDIA H100: Do A." in body
    assert "✅ verified by the maintainer: Do B." in body and "\n- Do C." in body
    assert "Confidence 93%" in body and "source `e1.md`" in body
    assert "affected: torch>=2.6" in body
    assert "your line: `RuntimeError: 'x'`" in body and "the entry's line: `RuntimeError: y`" in body
    assert "- same exception: RuntimeError" in body
    assert "<b>" not in body and "@someone" not in body and "Because of &lt;reasons>." in body
    assert "/triage wrong" in body and "/triage fixed" in body

    unconfirmed = render_match(_diag([FixOut(text="Do A.", verified=False, verified_by="repro")], **entry))
    assert "repro recipe `recipe-1` (not yet confirmed by a run): Do A." in unconfirmed
    assert "verified by repro" not in unconfirmed

    nothing = Diagnosis(input="r", verdict="no_match", confidence=0.8, matches=[], reason="no entry explains it",
                        query=QueryOut(exception_type=None, message="", signature="S"),
                        related=[diag.matches[0].model_copy(update={"reason": "conflicting fact"})])
    text = render_no_match(nothing, parse_marker(body), why="bob marked it wrong")
    assert parse_marker(text).entry_id == "" and "`e1`; bob marked it wrong." in text
    assert "no entry explains it" in text and "(conflicting fact)" in text


@pytest.fixture
def fake():
    with FakeGitHub(token="t", page_size=1) as f:
        yield f


def client_for(url: str, sleeps: list, **kw) -> GitHubClient:
    settings = Settings(github_api_url=url, github_token="t", github_retry_attempts=kw.get("attempts", 4),
                        github_retry_backoff_s=0.5, github_retry_max_wait_s=30)
    return GitHubClient(settings, sleep=sleeps.append)


def test_client_follows_pagination_and_waits_as_github_asks(fake):
    for i in range(3):
        fake.add_comment("o/r", 1, f"c{i}")
    sleeps: list[float] = []
    client = client_for(fake.url, sleeps)
    assert [c.body for c in client.issue_comments("o/r", 1)] == ["c0", "c1", "c2"]
    assert len(fake.calls_to("GET")) == 3 and sleeps == []

    fake.fail("POST", r"/labels$", 429, headers={"Retry-After": "7"})
    fake.fail("POST", r"/labels$", 403, headers={"x-ratelimit-remaining": "0",
                                                 "x-ratelimit-reset": str(int(time.time()) + 20)})
    fake.fail("POST", r"/labels$", 503)
    client.add_label("o/r", 1, "triage:known-issue")
    assert fake.labels[("o/r", 1)] == ["triage:known-issue"]
    assert sleeps[0] == 7 and 15 <= sleeps[1] <= 20 and 0.5 * 4 * 0.8 <= sleeps[2] <= 0.5 * 4 * 1.2

    # Not retried: a plain 403, a 404, and creating a comment (the caller looks again first).
    fake.fail("PATCH", r"/comments/\d+$", 403)
    with pytest.raises(GitHubAPIError) as err:
        client.update_comment("o/r", 1, "x")
    assert err.value.status == 403 and not err.value.retryable
    fake.fail("POST", r"/comments$", 502)
    with pytest.raises(GitHubAPIError) as err:
        client.create_comment("o/r", 1, "x")
    assert err.value.retryable and len(fake.calls_to("POST", r"/comments$")) == 1
    assert all(c.auth == "Bearer t" for c in fake.calls)


def test_client_retries_network_errors_then_gives_up():
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}"
    sleeps: list[float] = []
    with pytest.raises(GitHubAPIError) as err:
        client_for(url, sleeps, attempts=3).add_label("o/r", 1, "x")
    assert err.value.retryable and err.value.status is None and len(sleeps) == 2


def test_backoff_doubles_from_the_first_delay_with_jitter_and_stays_under_the_cap():
    from bot.github.api import RetryPolicy

    policy = RetryPolicy(attempts=5, backoff_s=1.0, max_wait_s=60.0)
    for attempt, base in ((1, 1.0), (2, 2.0), (3, 4.0), (5, 16.0)):
        waits = {policy.backoff(attempt) for _ in range(50)}
        assert all(0.8 * base <= w <= 1.2 * base for w in waits) and len(waits) > 1   # jittered
    capped = [policy.backoff(12) for _ in range(50)]
    assert all(48.0 <= w <= 60.0 for w in capped) and len(set(capped)) > 1          # jittered at the cap too
