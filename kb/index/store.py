"""On-disk layout of a knowledge base, and loading it.

A KB folder holds generations; a small pointer file names the live one:

    DIR/CURRENT            "gen-<stamp>"      replaced atomically (os.replace) when a build finishes
    DIR/gen-<stamp>/manifest.json             schema, model, tokenizer and signature versions, counts
    DIR/gen-<stamp>/kb.sqlite                 documents and chunks (metadata, tokens)
    DIR/gen-<stamp>/vectors.npy               chunk embeddings, row i = chunk rowid i
    DIR/gen-<stamp>/dense.faiss               FAISS index over vectors.npy
    DIR/gen-<stamp>/bm25/                     bm25s index over chunk tokens

A build writes a new generation beside the live one and only then moves CURRENT, so a crash or kill at any point
leaves the previous generation loadable and unchanged.
"""
from __future__ import annotations

import json
import os
import shutil
import sqlite3
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Iterable, Iterator, ItemsView, Mapping, Sequence, ValuesView
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kb.errors import IndexCorrupt, IndexIncompatible, IndexNotFound
from kb.models import READABLE_SCHEMAS, Chunk, Document

POINTER = "CURRENT"
MANIFEST = "manifest.json"
DB = "kb.sqlite"
VECTORS = "vectors.npy"

_SCHEMA = """
CREATE TABLE documents (
    doc_id TEXT PRIMARY KEY,
    source TEXT NOT NULL UNIQUE,
    content_hash TEXT NOT NULL,
    origin TEXT NOT NULL,           -- absolute path of the file it came from (for --prune)
    data TEXT NOT NULL              -- Document as JSON
);
CREATE TABLE chunks (
    row INTEGER PRIMARY KEY,        -- = row in vectors.npy, FAISS and BM25
    chunk_id TEXT NOT NULL UNIQUE,
    doc_id TEXT NOT NULL REFERENCES documents(doc_id),
    ordinal INTEGER NOT NULL,
    section TEXT NOT NULL,
    lang TEXT NOT NULL,
    text TEXT NOT NULL,
    text_hash TEXT NOT NULL,        -- sha256(text): a changed document re-embeds only chunks whose text changed
    tokens TEXT NOT NULL            -- BM25 tokens, space-joined, so unchanged chunks are not re-tokenized
);
CREATE INDEX chunks_doc ON chunks(doc_id);
"""


def rebuild_hint(path: Path) -> str:
    return f"rebuild it with: triage ingest <your postmortems> --kb {path}"


def current_generation(kb_dir: Path) -> Path | None:
    """The live generation folder of `kb_dir`, or None when nothing was ever built there."""
    pointer = kb_dir / POINTER
    try:
        name = pointer.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise IndexCorrupt(f"Cannot read {pointer}: {exc.strerror}; {rebuild_hint(kb_dir)}") from None
    gen = kb_dir / name
    if not name.startswith("gen-") or not gen.is_dir():
        raise IndexCorrupt(f"Knowledge base at {kb_dir} points to a missing generation '{name}'; {rebuild_hint(kb_dir)}")
    return gen


def new_generation_dir(kb_dir: Path) -> Path:
    kb_dir.mkdir(parents=True, exist_ok=True)
    gen = kb_dir / f"gen-{time.strftime('%Y%m%d%H%M%S')}-{uuid.uuid4().hex[:8]}"
    gen.mkdir()
    return gen


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def publish_generation(kb_dir: Path, gen: Path) -> None:
    """Make `gen` the live generation (atomic), then remove generations that are no longer referenced."""
    for f in gen.rglob("*"):
        if f.is_file():
            with open(f, "rb+") as fh:
                os.fsync(fh.fileno())
    _fsync_dir(gen)
    tmp = kb_dir / f".{POINTER}.{uuid.uuid4().hex[:8]}"
    tmp.write_text(gen.name + "\n", encoding="utf-8")
    with open(tmp, "rb+") as fh:
        os.fsync(fh.fileno())
    os.replace(tmp, kb_dir / POINTER)
    _fsync_dir(kb_dir)
    remove_stale_generations(kb_dir, keep=gen)


def remove_stale_generations(kb_dir: Path, keep: Path | None) -> None:
    """Delete generation folders other than `keep` (leftovers of finished or killed builds)."""
    for child in kb_dir.iterdir():
        if child.name.startswith("gen-") and child.is_dir() and (keep is None or child.name != keep.name):
            shutil.rmtree(child, ignore_errors=True)
        elif child.name.startswith(f".{POINTER}."):
            child.unlink(missing_ok=True)


def create_database(gen: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(gen / DB)
    conn.executescript(_SCHEMA)
    return conn


def write_manifest(gen: Path, manifest: dict) -> None:
    (gen / MANIFEST).write_text(json.dumps(manifest, indent=2, ensure_ascii=False), encoding="utf-8")


# Checksums of a generation's files, kept in its manifest and checked whenever it is opened: a truncated or changed
# index gives one line naming the file, not an error from deep inside FAISS or bm25s. Files up to FULL_HASH_MAX
# are hashed whole; a bigger one (vectors.npy of a million chunks) by its size and its first and last SAMPLE bytes,
# which still catches truncation and torn writes without reading gigabytes at every start.
CHECKSUMS = "checksums"
FULL_HASH_MAX = 256 << 20
SAMPLE = 16 << 20


def file_checksum(path: Path) -> str:
    import hashlib

    size = path.stat().st_size
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        if size <= FULL_HASH_MAX:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
            return f"sha256:{h.hexdigest()}"
        h.update(fh.read(SAMPLE))
        fh.seek(size - SAMPLE)
        h.update(fh.read(SAMPLE))
    return f"sha256-ends:{size}:{h.hexdigest()}"


def generation_checksums(gen: Path) -> dict[str, str]:
    """{path relative to the generation: checksum} of every file in it but the manifest."""
    return {f.relative_to(gen).as_posix(): file_checksum(f) for f in sorted(gen.rglob("*"))
            if f.is_file() and f.name != MANIFEST}


def damaged_files(gen: Path, manifest: dict) -> list[str]:
    """Files of `gen` that are missing or differ from the checksums in its manifest ([] for a manifest without
    checksums: a KB built before they were kept)."""
    damaged = []
    for name, want in (manifest.get(CHECKSUMS) or {}).items():
        path = gen / name
        try:
            ok = path.is_file() and file_checksum(path) == want
        except OSError:
            ok = False
        if not ok:
            damaged.append(name)
    return damaged


def repair_hint(kb_dir: Path, damaged: list[str]) -> str:
    """The command that repairs a KB whose files `damaged` are bad: from its own stored chunks, unless the database
    holding them is among the bad ones."""
    if DB in damaged:
        return rebuild_hint(kb_dir)
    return f"repair it with: triage ingest --repair --kb {kb_dir}"


class _Recent:
    """The most recently used entries of a lookup, at most `size` of them; safe to share between threads."""

    def __init__(self, size: int):
        self._size = size
        self._items: OrderedDict = OrderedDict()
        self._lock = threading.Lock()   # the HTTP service reads from several threads

    def get(self, key):
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key, value) -> None:
        with self._lock:
            self._items[key] = value
            if len(self._items) > self._size:
                self._items.popitem(last=False)


class DocumentMap(Mapping[str, Document]):
    """Read-only doc_id -> Document view of a generation's documents table.

    Documents are parsed from SQLite when asked for and the most recent ones are kept (a KB of a million chunks
    holds hundreds of thousands of documents, which need not all sit in memory for a query to read a few).
    """

    def __init__(self, conn: sqlite3.Connection):
        self._conn = conn
        self._recent = _Recent(1024)

    def __getitem__(self, doc_id: str) -> Document:
        doc = self._recent.get(doc_id)
        if doc is None:
            row = self._conn.execute("SELECT data FROM documents WHERE doc_id=?", (doc_id,)).fetchone()
            if row is None:
                raise KeyError(doc_id)
            doc = Document.model_validate_json(row[0])
            self._recent.put(doc_id, doc)
        return doc

    def __iter__(self) -> Iterator[str]:
        return (d for (d,) in self._conn.execute("SELECT doc_id FROM documents ORDER BY source"))

    def __len__(self) -> int:
        return self._conn.execute("SELECT COUNT(*) FROM documents").fetchone()[0]

    def __contains__(self, doc_id: object) -> bool:
        return self._conn.execute("SELECT 1 FROM documents WHERE doc_id=?", (doc_id,)).fetchone() is not None

    def scan(self) -> Iterator[tuple[str, Document]]:
        """Every (doc_id, document) in source order, with one query (not one per document) and no caching."""
        rows = self._conn.execute("SELECT doc_id, data FROM documents ORDER BY source")
        return ((d, Document.model_validate_json(data)) for d, data in rows)

    def items(self) -> ItemsView[str, Document]:
        return _ScanItems(self)

    def values(self) -> ValuesView[Document]:
        return _ScanValues(self)


class _ScanItems(ItemsView):
    def __iter__(self):
        return self._mapping.scan()


class _ScanValues(ValuesView):
    def __iter__(self):
        return (doc for _, doc in self._mapping.scan())


class DocTokens(Mapping[str, set[str]]):
    """doc_id -> the set of BM25 tokens of its chunks, read from SQLite when asked for (recent ones kept)."""

    def __init__(self, conn: sqlite3.Connection):
        self._conn = conn
        self._recent = _Recent(512)

    def __getitem__(self, doc_id: str) -> set[str]:
        vocab = self._recent.get(doc_id)
        if vocab is None:
            rows = self._conn.execute("SELECT tokens FROM chunks WHERE doc_id=?", (doc_id,)).fetchall()
            if not rows:
                raise KeyError(doc_id)
            vocab = {t for (tokens,) in rows if tokens for t in tokens.split(" ")}
            self._recent.put(doc_id, vocab)
        return vocab

    def __iter__(self) -> Iterator[str]:
        return (d for (d,) in self._conn.execute("SELECT DISTINCT doc_id FROM chunks"))

    def __len__(self) -> int:
        return self._conn.execute("SELECT COUNT(DISTINCT doc_id) FROM chunks").fetchone()[0]


class RowDocs(Sequence[str]):
    """doc_id of each chunk row, stored as one int32 code per row plus each distinct doc_id once."""

    def __init__(self, doc_ids: Iterable[str]):
        codes: dict[str, int] = {}
        self._codes = np.fromiter((codes.setdefault(d, len(codes)) for d in doc_ids), dtype=np.int32)
        self._names = list(codes)

    def __getitem__(self, row):
        if isinstance(row, slice):
            return [self._names[c] for c in self._codes[row]]
        return self._names[self._codes[row]]

    def __len__(self) -> int:
        return len(self._codes)


@dataclass
class StoredChunk:
    row: int
    chunk: Chunk


class KBStore:
    """A loaded, read-only generation of a knowledge base."""

    def __init__(self, kb_dir: Path, gen: Path, manifest: dict):
        self.kb_dir = kb_dir
        self.gen = gen
        self.manifest = manifest
        # check_same_thread=False: the HTTP service reads from worker threads; all access is read-only.
        self.conn = sqlite3.connect(f"file:{gen / DB}?mode=ro", uri=True, check_same_thread=False)
        self._docs = DocumentMap(self.conn)

    # -- documents -------------------------------------------------------------------------------------------
    def documents(self) -> DocumentMap:
        """Every document by doc_id, in source order; read from SQLite on access, not held in memory."""
        return self._docs

    def doc_index(self) -> dict[str, tuple[str, str, str]]:
        """source -> (doc_id, content_hash, origin path); what incremental ingest compares against."""
        rows = self.conn.execute("SELECT source, doc_id, content_hash, origin FROM documents").fetchall()
        return {source: (doc_id, h, origin) for source, doc_id, h, origin in rows}

    # -- chunks ----------------------------------------------------------------------------------------------
    def chunk_count(self) -> int:
        return self.conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]

    def chunks(self, rows: list[int]) -> list[StoredChunk]:
        if not rows:
            return []
        marks = ",".join("?" * len(rows))
        got = self.conn.execute(
            f"SELECT row, chunk_id, doc_id, ordinal, section, lang, text FROM chunks WHERE row IN ({marks})", rows
        ).fetchall()
        by_row = {r[0]: StoredChunk(r[0], Chunk(chunk_id=r[1], doc_id=r[2], ordinal=r[3], section=r[4], lang=r[5], text=r[6])) for r in got}
        return [by_row[r] for r in rows if r in by_row]

    def chunks_of(self, doc_id: str) -> list[StoredChunk]:
        got = self.conn.execute(
            "SELECT row, chunk_id, doc_id, ordinal, section, lang, text FROM chunks WHERE doc_id=? ORDER BY ordinal",
            (doc_id,),
        ).fetchall()
        return [StoredChunk(r[0], Chunk(chunk_id=r[1], doc_id=r[2], ordinal=r[3], section=r[4], lang=r[5], text=r[6])) for r in got]

    def rows_of(self, doc_id: str) -> list[int]:
        return [r for (r,) in self.conn.execute("SELECT row FROM chunks WHERE doc_id=? ORDER BY row", (doc_id,))]

    def chunk_rows_by_text_hash(self) -> dict[str, int]:
        return dict(self.conn.execute("SELECT text_hash, row FROM chunks").fetchall())

    def row_doc_ids(self) -> RowDocs:
        """doc_id for every chunk row, in row order (maps retrieval rows to documents without SQL per hit)."""
        return RowDocs(d for (d,) in self.conn.execute("SELECT doc_id FROM chunks ORDER BY row"))

    def doc_tokens(self) -> DocTokens:
        """Every BM25 token of each document (its vocabulary), for coverage measures; read per document on access."""
        return DocTokens(self.conn)

    def vectors(self) -> np.ndarray:
        return np.load(self.gen / VECTORS, mmap_mode="r")

    def close(self) -> None:
        self.conn.close()


def open_store(kb_dir: Path, *, verify: bool = True) -> KBStore:
    """Open the live generation of `kb_dir`, checking it was built by a compatible version and (`verify`) that its
    files match the checksums in its manifest."""
    kb_dir = Path(kb_dir)
    if not kb_dir.exists():
        raise IndexNotFound(f"No knowledge base at {kb_dir}; build one with: triage ingest <postmortems> --kb {kb_dir}")
    gen = current_generation(kb_dir)
    if gen is None:
        raise IndexNotFound(f"{kb_dir} holds no knowledge base yet; build one with: triage ingest <postmortems> --kb {kb_dir}")
    try:
        manifest = json.loads((gen / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise IndexCorrupt(f"The knowledge base at {kb_dir} has no readable manifest; {rebuild_hint(kb_dir)}") from None
    if manifest.get("schema_version") not in READABLE_SCHEMAS:
        raise IndexIncompatible(
            f"The knowledge base at {kb_dir} uses schema {manifest.get('schema_version')}, this triage-kb reads "
            f"schema {' or '.join(map(str, sorted(READABLE_SCHEMAS)))}; {rebuild_hint(kb_dir)}"
        )
    from kb.index.tokenize import TOKENIZER_VERSION

    if manifest.get("tokenizer") != TOKENIZER_VERSION:
        raise IndexIncompatible(
            f"The knowledge base at {kb_dir} was tokenized with {manifest.get('tokenizer')}, this triage-kb uses "
            f"{TOKENIZER_VERSION}; {rebuild_hint(kb_dir)}"
        )
    for name in (DB, VECTORS):
        if not (gen / name).is_file():
            raise IndexCorrupt(f"The knowledge base at {kb_dir} is missing {name}; {rebuild_hint(kb_dir)}")
    if verify:
        damaged = damaged_files(gen, manifest)
        if damaged:
            raise IndexCorrupt(f"The knowledge base at {kb_dir} is damaged: {gen.name}/{damaged[0]} "
                               + (f"(and {len(damaged) - 1} more) " if len(damaged) > 1 else "")
                               + f"does not match the checksum it was built with; {repair_hint(kb_dir, damaged)}")
    try:
        store = KBStore(kb_dir, gen, manifest)
        store.conn.execute("SELECT COUNT(*) FROM documents").fetchone()
    except sqlite3.DatabaseError as exc:
        raise IndexCorrupt(f"The knowledge base database at {gen / DB} is unreadable ({exc}); {rebuild_hint(kb_dir)}") from None
    return store
