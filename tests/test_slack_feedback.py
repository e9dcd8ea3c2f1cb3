"""`triage feedback list`: rows from the real SQLite store, as text and as JSON; an empty KB stays untouched."""
from __future__ import annotations

import json

from click.testing import CliRunner

from bot.cli import main
from kb.feedback import Feedback, FeedbackStore
from kb.state import STATE_FILE


def _run(*args: str):
    return CliRunner().invoke(main, ["feedback", "list", *args], catch_exceptions=False)


def test_feedback_list_shows_slack_and_github_rows_newest_first(tmp_path):
    kb_dir = tmp_path / "kb"
    store = FeedbackStore(kb_dir)
    store.record(Feedback(source="github", user="octo", entry_id="nccl_shm", signature="DistBackendError: NCCL",
                          verdict="wrong", context={"repo": "acme/trainer", "issue": 7}))
    store.record(Feedback(source="slack", user="UALICE", entry_id="zero3_load", signature="RuntimeError: size",
                          verdict="fixed", context={"channel": "C1", "message_ts": "1.2", "user_name": "alice"}))
    store.conn.close()

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
