"""Quality: `triage eval` on a labelled set, the matcher beside the BM25-only and dense-only baselines."""
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
