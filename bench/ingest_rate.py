"""Ingest throughput against the embedding model's raw encode rate, and the rate of an unchanged re-ingest.

Two kinds of run, both through `ingest.build.ingest` on generated postmortems:

* real: the first documents with the real embedding model, end to end, as many as it can embed in a time budget
  (a pilot encode tells how many that is on this machine right now); then the model's raw encode rate on a random
  sample of the same chunk texts (same call, same batching, model loaded for both). On 2 cores the model encodes
  ~20 chunks/s of these postmortems when the machine is idle and far fewer when it is shared, which is why 10k
  documents (55k chunks), and on a busy machine 1k, cannot be embedded for real within the benchmark's 30 minutes.
* model-free: 1k and 10k documents with the embedding step answered by a stand-in (bench/vectors.py) whose time is
  measured and taken out: what remains is ingest's own work (read, clean, extract, chunk, tokenize, SQLite, FAISS,
  BM25). Adding the time the real model needs for the same number of chunks at the measured raw rate gives the
  projected end-to-end rate. Reported as such, never as a measurement.
"""
from __future__ import annotations

import math
import random
import shutil
import time
from pathlib import Path
from unittest import mock

import numpy as np

from bench.generate import generate
from bench.vectors import GeneratedEmbedder
from kb.config import Settings
from kb.index import store


def _fresh(path: Path) -> Path:
    shutil.rmtree(path, ignore_errors=True)
    return path


def corpus(work: Path, docs: int, seed: int, name: str | None = None) -> Path:
    folder = _fresh(work / (name or f"corpus-{docs}"))
    generate(folder, docs, seed)
    return folder


def _timed_ingest(folder: Path, kb_dir: Path, settings: Settings):
    from ingest.build import ingest

    started = time.perf_counter()
    report = ingest([folder], kb_dir, settings)
    return report, time.perf_counter() - started


def _reingest(folder: Path, kb_dir: Path, settings: Settings) -> dict:
    report, seconds = _timed_ingest(folder, kb_dir, settings)
    return {"documents": report.documents, "unchanged": len(report.unchanged), "embedded": report.embedded,
            "seconds": round(seconds, 2), "docs_per_s": round(report.documents / seconds, 1)}


def _pilot(work: Path, settings: Settings, seed: int, docs: int = 40, sample: int = 48) -> tuple[float, float]:
    """(raw encode chunks/s, chunks per document) from the first `docs` generated postmortems, chunked by ingest
    itself (a stand-in answers its embedding step); loads the real model and times it on a sample of the chunks."""
    from kb.index.encoder.factory import load_embedder

    folder = corpus(work, docs, seed, name="corpus-pilot")
    kb_dir = _fresh(work / "kb-pilot")
    stand_in = GeneratedEmbedder(np.eye(1, 384, dtype=np.float32))
    with mock.patch("kb.index.encoder.factory.load_embedder", lambda *a, **k: stand_in):
        _timed_ingest(folder, kb_dir, settings)
    st = store.open_store(kb_dir)
    texts = [t for (t,) in st.conn.execute("SELECT text FROM chunks")]
    st.close()
    embedder = load_embedder(settings.model, settings.cache_dir, purpose="index", encoder=_encoder(settings))
    picked = random.Random(seed).sample(texts, min(sample, len(texts)))
    started = time.perf_counter()
    embedder.encode_passages(picked)
    return len(picked) / (time.perf_counter() - started), len(texts) / docs


def run_real(work: Path, settings: Settings, embed_budget_s: float, min_chunks: int, max_docs: int, sample: int,
             seed: int) -> dict:
    """Ingest with the real model as many documents as it can embed in about `embed_budget_s` on this machine now
    (judged from a pilot encode), but enough for `min_chunks` chunks and at most `max_docs`; the model is loaded
    before the timed ingest."""
    from kb.index.encoder.factory import load_embedder

    pilot_rate, per_doc = _pilot(work, settings, seed, sample=min(48, sample))
    min_docs = math.ceil(1.15 * min_chunks / per_doc)   # chunks per document vary: keep a margin
    docs = max(min_docs, min(max_docs, int(embed_budget_s * pilot_rate / per_doc)))
    folder = corpus(work, docs, seed, name="corpus-real")
    kb_dir = _fresh(work / "kb-real")
    report, seconds = _timed_ingest(folder, kb_dir, settings)
    st = store.open_store(kb_dir)
    texts = [t for (t,) in st.conn.execute("SELECT text FROM chunks ORDER BY row")]
    st.close()
    picked = random.Random(seed).sample(texts, min(sample, len(texts)))
    encoder = _encoder(settings)
    embedder = load_embedder(settings.model, settings.cache_dir, purpose="index", encoder=encoder)
    started = time.perf_counter()
    embedder.encode_passages(picked)
    raw_s = time.perf_counter() - started
    raw_rate = len(picked) / raw_s
    chunks_per_s = report.chunks / seconds
    return {
        "encoder": encoder, "compare": compare_encoders(settings, picked[: min(len(picked), 64)]),
        "documents": report.documents, "chunks": report.chunks, "embedded": report.embedded,
        "seconds": round(seconds, 1), "docs_per_s": round(report.documents / seconds, 2),
        "chunks_per_s": round(chunks_per_s, 2), "raw_sample": len(picked), "raw_seconds": round(raw_s, 1),
        "raw_chunks_per_s": round(raw_rate, 2), "ratio": round(chunks_per_s / raw_rate, 3),
        "mean_chunk_chars": round(sum(map(len, texts)) / max(len(texts), 1)),
        "pilot_chunks_per_s": round(pilot_rate, 2), "embed_budget_s": embed_budget_s, "min_docs": min_docs,
        "max_docs": max_docs,
        "unchanged": _reingest(folder, kb_dir, settings), "kb": str(kb_dir),
    }


def _encoder(settings: Settings) -> str:
    from kb.index.encoder.factory import resolve_encoder

    return resolve_encoder(settings.model, settings.cache_dir, settings.encoder)


def compare_encoders(settings: Settings, texts: list[str], rounds: int = 2) -> dict:
    """Raw encode rate of the float32 (torch) and int8 (ONNX Runtime) index encoders on the same texts, in one
    run, alternating (fp32, int8, fp32, int8, ...) so that a change in the machine's load hits both alike; each
    encoder loaded and warmed before its first timed round."""
    from kb.index.encoder.factory import ONNX_INT8, TORCH, load_embedder, resolve_encoder

    if resolve_encoder(settings.model, settings.cache_dir, "auto") != ONNX_INT8:
        return {"error": "the int8 encoder is not used on this machine"}
    encoders = {name: load_embedder(settings.model, settings.cache_dir, purpose="index", encoder=name)
                for name in (TORCH, ONNX_INT8)}
    seconds = {name: 0.0 for name in encoders}
    for name, e in encoders.items():
        e.encode_passages(texts[:4])
    for _ in range(rounds):
        for name, e in encoders.items():
            started = time.perf_counter()
            e.encode_passages(texts)
            seconds[name] += time.perf_counter() - started
    rate = {name: round(rounds * len(texts) / s, 2) for name, s in seconds.items()}
    return {"texts": len(texts), "rounds": rounds, "fp32_chunks_per_s": rate[TORCH],
            "int8_chunks_per_s": rate[ONNX_INT8], "int8_vs_fp32": round(rate[ONNX_INT8] / rate[TORCH], 2)}


class _TimedStandIn(GeneratedEmbedder):
    """The stand-in embedder, keeping the time spent in it so that it can be taken out."""

    seconds = 0.0

    def encode_passages(self, texts, batch_size=32, progress=None):
        started = time.perf_counter()
        try:
            return super().encode_passages(texts, batch_size, progress)
        finally:
            self.seconds += time.perf_counter() - started


def run_model_free(work: Path, settings: Settings, docs: int, bases: np.ndarray, raw_rate: float, seed: int) -> dict:
    folder = corpus(work, docs, seed)
    kb_dir = _fresh(work / f"kb-docs-{docs}")
    stand_in = _TimedStandIn(bases)
    with mock.patch("kb.index.encoder.factory.load_embedder", lambda *a, **k: stand_in):
        report, seconds = _timed_ingest(folder, kb_dir, settings)
    own = seconds - stand_in.seconds
    projected = own + report.embedded / raw_rate
    return {
        "documents": report.documents, "chunks": report.chunks, "embedded": report.embedded,
        "seconds_without_model": round(own, 1),
        "docs_per_s_without_model": round(report.documents / own, 1),
        "chunks_per_s_without_model": round(report.chunks / own, 1),
        "projected_seconds": round(projected, 1),
        "projected_docs_per_s": round(report.documents / projected, 2),
        "projected_chunks_per_s": round(report.chunks / projected, 2),
        "projected_ratio": round((report.chunks / projected) / raw_rate, 3),
        "unchanged": _reingest(folder, kb_dir, settings), "kb": str(kb_dir),
    }
