"""The embedded backend: `state.sqlite` in the KB folder (the default; files written by earlier releases open as
they are, their tables gaining the columns added since)."""
from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from kb.state import StateDB, StateError, Tx, first_line


class _SQLiteTx(Tx):
    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn

    def execute(self, sql: str, params: tuple | list | None = ()):
        return self.conn.execute(sql) if params is None else self.conn.execute(sql, params)

    def lock(self, key: str) -> None:
        pass          # a write transaction here already holds the file's one write lock

    def try_lock(self, key: str) -> bool:
        return True   # a write transaction here already holds the file's one write lock

    def columns(self, table: str) -> set[str]:
        return {row[1] for row in self.conn.execute(f"PRAGMA table_info({table})")}


class SQLiteState(StateDB):
    dialect = "sqlite"

    def __init__(self, path: Path):
        self.path = path
        self.where = str(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            # Transactions are begun and ended here, explicitly (isolation_level=None).
            self.conn = sqlite3.connect(path, timeout=30, check_same_thread=False, isolation_level=None)
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA busy_timeout=30000")
        except (OSError, sqlite3.Error) as exc:
            raise StateError(f"the state file {path} cannot be opened: {first_line(exc)}") from None
        self._lock = threading.RLock()   # one connection, shared by the request threads and the workers

    @contextmanager
    def transaction(self, write: bool = False) -> Iterator[Tx]:
        with self._lock:
            try:
                self.conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            except sqlite3.Error as exc:
                raise StateError(f"the state file {self.where} cannot be used: {first_line(exc)}") from None
            try:
                yield _SQLiteTx(self.conn)
            except sqlite3.Error as exc:
                self._end("ROLLBACK")
                raise StateError(f"the state file {self.where} cannot be used: {first_line(exc)}") from exc
            except BaseException:
                self._end("ROLLBACK")
                raise
            try:
                self._end("COMMIT")
            except sqlite3.Error as exc:
                self._end("ROLLBACK")
                raise StateError(f"the state file {self.where} cannot be used: {first_line(exc)}") from None

    def _end(self, how: str) -> None:
        if self.conn.in_transaction:
            self.conn.execute(how)

    def close(self) -> None:
        with self._lock:
            self.conn.close()
