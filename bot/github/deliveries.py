"""Accepted webhook deliveries, persisted before we answer 202, so a restart never loses accepted work.

Rows live in the KB's state file (kb/state.py). The delivery id (X-GitHub-Delivery) is the primary key, which is
also how a redelivered event is recognised. Status: pending -> processing -> done | failed; a transient failure
puts it back to pending with the time of its next try (`next_at`); a delivery that cannot be read is stored as
failed at once, with the reason. A redelivery of a failed or pending delivery queues it again (from attempt 0).
"""
from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from kb import state

# A delivery that keeps failing (or keeps killing the process) is given up after this many starts.
MAX_ATTEMPTS = 5

_SCHEMA = """
CREATE TABLE IF NOT EXISTS deliveries (
    id TEXT PRIMARY KEY,           -- X-GitHub-Delivery
    event TEXT NOT NULL,           -- X-GitHub-Event
    payload TEXT NOT NULL,         -- the JSON body as received
    status TEXT NOT NULL CHECK (status IN ('pending', 'processing', 'done', 'failed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    received_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    result TEXT NOT NULL DEFAULT ''  -- one line: what was done, or why it failed
);
CREATE INDEX IF NOT EXISTS deliveries_status ON deliveries(status);
"""
# Added later; older state files get it in place.
_NEXT_AT = "next_at REAL NOT NULL DEFAULT 0"   # a pending delivery is not tried before this time

Accepted = Literal["accepted", "requeued", "duplicate"]


@dataclass
class Delivery:
    id: str
    event: str
    payload: object
    status: str
    attempts: int
    result: str = ""


class DeliveryStore:
    def __init__(self, kb_dir: Path):
        self.conn = state.connect(kb_dir)
        self.conn.executescript(_SCHEMA)
        if "next_at" not in {row[1] for row in self.conn.execute("PRAGMA table_info(deliveries)")}:
            with self.conn:
                self.conn.execute(f"ALTER TABLE deliveries ADD COLUMN {_NEXT_AT}")
        self._lock = threading.Lock()  # one connection shared by the request thread pool and the worker

    def accept(self, delivery_id: str, event: str, payload: str) -> Accepted:
        """Store a new delivery as pending. A delivery id seen before is a redelivery: when that delivery failed
        or is still waiting for a retry, it is stored again (the new payload) and queued from attempt 0."""
        now = time.time()
        with self._lock, self.conn:
            cur = self.conn.execute(
                "INSERT OR IGNORE INTO deliveries (id, event, payload, status, received_at, updated_at)"
                " VALUES (?, ?, ?, 'pending', ?, ?)",
                (delivery_id, event, payload, now, now),
            )
            if cur.rowcount == 1:
                return "accepted"
            cur = self.conn.execute(
                "UPDATE deliveries SET event = ?, payload = ?, status = 'pending', attempts = 0, next_at = 0,"
                " updated_at = ?, result = 'redelivered' WHERE id = ? AND status IN ('failed', 'pending')",
                (event, payload, now, delivery_id),
            )
        return "requeued" if cur.rowcount == 1 else "duplicate"

    def reject(self, delivery_id: str, event: str, payload: str, reason: str) -> None:
        """Keep a delivery that cannot be read as failed, with the reason (a done one is left as it is)."""
        now = time.time()
        with self._lock, self.conn:
            self.conn.execute(
                "INSERT INTO deliveries (id, event, payload, status, received_at, updated_at, result)"
                " VALUES (?, ?, ?, 'failed', ?, ?, ?) ON CONFLICT(id) DO UPDATE SET event = excluded.event,"
                " payload = excluded.payload, status = 'failed', updated_at = excluded.updated_at,"
                " result = excluded.result WHERE status IN ('failed', 'pending')",
                (delivery_id, event, payload, now, now, reason[:500]),
            )

    def start(self, delivery_id: str) -> Delivery | None:
        """Mark a delivery as being processed (one more attempt); None when it is finished or given up."""
        with self._lock, self.conn:
            row = self.conn.execute(
                "SELECT id, event, payload, status, attempts, result FROM deliveries WHERE id = ?", (delivery_id,)
            ).fetchone()
            if row is None or row[3] in ("done", "failed"):
                return None
            if row[4] >= MAX_ATTEMPTS:
                self._set(delivery_id, "failed", f"given up after {row[4]} attempts; last: {row[5]}")
                return None
            try:
                payload = json.loads(row[2])
            except (ValueError, RecursionError) as exc:
                self._set(delivery_id, "failed", f"the stored payload cannot be read: {exc}")
                return None
            self.conn.execute("UPDATE deliveries SET status = 'processing', attempts = attempts + 1, updated_at = ?"
                              " WHERE id = ?", (time.time(), delivery_id))
        return Delivery(row[0], row[1], payload, "processing", row[4] + 1, row[5])

    def finish(self, delivery_id: str, status: str, result: str, retry_in: float = 0.0) -> None:
        """`retry_in`: for a delivery put back to pending, how long until it may be tried again."""
        with self._lock, self.conn:
            self._set(delivery_id, status, result)
            if status == "pending":
                self.conn.execute("UPDATE deliveries SET next_at = ? WHERE id = ?",
                                  (time.time() + retry_in, delivery_id))

    def unfinished(self) -> list[tuple[str, float]]:
        """(id, seconds until it may be tried) of deliveries accepted but not finished, oldest first."""
        now = time.time()
        with self._lock:
            rows = self.conn.execute("SELECT id, next_at FROM deliveries WHERE status IN ('pending', 'processing')"
                                     " ORDER BY received_at").fetchall()
        return [(r[0], max(0.0, r[1] - now)) for r in rows]

    def get(self, delivery_id: str) -> tuple[str, int, str] | None:
        """(status, attempts, result) of a delivery."""
        with self._lock:
            return self.conn.execute("SELECT status, attempts, result FROM deliveries WHERE id = ?",
                                     (delivery_id,)).fetchone()

    def close(self) -> None:
        self.conn.close()

    def _set(self, delivery_id: str, status: str, result: str) -> None:
        self.conn.execute("UPDATE deliveries SET status = ?, result = ?, updated_at = ? WHERE id = ?",
                          (status, result[:500], time.time(), delivery_id))
