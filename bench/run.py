"""The benchmark: quality, ingest, query latency/memory/recall by size, service load, cold start -> bench/RESULTS.md.

    python -m bench.run            # the full run (10-20 minutes on 2 cores); `make bench`
    python -m bench.run --quick    # tiny sizes, seconds: checks that every section works end to end

Work files (generated corpora, KBs, per-section JSON) go under .cache/bench/work; the embedding model is unpacked
under $TRIAGE_CACHE_DIR, default .cache/bench. A section that fails is reported as such and the others still run.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SECTIONS = ("quality", "ingest", "scale", "service", "cold")
EXAMPLE = ROOT / "examples" / "zero3_load_state_dict.txt"
EXAMPLE_ZH = ROOT / "examples" / "added_tokens_device_assert_zh.txt"   # Chinese: segmented as well

FULL = dict(embed_budget_s=120, min_real_chunks=1000, real_docs=1000, raw_sample=200, docs=[1000, 10000],
            sizes=[1000, 10000, 100000, 1000000], worker_timeout_s=600, worker_budget_s=45, worker_max_queries=200,
            worker_warmup=3, recall_queries=200, clients=8, requests=200, cold_runs=5)
QUICK = dict(embed_budget_s=1, min_real_chunks=1, real_docs=1, raw_sample=4, docs=[20, 40], sizes=[20, 400],
             worker_timeout_s=180, worker_budget_s=1, worker_max_queries=2, worker_warmup=1, recall_queries=16,
             clients=2, requests=6, cold_runs=1)


def query_files(setdir: Path) -> list[Path]:
    """Reports the latency and load sections cycle through: the dev set's queries and the bundled examples."""
    files = sorted((setdir / "queries").glob("*.txt")) if (setdir / "queries").is_dir() else []
    return files + sorted(p for p in (ROOT / "examples").glob("*.txt"))


def write_query_spec(work: Path, files: list[Path], settings, bases: np.ndarray, count: int) -> Path:
    """Q.json for the worker and the load client: report files, and query vectors for recall (the real query
    embeddings of those reports, topped up with generated vectors)."""
    from bench.vectors import generated_vectors
    from kb.index.encoder.factory import load_embedder

    texts = [f.read_text(encoding="utf-8", errors="replace") for f in files[:count]]
    from kb.index.encoder.factory import resolve_encoder

    encoder = resolve_encoder(settings.model, settings.cache_dir, settings.encoder)   # the one the KBs are built with
    real = load_embedder(settings.model, settings.cache_dir, purpose="query", encoder=encoder).encode_queries(texts)
    extra = generated_vectors(bases, max(0, count - len(real)), seed=4242)
    np.save(work / "query_vectors.npy", np.vstack([real, extra]).astype(np.float32))
    spec = work / "queries.json"
    spec.write_text(json.dumps({"texts": [str(f) for f in files], "vectors": str(work / "query_vectors.npy")}))
    return spec


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Run the benchmark and write bench/RESULTS.md.")
    ap.add_argument("--quick", action="store_true", help="tiny sizes: a check that everything runs, not figures")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "RESULTS.md")
    ap.add_argument("--work", type=Path, default=ROOT / ".cache" / "bench" / "work")
    ap.add_argument("--evalset", type=Path, default=ROOT.parent / "shared" / "eval" / "dev")
    ap.add_argument("--only", default=",".join(SECTIONS), help="comma-separated sections: " + ", ".join(SECTIONS))
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    p = QUICK if args.quick else FULL
    only = [s.strip() for s in args.only.split(",") if s.strip()]
    if unknown := set(only) - set(SECTIONS):
        ap.error(f"unknown sections: {', '.join(sorted(unknown))}")

    os.environ.setdefault("TRIAGE_CACHE_DIR", str(ROOT / ".cache" / "bench"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    from bench.machine import load_average, machine_info
    from kb.config import Settings
    from kb.index.tokenize import use_cache_dir

    settings = Settings(kb=None)
    use_cache_dir(settings.cache_dir)
    work = args.work
    work.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    cmd = " ".join(["python -m bench.run", *(["--quick"] if args.quick else []),
                    *([f"--only {args.only}"] if set(only) != set(SECTIONS) else [])])
    results: dict = {"machine": machine_info(ROOT), "command": cmd, "quick": args.quick, "errors": {}}

    def section(name: str, fn):
        if name not in only:
            return None
        print(f"[bench] {name} ...", file=sys.stderr, flush=True)
        t = time.perf_counter()
        try:
            out = fn()
        except Exception as exc:  # noqa: BLE001 - one broken section must not lose the others' figures
            traceback.print_exc()
            results["errors"][name] = f"{type(exc).__name__}: {exc}"
            out = {"error": f"{type(exc).__name__}: {exc}"}
        out["seconds_total"] = round(time.perf_counter() - t, 1)
        out["load"] = load_average()
        results[name] = out
        print(f"[bench] {name} done in {out['seconds_total']:.0f} s", file=sys.stderr, flush=True)
        (work / "results.json").write_text(json.dumps(results, indent=1, ensure_ascii=False))
        return out

    from bench import ingest_rate

    if args.quick:
        results["quality"] = {"skipped": "skipped with --quick (tests/test_eval.py covers `triage eval`)"}
    else:
        from bench.quality import run_cv, run_quality

        def quality() -> dict:
            sets = [args.evalset, *sorted((ROOT / "tests" / "data").glob("eval_*"))]
            return {**run_quality(args.evalset, work, env), "cv": run_cv(sets, work, env)}

        section("quality", quality)

    def ingest_section() -> dict:
        real = ingest_rate.run_real(work, settings, p["embed_budget_s"], p["min_real_chunks"], p["real_docs"],
                                    p["raw_sample"], args.seed)
        bases = _real_vectors(work / "kb-real")
        free = [ingest_rate.run_model_free(work, settings, n, bases, real["raw_chunks_per_s"], args.seed)
                for n in p["docs"]]
        return {"real": real, "model_free": free}

    section("ingest", ingest_section)
    real_kb, text_kb = work / "kb-real", work / f"kb-docs-{max(p['docs'])}"
    need = {"scale", "service"} & set(only)
    if need and not ((real_kb / "CURRENT").exists() and (text_kb / "CURRENT").exists()):
        for name in need:
            results[name] = {"error": "needs the KBs the ingest section builds; run it (or everything) first"}
    elif need:
        bases = _real_vectors(real_kb)
        spec = write_query_spec(work, query_files(args.evalset), settings, bases, p["recall_queries"])
        from bench.scale import run_scale
        from bench.service import run_service

        section("scale", lambda: {"warmup": p["worker_warmup"], "rows": run_scale(
            p["sizes"], work, real_kb, text_kb, bases, spec, env, timeout_s=p["worker_timeout_s"],
            rss_cap_mb=6000, budget_s=p["worker_budget_s"], max_queries=p["worker_max_queries"],
            warmup=p["worker_warmup"])})
        section("service", lambda: run_service(real_kb, spec, work, env, clients=p["clients"],
                                               requests=p["requests"]))
    from bench.cold import run_cold

    def cold_section() -> dict:
        kb_dir = real_kb if args.quick else None
        out = run_cold(EXAMPLE, env, runs=p["cold_runs"], kb_dir=kb_dir)
        if "median_s" in out:
            out["zh"] = run_cold(EXAMPLE_ZH, env, runs=p["cold_runs"], kb_dir=kb_dir)
        return out

    section("cold", cold_section)

    results["minutes"] = round((time.perf_counter() - started) / 60, 1)
    results["load_end"] = load_average()
    (work / "results.json").write_text(json.dumps(results, indent=1, ensure_ascii=False))
    from bench.report import render

    args.out.parent.mkdir(parents=True, exist_ok=True)
    previous = args.out.read_text(encoding="utf-8") if args.out.is_file() else ""
    args.out.write_text(render(results, previous), encoding="utf-8")
    print(f"[bench] wrote {args.out} ({results['minutes']} min)", file=sys.stderr)
    return 1 if results["errors"] else 0


def _real_vectors(kb_dir: Path) -> np.ndarray:
    from kb.index import store

    st = store.open_store(kb_dir)
    try:
        return np.array(st.vectors())
    finally:
        st.close()


if __name__ == "__main__":
    sys.exit(main())
