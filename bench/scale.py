"""Query latency, memory, disk and recall by KB size: a KB written per size, measured by bench/worker.py in a fresh
process that this module watches (a run past its time or memory limit is stopped and reported as such)."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from bench.kbwriter import write_kb


def _rss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def measure(kb_dir: Path, queries: Path, out: Path, env: dict, *, timeout_s: float, rss_cap_mb: float,
            budget_s: float, max_queries: int, warmup: int) -> dict:
    """Run the worker on `kb_dir`; its JSON, plus `stopped` when this had to end it."""
    out.unlink(missing_ok=True)
    cmd = [sys.executable, "-m", "bench.worker", str(kb_dir), "--queries", str(queries), "--out", str(out),
           "--budget-s", str(budget_s), "--max-queries", str(max_queries), "--warmup", str(warmup)]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    started, stopped, peak = time.monotonic(), None, 0.0
    while proc.poll() is None:
        peak = max(peak, _rss_mb(proc.pid))
        if peak > rss_cap_mb:
            stopped = f"stopped: resident memory passed {rss_cap_mb:.0f} MB"
        elif time.monotonic() - started > timeout_s:
            stopped = f"stopped: still running after {timeout_s:.0f} s"
        if stopped:
            proc.kill()
            break
        time.sleep(0.2)
    _, err = proc.communicate()
    result = json.loads(out.read_text()) if out.is_file() else {}
    if stopped:
        result["stopped"] = f"{stopped} (in phase '{result.get('phase', 'start')}')"
    elif proc.returncode != 0:
        tail = (err.strip().splitlines() or ["no output"])[-1]
        result["stopped"] = f"worker failed in phase '{result.get('phase', 'start')}': {tail[:300]}"
    return result


def run_scale(sizes: list[int], work: Path, real_kb: Path, text_kb: Path, bases: np.ndarray, queries: Path,
              env: dict, *, timeout_s: float, rss_cap_mb: float, budget_s: float, max_queries: int,
              warmup: int) -> list[dict]:
    """One row per size. Sizes the real KB covers keep its real embeddings; larger ones use `text_kb`'s documents
    (repeated as needed) with generated vectors."""
    from kb.index import store

    st = store.open_store(real_kb)
    real_chunks = st.chunk_count()
    st.close()
    rows = []
    for n in sizes:
        kb_dir = work / f"kb-size-{n}"
        shutil.rmtree(kb_dir, ignore_errors=True)
        if n <= real_chunks:
            info = write_kb(real_kb, kb_dir, n)
        else:
            info = write_kb(text_kb, kb_dir, n, bases=bases, seed=n)
        row = {"target": n, "build": info}
        row.update(measure(kb_dir, queries, work / f"worker-{n}.json", env, timeout_s=timeout_s,
                           rss_cap_mb=rss_cap_mb, budget_s=budget_s, max_queries=max_queries, warmup=warmup))
        rows.append(row)
        shutil.rmtree(kb_dir, ignore_errors=True)
    return rows
