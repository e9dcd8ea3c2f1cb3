"""Accepted webhook deliveries, persisted before we answer 202, so a restart never loses accepted work.

Rows live in the KB's state file (kb/state.py). The delivery id (X-GitHub-Delivery) is the primary key, which is
also how a redelivered event is recognised. Status: pending -> processing -> done | failed.
"""
from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from pathlib import Path

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


@dataclass
class Delivery:
    id: str
    event: str
    payload: dict
    status: str
    attempts: int
    result: str = ""


class DeliveryStore:
    def __init__(self, kb_dir: Path):
        self.conn = state.connect(kb_dir)
        self.conn.executescript(_SCHEMA)
        self._lock = threading.Lock()  # one connection shared by the request thread pool and the worker

    def accept(self, delivery_id: str, event: str, body: bytes) -> bool:
        """Store a new delivery as pending; False when this id was seen before."""
        now = time.time()
        with self._lock, self.conn:
            cur = self.conn.execute(
                "INSERT OR IGNORE INTO deliveries (id, event, payload, status, received_at, updated_at)"
                " VALUES (?, ?, ?, 'pending', ?, ?)",
                (delivery_id, event, body.decode("utf-8"), now, now),
            )
        return cur.rowcount == 1

    def start(self, delivery_id: str) -> Delivery | None:
        """Mark a delivery as being processed (one more attempt); None when it is finished or given up."""
        with self._lock, self.conn:
            row = self.conn.execute(
                "SELECT id, event, payload, status, attempts, result FROM deliveries WHERE id = ?", (delivery_id,)
            ).fetchone()
            if row is None or row[3] in ("done", "failed"):
                return None
            if row[4] >= MAX_ATTEMPTS:
                self._set(delivery_id, "failed", f"given up after {row[4]} attempts")
                return None
            self.conn.execute("UPDATE deliveries SET status = 'processing', attempts = attempts + 1, updated_at = ?"
                              " WHERE id = ?", (time.time(), delivery_id))
        return Delivery(row[0], row[1], json.loads(row[2]), "processing", row[4] + 1, row[5])

    def finish(self, delivery_id: str, status: str, result: str) -> None:
        with self._lock, self.conn:
            self._set(delivery_id, status, result)

    def unfinished(self) -> list[str]:
        """Ids accepted but not finished (the process stopped first), oldest first."""
        with self._lock:
            rows = self.conn.execute("SELECT id FROM deliveries WHERE status IN ('pending', 'processing')"
                                     " ORDER BY received_at").fetchall()
        return [r[0] for r in rows]

    def close(self) -> None:
        self.conn.close()

    def _set(self, delivery_id: str, status: str, result: str) -> None:
        self.conn.execute("UPDATE deliveries SET status = ?, result = ?, updated_at = ? WHERE id = ?",
                          (status, result[:500], time.time(), delivery_id))

