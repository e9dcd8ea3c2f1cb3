"""Service under load: start `triage serve` on a free loopback port, drive it from bench/load.py (another process),
stop it. Skipped, with the reason, when this checkout has no `serve` command."""
from __future__ import annotations

import http.client
import json
import socket
import subprocess
import sys
import time
from pathlib import Path

ENDPOINT = "/v1/diagnose"


def serve_available(env: dict) -> bool:
    proc = subprocess.run([sys.executable, "-m", "bot.cli", "serve", "--help"], env=env, capture_output=True,
                          text=True, timeout=120)
    return proc.returncode == 0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ready(port: int) -> bool:
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("POST", ENDPOINT, body=json.dumps({"text": "RuntimeError: warm-up"}),
                     headers={"Content-Type": "application/json"})
        ok = conn.getresponse().status == 200
        conn.close()
        return ok
    except OSError:
        return False


def _load(port: int, queries: Path, work: Path, env: dict, clients: int, requests: int) -> dict:
    out = work / f"load-{clients}.json"
    out.unlink(missing_ok=True)
    proc = subprocess.run([sys.executable, "-m", "bench.load", "--url", f"http://127.0.0.1:{port}{ENDPOINT}",
                           "--queries", str(queries), "--out", str(out), "--clients", str(clients),
                           "--requests", str(requests)], env=env, capture_output=True, text=True, timeout=1200)
    if proc.returncode != 0 or not out.is_file():
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"error": f"load client failed: {tail[:300]}"}
    return json.loads(out.read_text())


def run_service(kb_dir: Path, queries: Path, work: Path, env: dict, *, clients: int, requests: int,
                start_timeout_s: float = 240, workers: int | None = None) -> dict:
    """`clients` concurrent clients, and before them one client alone on the same server with the same number of
    requests, so that the throughput ratio is measured in one run. `workers`: `triage serve --workers` (default:
    its own, one per core)."""
    if not serve_available(env):
        return {"skipped": "`triage serve` does not exist in this checkout yet"}
    port = free_port()
    log = work / "serve.log"
    with open(log, "w") as fh:
        extra = [] if workers is None else ["--workers", str(workers)]
        server = subprocess.Popen([sys.executable, "-m", "bot.cli", "serve", "--kb", str(kb_dir), "--host",
                                   "127.0.0.1", "--port", str(port), *extra], env=env, stdout=fh,
                                  stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + start_timeout_s
        started = time.monotonic()
        while not _ready(port):
            if server.poll() is not None or time.monotonic() > deadline:
                tail = (log.read_text(errors="replace").strip().splitlines() or ["no output"])[-1]
                return {"error": f"`triage serve` did not answer on 127.0.0.1:{port}: {tail[:300]}"}
            time.sleep(0.5)
        ready_s = time.monotonic() - started
        one = _load(port, queries, work, env, 1, requests)
        if "error" in one:
            return one
        result = _load(port, queries, work, env, clients, requests)
        if "error" in result:
            return result
        result["one_client"] = one
        result["ratio_vs_one_client"] = round(result["throughput_rps"] / one["throughput_rps"], 2)
        result["workers"] = workers if workers is not None else "default (one per core)"
        result["ready_s"] = round(ready_s, 1)
        result["kb"] = str(kb_dir)
        return result
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
