"""`triage import github` at scale: N issues with comments from the fake GitHub API (tests/fakes/github_issues.py).

    python -m bench.import_scale --issues 1000                      # real embedding model, end to end
    python -m bench.import_scale --issues 10000 --model-free        # the model answered by a stand-in, its time taken out

The fake API runs in its own process (a real HTTP server on 127.0.0.1, 100 items a page as GitHub gives them), so
that the importer's peak RSS (resource.getrusage, this process) is the importer's own. Each issue is a generated
postmortem (bench/generate.py; Markdown or text, zh and en) cut in two: its first half (title, symptoms, traceback)
is the opening post, its second half a maintainer's comment (MEMBER) that names the cause and fix; then a "+1" from
someone else and the reporter's "thanks, that fixed it"; the issue is closed. A second run with nothing changed
follows the first (all conditional requests, answered 304).

Reported (one JSON object on stdout): wall seconds, issues, chunks embedded, chunks/s, requests, 304s, peak RSS, the
second run's seconds and requests, and the load average before and after. With --model-free the embedding step is
answered by a stand-in (bench/vectors.py) whose time is measured and subtracted: what remains is the importer's own
work (HTTP, threads to documents, ingest's chunking, SQLite, FAISS, BM25), and peak RSS then excludes the model.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import re
import resource
import shutil
import sys
import time
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parents[1]
REPO = "bench/trainer"


def _issue_texts(i: int, seed: int) -> tuple[str, str, str]:
    """(title, opening post, maintainer's answer) of issue i, from generated postmortem number i (HTML skipped)."""
    from bench.generate import make_document

    j = i
    while True:
        name, text = make_document(j, seed)
        if not name.endswith(".html"):
            break
        j += 1_000_003                       # another document of the same generator, not HTML
    lines = text.strip().splitlines()
    title = re.sub(r"^#+\s*", "", lines[0]).strip() or f"failure {i}"
    rest = lines[1:]
    cut = len(rest) // 2
    # Keep fenced blocks whole: cut after the fence that closes the block the midpoint falls in.
    fences = [k for k, ln in enumerate(rest) if ln.strip().startswith("```")]
    inside = [k for k in fences if k <= cut]
    if len(inside) % 2 == 1:
        after = [k for k in fences if k > cut]
        cut = after[0] + 1 if after else len(rest)
    body = "\n".join(rest[:cut]).strip()
    answer = ("This is caused by what the notes below describe; the fix is what they say.\n\n"
              + "\n".join(rest[cut:]).strip())
    return title, body, answer


def _serve(issues: int, seed: int, conn) -> None:
    """The fake API's process: fill it, say where it listens, serve until told to stop."""
    sys.path.insert(0, str(ROOT))
    from tests.fakes.github_issues import FakeIssuesAPI

    with FakeIssuesAPI(token="bench-token", page_size=100) as api:
        for i in range(1, issues + 1):
            title, body, answer = _issue_texts(i, seed)
            api.add_issue(REPO, i, title, body, f"user{i % 997}")
            api.add_comment(REPO, i, "+1, same here", f"other{i % 101}")
            api.add_comment(REPO, i, answer, "maint", "MEMBER")
            api.add_comment(REPO, i, "Thanks, that fixed it.", f"user{i % 997}")
            api.close(REPO, i)
        conn.send(api.url)
        conn.recv()                            # stop
        conn.send(len(api.requests))


class _TimedStandIn:
    """The stand-in embedder (bench.vectors.GeneratedEmbedder), keeping the time spent in it."""

    def __init__(self):
        import numpy as np

        from bench.vectors import GeneratedEmbedder

        self.inner = GeneratedEmbedder(np.eye(1, 384, dtype=np.float32))
        self.name = self.inner.name
        self.dim = self.inner.dim
        self.seconds = 0.0

    def encode_passages(self, texts, batch_size=32, progress=None):
        started = time.perf_counter()
        try:
            return self.inner.encode_passages(texts, batch_size, progress)
        finally:
            self.seconds += time.perf_counter() - started

    def encode_queries(self, texts):
        return self.inner.encode_queries(texts)


def _peak_rss_mib() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)       # Linux: KiB


def run(issues: int, work: Path, model_free: bool, seed: int = 11) -> dict:
    from ingest.github_import import import_github
    from kb.config import Settings
    from kb.index import store

    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe()
    started = time.perf_counter()
    server = ctx.Process(target=_serve, args=(issues, seed, child), daemon=True)
    server.start()
    url = parent.recv()
    fill_s = time.perf_counter() - started
    kb_dir = work / f"kb-{issues}{'-model-free' if model_free else ''}"
    shutil.rmtree(kb_dir, ignore_errors=True)
    settings = Settings(cache_dir=ROOT / ".cache" / "test", github_api_url=url, github_token="bench-token")
    load_before = os.getloadavg()[0]
    stand_in = _TimedStandIn() if model_free else None
    patch = mock.patch("kb.index.encoder.factory.load_embedder", lambda *a, **k: stand_in) if model_free else None
    # Every generation the import publishes (one per 100 threads): how long it took (less the stand-in's time) at
    # which KB size, and the peak RSS so far. Each one rebuilds the whole KB's indexes, so this is what grows with N.
    from ingest import github_import

    commits: list[dict] = []
    plain_commit = github_import._Importer.commit

    def timed_commit(importer) -> None:
        threads = len(importer.pending)
        if not threads:
            return plain_commit(importer)
        model_before = stand_in.seconds if stand_in else 0.0
        t = time.perf_counter()
        plain_commit(importer)
        seconds = time.perf_counter() - t
        model = (stand_in.seconds - model_before) if stand_in else 0.0
        commits.append({"threads": threads, "documents": importer.report.documents,
                        "seconds": round(seconds - model, 2), "model_seconds": round(model, 2),
                        "peak_rss_mib": _peak_rss_mib()})

    timing = mock.patch.object(github_import._Importer, "commit", timed_commit)
    timing.start()
    try:
        if patch:
            patch.start()
        t0 = time.perf_counter()
        first = import_github([REPO], kb_dir, settings)
        first_s = time.perf_counter() - t0
        rss_first = _peak_rss_mib()
        t0 = time.perf_counter()
        second = import_github([REPO], kb_dir, settings)
        second_s = time.perf_counter() - t0
    finally:
        timing.stop()
        if patch:
            patch.stop()
        parent.send("stop")
        served = parent.recv()
        server.join(30)
    chunks = store.open_store(kb_dir, verify=False).chunk_count()
    model_s = stand_in.seconds if stand_in else None
    own_s = first_s - (model_s or 0.0)
    out = {
        "mode": "model-free (stand-in embedder, its time subtracted)" if model_free else "real embedding model",
        "issues": issues, "comments_per_issue": 3, "fake_api_fill_s": round(fill_s, 1),
        "seconds": round(first_s, 1), "seconds_without_model": round(own_s, 1) if model_free else None,
        "documents": first.documents, "resolved": first.resolved, "unresolved": first.unresolved,
        "chunks": chunks, "embedded": first.embedded,
        "chunks_per_s": round(first.embedded / (own_s if model_free else first_s), 2),
        "issues_per_s": round(issues / (own_s if model_free else first_s), 2),
        "requests": first.requests, "requests_served": served, "not_modified": first.not_modified,
        "peak_rss_mib": rss_first,
        "second_run": {"seconds": round(second_s, 2), "requests": second.requests,
                       "not_modified": second.not_modified, "embedded": second.embedded,
                       "fetched": second.fetched},
        "load_avg_1min": {"before": round(load_before, 2), "after": round(os.getloadavg()[0], 2)},
        "cpus": os.cpu_count(),
        "commits": commits,
    }
    if model_free and len(commits) >= 3:
        out["extrapolated_10000"] = extrapolate(out, 10_000)
    shutil.rmtree(kb_dir, ignore_errors=True)
    return out


def extrapolate(measured: dict, issues: int) -> dict:
    """Figures for `issues` from a model-free run, extrapolated (not measured): a generation's build time fitted as
    a + b * documents over the run's generations and summed over the generations of the larger import; the rest of
    the importer's work (HTTP, threads to documents) scaled linearly; chunks per issue as measured; peak RSS fitted
    linearly in the documents the KB holds."""
    import numpy as np

    commits = measured["commits"]
    docs = np.array([c["documents"] for c in commits], dtype=float)
    secs = np.array([c["seconds"] for c in commits], dtype=float)
    rss = np.array([c["peak_rss_mib"] for c in commits], dtype=float)
    b, a = np.polyfit(docs, secs, 1)
    rb, ra = np.polyfit(docs, rss, 1)
    batches = -(-issues // 100)
    build_s = sum(a + b * min(issues, 100 * k) for k in range(1, batches + 1))
    rest_s = (measured["seconds_without_model"] - secs.sum()) * issues / measured["issues"]
    return {"issues": issues, "generation_seconds_fit": {"a": round(float(a), 3), "b_per_document": float(b)},
            "build_seconds": round(float(build_s), 1), "fetch_and_prepare_seconds": round(float(rest_s), 1),
            "seconds_without_model": round(float(build_s + rest_s), 1),
            "embedded_chunks": round(measured["embedded"] * issues / measured["issues"]),
            "requests": round(measured["requests"] * issues / measured["issues"]),
            "peak_rss_mib_without_model": round(float(ra + rb * issues), 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description="Import N issues with comments from a fake GitHub API; print figures.")
    ap.add_argument("--issues", type=int, default=1000)
    ap.add_argument("--model-free", action="store_true", help="answer the embedding step with a stand-in")
    ap.add_argument("--work", type=Path, default=ROOT / ".cache" / "bench" / "import")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures to this file")
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    result = run(args.issues, args.work, args.model_free)
    text = json.dumps(result, indent=1, ensure_ascii=False)
    print(text)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
