"""Feedback on answers ("wrong" / "fixed"), from GitHub `/triage` comments and Slack buttons, in one store.

One vote per person, entry and error: a person's later vote on the same (entry, report signature) replaces their
earlier one (the row is updated, not added to), so "fixed" after "wrong" takes the "wrong" back. Each vote carries
its scope (`github:owner/name`, `slack:<team id>`) and the voter's role (a GitHub author_association, or "issue
author"). A pair marked wrong is not proposed again for that signature: by default only where it was said (the
same repository or Slack workspace); a store opened with `scoped=False` lets every veto count everywhere.
"""
from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
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

# Columns added after the first release: added to older state files in place (nothing is dropped).
_ADDED_COLUMNS = {
    "scope": "TEXT NOT NULL DEFAULT ''",       # github:owner/name, slack:<team>; '' when said nowhere in particular
    "role": "TEXT NOT NULL DEFAULT ''",        # why this person may vote (OWNER, MEMBER, ..., issue author)
    "updated_at": "REAL NOT NULL DEFAULT 0",   # when the vote last changed
}


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
    scope: str = ""
    role: str = ""
    updated_at: float = 0.0

    def as_dict(self) -> dict:
        return asdict(self)


def _migrate(conn) -> None:
    conn.executescript(_SCHEMA)
    have = {row[1] for row in conn.execute("PRAGMA table_info(feedback)")}
    with conn:
        for name, decl in _ADDED_COLUMNS.items():
            if name not in have:
                conn.execute(f"ALTER TABLE feedback ADD COLUMN {name} {decl}")
        if "scope" not in have:
            # Rows written before votes had a scope: where they were said is in their context.
            for row_id, source, context in conn.execute("SELECT id, source, context FROM feedback").fetchall():
                try:
                    ctx = json.loads(context)
                except ValueError:
                    ctx = {}
                conn.execute("UPDATE feedback SET scope = ? WHERE id = ?", (_scope_of(source, ctx), row_id))
        if "updated_at" not in have:
            conn.execute("UPDATE feedback SET updated_at = created_at")
        conn.execute("CREATE INDEX IF NOT EXISTS feedback_vote ON feedback(source, scope, user, entry_id, signature)")


def _scope_of(source: str, ctx: dict) -> str:
    if not isinstance(ctx, dict):
        return ""
    if source == "github" and isinstance(ctx.get("repo"), str):
        return github_scope(ctx["repo"])
    if source == "slack" and isinstance(ctx.get("team"), str):
        return slack_scope(ctx["team"])
    return ""


def github_scope(repo: str) -> str:
    return f"github:{repo.lower()}"   # repository names are case-insensitive on GitHub


def slack_scope(team_id: str) -> str:
    return f"slack:{team_id}"


class FeedbackStore:
    def __init__(self, kb_dir: Path, create: bool = True, scoped: bool = True):
        """With create=False a KB without a state file reads as having no feedback (readers create nothing).

        `scoped`: a veto counts only for answers given in its own scope (see `answering_in`); False: everywhere.
        """
        self.conn = None
        self.scoped = scoped
        self._where = threading.local()
        if create or (kb_dir / state.STATE_FILE).exists():
            self.conn = state.connect(kb_dir)
            _migrate(self.conn)

    @contextmanager
    def answering_in(self, scope: str | None) -> Iterator[None]:
        """Diagnoses in this block are answers given in `scope` (a repository, a Slack workspace): in a scoped
        store only that scope's vetoes apply to them. Outside any block (the CLI, the JSON API) every veto does."""
        before = getattr(self._where, "scope", None)
        self._where.scope = scope
        try:
            yield
        finally:
            self._where.scope = before

    def record(self, fb: Feedback) -> Feedback:
        """Store a vote; the same person's earlier vote on the same entry and error (in the same scope) is
        replaced, so each person has one vote there and the latest counts."""
        if self.conn is None:
            raise RuntimeError("this feedback store was opened read-only")
        if fb.verdict not in ("wrong", "fixed"):
            raise ValueError(f"unknown verdict {fb.verdict!r}")
        now = time.time()
        fb.created_at = fb.created_at or now
        fb.updated_at = now
        context = json.dumps(fb.context, ensure_ascii=False)
        with self.conn:
            self.conn.execute("BEGIN IMMEDIATE")   # look and write in one step, also across processes
            row = self.conn.execute(
                "SELECT id, created_at FROM feedback WHERE source = ? AND scope = ? AND user = ? AND entry_id = ?"
                " AND signature = ? ORDER BY id DESC LIMIT 1",
                (fb.source, fb.scope, fb.user, fb.entry_id, fb.signature),
            ).fetchone()
            if row is not None:
                self.conn.execute("UPDATE feedback SET verdict = ?, context = ?, role = ?, updated_at = ? WHERE id = ?",
                                  (fb.verdict, context, fb.role, fb.updated_at, row[0]))
                fb.id, fb.created_at = row[0], row[1]
            else:
                cur = self.conn.execute(
                    "INSERT INTO feedback (created_at, source, user, entry_id, signature, verdict, context, scope,"
                    " role, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (fb.created_at, fb.source, fb.user, fb.entry_id, fb.signature, fb.verdict, context, fb.scope,
                     fb.role, fb.updated_at),
                )
                fb.id = cur.lastrowid
        return fb

    def list(self, limit: int | None = None) -> list[Feedback]:
        """Votes, the most recently given or changed first."""
        if self.conn is None:
            return []
        sql = ("SELECT id, created_at, source, user, entry_id, signature, verdict, context, scope, role, updated_at"
               " FROM feedback ORDER BY updated_at DESC, id DESC")
        rows = self.conn.execute(sql + (" LIMIT ?" if limit else ""), (limit,) if limit else ()).fetchall()
        return [Feedback(id=r[0], created_at=r[1], source=r[2], user=r[3], entry_id=r[4], signature=r[5],
                         verdict=r[6], context=json.loads(r[7]), scope=r[8], role=r[9], updated_at=r[10])
                for r in rows]

    def rejected(self, signature: str) -> dict[str, str]:
        """Entries marked wrong for this signature and not taken back: entry_id -> who said so."""
        if self.conn is None:
            return {}
        scope = getattr(self._where, "scope", None)
        sql = "SELECT entry_id, user, verdict, source, scope FROM feedback WHERE signature = ?"
        args: tuple = (signature,)
        if self.scoped and scope is not None:
            sql += " AND scope = ?"
            args += (scope,)
        latest: dict[tuple[str, str, str, str], tuple[str, str]] = {}
        for entry_id, user, verdict, source, where in self.conn.execute(sql + " ORDER BY updated_at, id", args):
            latest[(entry_id, source, where, user)] = (verdict, f"{user} ({source})")
        out: dict[str, str] = {}
        for (entry_id, *_), (verdict, who) in latest.items():
            if verdict == "wrong":
                out.setdefault(entry_id, who)
        return out
