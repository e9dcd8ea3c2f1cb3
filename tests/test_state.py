"""The state store (kb.state): feedback, repro results and webhook deliveries behave the same on both backends,
SQLite in the KB folder and a real PostgreSQL server on 127.0.0.1; deliveries are claimed exactly once by
concurrent claimers, never two of one issue at once; a lease that runs out is taken over; failures are one line."""
from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections import Counter

import pytest
from click.testing import CliRunner

from bot.cli import main
from bot.github.deliveries import MAX_ATTEMPTS, DeliveryStore
from kb.feedback import Feedback, FeedbackStore
from kb.repro.results import ReproResult, ResultStore
from kb.state import STATE_FILE, StateError, open_state


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request, tmp_path):
    """A function that opens the same fresh state store again (a new connection each call)."""
    if request.param == "sqlite":
        kb_dir = tmp_path / "kb"
        return lambda: open_state(kb_dir)
    url = request.getfixturevalue("postgres").new_database()
    return lambda: open_state(tmp_path, url)


def payload(n: int) -> str:
    return json.dumps({"n": n})


def test_feedback_one_vote_per_person_and_scoped_vetoes(backend):
    store = FeedbackStore(backend())
    vote = dict(source="github", user="octo", entry_id="nccl_shm", signature="DistBackendError: NCCL",
                scope="github:acme/a", role="MEMBER", context={"repo": "acme/a", "issue": 7, "note": "100% ?"})
    first = store.record(Feedback(verdict="wrong", **vote))
    again = store.record(Feedback(verdict="wrong", **vote))
    assert again.id == first.id and len(store.list()) == 1
    store.record(Feedback(verdict="wrong", **{**vote, "user": "hubot", "scope": "github:acme/b"}))
    with store.answering_in("github:acme/a"):
        assert store.rejected("DistBackendError: NCCL") == {"nccl_shm": "octo (github)"}
    store.record(Feedback(verdict="fixed", **vote))
    with store.answering_in("github:acme/a"):
        assert store.rejected("DistBackendError: NCCL") == {}
    assert store.rejected("DistBackendError: NCCL") == {"nccl_shm": "hubot (github)"}
    [latest, _] = store.list()
    assert (latest.user, latest.verdict, latest.context["note"]) == ("octo", "fixed", "100% ?")
    # Another connection (another replica) sees the same votes.
    assert [f.id for f in FeedbackStore(backend()).list()] == [f.id for f in store.list()]
    store.close()


def test_repro_results_keep_their_values(backend):
    store = ResultStore(backend())
    at = 1_700_000_000.123456
    for status, when in (("fix_failed", at), ("fix_verified", at + 1)):
        store.record(ReproResult(recipe_id="r1", entry_id="e1", kind="cpu-mechanism", fix=True, status=status,
                                 reason="ok", duration_s=1.25, similarity=0.875, created_at=when,
                                 environment={"python": "3.11", "torch": "2.3", "cuda": None, "device": "cpu"}))
    rows = ResultStore(backend()).list()
    assert [r.status for r in rows] == ["fix_verified", "fix_failed"]
    assert rows[0].created_at == at + 1 and rows[0].similarity == 0.875 and rows[0].fix is True
    assert rows[0].environment == {"python": "3.11", "torch": "2.3", "cuda": None, "device": "cpu"}
    assert store.verified_fix("e1").id == rows[0].id
    store.close()


def test_a_delivery_from_acceptance_to_done(backend):
    store = DeliveryStore(backend())
    assert store.accept("d1", "issues", payload(1), "acme/a#1") == "accepted"
    assert store.accept("d1", "issues", payload(1), "acme/a#1") == "requeued"      # still pending
    got = store.claim("a", lease_s=30)
    assert (got.id, got.payload, got.attempts, got.resumed_from) == ("d1", {"n": 1}, 1, None)
    assert store.accept("d1", "issues", payload(1), "acme/a#1") == "duplicate"     # being processed
    assert store.claim("b", lease_s=30) is None
    # A transient failure: back to pending, not due before its time.
    assert store.finish("d1", "pending", "502", retry_in=0.3, owner="a")
    assert store.claim("b", lease_s=30) is None and 0 < store.next_due_in() <= 0.3
    time.sleep(0.35)
    got = store.claim("b", lease_s=30)
    assert (got.id, got.attempts) == ("d1", 2)
    assert not store.finish("d1", "done", "by a?", owner="a")                       # not a's any more
    assert store.finish("d1", "done", "answered", owner="b")
    assert store.get("d1") == ("done", 2, "answered")
    assert store.accept("d1", "issues", payload(1), "acme/a#1") == "duplicate"
    # Unreadable ones fail at once, with the reason; a redelivery of a failed one is queued again.
    store.reject("d2", "issues", "{", "cannot be read: not JSON")
    assert store.get("d2") == ("failed", 0, "cannot be read: not JSON")
    assert store.accept("d2", "issues", payload(2), "acme/a#2") == "requeued"
    assert store.claim("a", lease_s=30).id == "d2"
    store.close()


def test_deliveries_that_keep_failing_are_given_up(backend):
    store = DeliveryStore(backend())
    store.accept("d1", "issues", payload(1), "acme/a#1")
    for attempt in range(1, MAX_ATTEMPTS + 1):
        got = store.claim("a", lease_s=30)
        assert got.attempts == attempt
        store.finish("d1", "pending", f"502 #{attempt}", owner="a")
    assert store.claim("a", lease_s=30) is None
    status, attempts, result = store.get("d1")
    assert (status, attempts) == ("failed", MAX_ATTEMPTS) and result.startswith("given up after 5 attempts")
    store.close()


def test_a_lease_that_runs_out_is_taken_over_and_a_restarted_replica_takes_its_own_back(backend):
    a, b = DeliveryStore(backend()), DeliveryStore(backend())
    a.accept("d1", "issues", payload(1), "acme/a#1")
    a.accept("d2", "issues", payload(2), "acme/a#2")
    assert a.claim("a", lease_s=0.4).id == "d1"
    assert b.claim("b", lease_s=30).id == "d2"
    assert b.claim("b", lease_s=30) is None          # d1 is a's while its lease runs
    assert a.renew("d1", "a", lease_s=0.4)
    time.sleep(0.5)                                  # a stopped renewing: it died
    got = b.claim("b", lease_s=30)
    assert (got.id, got.attempts, got.resumed_from) == ("d1", 2, "a")
    assert not a.renew("d1", "a", lease_s=30)
    # b restarts (same replica name) while holding d2: it takes d2 back at once, not after 30 s.
    assert sorted(b.release("b")) == ["d1", "d2"]
    assert {b.claim("b", lease_s=30).id, b.claim("b", lease_s=30).id} == {"d1", "d2"}
    a.close()
    b.close()


def test_concurrent_claimers_take_each_delivery_once_and_one_per_issue_at_a_time(backend):
    setup = DeliveryStore(backend())
    ids = [f"d{i:03d}" for i in range(120)]
    for i, delivery_id in enumerate(ids):
        setup.accept(delivery_id, "issues", payload(i), f"acme/a#{i % 15}")
    claimed: list[tuple[str, str]] = []
    active: set[str] = set()
    overlaps: list[str] = []
    lock = threading.Lock()
    errors: list[BaseException] = []

    def claimer(name: str) -> None:
        store = DeliveryStore(backend())
        try:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                got = store.claim(name, lease_s=30)
                if got is None:
                    if store.next_due_in() is None:
                        return
                    time.sleep(0.005)
                    continue
                subject = f"acme/a#{got.payload['n'] % 15}"
                with lock:
                    claimed.append((got.id, name))
                    if subject in active:
                        overlaps.append(subject)
                    active.add(subject)
                time.sleep(0.002)
                with lock:
                    active.discard(subject)
                assert store.finish(got.id, "done", "ok", owner=name)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            store.close()

    threads = [threading.Thread(target=claimer, args=(f"r{i}",)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    counts = Counter(delivery_id for delivery_id, _ in claimed)
    assert sorted(counts) == ids and set(counts.values()) == {1}
    assert overlaps == []
    assert len({name for _, name in claimed}) > 1          # the work was shared
    assert all(setup.get(d)[0] == "done" for d in ids)
    setup.close()


def test_a_state_file_from_before_leases_is_read_and_its_deliveries_resumed(tmp_path):
    kb_dir = tmp_path / "kb"
    kb_dir.mkdir()
    conn = sqlite3.connect(kb_dir / STATE_FILE)
    conn.executescript("""
        CREATE TABLE deliveries (id TEXT PRIMARY KEY, event TEXT NOT NULL, payload TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('pending', 'processing', 'done', 'failed')),
            attempts INTEGER NOT NULL DEFAULT 0, received_at REAL NOT NULL, updated_at REAL NOT NULL,
            result TEXT NOT NULL DEFAULT '');
        INSERT INTO deliveries VALUES ('old-done', 'issues', '{}', 'done', 1, 1.0, 1.0, 'answered');
        INSERT INTO deliveries VALUES ('old-busy', 'issues', '{"n": 1}', 'processing', 1, 2.0, 2.0, '');
    """)
    conn.close()
    store = DeliveryStore(kb_dir)
    assert store.get("old-done") == ("done", 1, "answered")
    got = store.claim("a", lease_s=30)
    assert (got.id, got.attempts, got.payload) == ("old-busy", 2, {"n": 1})
    store.close()


# --- PostgreSQL only ---------------------------------------------------------------------------------------------

def test_bad_database_urls_and_a_database_that_is_down_say_so_in_one_line(postgres, tmp_path):
    from tests.service_support import free_port

    cases = {
        "mysql://triage@127.0.0.1/db": "TRIAGE_DATABASE_URL must be a postgresql:// URL",
        f"postgresql://triage:hunter2@127.0.0.1:{free_port()}/db": "cannot be reached",
        "postgresql://triage@127.0.0.1:notaport/db": "cannot be reached",
    }
    for url, says in cases.items():
        with pytest.raises(StateError) as err:
            open_state(tmp_path, url)
        message = err.value.user_message
        assert says in message and "\n" not in message and "hunter2" not in message, message
    # The same through the CLI: one line on stderr, exit code 1.
    result = CliRunner().invoke(main, ["feedback", "list", "--kb", str(tmp_path)],
                                env={"TRIAGE_DATABASE_URL": f"postgresql://triage:hunter2@127.0.0.1:{free_port()}/x"})
    assert result.exit_code == 1
    [line] = result.output.strip().splitlines()
    assert line.startswith("error: the state database postgresql://triage:***@127.0.0.1:") and "hunter2" not in line


def test_the_store_survives_a_database_restart(postgres, tmp_path):
    store = DeliveryStore(open_state(tmp_path, postgres.new_database()))
    store.accept("d1", "issues", payload(1), "acme/a#1")
    postgres.stop()
    try:
        with pytest.raises(StateError) as err:
            store.get("d1")
        assert "cannot be reached" in err.value.user_message and "\n" not in err.value.user_message
    finally:
        postgres.restart()
    # The broken connection is replaced on the next use: nothing to reopen by hand.
    assert store.get("d1") == ("pending", 0, "")
    assert store.claim("a", lease_s=30).id == "d1"
    store.close()


def test_a_slack_request_handled_by_one_replica_is_refused_by_another(backend):
    from bot.slack.surface import SeenRequests

    one, two = SeenRequests(db=backend()), SeenRequests(db=backend())     # two replicas, one store
    assert one.first_time("command:1234.abc")
    assert not two.first_time("command:1234.abc")       # replayed to the other replica
    assert not one.first_time("command:1234.abc")
    assert two.first_time("event:Ev42")
    # once a key is older than a replay can be (Slack refuses requests older than 5 minutes), it is forgotten
    short = SeenRequests(keep_s=0.2, db=backend())
    assert short.first_time("action:1700.5:UEVE")
    time.sleep(0.3)
    assert SeenRequests(keep_s=0.2, db=backend()).first_time("action:1700.5:UEVE")


def test_a_slack_replay_check_whose_store_went_away_falls_back_to_memory(tmp_path, caplog):
    from bot.slack.surface import SeenRequests

    db = open_state(tmp_path / "kb")
    seen = SeenRequests(db=db)
    db.close()                                   # the store is gone (a closed connection, a database down)
    assert seen.first_time("command:1.a")        # answered, not a 500
    assert not seen.first_time("command:1.a")    # and this replica still refuses the replay
    assert "fell back to this replica's memory" in caplog.text
