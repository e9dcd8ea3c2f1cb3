"""Mutable state: accepted webhook deliveries, feedback and repro results, behind one interface, `StateDB`.

Index generations are immutable and replaced whole on every build; what people, webhooks and the repro-runner
record must outlive rebuilds, so it lives apart from them, in one of two backends:

- SQLite, the embedded default: `state.sqlite` in the KB folder (WAL, so a server's readers and writers overlap);
  one host, one writer at a time (`BEGIN IMMEDIATE`).
- PostgreSQL, when `TRIAGE_DATABASE_URL` is set: shared by any number of replicas; rows are claimed with
  `SELECT ... FOR UPDATE SKIP LOCKED`, so two replicas never take the same delivery.

The stores (kb.feedback, kb.repro.results, bot.github.deliveries) write their SQL once, with `?` placeholders and
`{id}` / `{real}` in their schemas, and run it in `db.transaction()`; what differs between the two lives here.
The PostgreSQL driver (psycopg 3) is imported only when a database URL is given.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kb.errors import KBError

if TYPE_CHECKING:
    from kb.config import Settings

STATE_FILE = "state.sqlite"


class StateError(KBError):
    """The state store cannot be opened or used; the message is one line and names the store (never a password)."""

    code = "state_unavailable"
    status = 503


class Tx(ABC):
    """One open transaction. `execute` takes `?` placeholders on both backends and returns a DB-API cursor
    (fetchone, fetchall, rowcount)."""

    @abstractmethod
    def execute(self, sql: str, params: tuple | list = ()) -> Any: ...

    def script(self, sql: str) -> None:
        """Run several `;`-separated statements (schemas: no `;` inside them)."""
        for statement in sql.split(";"):
            if statement.strip():
                self.execute(statement, None)

    @abstractmethod
    def lock(self, key: str) -> None:
        """Take a lock on the name `key` until this transaction ends, waiting for another transaction that has it."""

    @abstractmethod
    def try_lock(self, key: str) -> bool:
        """Take a lock on the name `key` until this transaction ends; False when another transaction holds it."""

    @abstractmethod
    def columns(self, table: str) -> set[str]:
        """The columns `table` has now (to add the ones a newer release brought)."""


class StateDB(ABC):
    dialect: str
    where: str            # for messages: the file, or the database URL without its password

    @abstractmethod
    def transaction(self, write: bool = False) -> AbstractContextManager[Tx]:
        """A transaction on this store's connection (one at a time per StateDB: threads take turns). `write`: it
        will write, so SQLite takes the write lock at once (the read-then-write steps of a store are atomic)."""

    # The claim of a queue row: `FOR UPDATE SKIP LOCKED` where rows can be locked (PostgreSQL); nothing in SQLite,
    # whose write transaction already excludes every other writer.
    skip_locked: str = ""

    def schema(self, sql: str) -> str:
        """A store's schema in this dialect: `{id}` an auto-numbered primary key, `{real}` a double."""
        id_type, real_type = self._types
        return sql.replace("{id}", id_type).replace("{real}", real_type)

    _types: tuple[str, str] = ("INTEGER PRIMARY KEY AUTOINCREMENT", "REAL")

    def ensure(self, setup) -> None:
        """Run `setup(tx)` (CREATE TABLE IF NOT EXISTS, added columns) once at a time across processes."""
        with self.transaction(write=True) as tx:
            self._schema_lock(tx)
            setup(tx)

    def _schema_lock(self, tx: Tx) -> None:
        pass

    @abstractmethod
    def close(self) -> None: ...

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.where}>"


def open_state(kb_dir: Path, database_url: str | None = None, create: bool = True) -> StateDB | None:
    """The state of the KB in `kb_dir`: the PostgreSQL database at `database_url` when given, else the KB folder's
    SQLite file. With create=False and no database URL, a KB without a state file gives None (readers such as
    `diagnose` and `feedback list` create nothing)."""
    if database_url:
        from kb.state.postgres import PostgresState

        return PostgresState(database_url)
    from kb.state.sqlite import SQLiteState

    if not create and not (kb_dir / STATE_FILE).exists():
        return None
    return SQLiteState(kb_dir / STATE_FILE)


def state_for(settings: Settings, kb_dir: Path, create: bool = True) -> StateDB | None:
    """`open_state` with the database URL of the settings (TRIAGE_DATABASE_URL)."""
    url = settings.database_url.get_secret_value().strip() if settings.database_url is not None else ""
    return open_state(kb_dir, url or None, create)


def as_state(where: StateDB | Path | None, create: bool = True) -> StateDB | None:
    """Stores accept a StateDB, or a KB folder (its SQLite file: the embedded default and older callers)."""
    if where is None or isinstance(where, StateDB):
        return where
    return open_state(Path(where), None, create)


def first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0].strip()


__all__ = ["STATE_FILE", "StateDB", "StateError", "Tx", "as_state", "first_line", "open_state", "state_for"]
