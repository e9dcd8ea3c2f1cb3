"""Repro results: what ran, where, and what came of it, kept in the KB's state store (kb.state: the KB folder's
SQLite file, or the shared PostgreSQL database) across rebuilds.

An entry's fix counts as verified by repro while the latest fix-mode run of one of its recipes is `fix_verified`.
"""
from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import get_args

from kb.errors import BadInput
from kb.state import StateDB, as_state
from kb.repro.outcome import OK_STATUSES, Status

_SCHEMA = """
CREATE TABLE IF NOT EXISTS repro_results (
    id {id},
    created_at {real} NOT NULL,
    entry_id TEXT NOT NULL,
    recipe_id TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('reproduced', 'not_reproduced', 'fix_verified', 'fix_failed',
                                           'skipped', 'timeout', 'error')),
    kind TEXT NOT NULL CHECK (kind IN ('cpu-mechanism', 'gpu-real')),
    fix INTEGER NOT NULL,        -- 1: run with the recorded fix switched on
    backend TEXT NOT NULL,       -- local | ray
    reason TEXT NOT NULL,        -- one line: the matched error, the check that passed, or why not
    matched TEXT,                -- the output line closest to the expected signature
    similarity {real},
    exit_code INTEGER,
    python TEXT, torch TEXT, cuda TEXT, device TEXT,
    duration_s {real} NOT NULL,
    log_tail TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS repro_results_entry ON repro_results(entry_id)
"""
_COLUMNS = ("created_at", "entry_id", "recipe_id", "status", "kind", "fix", "backend", "reason", "matched",
            "similarity", "exit_code", "python", "torch", "cuda", "device", "duration_s", "log_tail")


@dataclass
class ReproResult:
    recipe_id: str
    entry_id: str
    kind: str
    fix: bool
    status: str
    reason: str
    duration_s: float = 0.0
    exit_code: int | None = None
    matched: str | None = None
    similarity: float | None = None
    environment: dict = field(default_factory=dict)   # python, torch, cuda, device (and driver, gpus)
    log_tail: str = ""
    backend: str = "local"
    created_at: float = 0.0
    id: int | None = None

    @property
    def ok(self) -> bool:
        return self.status in OK_STATUSES

    @property
    def mode(self) -> str:
        return "fix" if self.fix else "reproduce"

    def as_dict(self) -> dict:
        return {**asdict(self), "mode": self.mode, "ok": self.ok}

    @classmethod
    def from_dict(cls, d: dict) -> "ReproResult":
        return cls(**{k: v for k, v in d.items() if k not in ("mode", "ok")})


class ResultStore:
    def __init__(self, where: StateDB | Path | None, create: bool = True):
        """The results in a state store (kb.state.state_for), or in the KB folder `where`; with create=False a
        KB folder without a state file reads as having none (readers such as `diagnose` create nothing)."""
        self.db = as_state(where, create)
        if self.db is not None:
            db = self.db
            db.ensure(lambda tx: tx.script(db.schema(_SCHEMA)))

    def record(self, r: ReproResult) -> ReproResult:
        r.created_at = r.created_at or time.time()
        env = r.environment
        values = (r.created_at, r.entry_id, r.recipe_id, r.status, r.kind, int(r.fix), r.backend, r.reason,
                  r.matched, r.similarity, r.exit_code, env.get("python"), env.get("torch"), env.get("cuda"),
                  env.get("device"), r.duration_s, r.log_tail)
        with self.db.transaction(write=True) as tx:
            r.id = tx.execute(f"INSERT INTO repro_results ({', '.join(_COLUMNS)}) VALUES "
                              f"({', '.join('?' * len(_COLUMNS))}) RETURNING id", values).fetchone()[0]
        return r

    def import_results(self, results: list[ReproResult]) -> tuple[int, int]:
        """Record results that ran elsewhere (a GPU machine's `triage repro run --json`), keeping when they ran.
        A result already here (same recipe, mode and time) is not recorded twice. Returns (recorded, already here)."""
        have = {(r.recipe_id, r.fix, round(r.created_at, 3)) for r in self.list()}
        new = 0
        for r in results:
            key = (r.recipe_id, r.fix, round(r.created_at, 3))
            if key not in have:
                self.record(r)
                have.add(key)
                new += 1
        return new, len(results) - new

    def list(self, limit: int | None = None) -> list[ReproResult]:
        if self.db is None:
            return []
        sql = f"SELECT id, {', '.join(_COLUMNS)} FROM repro_results ORDER BY created_at DESC, id DESC"
        with self.db.transaction() as tx:
            rows = tx.execute(sql + (" LIMIT ?" if limit else ""), (limit,) if limit else ()).fetchall()
        return [_row(r) for r in rows]

    def latest(self) -> dict[tuple[str, bool], ReproResult]:
        """The latest result per (recipe, fix mode), by when it ran (an imported result keeps its own time)."""
        out: dict[tuple[str, bool], ReproResult] = {}
        for r in self.list():
            out.setdefault((r.recipe_id, r.fix), r)
        return out

    def verified_fix(self, entry_id: str) -> ReproResult | None:
        """The latest `fix_verified` run of an entry's recipe, when it is that recipe's latest fix-mode run."""
        for (_recipe, fix), r in self.latest().items():
            if fix and r.entry_id == entry_id and r.status == "fix_verified":
                return r
        return None

    def close(self) -> None:
        if self.db is not None:
            self.db.close()


_REQUIRED = ("recipe_id", "entry_id", "kind", "fix", "status", "reason", "created_at")
_KNOWN = {f.name for f in fields(ReproResult)} - {"id"}


def parse_results(text: str, source: str) -> list[ReproResult]:
    """Results as `triage repro run --json` prints them ({"results": [...]}), a JSON array of them, or JSON lines.
    Raises BadInput naming the source and the first thing wrong."""
    try:
        docs = [json.loads(text)]
    except json.JSONDecodeError:              # JSON lines
        docs = []
        for n, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    docs.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise BadInput(f"{source}, line {n}: not JSON ({exc.msg}); expected the output of "
                                   "`triage repro run --json` or one result per line") from None
    rows: list = []
    for doc in docs:
        rows.extend(doc["results"] if isinstance(doc, dict) and "results" in doc else
                    doc if isinstance(doc, list) else [doc])
    out = []
    for n, row in enumerate(rows, 1):
        if not isinstance(row, dict):
            raise BadInput(f"{source}: result {n} is not a JSON object")
        missing = [k for k in _REQUIRED if row.get(k) is None]
        if missing:
            raise BadInput(f"{source}: result {n} lacks {', '.join(missing)}")
        if row["status"] not in get_args(Status) or row["kind"] not in ("cpu-mechanism", "gpu-real"):
            raise BadInput(f"{source}: result {n} has status {row['status']!r}, kind {row['kind']!r}")
        try:
            out.append(ReproResult(**{k: v for k, v in row.items() if k in _KNOWN}))
        except TypeError as exc:
            raise BadInput(f"{source}: result {n}: {exc}") from None
    if not out:
        raise BadInput(f"{source}: no results in it")
    return out


def _row(row) -> ReproResult:
    d = dict(zip(("id", *_COLUMNS), row))
    env = {k: d.pop(k) for k in ("python", "torch", "cuda", "device")}
    return ReproResult(id=d["id"], created_at=d["created_at"], entry_id=d["entry_id"], recipe_id=d["recipe_id"],
                       status=d["status"], kind=d["kind"], fix=bool(d["fix"]), backend=d["backend"],
                       reason=d["reason"], matched=d["matched"], similarity=d["similarity"],
                       exit_code=d["exit_code"], environment=env, duration_s=d["duration_s"],
                       log_tail=d["log_tail"])
