"""The shared backend: a PostgreSQL database (TRIAGE_DATABASE_URL), for several replicas of the service.

One connection per StateDB, in autocommit mode with explicit transactions; threads take turns on it. A connection
that broke (the server restarted, the network dropped) is opened again on the next transaction. Every failure
becomes a StateError of one line that names the database without its password.
"""
from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit, urlunsplit

from kb.state import StateDB, StateError, Tx, first_line

CONNECT_TIMEOUT_S = 5
_SCHEMA_LOCK = 7_104_208_511   # any fixed number: the advisory lock that serialises schema set-up


def redact(url: str) -> str:
    """The URL without its password (for messages and logs)."""
    try:
        parts = urlsplit(url)
        if parts.password is None:
            return url
        host = parts.hostname or ""
        netloc = f"{parts.username or ''}:***@{host}" + (f":{parts.port}" if parts.port else "")
        return urlunsplit(parts._replace(netloc=netloc))
    except ValueError:
        return "<an unreadable URL>"


class _PgTx(Tx):
    def __init__(self, conn):
        self.conn = conn

    def execute(self, sql: str, params: tuple | list | None = ()):
        if params is None:
            return self.conn.execute(sql)
        return self.conn.execute(sql.replace("%", "%%").replace("?", "%s"), params)

    def lock(self, key: str) -> None:
        self.conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (key,))

    def try_lock(self, key: str) -> bool:
        return bool(self.conn.execute("SELECT pg_try_advisory_xact_lock(hashtext(%s))", (key,)).fetchone()[0])

    def columns(self, table: str) -> set[str]:
        rows = self.conn.execute("SELECT column_name FROM information_schema.columns WHERE table_name = %s"
                                 " AND table_schema = current_schema()", (table,)).fetchall()
        return {r[0] for r in rows}


class PostgresState(StateDB):
    dialect = "postgresql"
    skip_locked = " FOR UPDATE SKIP LOCKED"
    _types = ("BIGSERIAL PRIMARY KEY", "DOUBLE PRECISION")

    def __init__(self, url: str):
        self.where = redact(url)
        try:
            scheme = urlsplit(url).scheme
        except ValueError:
            scheme = ""
        if scheme not in ("postgresql", "postgres"):
            raise StateError(f"TRIAGE_DATABASE_URL must be a postgresql:// URL (got {self.where!r})")
        try:
            import psycopg
        except ImportError:
            raise StateError("TRIAGE_DATABASE_URL is set but psycopg is not installed: "
                             "pip install 'triage-kb[postgres]'") from None
        self._psycopg = psycopg
        self._url = url
        self._lock = threading.RLock()
        self._conn = None
        self._connect()

    def _connect(self):
        psycopg = self._psycopg
        try:
            self._conn = psycopg.connect(self._url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S,
                                         application_name="triage-kb")
        except psycopg.Error as exc:
            self._conn = None
            raise StateError(f"the state database {self.where} cannot be reached: {first_line(exc)}") from None
        return self._conn

    @contextmanager
    def transaction(self, write: bool = False) -> Iterator[Tx]:
        psycopg = self._psycopg
        with self._lock:
            conn, tx = self._begin()
            try:
                yield _PgTx(conn)
            except BaseException as exc:
                try:
                    tx.__exit__(type(exc), exc, exc.__traceback__)   # ROLLBACK
                except psycopg.Error:
                    self._drop()
                if isinstance(exc, psycopg.Error):
                    if conn.closed or conn.broken:
                        self._drop()
                    raise StateError(f"the state database {self.where} failed: {first_line(exc)}") from exc
                raise
            try:
                tx.__exit__(None, None, None)                        # COMMIT
            except psycopg.Error as exc:
                if conn.closed or conn.broken:
                    self._drop()
                raise StateError(f"the state database {self.where} failed: {first_line(exc)}") from exc

    def _begin(self):
        """An open transaction on a live connection. A connection that died while idle (the server restarted) is
        found out by its BEGIN, which is then tried once more on a new one: nothing was done on it yet."""
        psycopg = self._psycopg
        for attempt in (1, 2):
            conn = self._conn
            if conn is None or conn.closed or conn.broken:
                conn = self._connect()
            tx = conn.transaction()
            try:
                tx.__enter__()
                return conn, tx
            except psycopg.Error as exc:
                self._drop()
                if attempt == 2:
                    raise StateError(f"the state database {self.where} cannot be reached: {first_line(exc)}") \
                        from None
        raise AssertionError("unreachable")

    def _schema_lock(self, tx: Tx) -> None:
        # Two replicas starting at once must not both run CREATE TABLE (PostgreSQL can fail one of them).
        tx.execute("SELECT pg_advisory_xact_lock(?)", (_SCHEMA_LOCK,))

    def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.close()
            except Exception:  # noqa: BLE001 - it is broken already
                pass

    def close(self) -> None:
        with self._lock:
            self._drop()
