"""One KB size, measured in a fresh process: open, warm diagnose latency, memory, disk, FAISS recall@10.

    python -m bench.worker KB_DIR --queries Q.json --out OUT.json [--max-queries 200] [--budget-s 60]

Q.json: {"texts": [report files], "vectors": "query vectors .npy"}. OUT.json is rewritten after every phase, so a
run stopped by the parent (time or memory limit) still leaves what it measured and the phase it was in.
"""
from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np


def rss_mb() -> tuple[float, float]:
    """(current, peak) resident set size of this process in MiB."""
    fields = {}
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(("VmRSS:", "VmHWM:")):
                name, value, _ = line.split()
                fields[name[:-1]] = int(value) / 1024
    return round(fields["VmRSS"], 1), round(fields["VmHWM"], 1)


def percentiles(ms: list[float]) -> dict:
    if not ms:
        return {"n": 0}
    a = np.asarray(ms)
    return {"n": len(ms), "p50": round(float(np.percentile(a, 50)), 2), "p99": round(float(np.percentile(a, 99)), 2),
            "mean": round(float(a.mean()), 2)}


def timed(fn, items, budget_s: float, limit: int) -> list[float]:
    """Milliseconds of fn(item) over `items` (cycled) until `limit` calls or `budget_s` seconds."""
    out: list[float] = []
    started = time.perf_counter()
    while len(out) < limit and (time.perf_counter() - started < budget_s or len(out) < min(5, limit)):
        item = items[len(out) % len(items)]
        t = time.perf_counter()
        fn(item)
        out.append((time.perf_counter() - t) * 1000)
    return out


def exact_top10(vectors_path: Path, queries: np.ndarray, block: int = 131_072) -> np.ndarray:
    """Exhaustive top-10 rows per query, reading the .npy in blocks (plain reads: the file never stays mapped)."""
    with open(vectors_path, "rb") as fh:
        major, _ = np.lib.format.read_magic(fh)
        read_header = np.lib.format.read_array_header_1_0 if major == 1 else np.lib.format.read_array_header_2_0
        (n, dim), _, _ = read_header(fh)
        best_s = np.full((len(queries), 10), -np.inf, dtype=np.float32)
        best_r = np.zeros((len(queries), 10), dtype=np.int64)
        for start in range(0, n, block):
            m = min(block, n - start)
            x = np.fromfile(fh, dtype=np.float32, count=m * dim).reshape(m, dim)
            s = queries @ x.T
            if m > 10:
                top = np.argpartition(-s, 10, axis=1)[:, :10]
            else:
                top = np.tile(np.arange(m), (len(queries), 1))
            cand_s = np.concatenate([best_s, np.take_along_axis(s, top, 1)], axis=1)
            cand_r = np.concatenate([best_r, top + start], axis=1)
            keep = np.argsort(-cand_s, axis=1)[:, :10]
            best_s, best_r = np.take_along_axis(cand_s, keep, 1), np.take_along_axis(cand_r, keep, 1)
    return best_r


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("kb_dir", type=Path)
    ap.add_argument("--queries", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--max-queries", type=int, default=200)
    ap.add_argument("--budget-s", type=float, default=60.0)
    ap.add_argument("--warmup", type=int, default=3, help="reports diagnosed before timing starts")
    args = ap.parse_args()
    result: dict = {"phase": "open"}

    def save(phase: str) -> None:
        result["phase"] = phase
        result["rss_mb"], result["peak_rss_mb"] = rss_mb()
        tmp = args.out.with_suffix(".tmp")
        tmp.write_text(json.dumps(result, indent=1))
        os.replace(tmp, args.out)

    from kb.config import Settings
    from kb.index import store
    from kb.index.hybrid import KnowledgeBase
    from kb.index.tokenize import tokenize, use_cache_dir

    settings = Settings()
    use_cache_dir(settings.cache_dir)
    spec = json.loads(args.queries.read_text())
    texts = [Path(p).read_text(encoding="utf-8", errors="replace") for p in spec["texts"]]
    qvecs = np.load(spec["vectors"])
    save("open")

    t = time.perf_counter()
    kb = KnowledgeBase.open(args.kb_dir, settings)
    result["open_s"] = round(time.perf_counter() - t, 2)
    result["index"] = kb.dense.describe()
    result["chunks"] = len(kb.dense)
    files = {f.relative_to(kb.store.gen).parts[0]: 0 for f in kb.store.gen.rglob("*") if f.is_file()}
    for f in kb.store.gen.rglob("*"):
        if f.is_file():
            files[f.relative_to(kb.store.gen).parts[0]] += f.stat().st_size
    result["files_mb"] = {name: round(size / 2**20, 1) for name, size in sorted(files.items())}
    result["disk_mb"] = round(sum(files.values()) / 2**20, 1)
    result["rss_open_mb"] = rss_mb()[0]
    save("retrieval")

    # The retrieval layer on its own: query encoding, dense search, BM25 search (256 chunks each, as the matcher).
    kb.embed_query(texts[0])
    few = min(len(texts), args.max_queries)
    result["embed_ms"] = percentiles(timed(kb.embed_query, texts, args.budget_s / 6, few))
    vecs = qvecs[:len(texts)]      # the same reports' query vectors, encoded by the parent
    result["dense_ms"] = percentiles(timed(lambda v: kb.dense.search(v, 256), vecs, args.budget_s / 6, 200))
    tokens = [tokenize(x) for x in texts]
    result["bm25_ms"] = percentiles(timed(lambda tk: kb.sparse.search(tk, 256), tokens, args.budget_s / 6, 200))
    result["rss_retrieval_mb"] = rss_mb()[0]   # the KB, the query encoder and the tokenizer's dictionary loaded
    save("diagnoser")

    from kb.diagnose import Diagnoser

    t = time.perf_counter()
    diagnoser = Diagnoser(kb)
    result["diagnoser_init_s"] = round(time.perf_counter() - t, 2)
    save("warm-up")
    for x in texts[:args.warmup]:
        diagnoser.diagnose(x)
    result["rss_warm_mb"] = rss_mb()[0]
    save("diagnose")
    result["diagnose_ms"] = percentiles(timed(diagnoser.diagnose, texts, args.budget_s, args.max_queries))
    result["rss_after_mb"], result["peak_before_recall_mb"] = rss_mb()
    save("recall")

    gen = store.current_generation(args.kb_dir)
    truth = exact_top10(gen / store.VECTORS, qvecs)
    got = [[r for r, _ in kb.dense.search(q, 10)] for q in qvecs]
    result["recall10"] = round(float(np.mean([len(set(g) & set(t)) / 10 for g, t in zip(got, truth)])), 4)
    result["recall_queries"] = len(qvecs)
    save("done")
    kb.close()


if __name__ == "__main__":
    main()
