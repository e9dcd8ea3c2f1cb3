"""Build or update a knowledge base: discover -> read -> clean -> extract -> chunk -> tokenize -> embed -> index.

Incremental and crash-safe: an unchanged file (same content hash) keeps its document, chunks and vectors; a
changed one is re-extracted and only chunks whose text changed are embedded again; the result is written as a new
generation and published atomically (kb.index.store). When nothing changed, no generation is written at all.
"""
from __future__ import annotations

import fcntl
import hashlib
import shutil
import sys
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from kb import __version__
from kb.config import Settings
from kb.errors import BadInput, IndexCorrupt, IndexIncompatible, KBError
from kb.index import dense, sparse, store
from kb.index.encoder.factory import kb_encoder
from kb.models import SCHEMA_VERSION, Chunk, Document
from kb.traceback.signature import SIGNATURE_VERSION
from ingest.chunk import chunk_document
from ingest.clean import find_boilerplate
from ingest.extract.document import extract_document
from ingest.read import SUFFIXES, RawDocument, Skipped, discover, read_path
from ingest.version import EXTRACTOR_VERSION

# Stage name, done, total. The CLI turns this into a progress bar.
Progress = Callable[[str, int, int], None]




@dataclass
class IngestReport:
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)   # (source, reason)
    documents: int = 0
    chunks: int = 0
    embedded: int = 0          # chunks whose vectors were computed in this run
    reused_shipped: int = 0    # chunks whose vectors came with the package (the starter KB, `known_vectors`)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def changed(self) -> bool:
        return bool(self.added or self.updated or self.removed)

    def as_dict(self) -> dict:
        return {
            "added": self.added, "updated": self.updated, "unchanged": len(self.unchanged),
            "removed": self.removed, "skipped": [{"source": s, "reason": r} for s, r in self.skipped],
            "documents": self.documents, "chunks": self.chunks, "embedded": self.embedded,
            "notes": self.notes, "seconds": round(self.seconds, 3),
        }


@dataclass(frozen=True)
class Prepared:
    """A document made elsewhere (an imported issue thread), built into the KB like a read file: kept as it is when
    its `content_hash` is the stored one, re-chunked and (only for changed chunk texts) re-embedded otherwise.
    `origin` is where it came from (a URL): not a file, so `--prune` never drops it."""

    doc: Document
    origin: str


@dataclass
class _Row:
    """A document of the generation being built, with its chunks, tokens and (maybe reused) vectors."""

    doc: Document
    origin: str
    chunks: list[Chunk]
    tokens: list[list[str]]
    vectors: list[np.ndarray | None]


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@contextmanager
def _locked(kb_dir: Path):
    """One writer per KB folder at a time."""
    kb_dir.mkdir(parents=True, exist_ok=True)
    with open(kb_dir / ".lock", "w") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise BadInput(f"Another ingest is writing to {kb_dir}; wait for it to finish") from None
        yield


def _open_previous(kb_dir: Path, model: str, encoder: str,
                   report: IngestReport) -> tuple[store.KBStore | None, list[str]]:
    """The live generation to build on, and which of its files are damaged (checksums in its manifest). A damaged
    database cannot be built on (its chunks are what a repair reads); damaged indexes or vectors can."""
    try:
        prev = store.open_store(kb_dir, verify=False)
    except (IndexIncompatible, IndexCorrupt) as exc:
        report.notes.append(f"previous knowledge base not reused: {exc.user_message}")
        return None, []
    except KBError:
        return None, []
    damaged = store.damaged_files(prev.gen, prev.manifest)
    if store.DB in damaged:
        prev.close()
        report.notes.append(f"previous knowledge base not reused: its {store.DB} is damaged; built again from the "
                            f"files given")
        return None, []
    if prev.manifest.get("model") != model:
        report.notes.append(f"embedding model changed ({prev.manifest.get('model')} -> {model}): everything re-embedded")
    elif kb_encoder(prev.manifest) != encoder:
        report.notes.append(f"encoder changed ({kb_encoder(prev.manifest)} -> {encoder}): everything re-embedded, "
                            f"so that the KB and its queries use the same one")
    return prev, damaged


@dataclass(frozen=True)
class _Kept:
    """A document of the live generation carried into the new one as it is, vectors included: its rows are copied
    from the previous database chunk by chunk when the generation is written, never parsed into objects, so a large
    KB that gains a few documents holds only those in memory (a tracker import rebuilds every 100 threads)."""

    doc_id: str
    origin: str


def _reuse(prev: store.KBStore, doc_id: str, origin: str, same_model: bool) -> _Row | _Kept:
    """A stored document for the new generation: kept as stored when its vectors stay valid, else read back whole so
    that its chunks can be embedded again."""
    if same_model:
        return _Kept(doc_id, origin)
    data, = prev.conn.execute("SELECT data FROM documents WHERE doc_id=?", (doc_id,)).fetchone()
    rows = prev.conn.execute(
        "SELECT chunk_id, ordinal, section, lang, text, tokens FROM chunks WHERE doc_id=? ORDER BY ordinal", (doc_id,),
    ).fetchall()
    chunks = [Chunk(chunk_id=r[0], doc_id=doc_id, ordinal=r[1], section=r[2], lang=r[3], text=r[4]) for r in rows]
    return _Row(doc=Document.model_validate_json(data), origin=origin, chunks=chunks,
                tokens=[_split_tokens(r[5]) for r in rows], vectors=[None] * len(rows))


def _split_tokens(stored: str | None) -> list[str]:
    return list(map(sys.intern, stored.split(" "))) if stored else []    # one object per term


def ingest(
    paths: list[Path],
    kb_dir: Path,
    settings: Settings,
    *,
    prune: bool = False,
    repair: bool = False,
    progress: Progress | None = None,
    prepared: list[Prepared] | None = None,
    known_vectors: Callable[[str], dict[str, np.ndarray]] | None = None,
) -> IngestReport:
    """Ingest files and folders into the KB at `kb_dir` (created when missing).

    A live generation with damaged files (checksums in its manifest) is rebuilt from its stored chunks even when no
    file changed: indexes from the stored vectors and tokens, vectors re-embedded only if vectors.npy is the damaged
    one. `repair` allows `paths` to be empty: rebuild what is there, read nothing new. `prepared`: documents made
    elsewhere (kb sources such as github:OWNER/REPO#N), built alongside the files (`paths` may then be empty).
    `known_vectors(encoder)`: vectors this encoder gives, by the sha256 of a chunk's text (the starter KB's shipped
    ones); a chunk found there is not embedded again."""
    from kb.index.encoder.factory import ONNX_INT8, index_device, resolve_encoder
    from kb.index.tokenize import TOKENIZER_VERSION, tokenize

    started = time.perf_counter()
    tick = progress or (lambda stage, done, total: None)
    report = IngestReport()
    files = discover([Path(p) for p in paths])
    prepared = list(prepared or [])
    if not files and not repair and not prepared:
        given = ", ".join(str(p) for p in paths)
        raise BadInput(f"No postmortems found in {given} (looked for {' '.join(SUFFIXES)} files; hidden ones are left "
                       f"out); nothing was ingested")
    kb_dir = Path(kb_dir)
    device = "cpu" if settings.encoder == ONNX_INT8 else index_device(settings.device)
    encoder = resolve_encoder(settings.model, settings.cache_dir, settings.encoder, device)
    with _locked(kb_dir):
        prev, damaged = _open_previous(kb_dir, settings.model, encoder, report)
        if repair and prev is None:
            raise BadInput(f"Nothing at {kb_dir} to repair from (no readable knowledge base); "
                           f"{store.rebuild_hint(kb_dir)}")
        prev_by_source = prev.doc_index() if prev else {}
        vectors_ok = store.VECTORS not in damaged
        # Stored vectors are reused only when they are the current model's and intact.
        same_model = (bool(prev) and prev.manifest.get("model") == settings.model
                      and kb_encoder(prev.manifest) == encoder and vectors_ok)
        same_extractor = bool(prev) and prev.manifest.get("extractor") == EXTRACTOR_VERSION
        prev_vectors = prev.vectors() if prev and vectors_ok else np.zeros((0, 0), np.float32)
        if damaged:
            report.notes.append(f"damaged in the last build: {', '.join(damaged)}; rebuilt from the stored chunks"
                                + ("" if vectors_ok else " (their vectors embedded again)"))

        raws = _read_files(files, settings.max_file_bytes, report, tick)
        seen = {source for _, source in files}

        def is_unchanged(source: str, raw: RawDocument) -> bool:
            return (same_model and same_extractor and source in prev_by_source
                    and prev_by_source[source][1] == raw.content_hash)

        todo = [(s, o, r) for s, o, r in raws if not is_unchanged(s, r)]
        report.unchanged = [s for s, _, r in raws if is_unchanged(s, r)]
        given: dict[str, Prepared] = {}
        for p in prepared:
            if p.doc.source in seen or p.doc.source in given:
                report.skipped.append((p.doc.source, "same source given twice; first one kept"))
                continue
            given[p.doc.source] = p
        todo_prepared = [p for p in given.values()
                         if not (same_model and same_extractor and p.doc.source in prev_by_source
                                 and prev_by_source[p.doc.source][1] == p.doc.content_hash)]
        report.unchanged += [s for s in given if s not in {p.doc.source for p in todo_prepared}]
        read_now = {s for s, _, _ in raws} | set(given)
        # Documents from earlier runs that this run did not read stay, unless --prune and their file is gone
        # (documents that did not come from a file, such as imported issues, are never pruned).
        report.removed = [s for s, (_, _, origin) in prev_by_source.items()
                          if prune and s not in read_now and Path(origin).is_absolute() and not Path(origin).exists()]
        if prev and not todo and not todo_prepared and not report.removed and not damaged:
            # Nothing changed: keep the live generation as it is, without reading its chunks or vectors.
            report.documents = len(prev_by_source)
            report.chunks = prev.chunk_count()
            report.seconds = time.perf_counter() - started
            prev.close()
            return report

        boilerplate = find_boilerplate([r.text for _, _, r in raws]) if todo else set()
        rows: dict[str, _Row | _Kept] = {}
        for source in report.unchanged:
            doc_id, _, origin = prev_by_source[source]
            rows[source] = _reuse(prev, doc_id, origin, same_model)
        for i, (source, origin, raw) in enumerate(todo):
            tick("extract", i + 1, len(todo))
            try:
                doc = extract_document(raw, source, boilerplate)
            except BadInput as exc:
                report.skipped.append((source, exc.user_message))
                continue
            chunks = chunk_document(doc)
            (report.updated if source in prev_by_source else report.added).append(source)
            rows[source] = _Row(doc, origin, chunks, [tokenize(c.text) for c in chunks], [None] * len(chunks))
        for p in todo_prepared:
            chunks = chunk_document(p.doc)
            (report.updated if p.doc.source in prev_by_source else report.added).append(p.doc.source)
            rows[p.doc.source] = _Row(p.doc, p.origin, chunks, [tokenize(c.text) for c in chunks],
                                      [None] * len(chunks))
        for source, (doc_id, _, origin) in prev_by_source.items():
            if source not in rows and source not in report.removed:
                rows[source] = _reuse(prev, doc_id, origin, same_model)

        if not rows:
            # Every file was skipped and there is no earlier KB: an index of nothing helps no one.
            if prev:
                prev.close()
            report.notes.append("no document could be read, so no knowledge base was written")
            report.seconds = time.perf_counter() - started
            return report
        _dedupe_doc_ids(rows)
        embedder = _fill_vectors(rows, prev, prev_vectors if same_model else None, known_vectors, encoder, settings,
                                 report, tick, device)
        dim = _dimension(rows, embedder, prev)

        tick("index", 0, 1)
        gen = store.new_generation_dir(kb_dir)
        try:
            _write_generation(gen, rows, prev, prev_vectors, settings, dim, TOKENIZER_VERSION, report, encoder)
        except BaseException:
            shutil.rmtree(gen, ignore_errors=True)   # no half-written generation is left behind (Ctrl-C included)
            raise
        finally:
            if prev:
                prev.close()
        store.publish_generation(kb_dir, gen)
        tick("index", 1, 1)
    report.seconds = time.perf_counter() - started
    return report


def _read_files(files: list[tuple[Path, str]], max_bytes: int, report: IngestReport,
                tick: Progress) -> list[tuple[str, str, RawDocument]]:
    """(source, origin, raw) of every readable file, once per source; the others go to the report with the reason."""
    raws: list[tuple[str, str, RawDocument]] = []
    seen: set[str] = set()
    for i, (path, source) in enumerate(files):
        tick("read", i + 1, len(files))
        if source in seen:
            report.skipped.append((source, "same relative path given twice; first one kept"))
            continue
        seen.add(source)
        got = read_path(path, max_bytes)
        if isinstance(got, Skipped):
            report.skipped.append((source, got.reason))
            continue
        report.notes.extend(f"{source}: {note}" for note in got.notes)
        raws.append((source, str(path.resolve()), got))
    return raws


def _fill_vectors(rows: dict[str, _Row | _Kept], prev: store.KBStore | None, prev_vectors: np.ndarray | None,
                  known_vectors: Callable[[str], dict[str, np.ndarray]] | None, encoder: str, settings: Settings,
                  report: IngestReport, tick: Progress, device: str = "cpu"):
    """Give every new chunk its vector: the previous generation's for the same text (`prev_vectors`, when they are
    this encoder's), then shipped ones (`known_vectors`), and only then the encoder's. Returns the embedder when it
    was loaded (None otherwise). `device` places the torch encoder (kb.index.encoder.factory.index_device)."""
    from kb.index.encoder.factory import load_embedder

    missing = [(r, j) for r in rows.values() if isinstance(r, _Row) for j, v in enumerate(r.vectors) if v is None]
    if prev is not None and prev_vectors is not None and missing:
        # A changed document often keeps most of its chunks: reuse vectors by chunk text.
        by_text = prev.chunk_rows_by_text_hash()
        still = []
        for r, j in missing:
            hit = by_text.get(_sha(r.chunks[j].text))
            if hit is not None:
                r.vectors[j] = np.array(prev_vectors[hit])
            else:
                still.append((r, j))
        missing = still
    if missing and known_vectors is not None:
        known = known_vectors(encoder)
        if known:
            still = []
            for r, j in missing:
                hit = known.get(_sha(r.chunks[j].text))
                if hit is not None:
                    r.vectors[j] = np.array(hit, dtype=np.float32)
                    report.reused_shipped += 1
                else:
                    still.append((r, j))
            missing = still
    if not missing:
        return None
    embedder = load_embedder(settings.model, settings.cache_dir, purpose="index", encoder=encoder, device=device)
    texts = [r.chunks[j].text for r, j in missing]
    done = 0

    def on_batch(n: int) -> None:
        nonlocal done
        done += n
        tick("embed", done, len(texts))

    vecs = embedder.encode_passages(texts, progress=on_batch)
    for (r, j), v in zip(missing, vecs):
        r.vectors[j] = v
    report.embedded = len(texts)
    return embedder


def _write_generation(gen: Path, rows: dict[str, _Row | _Kept], prev: store.KBStore | None, prev_vectors: np.ndarray,
                      settings: Settings, dim: int, tokenizer: str, report: IngestReport, encoder: str) -> None:
    """Write the documents, chunks, vectors, both indexes and the manifest of a new generation into `gen` (kept
    documents straight from the previous generation's database and vectors)."""
    conn = store.create_database(gen)
    all_vectors: list[np.ndarray] = []
    all_tokens: list[list[str]] = []
    insert_chunk = ("INSERT INTO chunks(row, chunk_id, doc_id, ordinal, section, lang, text, text_hash, tokens)"
                    " VALUES (?,?,?,?,?,?,?,?,?)")
    with conn:
        for source in sorted(rows):
            r = rows[source]
            if isinstance(r, _Kept):
                content_hash, data = prev.conn.execute(
                    "SELECT content_hash, data FROM documents WHERE doc_id=?", (r.doc_id,)).fetchone()
                conn.execute("INSERT INTO documents(doc_id, source, content_hash, origin, data) VALUES (?,?,?,?,?)",
                             (r.doc_id, source, content_hash, r.origin, data))
                for row, *fields, tokens in prev.conn.execute(
                        "SELECT row, chunk_id, doc_id, ordinal, section, lang, text, text_hash, tokens FROM chunks"
                        " WHERE doc_id=? ORDER BY ordinal", (r.doc_id,)):
                    conn.execute(insert_chunk, (len(all_vectors), *fields, tokens))
                    all_vectors.append(prev_vectors[row])
                    all_tokens.append(_split_tokens(tokens))
                continue
            conn.execute(
                "INSERT INTO documents(doc_id, source, content_hash, origin, data) VALUES (?,?,?,?,?)",
                (r.doc.doc_id, source, r.doc.content_hash, r.origin, r.doc.model_dump_json()),
            )
            for c, toks, v in zip(r.chunks, r.tokens, r.vectors):
                conn.execute(insert_chunk, (len(all_vectors), c.chunk_id, r.doc.doc_id, c.ordinal, c.section, c.lang,
                                            c.text, _sha(c.text), " ".join(toks)))
                all_vectors.append(v)
                all_tokens.append(toks)
    conn.close()
    matrix = np.vstack(all_vectors).astype(np.float32) if all_vectors else np.zeros((0, dim), np.float32)
    np.save(gen / store.VECTORS, matrix)
    dense.build(matrix, gen)
    sparse.build(all_tokens, gen)
    store.write_manifest(gen, _manifest_with_checksums(gen, {
        "schema_version": SCHEMA_VERSION,
        "triage_kb": __version__,
        "model": settings.model,
        "encoder": encoder,     # the runtime that embedded the chunks; queries use the same (kb.index.hybrid)
        "dim": dim,
        "tokenizer": tokenizer,
        "extractor": EXTRACTOR_VERSION,
        "signatures": SIGNATURE_VERSION,     # the rules the matcher will read this KB's error lines with
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "documents": len(rows),
        "chunks": len(all_vectors),
    }))
    report.documents = len(rows)
    report.chunks = len(all_vectors)


def _manifest_with_checksums(gen: Path, manifest: dict) -> dict:
    return {**manifest, store.CHECKSUMS: store.generation_checksums(gen)}


def _dedupe_doc_ids(rows: dict[str, _Row | _Kept]) -> None:
    """Two sources can slug to the same id (a.md and a.txt): a new document whose id is taken (by a kept one, or by a
    new one earlier in source order) gets a suffix, so ids stay unique and a kept document's id never changes."""
    taken = {r.doc_id for r in rows.values() if isinstance(r, _Kept)}
    for source in sorted(rows):
        r = rows[source]
        if isinstance(r, _Kept):
            continue
        doc_id = r.doc.doc_id
        if doc_id in taken:
            doc_id = f"{doc_id}-{_sha(source)[:6]}"
            r.doc = r.doc.model_copy(update={"doc_id": doc_id})
            r.chunks = [c.model_copy(update={"doc_id": doc_id, "chunk_id": f"{doc_id}#{c.ordinal}"}) for c in r.chunks]
        taken.add(doc_id)


def _dimension(rows: dict[str, _Row | _Kept], embedder, prev: store.KBStore | None) -> int:
    if embedder is not None:
        return embedder.dim
    for r in rows.values():
        for v in (r.vectors if isinstance(r, _Row) else []):
            if v is not None:
                return int(v.shape[-1])
    return int(prev.manifest.get("dim", 384)) if prev else 384

