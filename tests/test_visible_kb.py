"""Every answer names the knowledge base it came from; `triage where` says which one is read and why; `triage stats`
is text for people; the sample postmortems in examples/postmortems ingest as the README says."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import bot.cli as cli
import kb.config

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "examples" / "postmortems"
DIAGNOSE = "import sys; from bot.cli import diagnose_main; sys.argv[0]='diagnose'; diagnose_main()"
REPORT = ("[rank5]:[E ProcessGroupNCCL.cpp:607] [Rank 5] Watchdog caught collective operation timeout: "
          "WorkNCCL(SeqNum=9120, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600311 "
          "milliseconds before timing out.\n"
          "[rank5]: torch.distributed.DistBackendError: NCCL communicator was aborted on rank 5.\n"
          "It happens right after the checkpoint save starts on rank 0.\n")


@pytest.fixture(scope="module")
def sample_kb(tmp_path_factory, cache_dir):
    from ingest.build import ingest

    kb_dir = tmp_path_factory.mktemp("samples") / "my-kb"
    report = ingest([SAMPLES], kb_dir, kb.config.Settings(cache_dir=cache_dir))
    assert not report.skipped, report.skipped
    return kb_dir


@pytest.fixture(autouse=True)
def _isolated(monkeypatch, tmp_path, cache_dir):
    for name in [k for k in os.environ if k.startswith("TRIAGE_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("TRIAGE_CACHE_DIR", str(cache_dir))
    monkeypatch.setattr(kb.config, "user_data_dir", lambda: tmp_path / "user-data")


def _manifest(kb_dir: Path) -> dict:
    gen = kb_dir / (kb_dir / "CURRENT").read_text().strip()
    return json.loads((gen / "manifest.json").read_text())


def test_the_samples_are_two_languages_one_gbk_one_scraped_page(sample_kb):
    files = sorted(p.name for p in SAMPLES.iterdir())
    assert len(files) == 4
    gbk = [p for p in SAMPLES.iterdir() if p.suffix == ".txt"]
    assert len(gbk) == 1
    with pytest.raises(UnicodeDecodeError):
        gbk[0].read_bytes().decode("utf-8")
    assert "扩充词表" in gbk[0].read_bytes().decode("gbk")
    page = (SAMPLES / "nccl-timeout-during-checkpoint.html").read_text()
    assert "cookie" in page.lower() and "Subscribe" in page
    rows = [json.loads(line) for line in CliRunner().invoke(cli.main, ["export", "--kb", str(sample_kb)]).stdout
            .splitlines()]
    assert len(rows) == 4
    assert sorted(lang for r in rows for lang in r["langs"]) == ["en", "en", "zh", "zh"]
    for r in rows:
        assert r["error_lines"] and r["root_cause"] and r["fixes"], r["source"]
        text = " ".join(c["text"] for c in r["chunks"]).lower()
        assert "cookie" not in text and "subscribe" not in text and "share on" not in text
    assert "triage ingest examples/postmortems --kb ./my-kb" in (ROOT / "README.md").read_text()


def test_export_shows_what_cleaning_removed_from_the_saved_page(sample_kb):
    args = ["export", "--kb", str(sample_kb), "--removed", "--doc", "nccl-timeout-during-checkpoint"]
    (row,) = [json.loads(line) for line in CliRunner().invoke(cli.main, args).stdout.splitlines()]
    assert row["removed"]["status"] == "as ingested"
    assert row["removed"]["lines"] == [
        {"line": 3, "text": "Posted by the training platform team · 6 min read", "reason": "meta"}]


def test_diagnose_names_the_kb_in_json_and_on_the_terminal(sample_kb, tmp_path, cache_dir):
    report = tmp_path / "report.txt"
    report.write_text(REPORT)
    env = {**os.environ, "TRIAGE_CACHE_DIR": str(cache_dir), "COLUMNS": "200"}
    got = subprocess.run([sys.executable, "-c", DIAGNOSE, "--json", str(report), str(report), "--kb", str(sample_kb)],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert got.returncode == 0, got.stderr
    built = _manifest(sample_kb)["created"]
    for line in got.stdout.splitlines():
        row = json.loads(line)
        assert row["kb"] == {"path": str(sample_kb.resolve()), "documents": 4, "built_at": built}
        assert {"input", "verdict", "confidence", "matches", "related", "query", "reason"} <= set(row)
    got = subprocess.run([sys.executable, "-c", DIAGNOSE, str(report), "--kb", str(sample_kb)], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=300)
    assert got.returncode == 0, got.stderr
    assert f"knowledge base: {sample_kb.resolve()} (4 documents, built {built[:16].replace('T', ' ')})" in got.stdout


def test_search_names_the_kb(sample_kb):
    got = CliRunner().invoke(cli.main, ["search", "checkpoint NCCL watchdog timeout", "--kb", str(sample_kb)])
    assert got.exit_code == 0, got.output
    assert f"knowledge base: {sample_kb.resolve()} (4 documents" in got.stdout.replace("\n", "")


def test_stats_is_text_for_people_and_json_for_scripts(sample_kb):
    got = CliRunner().invoke(cli.main, ["stats", "--kb", str(sample_kb)])
    assert got.exit_code == 0, got.output
    text = got.stdout
    assert "{" not in text and "'" not in text                 # not a printed Python dict
    assert f"knowledge base {sample_kb.resolve()}" in " ".join(text.split())
    assert "documents      4 (" in text and "languages      en 2, zh 2" in text and "built" in text
    info = json.loads(CliRunner().invoke(cli.main, ["stats", "--kb", str(sample_kb), "--json"]).stdout)
    assert info["documents"] == 4 and info["languages"] == {"en": 2, "zh": 2} and "bytes_on_disk" in info


def test_where_prints_the_order_and_which_kb_is_read_now(sample_kb, tmp_path, monkeypatch):
    def where(*args) -> str:
        got = CliRunner().invoke(cli.main, ["where", *args])
        assert got.exit_code == 0, got.output
        return got.stdout

    out = where()
    labels = ["1. --kb DIR", "2. $TRIAGE_KB", "3. your own KB", "4. bundled starter KB"]
    assert [out.index(label) for label in labels] == sorted(out.index(label) for label in labels)
    assert "-> 4. bundled starter KB" in out and "Now read: 4." in out and "not built" in out

    own = tmp_path / "user-data" / "kb"
    shutil.copytree(sample_kb, own)
    out = where()
    assert "-> 3. your own KB" in out and "4 documents" in out and f"Now read: 3. your own KB, {own}" in out

    monkeypatch.setenv("TRIAGE_KB", str(tmp_path / "elsewhere"))
    out = where()
    assert "-> 2. $TRIAGE_KB" in out and "no knowledge base built there yet" in out

    out = where("--kb", str(sample_kb))
    assert "-> 1. --kb DIR" in out and f"Now read: 1. --kb DIR, {sample_kb}" in out
