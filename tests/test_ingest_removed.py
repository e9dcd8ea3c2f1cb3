"""What cleaning removed from each ingested page, read again from its source: ingest.removed and `triage export
--removed`."""
from __future__ import annotations

import json
import os
from pathlib import Path
from unittest import mock

import pytest
from click.testing import CliRunner

from ingest.clean import REASONS, find_boilerplate
from ingest.extract.document import extract_document
from ingest.read import read_path
from ingest.removed import STATUS_NOTES, RemovedLines
from tests.fakes.embedder import StandIn

BLURB = "SomeToolSomeTool 是一款好用的工具，支持多种格式。Python01"
PAGE = ("首页 / 大模型 / 部署踩坑 / 正文\n"
        "# 训练时加载权重报错\n\n"
        "2025-05-02 17:55:02作者:某人\n\n"
        "## 问题现象\n加载权重时报错：\n\n"
        "RuntimeError: Error(s) in loading state_dict for LlamaForCausalLM:\n\n"
        "## 解决方案\n- 在加载前调整词表大小。\n\n"
        "登录后查看全文\n" + BLURB + "\n")
OTHER = ("# NCCL timeout at checkpoint save\n\nRuntimeError: NCCL communicator was aborted on rank 5.\n\n"
         "## Fix\nRaise the timeout.\n" + BLURB + "\n")
ENTRY = ("---\nid: my-entry\ntitle: Something fails\nlang: en\nsignatures: [\"RuntimeError: boom\"]\n"
         "root_cause: a cause\nfixes:\n  - text: do this\n    verified_by: none\n---\n## Symptom\nRuntimeError: boom\n")


@pytest.fixture
def pages(tmp_path) -> Path:
    folder = tmp_path / "pages"
    folder.mkdir()
    (folder / "page.md").write_text(PAGE, encoding="utf-8")
    (folder / "other.md").write_text(OTHER, encoding="utf-8")
    (folder / "entry.md").write_text(ENTRY, encoding="utf-8")
    return folder


def _ingested(folder: Path):
    """(documents, index) as ingest would make them from `folder` in one run."""
    raws = {p.name: read_path(p, 1_000_000) for p in sorted(folder.iterdir())}
    boilerplate = find_boilerplate([r.text for r in raws.values()])
    docs = {name: extract_document(raw, name, boilerplate) for name, raw in raws.items()}
    index = [(d.doc_id, d.content_hash, str((folder / name).resolve())) for name, d in docs.items()]
    return docs, index


def test_a_page_lists_its_removed_lines_as_ingested(pages):
    docs, index = _ingested(pages)
    got = RemovedLines(index, 1_000_000).of(docs["page.md"])
    assert got["status"] == "as ingested" and got["note"] == STATUS_NOTES["as ingested"]
    assert got["lines"] == [
        {"line": 1, "text": "首页 / 大模型 / 部署踩坑 / 正文", "reason": "crumb"},
        {"line": 4, "text": "2025-05-02 17:55:02作者:某人", "reason": "meta"},
        {"line": 14, "text": "登录后查看全文", "reason": "prompt"},
        {"line": 15, "text": BLURB, "reason": "boilerplate"},     # in both pages of the folder
    ]
    assert all(r["reason"] in REASONS for r in got["lines"])
    assert RemovedLines(index, 1_000_000).of(docs["entry.md"]) == {
        "status": "not cleaned", "note": STATUS_NOTES["not cleaned"], "lines": []}


def test_a_source_that_moved_on_says_so(pages):
    docs, index = _ingested(pages)
    page = docs["page.md"]
    stale = page.model_copy(update={"body": page.body + "a line the rules of the day kept\n"})
    assert RemovedLines(index, 1_000_000).of(stale)["status"] == "recomputed"

    (pages / "page.md").write_text(PAGE + "edited after ingest\n", encoding="utf-8")
    (pages / "other.md").unlink()
    issue = ("owner-repo-7", "sha", "https://github.com/owner/repo/issues/7")
    removed = RemovedLines(index + [issue], 1_000_000)
    assert removed.of(page)["status"] == "source changed"
    assert removed.of(docs["other.md"])["status"] == "source missing"
    thread = page.model_copy(update={"doc_id": "owner-repo-7"})
    assert removed.of(thread) == {"status": "no source file", "note": STATUS_NOTES["no source file"], "lines": []}


def test_export_adds_the_removed_lines_for_one_document(pages, tmp_path, cache_dir, monkeypatch):
    from bot.cli import main
    from ingest.build import ingest
    from kb.config import Settings

    for name in [k for k in os.environ if k.startswith("TRIAGE_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("TRIAGE_CACHE_DIR", str(cache_dir))
    kb_dir = tmp_path / "kb"
    with mock.patch("kb.index.encoder.factory.load_embedder", lambda *a, **k: StandIn()):
        report = ingest([pages], kb_dir, Settings(cache_dir=cache_dir, kb=None, encoder="torch"))
    assert not report.skipped, report.skipped

    plain = CliRunner().invoke(main, ["export", "--kb", str(kb_dir)])
    assert plain.exit_code == 0, plain.output
    rows = [json.loads(line) for line in plain.stdout.splitlines()]
    assert len(rows) == 3 and not any("removed" in r for r in rows)     # the flag adds the field

    out = CliRunner().invoke(main, ["export", "--kb", str(kb_dir), "--removed", "--doc", "page"])
    assert out.exit_code == 0, out.output
    (row,) = [json.loads(line) for line in out.stdout.splitlines()]
    assert row["doc_id"] == "page" and row["chunks"]
    assert row["removed"]["status"] == "as ingested"
    assert [(r["line"], r["reason"]) for r in row["removed"]["lines"]] == [
        (1, "crumb"), (4, "meta"), (14, "prompt"), (15, "boilerplate")]

    bad = CliRunner().invoke(main, ["export", "--kb", str(kb_dir), "--doc", "nope"])
    assert bad.exit_code == 2 and "nope" in bad.output
