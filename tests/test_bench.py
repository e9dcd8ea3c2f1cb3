"""The benchmark's parts: generated postmortems, the automatic FAISS index choice, KBs written at size, and the
runner end to end at tiny sizes."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from unittest import mock

import numpy as np
import pytest

from bench.generate import generate, make_document
from bench.kbwriter import write_kb
from bench.vectors import GeneratedEmbedder, generated_vectors
from ingest.build import ingest
from ingest.extract.document import extract_document
from ingest.read import read_path
from kb.index import dense, store
from kb.index.hybrid import KnowledgeBase

ROOT = Path(__file__).resolve().parents[1]


def cone_bases(n: int = 300, dim: int = 384, seed: int = 0) -> np.ndarray:
    """Unit vectors crowded in a cone as e5's are (median pairwise cosine ~0.78), without loading the model."""
    rng = np.random.default_rng(seed)
    mean = rng.standard_normal(dim)
    mean *= 37 / np.linalg.norm(mean)
    v = mean + rng.standard_normal((n, dim))
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)


def test_generated_postmortems_parse_in_both_languages_and_every_format(tmp_path):
    paths = generate(tmp_path, 60, seed=3)
    assert [p.name for p in paths] == [make_document(i, 3)[0] for i in range(60)], "deterministic in (seed, index)"
    assert {p.suffix for p in paths} == {".md", ".txt", ".html"}
    langs = set()
    for path in paths:
        doc = extract_document(read_path(path, 5_000_000), path.name, set())
        assert doc.title and doc.error_lines and doc.root_cause and doc.fixes, path.name
        langs.update(doc.langs)
        if path.stem.endswith("_zh"):
            assert "zh" in doc.langs, path.name
    assert {"zh", "en"} <= langs
    # Documents of one failure family still differ in their error lines (shapes, ranks, sizes, paths).
    oom = [read_path(p, 5_000_000).text for p in paths if "_cuda_oom_" in p.name]
    assert len(oom) >= 2 and len({t.split("Tried to allocate")[1][:40] for t in oom}) == len(oom)


def _recall(index: dense.DenseIndex, vectors: np.ndarray, queries: np.ndarray) -> float:
    truth = np.argsort(-(queries @ vectors.T), axis=1)[:, :10]
    got = [[r for r, _ in index.search(q, 10)] for q in queries]
    return float(np.mean([len(set(g) & set(t)) / 10 for g, t in zip(got, truth)]))


def test_index_type_follows_size_and_keeps_recall_at_10(tmp_path):
    bases = cone_bases()
    queries = generated_vectors(bases, 60, seed=99)
    for n, kind in ((2_000, "flat"), (dense.EXACT_MAX + 15_000, "ivf-sq4")):
        gen = tmp_path / f"gen-{n}"
        gen.mkdir()
        vectors = generated_vectors(bases, n, seed=n)
        np.save(gen / store.VECTORS, vectors)
        assert dense.build(vectors, gen)["kind"] == kind
        index = dense.DenseIndex(gen)
        assert index.kind == kind and len(index) == n
        assert _recall(index, vectors, queries) >= 0.95
        # Scores are exact cosines whatever the index (the matcher's thresholds rely on them).
        hits = index.search(queries[0], 5)
        assert np.allclose([s for _, s in hits], vectors[[r for r, _ in hits]] @ queries[0], atol=1e-5)
        index.close()


def test_exact_search_gives_faiss_flat_rows_and_scores_without_importing_it(tmp_path):
    import faiss

    bases = cone_bases()
    vectors = generated_vectors(bases, 3_000, seed=3)
    np.save(tmp_path / store.VECTORS, vectors)
    dense.build(vectors, tmp_path)
    index = dense.DenseIndex(tmp_path)
    assert index.index is None and index.kind == "flat"          # answered from vectors.npy, FAISS never asked
    reference = faiss.read_index(str(tmp_path / dense.INDEX_FILE))
    for q in generated_vectors(bases, 40, seed=11):
        ours = index.search(q, 25)
        scores, rows = reference.search(q.reshape(1, -1), 25)
        assert [r for r, _ in ours] == rows[0].tolist()
        assert np.allclose([s for _, s in ours], scores[0], atol=1e-5)
    assert len(index.search(vectors[0], 5000)) == 3_000


@pytest.fixture(scope="module")
def small_kb(tmp_path_factory, cache_dir) -> Path:
    """A KB ingested from generated postmortems, with a stand-in for the embedding model (fast, deterministic)."""
    from kb.config import Settings

    root = tmp_path_factory.mktemp("bench-kb")
    generate(root / "corpus", 12, seed=5)
    stand_in = GeneratedEmbedder(cone_bases())
    with mock.patch("kb.index.encoder.factory.load_embedder", lambda *a, **k: stand_in):
        ingest([root / "corpus"], root / "kb", Settings(cache_dir=cache_dir, kb=None))
    return root / "kb"


def test_kb_written_past_the_exact_limit_is_approximate_and_reads_lazily(small_kb, tmp_path, settings):
    info = write_kb(small_kb, tmp_path / "big", dense.EXACT_MAX + 1, bases=cone_bases(), seed=1)
    assert info["vectors"] == "generated" and info["index"]["kind"] == "ivf-sq4"
    assert info["chunks"] > dense.EXACT_MAX
    kb = KnowledgeBase.open(tmp_path / "big", settings)
    source = KnowledgeBase.open(small_kb, settings)
    assert source.manifest.get("encoder") and kb.encoder == source.encoder, "queries encoded as the source's chunks"
    source.close()
    docs = kb.documents()
    assert len(docs) == info["documents"] and len(docs.values()) == info["documents"]
    sources = [d.source for d in docs.values()]
    assert sources == sorted(sources) and sum(s.startswith("copy") for s in sources) > 0
    first = next(iter(docs))
    assert docs[first].doc_id == first and first in docs and "no-such-doc" not in docs
    rows = kb.store.chunks_of(first)
    assert all(kb.row_doc[sc.row] == first for sc in rows)
    assert len(kb.row_doc) == info["chunks"]
    assert kb.store.doc_tokens()[first] >= set(rows[0].chunk.text.lower().split()) & kb.sparse.vocab.keys()
    hits = kb.search("CUDA out of memory. Tried to allocate 2.00 GiB", top=3)
    assert hits and all(h.doc_id in docs for h in hits)
    kb.close()


def test_quick_bench_run_writes_results_for_every_section(tmp_path, cache_dir):
    env = {**os.environ, "TRIAGE_CACHE_DIR": str(cache_dir)}
    out = tmp_path / "RESULTS.md"
    from bench.report import BY_HAND

    hand = f"## 7. Measured on a GPU\n\n{BY_HAND}\n\n| batch | chunks/s |\n| --- | --- |\n| 1024 | 2601 |"
    out.write_text(f"# old\n\n## 2. Ingest\n\nstale figures\n\n{hand}\n")
    proc = subprocess.run([sys.executable, "-m", "bench.run", "--quick", "--out", str(out), "--work",
                           str(tmp_path / "work")], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    text = out.read_text()
    for head in ("## Targets", "## 2. Ingest", "## 3. Query latency", "## 4. Service", "## 5. Cold start"):
        assert head in text
    assert hand in text and "stale figures" not in text          # a section measured by hand is kept as it was
    results = json.loads((tmp_path / "work" / "results.json").read_text())
    assert results["machine"]["cores"] >= 1 and results["machine"]["python"]
    real = results["ingest"]["real"]
    assert real["embedded"] == real["chunks"] > 0 and real["unchanged"]["embedded"] == 0
    assert [x["documents"] for x in results["ingest"]["model_free"]] == [20, 40]
    rows = results["scale"]["rows"]
    assert [r["build"]["chunks"] >= r["target"] for r in rows] == [True, True]
    for row in rows:
        assert row["phase"] == "done" and row["recall10"] == 1.0 and row["diagnose_ms"]["n"] >= 1
        assert 0 < row["rss_after_mb"] < 2000 and row["disk_mb"] > 0
    svc = results["service"]
    assert "skipped" in svc or svc["errors"] == 0
    assert results["cold"]["median_s"] > 0 and results["cold"]["zh"]["median_s"] > 0


def test_import_scale_imports_every_issue_and_a_second_run_costs_one_request(tmp_path):
    """bench/import_scale.py at a tiny size (model-free): the fake API in its own process, every thread resolved
    (a maintainer's answer), two requests per issue plus the listing, and a second run of one 304."""
    from bench.import_scale import run

    got = run(12, tmp_path, model_free=True)
    assert (got["issues"], got["documents"], got["resolved"], got["unresolved"]) == (12, 12, 12, 0)
    assert got["chunks"] == got["embedded"] > 12 and got["peak_rss_mib"] > 0
    assert got["requests"] == got["requests_served"] - 1 == 1 + 2 * 12 + 1, "listing, comments and timeline each"
    assert got["second_run"] == {**got["second_run"], "requests": 1, "not_modified": 1, "embedded": 0, "fetched": 0}


def test_gpu_target_reads_the_newest_h100_run(tmp_path):
    from bench import report

    assert report._gpu_target(tmp_path)[2] is None
    run = {"best_chunks_per_s": 2601.0, "dtype": "float16", "chunks": 55269}
    (tmp_path / "2026-11-26-encode-h100.json").write_text(json.dumps(run))
    name, measured, met, why = report._gpu_target(tmp_path)
    assert (met, measured.split(" chunks/s")[0]) == (False, "2,601") and "tokenizer" in why
    (tmp_path / "2026-11-27-encode-h100.json").write_text(json.dumps({**run, "best_chunks_per_s": 6225.0}))
    (tmp_path / "2026-11-28-encode-h200.json").write_text(json.dumps({**run, "best_chunks_per_s": 1.0}))
    assert report._gpu_target(tmp_path)[1:3] == ("6,225 chunks/s, float16, 55,269 chunks (2026-11-27, by hand; "
                                                 "section 7)", True)


def test_a_partial_run_keeps_what_it_did_not_measure():
    """`bench.run --only cold` rewrites the cold-start section and its target; the quality and ingest sections and
    their targets, which it did not run, stay as the earlier file had them (not "not run")."""
    from bench.report import render

    previous = ("# Benchmark results\n\nold header\n\n## Targets\n\n| target | measured | | why (when not met) |\n"
                "| --- | --- | --- | --- |\n"
                "| leave-one-set-out accuracy ≥ 0.85 (pooled) | 0.680 over 3,863 reports | **not met** | why |\n"
                "| wrong answers on positives ≤ 3% | 1.5% | **met** |  |\n"
                "| answers at confidence ≥ 0.9: ≥ 95% right | 177/188 | **not met** | why |\n"
                "| ingest ≥ 50 chunks/s on CPU | 48.4 chunks/s | **not met** | ingest why |\n"
                "| cold `diagnose` ≤ 0.6 s | 1.12 s median of 5 | **not met** | old reason |\n\n"
                "## 1. Quality: `triage eval` on the dev set, and leave one set out\n\nold quality figures\n\n"
                "### Leave one set out\n\nold table\n\n"
                "## 2. Ingest\n\nold ingest figures\n\n"
                "## 5. Cold start\n\nold cold figures\n")
    machine = {"date": "2026-11-27 17:26 UTC", "cpu": "cpu", "cores": 2, "ram_gib": 23.5, "os": "Linux",
               "python": "3.11", "versions": {}, "commit": "abc1234", "uncommitted": False, "load_start": 1.0}
    r = {"machine": machine, "command": "python -m bench.run --only cold", "minutes": 0.2, "errors": {},
         "cold": {"example": "ex.txt", "kb": "bundled starter KB", "runs_s": [0.5, 0.5, 0.5], "median_s": 0.5}}
    text = render(r, previous)
    assert "old quality figures" in text and "### Leave one set out\n\nold table" in text
    assert "| leave-one-set-out accuracy ≥ 0.85 (pooled) | 0.680 over 3,863 reports | **not met** | why |" in text
    assert text.count("leave-one-set-out") == 1 and "| wrong answers on positives ≤ 3% | 1.5% |" in text
    assert "old cold figures" not in text and "**median 0.5 s**" in text
    assert "| cold `diagnose` ≤ 0.6 s | 0.50 s median of 3 | **met** |" in text and "1.12 s" not in text
    assert "kept as the earlier file had them" in text and "1. quality" in text
    r["cold"]["zh"] = {"example": "zh.txt", "runs_s": [0.7], "median_s": 0.7}
    both = render(r, previous)
    assert "| cold `diagnose` ≤ 0.6 s | 0.50 s median of 3 (a Chinese report: 0.70 s) | **not met** |" in both
    assert "`diagnose zh.txt`: 0.7 s; **median 0.7 s**" in both
    # a part whose targets are written only from its own figures (ingest) keeps its earlier rows too
    assert "| ingest ≥ 50 chunks/s on CPU | 48.4 chunks/s | **not met** | ingest why |" in text
    assert "old ingest figures" in text and "2. ingest" in text
    # with no earlier file, a part that did not run says so
    assert "Not run." in render(r, "")
