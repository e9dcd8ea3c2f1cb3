"""Quality: `triage eval` on the dev set beside the BM25-only and dense-only baselines, and `triage eval --cv` over
every labelled set (each answered by a decision trained on the others)."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

FIELDS = ("name", "top1_positive", "wrong_on_positive", "abstention", "overall", "recall_at_3", "threshold")


def run_quality(setdir: Path, work: Path, env: dict, timeout_s: float = 1200) -> dict:
    """Runs the command line exactly as a user would (`triage eval SETDIR --json FILE`) in a fresh process."""
    if not (setdir / "labels.jsonl").is_file():
        return {"skipped": f"no evaluation set at {setdir}"}
    out = work / "eval.json"
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "bot.cli", "eval", str(setdir), "--json", str(out)], env=env,
                          capture_output=True, text=True, timeout=timeout_s)
    seconds = round(time.perf_counter() - started, 1)
    if proc.returncode != 0 or not out.is_file():
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"error": f"triage eval exited {proc.returncode}: {tail}", "seconds": seconds}
    data = json.loads(out.read_text(encoding="utf-8"))
    figures = [{k: f.get(k) for k in FIELDS} for f in data["figures"]]
    kinds: dict[str, int] = {}
    for q in data["queries"]:
        kinds[q["kind"]] = kinds.get(q["kind"], 0) + 1
    return {"set": str(setdir), "queries": len(data["queries"]), "kinds": kinds, "figures": figures,
            "seconds": seconds}


def run_cv(setdirs: list[Path], work: Path, env: dict, timeout_s: float = 1800) -> dict:
    """`triage eval --cv SETDIR... --json FILE` in a fresh process, as a user would run it."""
    setdirs = [d for d in setdirs if (d / "labels.jsonl").is_file()]
    if len(setdirs) < 2:
        return {"skipped": "fewer than two labelled sets"}
    out = work / "cv.json"
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "bot.cli", "eval", "--cv", *map(str, setdirs), "--json", str(out)],
                          env=env, capture_output=True, text=True, timeout=timeout_s)
    seconds = round(time.perf_counter() - started, 1)
    if proc.returncode != 0 or not out.is_file():
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"error": f"triage eval --cv exited {proc.returncode}: {tail}", "seconds": seconds}
    return {**json.loads(out.read_text(encoding="utf-8")), "seconds": seconds}
