"""Matching on a small real KB (real model, FAISS, BM25, SQLite), and the `diagnose` / `triage` commands."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ingest.build import ingest
from kb.diagnose import Diagnoser
from kb.index.hybrid import KnowledgeBase

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "data" / "corpus_small"
REPORTS = ROOT / "tests" / "data" / "reports"


@pytest.fixture(scope="module")
def small_kb(tmp_path_factory, cache_dir):
    from kb.config import Settings

    settings = Settings(cache_dir=cache_dir)
    kb_dir = tmp_path_factory.mktemp("kb") / "kb"
    ingest([CORPUS], kb_dir, settings)
    return kb_dir, settings


@pytest.fixture(scope="module")
def diagnoser(small_kb):
    kb_dir, settings = small_kb
    kb = KnowledgeBase.open(kb_dir, settings)
    yield Diagnoser(kb)
    kb.close()


def run_cli(args: list[str], small_kb, stdin: bytes | None = None, script: str = "triage") -> subprocess.CompletedProcess:
    kb_dir, settings = small_kb
    env = {**os.environ, "TRIAGE_CACHE_DIR": str(settings.cache_dir), "TRIAGE_KB": str(kb_dir)}
    module = ["-c", "import sys; from bot.cli import diagnose_main; sys.argv[0]='diagnose'; diagnose_main()"] \
        if script == "diagnose" else ["-m", "bot.cli"]
    return subprocess.run([sys.executable, *module, *args], cwd=ROOT, env=env, input=stdin,
                          capture_output=True, timeout=300)


def test_model_side_zero_size_matches_the_zero3_postmortem(diagnoser):
    diag = diagnoser.diagnose((REPORTS / "zero3_model_side.txt").read_text(), name="r")
    assert diag.verdict == "match"
    assert diag.matches[0].source == "zero3_load.md"
    assert diag.query.facts["mismatch.zero_side"] == "current_model"
    evidence = diag.matches[0].evidence
    assert evidence[0].startswith("your line: size mismatch") and evidence[1].startswith("the entry's line: ")
    assert "same exception: RuntimeError" in evidence
    assert "the `[0]` is on the model side in both" in evidence
    # The same evidence as structured items, from which those strings are written.
    items = diag.matches[0].evidence_items
    assert items[0].kind == "line" and items[0].report_line.startswith("size mismatch")
    assert any(i.kind == "fact" and i.fact == "mismatch.zero_side" for i in items)
    assert evidence == [line for item in items for line in item.lines()]
    # One number per answer: the similarity's score and the signals stay out of the evidence people read (the
    # per-entry score and signals remain fields of their own, for --json readers).
    for m in diag.matches + diag.related:
        assert not any(e.startswith(("score", "signals")) for e in m.evidence), m.evidence
        _in_plain_words(m.evidence)
    _in_plain_words([diag.reason])
    assert diag.matches[0].score > 0 and diag.matches[0].signals


# What only the matcher's developers would understand: fact and signal names, developers' wording, None.
INTERNAL = ("None", "fact ", "mismatch.", "zero_side", "param_role", "load_key", "signals", "signature ", "bm25",
            "corroboration", "probability", "template", "CONFLICTS", "report has", "entry has", "×")


def _in_plain_words(lines: list[str]) -> None:
    for line in lines:
        assert not any(term in line for term in INTERNAL), line


def test_checkpoint_side_zero_size_is_not_the_zero3_placeholder_case(diagnoser):
    diag = diagnoser.diagnose((REPORTS / "zero3_checkpoint_side.txt").read_text())
    assert diag.verdict == "no_match"
    assert diag.related and diag.related[0].source == "zero3_load.md"
    assert ("which side has the empty `[0]` shape: the checkpoint side in your line, the model side in the entry's"
            in diag.related[0].reason)
    for m in diag.related:
        _in_plain_words([m.reason, *m.evidence])


def test_html_page_is_not_a_git_lfs_pointer(diagnoser):
    diag = diagnoser.diagnose((REPORTS / "html_load_key.txt").read_text())
    assert diag.verdict == "no_match"
    assert "the first byte of the file that could not be unpickled: `<` (an HTML page) in your line" in diag.reason
    _in_plain_words([diag.reason])


def test_a_no_match_names_the_entry_it_speaks_of(diagnoser):
    diag = diagnoser.diagnose((REPORTS / "unrelated.txt").read_text())
    assert diag.verdict == "no_match"
    nearest = diag.related[0]
    assert diag.reason == f"your error is not one that “{nearest.title}” describes"
    for m in diag.related:
        _in_plain_words([m.reason, *m.evidence])


def test_unrelated_error_abstains_and_empty_report_says_so(diagnoser):
    assert diagnoser.diagnose((REPORTS / "unrelated.txt").read_text()).verdict == "no_match"
    empty = diagnoser.diagnose("   \n")
    assert empty.verdict == "no_match" and "empty" in empty.reason


def test_english_report_finds_the_chinese_postmortem(diagnoser):
    text = "torch.load fails on the downloaded checkpoint:\n_pickle.UnpicklingError: invalid load key, 'v'.\n"
    diag = diagnoser.diagnose(text)
    assert diag.verdict == "match" and diag.matches[0].source == "lfs_pointer_zh.md"
    assert any(f.verified for f in diag.matches[0].fixes)


def test_diagnose_json_one_line_per_input_in_order_and_stdin(small_kb):
    stdin = (REPORTS / "html_load_key.txt").read_bytes()
    proc = run_cli(["--json", str(REPORTS / "zero3_model_side.txt"), "-", str(REPORTS / "unrelated.txt")], small_kb,
                   stdin=stdin, script="diagnose")
    assert proc.returncode == 0, proc.stderr.decode()
    rows = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    assert [r["input"] for r in rows] == [str(REPORTS / "zero3_model_side.txt"), "-", str(REPORTS / "unrelated.txt")]
    assert [r["verdict"] for r in rows] == ["match", "no_match", "no_match"]
    first = rows[0]
    assert 0 <= first["confidence"] <= 1
    m = first["matches"][0]
    assert {"entry_id", "title", "source", "score", "root_cause", "fixes", "evidence"} <= set(m)
    assert m["source"] == "zero3_load.md" and all({"text", "verified"} <= set(f) for f in m["fixes"])
    assert m["evidence_items"][0]["kind"] == "line" and len(m["evidence"]) == len(m["evidence_items"]) + 1
    assert first["query"]["exception_type"] == "RuntimeError"


def test_unreadable_inputs_exit_2_with_one_line_and_no_traceback(small_kb, tmp_path):
    binary = tmp_path / "core.bin"
    binary.write_bytes(b"\x7fELF\x00\x01\x02" * 100)
    proc = run_cli([str(binary), str(tmp_path / "missing.txt")], small_kb, script="diagnose")
    err = proc.stderr.decode()
    assert proc.returncode == 2
    assert "binary" in err and "no such file" in err and "Traceback" not in err


def test_huge_log_is_cut_and_still_diagnosed(small_kb, tmp_path):
    log = tmp_path / "huge.log"
    with open(log, "w") as fh:
        for i in range(400_000):
            fh.write(f"[rank0]: step {i} loss 1.234 lr 1e-5 throughput 123.4 samples/s\n")
        fh.write((REPORTS / "html_load_key.txt").read_text())
    assert log.stat().st_size > 20_000_000
    proc = run_cli(["--json", str(log)], small_kb, script="diagnose")
    assert proc.returncode == 0, proc.stderr.decode()
    row = json.loads(proc.stdout)
    assert row["verdict"] == "no_match" and row["query"]["facts"].get("load_key.byte") == "<"


def test_search_stats_export_commands(small_kb):
    proc = run_cli(["search", "NCCL shared memory segment in a container", "--json", "--top", "2"], small_kb)
    assert proc.returncode == 0, proc.stderr.decode()
    hits = json.loads(proc.stdout)
    assert hits[0]["source"] == "nccl_shm.md" and {"section", "score"} <= set(hits[0])
    stats = json.loads(run_cli(["stats", "--json"], small_kb).stdout)
    assert stats["documents"] == 3 and set(stats["languages"]) == {"en", "zh"}
    rows = [json.loads(line) for line in run_cli(["export"], small_kb).stdout.decode().splitlines()]
    by_source = {r["source"]: r for r in rows}
    assert by_source["nccl_shm.md"]["chunks"] and by_source["lfs_pointer_zh.md"]["error_lines"] == [
        "_pickle.UnpicklingError: invalid load key, 'v'."]


def test_ingest_of_a_missing_path_is_one_line(small_kb, tmp_path):
    proc = run_cli(["ingest", str(tmp_path / "nope"), "--kb", str(tmp_path / "kb")], small_kb)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr.decode() and "nope" in proc.stderr.decode()


def test_warm_up_prepares_the_encoder_and_the_chinese_segmenter_of_a_fresh_process(small_kb):
    """What a service does before it reports ready: after it, a first real report (English or Chinese) finds the
    query encoder loaded and Chinese segmentation ready."""
    kb_dir, settings = small_kb
    code = ("import sys; from pathlib import Path; from kb.config import Settings; "
            "from kb.index.hybrid import KnowledgeBase; from kb.diagnose import Diagnoser; "
            "from kb.index import tokenize as t; "
            "kb = KnowledgeBase.open(Path(sys.argv[1]), Settings(cache_dir=Path(sys.argv[2]))); d = Diagnoser(kb); "
            "before = (kb._embedder is not None, bool(t._table or t._jieba)); d.warm_up(); "
            "print(before, (kb._embedder is not None, bool(t._table or t._jieba)))")
    proc = subprocess.run([sys.executable, "-c", code, str(kb_dir), str(settings.cache_dir)], capture_output=True,
                          text=True, cwd=ROOT, timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[0] == "(False, False) (True, True)"
