"""A first build says how far it is when its output is piped (CI logs, `| tee`), not only with a bar on a terminal."""
from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bot import progress
from bot.progress import progress_bar

ROOT = Path(__file__).resolve().parents[1]


def test_piped_progress_is_plain_lines_at_each_stage_and_every_few_seconds(monkeypatch):
    clock = iter(range(0, 1000, 2))                      # two seconds pass between ticks
    monkeypatch.setattr(progress.time, "monotonic", lambda: next(clock))
    buf = io.StringIO()
    with progress_bar(stream=buf, every_s=5) as tick:
        for done in range(0, 481, 40):
            tick("embed", done, 480)
        tick("index", 0, 1)
        tick("index", 1, 1)
    lines = buf.getvalue().splitlines()
    assert lines[0] == "embedding 0/480 chunks" and lines[-3] == "embedding 480/480 chunks"
    assert "embedding 120/480 chunks" in lines
    assert 4 <= len([x for x in lines if x.startswith("embedding")]) <= 6     # every few seconds, not every tick
    assert lines[-2:] == ["indexing", "indexing: done"]
    assert "\x1b" not in buf.getvalue() and "\r" not in buf.getvalue()


def test_no_progress_when_not_wanted():
    buf = io.StringIO()
    with progress_bar(enabled=False, stream=buf) as tick:
        tick("embed", 1, 2)
    assert buf.getvalue() == ""


@pytest.mark.slow
def test_a_piped_ingest_reports_its_progress(tmp_path, cache_dir):
    env = {**os.environ, "TRIAGE_CACHE_DIR": str(cache_dir)}
    got = subprocess.run([sys.executable, "-m", "bot.cli", "ingest", str(ROOT / "tests" / "data" / "corpus_small"),
                          "--kb", str(tmp_path / "kb")], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=300)
    assert got.returncode == 0, got.stderr
    assert re.search(r"^reading \d+/\d+ files$", got.stderr, re.M), got.stderr
    assert re.search(r"^embedding (\d+)/\1 chunks$", got.stderr, re.M), got.stderr
