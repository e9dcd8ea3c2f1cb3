"""Load client for `triage serve`: concurrent clients POST reports to /v1/diagnose on loopback.

    python -m bench.load --url http://127.0.0.1:PORT/v1/diagnose --queries Q.json --out OUT.json \
        [--clients 8] [--requests 400]

Runs as its own process (the server's CPU time is not shared with the client's interpreter lock). Each client is a
thread with one keep-alive connection; the reports are the benchmark's query files, taken in turn. A request counts
as an error when it fails to connect, times out, or answers anything but 200 with a JSON body that has a verdict.
"""
from __future__ import annotations

import argparse
import http.client
import json
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np


def run_load(url: str, texts: list[str], clients: int, requests: int, timeout_s: float = 60.0) -> dict:
    parts = urlsplit(url)
    if parts.hostname not in ("127.0.0.1", "localhost", "::1"):
        raise ValueError(f"refusing to load anything but loopback, not {parts.hostname}")
    bodies = [json.dumps({"text": t}).encode("utf-8") for t in texts]
    latencies: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    counter = iter(range(requests))

    def client() -> None:
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout_s)
        while True:
            with lock:
                i = next(counter, None)
            if i is None:
                break
            t = time.perf_counter()
            try:
                conn.request("POST", parts.path, body=bodies[i % len(bodies)],
                             headers={"Content-Type": "application/json"})
                resp = conn.getresponse()
                data = resp.read()
                ok = resp.status == 200 and "verdict" in json.loads(data)
                problem = None if ok else f"HTTP {resp.status}: {data[:200]!r}"
            except (OSError, http.client.HTTPException, ValueError) as exc:
                problem = f"{type(exc).__name__}: {exc}"
                conn.close()
                conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout_s)
            elapsed = (time.perf_counter() - t) * 1000
            with lock:
                (errors.append(problem) if problem else latencies.append(elapsed))
        conn.close()

    started = time.perf_counter()
    threads = [threading.Thread(target=client) for _ in range(clients)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    wall = time.perf_counter() - started
    a = np.asarray(latencies) if latencies else np.zeros(1)
    return {
        "clients": clients, "requests": requests, "ok": len(latencies), "errors": len(errors),
        "error_examples": sorted(set(errors))[:3], "wall_s": round(wall, 2),
        "throughput_rps": round(len(latencies) / wall, 2) if wall > 0 else 0.0,
        "p50_ms": round(float(np.percentile(a, 50)), 1), "p99_ms": round(float(np.percentile(a, 99)), 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--queries", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--requests", type=int, default=400)
    args = ap.parse_args()
    spec = json.loads(args.queries.read_text())
    texts = [Path(p).read_text(encoding="utf-8", errors="replace") for p in spec["texts"]]
    result = run_load(args.url, texts, args.clients, args.requests)
    args.out.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
