"""Tables fit an 80-column terminal and stay readable there: no line past the edge, no id folded into pieces."""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import bot.render.terminal as render

ROOT = Path(__file__).resolve().parents[1]


def _triage(args: list[str], cache_dir: Path, columns: int) -> subprocess.CompletedProcess:
    env = {**os.environ, "TRIAGE_CACHE_DIR": str(cache_dir), "COLUMNS": str(columns)}
    env.pop("TRIAGE_KB", None)
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)


def test_repro_list_fits_80_columns_with_every_recipe_whole(tmp_path, cache_dir):
    kb = str(tmp_path / "kb")
    shown = _triage(["repro", "list", "--kb", kb], cache_dir, 80)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80, shown.stdout
    rows = json.loads(_triage(["repro", "list", "--json", "--kb", kb], cache_dir, 80).stdout)
    words = {w for line in lines for w in line.split()}
    for r in rows:
        assert r["id"] in words and r["entry_id"] in words, (r["id"], shown.stdout)   # never folded
    wide = _triage(["repro", "list", "--kb", kb], cache_dir, 160).stdout
    assert "cpu-mechanism" in wide                      # a wide terminal still shows every column


def test_recipes_with_results_fit_80_columns(monkeypatch):
    buf = io.StringIO()
    monkeypatch.setattr(render, "console", render.make_console(file=buf, width=80, color_system=None))
    rows = [{"id": "tp-vocab-not-divisible-colossalai", "entry_id": "zero3-load-state-dict-size0",
             "kind": "gpu-real", "needs_gpu": True, "world_size": 2,
             "last": {"reproduce": "not_reproduced", "fix": "fix_verified"}}]
    render.print_recipes(rows)
    out = buf.getvalue()
    assert max(len(line) for line in out.splitlines()) <= 80, out
    assert "tp-vocab-not-divisible-colossalai" in out and "zero3-load-state-dict-size0" in out
    assert "GPU, 2 ranks" in out and "not" in out and "reproduced" in out and "verified" in out
