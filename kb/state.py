"""Mutable state of a knowledge base (feedback, repro results) in one SQLite file beside the index generations.

Index generations are immutable and replaced whole on every build; what people and the repro-runner record must
outlive rebuilds, so it lives in its own file in the KB folder. WAL lets a server's readers and writers overlap.
"""
from __future__ import annotations

import sqlite3
from pathlib import Path

STATE_FILE = "state.sqlite"


def connect(kb_dir: Path) -> sqlite3.Connection:
    kb_dir.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(kb_dir / STATE_FILE, timeout=30, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA busy_timeout=30000")
    return conn
