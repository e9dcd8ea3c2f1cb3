"""`triage feedback list`: rows from the real SQLite store, as text and as JSON; an empty KB stays untouched."""
from __future__ import annotations

import json

from click.testing import CliRunner

from bot.cli import main
from kb.feedback import Feedback, FeedbackStore
from kb.state import STATE_FILE
from kb.traceback.signature import signature_ref


def _run(*args: str):
    return CliRunner().invoke(main, ["feedback", "list", *args], catch_exceptions=False)


def test_feedback_list_shows_slack_and_github_rows_newest_first(tmp_path):
    kb_dir = tmp_path / "kb"
    store = FeedbackStore(kb_dir)
    store.record(Feedback(source="github", user="octo", entry_id="nccl_shm", signature="DistBackendError: NCCL",
                          verdict="wrong", context={"repo": "acme/trainer", "issue": 7}))
    store.record(Feedback(source="slack", user="UALICE", entry_id="zero3_load", signature="RuntimeError: size",
                          verdict="fixed", context={"channel": "C1", "message_ts": "1.2", "user_name": "alice"}))
    store.close()

    out = _run("--kb", str(kb_dir), "--json")
    assert out.exit_code == 0
    rows = json.loads(out.output)
    assert [(r["source"], r["user"], r["entry_id"], r["verdict"]) for r in rows] == [
        ("slack", "UALICE", "zero3_load", "fixed"), ("github", "octo", "nccl_shm", "wrong")]
    assert rows[0]["context"] == {"channel": "C1", "message_ts": "1.2", "user_name": "alice"}
    assert rows[0]["created_at"] >= rows[1]["created_at"] > 0 and rows[0]["id"] > rows[1]["id"]

    text = _run("--kb", str(kb_dir)).output.splitlines()
    assert "slack" in text[0] and "fixed" in text[0] and "zero3_load" in text[0] and "channel C1" in text[0]
    assert text[1].strip() == "RuntimeError: size"
    assert "acme/trainer#7" in text[2] and "by octo" in text[2]
    assert len(json.loads(_run("--kb", str(kb_dir), "--json", "--limit", "1").output)) == 1


def test_feedback_list_of_a_kb_without_feedback_creates_nothing(tmp_path):
    kb_dir = tmp_path / "empty"
    kb_dir.mkdir()
    assert json.loads(_run("--kb", str(kb_dir), "--json").output) == []
    assert "No feedback recorded" in _run("--kb", str(kb_dir)).output
    assert not (kb_dir / STATE_FILE).exists()


def test_one_vote_per_person_entry_and_error_the_latest_counts(tmp_path):
    store = FeedbackStore(tmp_path / "kb")
    vote = dict(source="github", user="octo", entry_id="nccl_shm", signature="DistBackendError: NCCL",
                scope="github:acme/trainer", role="MEMBER", context={"repo": "acme/trainer", "issue": 7})
    first = store.record(Feedback(verdict="wrong", **vote))
    again = store.record(Feedback(verdict="wrong", **vote))
    assert again.id == first.id and len(store.list()) == 1
    assert store.rejected("DistBackendError: NCCL") == {"nccl_shm": "octo (github)"}
    store.record(Feedback(verdict="fixed", **vote))
    [row] = store.list()
    assert (row.id, row.verdict, row.role, row.scope) == (first.id, "fixed", "MEMBER", "github:acme/trainer")
    assert store.rejected("DistBackendError: NCCL") == {}
    # The same person on another entry, and another person on the same one, are votes of their own.
    store.record(Feedback(verdict="wrong", **{**vote, "entry_id": "zero3_load"}))
    store.record(Feedback(verdict="wrong", **{**vote, "user": "hubot"}))
    assert len(store.list()) == 3


def test_a_veto_counts_where_it_was_given_unless_configured_otherwise(tmp_path):
    store = FeedbackStore(tmp_path / "kb")
    store.record(Feedback(source="github", user="octo", entry_id="nccl_shm", signature="S", verdict="wrong",
                          scope="github:acme/a", role="MEMBER"))
    store.record(Feedback(source="slack", user="U1", entry_id="zero3_load", signature="S", verdict="wrong",
                          scope="slack:T1"))
    with store.answering_in("github:acme/a"):
        assert set(store.rejected("S")) == {"nccl_shm"}
    with store.answering_in("github:acme/b"):
        assert store.rejected("S") == {}
    with store.answering_in("slack:T1"):
        assert set(store.rejected("S")) == {"zero3_load"}
    assert set(store.rejected("S")) == {"nccl_shm", "zero3_load"}   # no scope (CLI, JSON API): every veto
    everywhere = FeedbackStore(tmp_path / "kb", scoped=False)
    with everywhere.answering_in("github:acme/b"):
        assert set(everywhere.rejected("S")) == {"nccl_shm", "zero3_load"}


def test_a_state_file_from_before_scopes_and_roles_is_migrated_in_place(tmp_path):
    import sqlite3

    kb_dir = tmp_path / "kb"
    kb_dir.mkdir()
    conn = sqlite3.connect(kb_dir / STATE_FILE)
    conn.executescript("""
        CREATE TABLE feedback (id INTEGER PRIMARY KEY AUTOINCREMENT, created_at REAL NOT NULL, source TEXT NOT NULL,
            user TEXT NOT NULL, entry_id TEXT NOT NULL, signature TEXT NOT NULL,
            verdict TEXT NOT NULL CHECK (verdict IN ('wrong', 'fixed')), context TEXT NOT NULL);
        CREATE INDEX feedback_sig ON feedback(signature);
        INSERT INTO feedback VALUES (1, 100.0, 'github', 'octo', 'nccl_shm', 'S', 'wrong',
                                     '{"repo": "Acme/Trainer", "issue": 7}');
        INSERT INTO feedback VALUES (2, 200.0, 'slack', 'U1', 'zero3_load', 'S', 'wrong',
                                     '{"team": "T1", "channel": "C1"}');
        INSERT INTO feedback VALUES (3, 300.0, 'slack', 'U1', 'zero3_load', 'S', 'fixed',
                                     '{"team": "T1", "channel": "C1"}');
    """)
    conn.close()

    store = FeedbackStore(kb_dir)
    rows = {r.id: r for r in store.list()}
    assert set(rows) == {1, 2, 3}     # nothing dropped
    assert rows[1].scope == "github:acme/trainer" and rows[1].updated_at == 100.0
    assert rows[2].scope == rows[3].scope == "slack:T1"
    assert rows[1].sig_ref == signature_ref("S") and rows[1].sig_version == ""   # given before versions were kept
    with store.answering_in("github:acme/trainer"):
        assert set(store.rejected("S")) == {"nccl_shm"}
    with store.answering_in("slack:T1"):
        assert store.rejected("S") == {}           # U1 took it back
    # A new vote by octo on the same entry and error replaces the old row.
    store.record(Feedback(source="github", user="octo", entry_id="nccl_shm", signature="S", verdict="fixed",
                          scope="github:acme/trainer", role="OWNER"))
    assert len(store.list()) == 3 and store.list()[0].id == 1 and store.list()[0].role == "OWNER"
    store.close()
    FeedbackStore(kb_dir).close()              # opening a migrated file again changes nothing
    out = _run("--kb", str(kb_dir)).output.splitlines()
    assert "by octo (OWNER)" in out[0] and "github:acme/trainer" in out[0]
