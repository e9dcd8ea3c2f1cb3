"""Cold start: `diagnose` on a bundled example as a fresh process, median of several runs."""
from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path


def diagnose_command() -> list[str]:
    """The installed `diagnose` script beside this interpreter (what users run), else the module."""
    script = Path(sys.executable).with_name("diagnose")
    if script.is_file():
        return [str(script)]
    found = shutil.which("diagnose")
    return [found] if found else [sys.executable, "-m", "bot.cli", "diagnose"]


def run_cold(example: Path, env: dict, runs: int = 5, kb_dir: Path | None = None) -> dict:
    cmd = [*diagnose_command(), str(example), *(["--kb", str(kb_dir)] if kb_dir else [])]
    # One untimed run first: it builds the bundled KB into the cache on first use and fills the OS page cache.
    first = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
    if first.returncode != 0:
        tail = (first.stderr.strip().splitlines() or ["no output"])[-1]
        return {"error": f"diagnose exited {first.returncode}: {tail}"}
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
        times.append(time.perf_counter() - started)
        if proc.returncode != 0:
            return {"error": f"diagnose exited {proc.returncode} on a timed run"}
    verdict = next((line.strip() for line in first.stdout.splitlines() if line.strip()), "")
    return {"example": str(example), "kb": str(kb_dir) if kb_dir else "bundled starter KB",
            "runs_s": [round(t, 2) for t in times], "median_s": round(statistics.median(times), 2),
            "first_line": verdict[:160]}
