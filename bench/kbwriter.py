"""Write a knowledge base of a chosen size directly with the store's own functions, without embedding anything.

The documents and chunks come from a KB built by ingest (real extraction, chunking and tokens); when more chunks
are wanted than it has, its documents are repeated under new ids (`<doc_id>~<k>`, sources under `copy<k>/`).
Vectors are either the source KB's own (real embeddings; only while no repetition is needed) or generated
(bench/vectors.py), written straight into a memory-mapped vectors.npy. The indexes are built by kb.index.dense
and kb.index.sparse exactly as ingest builds them, so the index type is the one ingest would choose at that size.
"""
from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from bench.vectors import generated_vectors
from kb import __version__
from kb.index import dense, sparse, store
from kb.index.tokenize import TOKENIZER_VERSION
from kb.models import SCHEMA_VERSION, Document


def _source_rows(src: store.KBStore) -> tuple[list[tuple], dict[str, list[tuple]]]:
    docs = src.conn.execute(
        "SELECT doc_id, source, content_hash, origin, data FROM documents ORDER BY source").fetchall()
    chunks: dict[str, list[tuple]] = {}
    for row in src.conn.execute("SELECT row, chunk_id, doc_id, ordinal, section, lang, text, text_hash, tokens "
                                "FROM chunks ORDER BY row"):
        chunks.setdefault(row[2], []).append(row)
    return docs, chunks


def _plan(docs: list[tuple], chunks: dict[str, list[tuple]], target: int) -> Iterator[tuple[int, tuple]]:
    """(copy number, source document row) until the chunk count reaches `target`."""
    total, k = 0, 0
    while total < target:
        for doc in docs:
            yield k, doc
            total += len(chunks.get(doc[0], ()))
            if total >= target:
                return
        k += 1


def write_kb(src_dir: Path, kb_dir: Path, target_chunks: int, *, bases: np.ndarray | None = None,
             seed: int = 0) -> dict:
    """Write a KB of at least `target_chunks` chunks (whole documents) into `kb_dir`.

    Args:
        src_dir: a KB built by ingest, whose documents and chunks are copied (and repeated when needed).
        bases: real unit vectors to generate vectors from; None copies the source KB's vectors, which is only
            possible while no document needs repeating.

    Returns:
        {"documents", "chunks", "vectors": "real" | "generated", "index": dense.choose(...), "build_s"}
    """
    started = time.perf_counter()
    src = store.open_store(src_dir)
    docs, chunks = _source_rows(src)
    plan = list(_plan(docs, chunks, target_chunks))
    n = sum(len(chunks.get(doc[0], ())) for _, doc in plan)
    if bases is None and any(k for k, _ in plan):
        raise ValueError(f"{src_dir} has fewer than {target_chunks} chunks: generated vectors are needed")
    kind = "real" if bases is None else "generated"
    dim = int(src.manifest.get("dim", 384))
    kb_dir.mkdir(parents=True, exist_ok=True)
    store.remove_stale_generations(kb_dir, keep=None)
    gen = store.new_generation_dir(kb_dir)
    conn = store.create_database(gen)
    vectors = np.lib.format.open_memmap(gen / store.VECTORS, mode="w+", dtype=np.float32, shape=(n, dim))
    src_vectors = src.vectors()
    token_lists: list[list[str]] = []
    # Repeated chunks share one token list: a million lists of freshly split strings would not fit in memory.
    split_cache: dict[int, list[str]] = {}
    row = 0
    with conn:
        for k, (doc_id, source, content_hash, origin, data) in plan:
            rows = chunks.get(doc_id, [])
            if k:
                doc = Document.model_validate_json(data)
                doc_id, source = f"{doc_id}~{k}", f"copy{k}/{source}"
                data = doc.model_copy(update={"doc_id": doc_id, "source": source}).model_dump_json()
            conn.execute("INSERT INTO documents(doc_id, source, content_hash, origin, data) VALUES (?,?,?,?,?)",
                         (doc_id, source, content_hash, origin, data))
            conn.executemany(
                "INSERT INTO chunks(row, chunk_id, doc_id, ordinal, section, lang, text, text_hash, tokens)"
                " VALUES (?,?,?,?,?,?,?,?,?)",
                [(row + i, f"{doc_id}#{c[3]}", doc_id, c[3], c[4], c[5], c[6], c[7], c[8]) for i, c in enumerate(rows)])
            for c in rows:
                if bases is None:
                    vectors[row] = src_vectors[c[0]]
                toks = split_cache.get(c[0])
                if toks is None:
                    toks = split_cache[c[0]] = c[8].split(" ") if c[8] else []
                token_lists.append(toks)
                row += 1
    conn.close()
    src.close()
    if bases is not None:
        generated_vectors(bases, n, seed, out=vectors)
    vectors.flush()
    choice = dense.build(vectors, gen)
    del vectors
    sparse.build(token_lists, gen)
    store.write_manifest(gen, {
        "schema_version": SCHEMA_VERSION, "triage_kb": __version__, "model": src.manifest.get("model"), "dim": dim,
        # the runtime that embedded the source: queries must be encoded by the same one (without it the KB read as
        # float32's, and the scale section timed torch-free int8 KBs with float32 queries, ~2.7x slower)
        "encoder": src.manifest.get("encoder"), "extractor": src.manifest.get("extractor"),
        "signatures": src.manifest.get("signatures"),
        "tokenizer": TOKENIZER_VERSION, "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "documents": len(plan), "chunks": n, "bench_vectors": kind,
    })
    store.publish_generation(kb_dir, gen)
    return {"documents": len(plan), "chunks": n, "vectors": kind, "index": choice,
            "build_s": round(time.perf_counter() - started, 1)}
