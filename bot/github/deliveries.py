"""Accepted webhook deliveries, persisted before we answer 202, so neither a restart nor a dead replica loses
accepted work, and the queue the replicas take their work from.

Rows live in the state store (kb.state: the KB folder's SQLite file, or PostgreSQL shared by several replicas).
The delivery id (X-GitHub-Delivery) is the primary key, which is also how a redelivered event is recognised.

Status: pending -> processing -> done | failed. A replica takes a due delivery with `claim`: in one transaction
it picks the oldest pending one (or one whose holder's lease ran out), locking the rows it looks at
(`FOR UPDATE SKIP LOCKED` in PostgreSQL, so another replica skips them rather than take them too), marks it
processing under its own name (`owner`) until `lease_until`, and commits. While it works, it renews the lease
(`renew`); a replica that died stops renewing, and once the lease has run out another replica takes the delivery
over. Deliveries about the same issue (`subject`) are never processed at once: two replicas would each find no
comment of ours and both post one. A transient failure puts the delivery back to pending with the time of its
next try (`next_at`); a delivery that cannot be read is stored as failed at once, with the reason. A redelivery of
a failed or pending delivery queues it again (from attempt 0).
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from kb.state import StateDB, Tx, as_state

# A delivery that keeps failing (or keeps killing the process) is given up after this many starts.
MAX_ATTEMPTS = 5
# How many due rows one claim looks at (and locks) before giving up for now.
_CLAIM_BATCH = 50

_SCHEMA = """
CREATE TABLE IF NOT EXISTS deliveries (
    id TEXT PRIMARY KEY,           -- X-GitHub-Delivery
    event TEXT NOT NULL,           -- X-GitHub-Event
    payload TEXT NOT NULL,         -- the JSON body as received
    status TEXT NOT NULL CHECK (status IN ('pending', 'processing', 'done', 'failed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    received_at {real} NOT NULL,
    updated_at {real} NOT NULL,
    result TEXT NOT NULL DEFAULT ''  -- one line: what was done, or why it failed
);
CREATE INDEX IF NOT EXISTS deliveries_status ON deliveries(status)
"""
# Added later; older state files get them in place.
_ADDED_COLUMNS = {
    "next_at": "{real} NOT NULL DEFAULT 0",      # a pending delivery is not tried before this time
    "subject": "TEXT NOT NULL DEFAULT ''",       # owner/name#number: one delivery per issue at a time
    "owner": "TEXT NOT NULL DEFAULT ''",         # the replica processing it (TRIAGE_REPLICA_ID)
    "lease_until": "{real} NOT NULL DEFAULT 0",  # while processing: the others keep off it until then
}

Accepted = Literal["accepted", "requeued", "duplicate"]


@dataclass
class Delivery:
    id: str
    event: str
    payload: object
    status: str
    attempts: int
    result: str = ""
    resumed_from: str | None = None   # claimed from a replica whose lease ran out (or from our own last life)


class DeliveryStore:
    def __init__(self, where: StateDB | Path):
        """`where`: a state store (kb.state.state_for), or a KB folder (its SQLite file)."""
        self.db = as_state(where)
        db = self.db

        def setup(tx: Tx) -> None:
            tx.script(db.schema(_SCHEMA))
            have = tx.columns("deliveries")
            for name, decl in _ADDED_COLUMNS.items():
                if name not in have:
                    tx.execute(f"ALTER TABLE deliveries ADD COLUMN {name} {db.schema(decl)}", None)
            tx.execute("CREATE INDEX IF NOT EXISTS deliveries_subject ON deliveries(subject, status)", None)

        db.ensure(setup)

    def accept(self, delivery_id: str, event: str, payload: str, subject: str = "") -> Accepted:
        """Store a new delivery as pending. A delivery id seen before is a redelivery: when that delivery failed
        or is still waiting for a retry, it is stored again (the new payload) and queued from attempt 0."""
        now = time.time()
        with self.db.transaction(write=True) as tx:
            cur = tx.execute(
                "INSERT INTO deliveries (id, event, payload, status, received_at, updated_at, subject)"
                " VALUES (?, ?, ?, 'pending', ?, ?, ?) ON CONFLICT (id) DO NOTHING",
                (delivery_id, event, payload, now, now, subject),
            )
            if cur.rowcount == 1:
                return "accepted"
            cur = tx.execute(
                "UPDATE deliveries SET event = ?, payload = ?, subject = ?, status = 'pending', attempts = 0,"
                " next_at = 0, updated_at = ?, result = 'redelivered' WHERE id = ? AND status IN ('failed', 'pending')",
                (event, payload, subject, now, delivery_id),
            )
            return "requeued" if cur.rowcount == 1 else "duplicate"

    def reject(self, delivery_id: str, event: str, payload: str, reason: str) -> None:
        """Keep a delivery that cannot be read as failed, with the reason (a done one is left as it is)."""
        now = time.time()
        with self.db.transaction(write=True) as tx:
            tx.execute(
                "INSERT INTO deliveries (id, event, payload, status, received_at, updated_at, result)"
                " VALUES (?, ?, ?, 'failed', ?, ?, ?) ON CONFLICT (id) DO UPDATE SET event = excluded.event,"
                " payload = excluded.payload, status = 'failed', updated_at = excluded.updated_at,"
                " result = excluded.result WHERE deliveries.status IN ('failed', 'pending')",
                (delivery_id, event, payload, now, now, reason[:500]),
            )

    def claim(self, owner: str, lease_s: float) -> Delivery | None:
        """Take the oldest due delivery for `owner` (one more attempt), held until now + `lease_s` unless renewed;
        None when nothing is due. Deliveries given up or unreadable on the way are marked failed."""
        now = time.time()
        with self.db.transaction(write=True) as tx:
            rows = tx.execute(
                "SELECT id, event, payload, status, attempts, result, subject, owner FROM deliveries"
                " WHERE (status = 'pending' AND next_at <= ?) OR (status = 'processing' AND lease_until <= ?)"
                f" ORDER BY received_at, id LIMIT {_CLAIM_BATCH}" + self.db.skip_locked,
                (now, now),
            ).fetchall()
            for delivery_id, event, raw, status, attempts, result, subject, holder in rows:
                if attempts >= MAX_ATTEMPTS:
                    _set(tx, delivery_id, "failed", f"given up after {attempts} attempts; last: {result}")
                    continue
                try:
                    payload = json.loads(raw)
                except (ValueError, RecursionError) as exc:
                    _set(tx, delivery_id, "failed", f"the stored payload cannot be read: {exc}")
                    continue
                if subject and not self._subject_free(tx, subject, delivery_id, now):
                    continue
                tx.execute("UPDATE deliveries SET status = 'processing', attempts = attempts + 1, owner = ?,"
                           " lease_until = ?, updated_at = ? WHERE id = ?",
                           (owner, now + lease_s, now, delivery_id))
                return Delivery(delivery_id, event, payload, "processing", attempts + 1, result,
                                resumed_from=(holder or "an earlier run") if status == "processing" else None)
        return None

    def _subject_free(self, tx: Tx, subject: str, delivery_id: str, now: float) -> bool:
        """No other delivery about this issue is being processed (and nobody else is claiming one right now)."""
        if not tx.try_lock("delivery-subject:" + subject):
            return False
        busy = tx.execute("SELECT 1 FROM deliveries WHERE subject = ? AND id <> ? AND status = 'processing'"
                          " AND lease_until > ? LIMIT 1", (subject, delivery_id, now)).fetchone()
        return busy is None

    def renew(self, delivery_id: str, owner: str, lease_s: float) -> bool:
        """Extend our lease on a delivery we are processing; False when it is no longer ours."""
        with self.db.transaction(write=True) as tx:
            cur = tx.execute("UPDATE deliveries SET lease_until = ? WHERE id = ? AND owner = ? AND status = 'processing'",
                             (time.time() + lease_s, delivery_id, owner))
            return cur.rowcount == 1

    def release(self, owner: str) -> list[str]:
        """At start: deliveries this replica was processing when it last stopped (it is not processing them any
        more) become due at once, rather than when their lease runs out."""
        with self.db.transaction(write=True) as tx:
            rows = tx.execute("SELECT id FROM deliveries WHERE status = 'processing' AND owner = ?" + self.db.skip_locked,
                              (owner,)).fetchall()
            for (delivery_id,) in rows:
                tx.execute("UPDATE deliveries SET lease_until = 0 WHERE id = ?", (delivery_id,))
        return [r[0] for r in rows]

    def finish(self, delivery_id: str, status: str, result: str, retry_in: float = 0.0, owner: str | None = None
               ) -> bool:
        """End an attempt: done, failed, or back to pending with `retry_in` seconds until its next try. With
        `owner`, only while that replica still holds the delivery (False when another one took it over)."""
        now = time.time()
        sql = ("UPDATE deliveries SET status = ?, result = ?, updated_at = ?, next_at = ?, lease_until = 0"
               " WHERE id = ?")
        args: tuple = (status, result[:500], now, now + retry_in if status == "pending" else 0.0, delivery_id)
        if owner is not None:
            sql += " AND owner = ? AND status = 'processing'"
            args += (owner,)
        with self.db.transaction(write=True) as tx:
            return tx.execute(sql, args).rowcount == 1

    def next_due_in(self) -> float | None:
        """Seconds until the next delivery falls due (a retry's time, a lease running out); None when none waits."""
        with self.db.transaction() as tx:
            row = tx.execute("SELECT MIN(CASE WHEN status = 'pending' THEN next_at ELSE lease_until END)"
                             " FROM deliveries WHERE status IN ('pending', 'processing')").fetchone()
        return None if row is None or row[0] is None else max(0.0, row[0] - time.time())

    def unfinished(self) -> list[tuple[str, float]]:
        """(id, seconds until it may be tried) of deliveries accepted but not finished, oldest first."""
        now = time.time()
        with self.db.transaction() as tx:
            rows = tx.execute("SELECT id, status, next_at, lease_until FROM deliveries"
                              " WHERE status IN ('pending', 'processing') ORDER BY received_at").fetchall()
        return [(r[0], max(0.0, (r[2] if r[1] == "pending" else r[3]) - now)) for r in rows]

    def get(self, delivery_id: str) -> tuple[str, int, str] | None:
        """(status, attempts, result) of a delivery."""
        with self.db.transaction() as tx:
            row = tx.execute("SELECT status, attempts, result FROM deliveries WHERE id = ?", (delivery_id,)).fetchone()
        return tuple(row) if row is not None else None

    def close(self) -> None:
        self.db.close()


def _set(tx: Tx, delivery_id: str, status: str, result: str) -> None:
    tx.execute("UPDATE deliveries SET status = ?, result = ?, updated_at = ?, lease_until = 0 WHERE id = ?",
               (status, result[:500], time.time(), delivery_id))
