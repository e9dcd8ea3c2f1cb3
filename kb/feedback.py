"""Feedback on answers ("wrong" / "fixed"), from GitHub `/triage` comments and Slack buttons, in one store.

A pair (report signature, entry) marked wrong is not proposed again for that signature; a later "fixed" vote on
the same pair by the same person takes the "wrong" back.
"""
from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Literal

from kb import state

Verdict = Literal["wrong", "fixed"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS feedback (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at REAL NOT NULL,
    source TEXT NOT NULL,        -- "github", "slack", "cli"
    user TEXT NOT NULL,
    entry_id TEXT NOT NULL,
    signature TEXT NOT NULL,     -- the report's primary signature, as diagnose prints it (query.signature)
    verdict TEXT NOT NULL CHECK (verdict IN ('wrong', 'fixed')),
    context TEXT NOT NULL        -- JSON: where it was said (issue URL, channel and ts, ...)
);
CREATE INDEX IF NOT EXISTS feedback_sig ON feedback(signature);
"""


@dataclass
class Feedback:
    source: str
    user: str
    entry_id: str
    signature: str
    verdict: Verdict
    context: dict = field(default_factory=dict)
    created_at: float = 0.0
    id: int | None = None

    def as_dict(self) -> dict:
        return asdict(self)


class FeedbackStore:
    def __init__(self, kb_dir: Path, create: bool = True):
        """With create=False a KB without a state file reads as having no feedback (readers create nothing)."""
        self.conn = None
        if create or (kb_dir / state.STATE_FILE).exists():
            self.conn = state.connect(kb_dir)
            self.conn.executescript(_SCHEMA)

    def record(self, fb: Feedback) -> Feedback:
        if self.conn is None:
            raise RuntimeError("this feedback store was opened read-only")
        if fb.verdict not in ("wrong", "fixed"):
            raise ValueError(f"unknown verdict {fb.verdict!r}")
        fb.created_at = fb.created_at or time.time()
        with self.conn:
            cur = self.conn.execute(
                "INSERT INTO feedback (created_at, source, user, entry_id, signature, verdict, context)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (fb.created_at, fb.source, fb.user, fb.entry_id, fb.signature, fb.verdict,
                 json.dumps(fb.context, ensure_ascii=False)),
            )
        fb.id = cur.lastrowid
        return fb

    def list(self, limit: int | None = None) -> list[Feedback]:
        if self.conn is None:
            return []
        sql = "SELECT id, created_at, source, user, entry_id, signature, verdict, context FROM feedback ORDER BY id DESC"
        rows = self.conn.execute(sql + (" LIMIT ?" if limit else ""), (limit,) if limit else ()).fetchall()
        return [Feedback(id=r[0], created_at=r[1], source=r[2], user=r[3], entry_id=r[4], signature=r[5],
                         verdict=r[6], context=json.loads(r[7])) for r in rows]

    def rejected(self, signature: str) -> dict[str, str]:
        """Entries marked wrong for this signature and not taken back: entry_id -> who said so."""
        if self.conn is None:
            return {}
        latest: dict[tuple[str, str], tuple[str, str]] = {}
        for entry_id, user, verdict, source in self.conn.execute(
            "SELECT entry_id, user, verdict, source FROM feedback WHERE signature = ? ORDER BY id", (signature,)
        ):
            latest[(entry_id, user)] = (verdict, f"{user} ({source})")
        out: dict[str, str] = {}
        for (entry_id, _), (verdict, who) in latest.items():
            if verdict == "wrong":
                out[entry_id] = who
        return out
