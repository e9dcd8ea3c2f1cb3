"""Chinese segmentation from the word table (kb.index.han) gives jieba's search-mode terms, and a process that
tokenizes a few Chinese reports reads the table instead of loading jieba's dictionary."""
from __future__ import annotations

import os
import random
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

from kb.index import han
from kb.index import tokenize as tok

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    """(the table segmenter, jieba with its dictionary and our words): the table written from that very jieba."""
    seg = tok._segmenter()
    path = tmp_path_factory.mktemp("han") / han.TABLE
    stamp = tok._table_stamp(tok._import_jieba())
    han.write(path, seg.FREQ, seg.total, stamp)
    return han.TableSegmenter(path, stamp), seg


def _han_runs() -> list[str]:
    files = [p for p in (ROOT / "tests" / "data").rglob("*") if p.suffix in (".txt", ".md", ".html", ".jsonl")]
    files += sorted((ROOT / "kb" / "data" / "entries").glob("*.md"))
    runs: set[str] = set()
    for p in files:
        text = unicodedata.normalize("NFKC", p.read_text(encoding="utf-8", errors="replace"))
        for m in tok._TOKEN_RE.finditer(text):
            if m.group("han"):
                run = m.group("han")
                runs.update(run[i:i + tok._MAX_HAN_RUN] for i in range(0, len(run), tok._MAX_HAN_RUN))
    rng = random.Random(7)
    # characters jieba's dictionary lacks or its Han pattern leaves out (Extension A, compatibility forms, U+9FD6+)
    ranges = [(0x4E00, 0x9FA5), (0x3400, 0x4DBF), (0x9FD0, 0x9FFF), (0xF900, 0xFAFF), (0x20000, 0x2A6DF)]
    for _ in range(1500):
        runs.add("".join(chr(rng.randint(*rng.choice(ranges))) for _ in range(rng.randint(1, 40))))
    return sorted(runs)


def test_the_same_terms_as_jieba_on_every_text(pair):
    table, seg = pair
    runs = _han_runs()
    assert len(runs) > 10_000
    for run in runs:
        assert table.lcut_for_search(run) == seg.lcut_for_search(run), run[:40]


def test_a_table_of_another_format_or_word_list_is_refused(pair, tmp_path):
    table, seg = pair
    path = tmp_path / han.TABLE
    han.write(path, {"显存": 3, "显": 0}, 3, "old-stamp")
    with pytest.raises(ValueError, match="another jieba or word list"):
        han.TableSegmenter(path, "new-stamp")
    path.write_bytes(b"not a table at all")
    with pytest.raises(ValueError):
        han.TableSegmenter(path, "new-stamp")
    # a 0 entry that starts no word keeps a row, so it still reads as in jieba's dictionary
    han.write(path, {"显存": 3, "显": 0, "卡": 0}, 3, "s")
    assert han.TableSegmenter(path, "s")._lookup("显存卡") == {"显": 0, "显存": 3, "卡": 0}


def _fresh(code: str, cache: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache), "PYTHONPATH": str(ROOT)}
    env.pop("TRIAGE_CACHE_DIR", None)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=300)


def test_loading_jieba_writes_the_table_and_the_next_process_reads_it(tmp_path):
    cache = tmp_path / "cache"
    text = "多机多卡训练时显存不足，梯度累积之后仍然报错"
    code = ("import sys; from kb.index import tokenize as t; terms = t.tokenize(sys.argv[1]); "
            "print('|'.join(terms)); print(t._jieba is not None)")
    first = _fresh(code.replace("sys.argv[1]", repr(text)), cache)
    assert first.returncode == 0, first.stderr
    assert (cache / "triage-kb" / "jieba" / han.TABLE).is_file()
    terms, loaded = first.stdout.split()
    assert loaded == "True"                      # no table yet: jieba's dictionary was loaded, and wrote one
    second = _fresh(code.replace("sys.argv[1]", repr(text)), cache)
    assert second.returncode == 0, second.stderr
    assert second.stdout.split() == [terms, "False"] and second.stderr == ""


def test_past_its_budget_a_process_loads_jieba_and_keeps_the_same_terms(pair, monkeypatch):
    table, seg = pair
    monkeypatch.setattr(tok, "_jieba", None)
    monkeypatch.setattr(tok, "_table", table)
    monkeypatch.setattr(tok, "_table_seconds", 0.0)
    before = tok.tokenize("混合精度训练出现梯度溢出")
    assert tok._jieba is None and tok._table_seconds > 0
    monkeypatch.setattr(tok, "_table_seconds", tok.TABLE_BUDGET_S)
    after = tok.tokenize("混合精度训练出现梯度溢出")
    assert tok._jieba is not None and after == before
