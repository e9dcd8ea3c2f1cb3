"""ingest.read: discovery, decoding, skipping bad files, HTML pages and GitHub issue exports."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kb.errors import BadInput
from ingest.read import RawDocument, Skipped, discover, github_issue_to_markdown, html_to_text, read_path

DATA = Path(__file__).parent / "data" / "postmortems"
LIMIT = 5_000_000
ZH = "问题现象：训练在第一步就报错了，显存不足。\nRuntimeError: CUDA out of memory.\n"


def _read(path: Path, limit: int = LIMIT) -> RawDocument:
    got = read_path(path, limit)
    assert isinstance(got, RawDocument), getattr(got, "reason", got)
    return got


# --- encodings ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "gbk", "gb18030"])
def test_chinese_in_each_encoding_decodes_to_the_same_text(tmp_path, encoding):
    p = tmp_path / "doc.txt"
    p.write_bytes(ZH.encode(encoding))
    raw = _read(p)
    assert raw.text == ZH
    assert raw.format == "txt"


def test_gbk_file_in_test_data():
    raw = _read(DATA / "gbk_nccl_ifname_zh.txt")
    assert raw.encoding == "gb18030"
    assert "多机训练启动后卡住" in raw.text
    assert "RuntimeError: NCCL communicator was aborted on rank 9." in raw.text


def test_newlines_are_normalised_and_hash_is_of_raw_bytes(tmp_path):
    import hashlib

    data = "line one\r\nline two\rline three\n".encode()
    p = tmp_path / "crlf.md"
    p.write_bytes(data)
    raw = _read(p)
    assert raw.text == "line one\nline two\nline three\n"
    assert raw.content_hash == hashlib.sha256(data).hexdigest()


def test_utf16_with_bom_is_text_not_binary(tmp_path):
    p = tmp_path / "u16.txt"
    p.write_bytes("RuntimeError: boom\n解决方案：重启\n".encode("utf-16"))
    assert "解决方案" in _read(p).text


# --- skipped files -------------------------------------------------------------------------------------------------

def test_binary_file_is_skipped():
    got = read_path(DATA / "skip_binary.txt", LIMIT)
    assert isinstance(got, Skipped)
    assert "binary" in got.reason


def test_empty_and_whitespace_only_files_are_skipped(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    for p in (empty, DATA / "skip_empty.md"):
        got = read_path(p, LIMIT)
        assert isinstance(got, Skipped) and "empty" in got.reason


def test_oversized_file_is_skipped(tmp_path):
    p = tmp_path / "big.md"
    p.write_text("x" * 2000)
    got = read_path(p, 1000)
    assert isinstance(got, Skipped)
    assert "too large" in got.reason and "1000" in got.reason


def test_undecodable_bytes_are_skipped_not_raised(tmp_path):
    p = tmp_path / "junk.txt"
    p.write_bytes(bytes([0x81, 0x30, 0xFF, 0xFE, 0x80, 0x01, 0x02, 0x03, 0x9F, 0x1B]) * 50)
    got = read_path(p, LIMIT)
    assert isinstance(got, Skipped)
    assert "\n" not in got.reason


def test_missing_file_and_folder_are_skipped_by_read_path(tmp_path):
    assert isinstance(read_path(tmp_path / "nope.md", LIMIT), Skipped)
    assert isinstance(read_path(tmp_path, LIMIT), Skipped)


def test_json_that_is_not_an_issue_is_skipped(tmp_path):
    p = tmp_path / "data.json"
    p.write_text(json.dumps({"rows": [1, 2, 3]}))
    got = read_path(p, LIMIT)
    assert isinstance(got, Skipped) and "GitHub issue" in got.reason
    p.write_text("{not json")
    got = read_path(p, LIMIT)
    assert isinstance(got, Skipped) and "invalid JSON" in got.reason


# --- formats -----------------------------------------------------------------------------------------------------

def test_html_page_drops_chrome_and_keeps_code_verbatim():
    raw = _read(DATA / "page_with_chrome.html")
    assert raw.format == "html"
    text = raw.text
    assert text.startswith("# Postmortem: evaluation runs out of GPU memory")
    assert "## Symptom" in text and "## Root cause" in text and "## Fix" in text
    for chrome in ("window.track", "font-family", "Sign in", "Popular posts", "Share on Twitter", "Privacy policy",
                   "Home > ML"):
        assert chrome not in text
    # the <pre> block keeps its line breaks and indentation
    assert '  File "train.py", line 88, in <module>\n    metrics = trainer.evaluate()\n' in text
    assert "- Set `eval_accumulation_steps=8`" in text


def test_html_heading_levels_and_title_fallback():
    text = html_to_text("<html><head><title>Page title</title></head><body><main><h2>Fix</h2>"
                        "<p>Use <code>x=1</code>.</p><h3>Notes</h3><p>none</p></main></body></html>")
    assert text.splitlines()[0] == "# Page title"
    assert "## Fix" in text and "### Notes" in text and "Use `x=1`." in text


def test_github_issue_export_becomes_markdown():
    raw = _read(DATA / "issue_export.json")
    assert raw.format == "github_issue"
    lines = raw.text.splitlines()
    assert lines[0] == "# KeyError: 'qwen2' when loading a Qwen2 checkpoint"
    assert "Source: example-org/trainer-lib#4321 (reported by @alice, closed)" in raw.text
    assert "## Comment by @maint-bob (maintainer)" in raw.text
    assert "## Comment by @alice (reporter)" in raw.text
    assert "KeyError: 'qwen2'\n```" in raw.text


def test_github_issue_shapes():
    assert github_issue_to_markdown({"title": "t", "body": None}) == "# t\n"
    wrapped = github_issue_to_markdown({"issue": {"title": "t", "body": "b"}, "comments": [{"body": "c"}]})
    assert wrapped is not None and "## Comment by @unknown" in wrapped
    assert github_issue_to_markdown([1, 2]) is None
    assert github_issue_to_markdown({"title": "t", "body": "b", "comments": 3}) == "# t\n\nb\n"


def test_markdown_with_front_matter_is_an_entry():
    assert _read(DATA / "entry_grad_none.md").format == "entry"
    assert _read(DATA / "page_with_chrome.html").format == "html"


def test_markdown_starting_with_a_rule_is_not_an_entry(tmp_path):
    p = tmp_path / "rule.md"
    p.write_text("---\n\nSome text after a rule.\n")
    assert _read(p).format == "md"


# --- discover ----------------------------------------------------------------------------------------------------

def test_discover_walks_folders_sorted_with_relative_sources(tmp_path):
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "z.md").write_text("z")
    (tmp_path / "a.txt").write_text("a")
    (tmp_path / "c.html").write_text("<p>c</p>")
    (tmp_path / "d.json").write_text("{}")
    (tmp_path / "e.markdown").write_text("e")
    (tmp_path / "ignored.py").write_text("x")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD.md").write_text("x")
    found = discover([tmp_path])
    assert [s for _, s in found] == ["a.txt", "b/z.md", "c.html", "d.json", "e.markdown"]
    assert all(p.is_file() for p, _ in found)


def test_discover_file_argument_uses_its_name_and_dedupes(tmp_path):
    f = tmp_path / "x.md"
    f.write_text("x")
    assert discover([f, tmp_path]) == [(f, "x.md")]


def test_discover_missing_path_raises_bad_input(tmp_path):
    with pytest.raises(BadInput, match="No such file or folder"):
        discover([tmp_path / "missing"])


def test_discover_test_data_folder():
    sources = [s for _, s in discover([DATA])]
    assert sources == sorted(sources)
    expected = {"gbk_nccl_ifname_zh.txt", "page_with_chrome.html", "issue_export.json", "entry_grad_none.md"}
    assert expected <= set(sources)
