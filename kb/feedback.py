"""Feedback on answers ("wrong" / "fixed"), from GitHub `/triage` comments and Slack buttons, in one store.

One vote per person, entry and error: a person's later vote on the same (entry, report signature) replaces their
earlier one (the row is updated, not added to), so "fixed" after "wrong" takes the "wrong" back. The error is named
by `signature_ref` (a fixed-length digest of the signature key, kb.traceback), so a key shortened to fit somewhere (a
Slack button value) is never what a veto is matched on; each row also keeps the version of the signature rules it
was given under. Each vote carries
its scope (`github:owner/name`, `slack:<team id>`) and the voter's role (a GitHub author_association, or "issue
author"). A pair marked wrong is not proposed again for that signature: by default only where it was said (the
same repository or Slack workspace); a store opened with `scoped=False` lets every veto count everywhere.

Votes live in the state store (kb.state): the KB folder's SQLite file, or the PostgreSQL database that several
replicas share.
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

from kb.state import StateDB, Tx, as_state
from kb.traceback.signature import SIGNATURE_VERSION, signature_ref

Verdict = Literal["wrong", "fixed"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS feedback (
    id {id},
    created_at {real} NOT NULL,
    source TEXT NOT NULL,        -- "github", "slack", "cli"
    "user" TEXT NOT NULL,
    entry_id TEXT NOT NULL,
    signature TEXT NOT NULL,     -- the report's primary signature, as diagnose prints it (query.signature)
    verdict TEXT NOT NULL CHECK (verdict IN ('wrong', 'fixed')),
    context TEXT NOT NULL        -- JSON: where it was said (issue URL, channel and ts, ...)
)
"""

# Columns added after the first release: added to older state files in place (nothing is dropped).
_ADDED_COLUMNS = {
    "scope": "TEXT NOT NULL DEFAULT ''",       # github:owner/name, slack:<team>; '' when said nowhere in particular
    "role": "TEXT NOT NULL DEFAULT ''",        # why this person may vote (OWNER, MEMBER, ..., issue author)
    "updated_at": "{real} NOT NULL DEFAULT 0",   # when the vote last changed
    "sig_ref": "TEXT NOT NULL DEFAULT ''",     # signature_ref of the error: what votes are matched on
    "sig_version": "TEXT NOT NULL DEFAULT ''",   # SIGNATURE_VERSION when the vote was given
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
    sig_ref: str = ""           # signature_ref(signature) unless given (a Slack button carries it)
    sig_version: str = ""

    def as_dict(self) -> dict:
        return asdict(self)


def _migrate(db: StateDB):
    def setup(tx: Tx) -> None:
        tx.script(db.schema(_SCHEMA))
        have = tx.columns("feedback")
        for name, decl in _ADDED_COLUMNS.items():
            if name not in have:
                tx.execute(f"ALTER TABLE feedback ADD COLUMN {name} {db.schema(decl)}", None)
        if "scope" not in have:
            # Rows written before votes had a scope: where they were said is in their context.
            for row_id, source, context in tx.execute("SELECT id, source, context FROM feedback").fetchall():
                try:
                    ctx = json.loads(context)
                except ValueError:
                    ctx = {}
                tx.execute("UPDATE feedback SET scope = ? WHERE id = ?", (_scope_of(source, ctx), row_id))
        if "updated_at" not in have:
            tx.execute("UPDATE feedback SET updated_at = created_at")
        if "sig_ref" not in have:
            # Rows written before refs named their error by its key text: the ref of that text. (A key a Slack
            # button had cut gets the ref of the cut text, which never matched anything before either.) The
            # indexes on the key text served the old lookups.
            for row_id, sig in tx.execute("SELECT id, signature FROM feedback").fetchall():
                tx.execute("UPDATE feedback SET sig_ref = ? WHERE id = ?", (signature_ref(sig), row_id))
            tx.execute("DROP INDEX IF EXISTS feedback_vote", None)
            tx.execute("DROP INDEX IF EXISTS feedback_sig", None)
        tx.execute('CREATE INDEX IF NOT EXISTS feedback_vote_ref ON feedback(source, scope, "user", entry_id, sig_ref)',
                   None)
        tx.execute("CREATE INDEX IF NOT EXISTS feedback_ref ON feedback(sig_ref)", None)

    db.ensure(setup)


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
    def __init__(self, where: StateDB | Path | None, create: bool = True, scoped: bool = True):
        """`where`: a state store (kb.state.state_for), or a KB folder (its SQLite file). With create=False a KB
        folder without a state file reads as having no feedback (readers create nothing).

        `scoped`: a veto counts only for answers given in its own scope (see `answering_in`); False: everywhere.
        """
        self.db = as_state(where, create)
        self.scoped = scoped
        self._where = threading.local()
        if self.db is not None:
            _migrate(self.db)

    def close(self) -> None:
        if self.db is not None:
            self.db.close()

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
        if self.db is None:
            raise RuntimeError("this feedback store was opened read-only")
        if fb.verdict not in ("wrong", "fixed"):
            raise ValueError(f"unknown verdict {fb.verdict!r}")
        now = time.time()
        fb.created_at = fb.created_at or now
        fb.updated_at = now
        fb.sig_ref = fb.sig_ref or signature_ref(fb.signature)
        fb.sig_version = fb.sig_version or SIGNATURE_VERSION
        context = json.dumps(fb.context, ensure_ascii=False)
        vote = (fb.source, fb.scope, fb.user, fb.entry_id, fb.sig_ref)
        with self.db.transaction(write=True) as tx:
            # Look and write in one step, also across processes and replicas: in PostgreSQL two first votes of one
            # person could otherwise both insert, so the vote's name is locked for the transaction.
            tx.lock("feedback:" + json.dumps(vote))
            row = tx.execute(
                'SELECT id, created_at FROM feedback WHERE source = ? AND scope = ? AND "user" = ? AND entry_id = ?'
                " AND sig_ref = ? ORDER BY id DESC LIMIT 1", vote,
            ).fetchone()
            if row is not None:
                tx.execute("UPDATE feedback SET verdict = ?, context = ?, role = ?, updated_at = ?, sig_version = ?"
                           " WHERE id = ?", (fb.verdict, context, fb.role, fb.updated_at, fb.sig_version, row[0]))
                fb.id, fb.created_at = row[0], row[1]
            else:
                fb.id = tx.execute(
                    'INSERT INTO feedback (created_at, source, "user", entry_id, signature, verdict, context, scope,'
                    " role, updated_at, sig_ref, sig_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                    (fb.created_at, fb.source, fb.user, fb.entry_id, fb.signature, fb.verdict, context, fb.scope,
                     fb.role, fb.updated_at, fb.sig_ref, fb.sig_version),
                ).fetchone()[0]
        return fb

    def list(self, limit: int | None = None) -> list[Feedback]:
        """Votes, the most recently given or changed first."""
        if self.db is None:
            return []
        sql = ('SELECT id, created_at, source, "user", entry_id, signature, verdict, context, scope, role, updated_at,'
               " sig_ref, sig_version FROM feedback ORDER BY updated_at DESC, id DESC")
        with self.db.transaction() as tx:
            rows = tx.execute(sql + (" LIMIT ?" if limit else ""), (limit,) if limit else ()).fetchall()
        return [Feedback(id=r[0], created_at=r[1], source=r[2], user=r[3], entry_id=r[4], signature=r[5],
                         verdict=r[6], context=json.loads(r[7]), scope=r[8], role=r[9], updated_at=r[10],
                         sig_ref=r[11], sig_version=r[12])
                for r in rows]

    def rejected(self, signature: str) -> dict[str, str]:
        """Entries marked wrong for this signature (its key) and not taken back: entry_id -> who said so."""
        if self.db is None:
            return {}
        scope = getattr(self._where, "scope", None)
        sql = 'SELECT entry_id, "user", verdict, source, scope FROM feedback WHERE sig_ref = ?'
        args: tuple = (signature_ref(signature),)
        if self.scoped and scope is not None:
            sql += " AND scope = ?"
            args += (scope,)
        latest: dict[tuple[str, str, str, str], tuple[str, str]] = {}
        with self.db.transaction() as tx:
            rows = tx.execute(sql + " ORDER BY updated_at, id", args).fetchall()
        for entry_id, user, verdict, source, where in rows:
            latest[(entry_id, source, where, user)] = (verdict, f"{user} ({source})")
        out: dict[str, str] = {}
        for (entry_id, *_), (verdict, who) in latest.items():
            if verdict == "wrong":
                out.setdefault(entry_id, who)
        return out

