"""ingest.frontmatter: entries with YAML front matter, valid and malformed."""
from __future__ import annotations

from pathlib import Path

import pytest

from kb.errors import BadInput
from ingest.extract import extract_document
from ingest.frontmatter import parse_entry
from ingest.read import RawDocument, read_path

DATA = Path(__file__).parent / "data" / "postmortems"


def _entry(tmp_path: Path, text: str) -> RawDocument:
    p = tmp_path / "entry.md"
    p.write_text(text, encoding="utf-8")
    raw = read_path(p, 1_000_000)
    assert isinstance(raw, RawDocument) and raw.format == "entry"
    return raw


def test_valid_entry_takes_fields_from_front_matter():
    raw = read_path(DATA / "entry_grad_none.md", 1_000_000)
    assert isinstance(raw, RawDocument)
    doc = extract_document(raw, "entries/entry_grad_none.md", set())
    assert doc.doc_id == "test-entry-grad-none"
    assert doc.source == "entries/entry_grad_none.md"
    assert doc.title == "LoRA with gradient checkpointing leaves the loss without grad_fn"
    assert doc.langs == ["en"]
    assert doc.libraries == ["peft", "torch"]
    assert doc.error_lines == ["RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"]
    assert doc.root_cause.startswith("Reentrant gradient checkpointing needs")
    assert [(f.verified_by, f.text[:20]) for f in doc.fixes] == [
        ("maintainer", "Call model.enable_in"), ("none", "Use non-reentrant ch")]
    assert doc.affected == "peft 0.10, torch 2.2" and doc.fixed_in == "trl 0.16"
    assert doc.repro == "repro/grad_none.py"
    assert doc.references == ["example-org/trainer-lib#77"]
    assert [s.kind for s in doc.sections] == ["symptoms", "root_cause", "fix"]
    assert len(doc.tracebacks) == 1
    assert "id: test-entry" not in doc.body


def test_missing_fields_fall_back_to_the_body(tmp_path):
    raw = _entry(tmp_path, "---\nid: minimal\n---\n# 显存不足\n\n## 根本原因\n激活占满显存。\n\n"
                           "## 解决方案\n- 开启梯度检查点。\n")
    doc = parse_entry(raw, "minimal.md")
    assert doc.title == "显存不足"
    assert doc.root_cause == "激活占满显存。"
    assert [f.text for f in doc.fixes] == ["开启梯度检查点。"]
    assert doc.langs == ["zh"]


def test_plain_string_fixes_and_scalar_lists_are_accepted(tmp_path):
    raw = _entry(tmp_path, "---\nid: x1\ntitle: T\nlang: zh\nfixes: [升级到新版本]\nsignatures: 'ValueError: x'\n"
                           "fixed_in: 4.45\nsources: [anything]\n---\nbody\n")
    doc = parse_entry(raw, "x1.md")
    assert doc.fixes[0].text == "升级到新版本" and doc.fixes[0].verified_by == "none"
    assert doc.error_lines == ["ValueError: x"]
    assert doc.fixed_in == "4.45"


@pytest.mark.parametrize("text,problem", [
    ("---\nid: a\ntitle: T\n", "not closed"),
    ("---\nid: a\ntitle: [unclosed\n---\nbody\n", "not valid YAML"),
    ("---\nid: a\n  title: x\n---\nbody\n", "not valid YAML"),
    ("---\nid: a\ntitle: T\nfixes:\n  - text: do it\n    verified_by: somebody\n---\n", "verified_by='somebody'"),
    ("---\nid: a\ntitle: T\nfixes: 3\n---\n", "'fixes' must be a list"),
    ("---\nid: a\ntitle: T\nfixes:\n  - verified_by: none\n---\n", "non-empty 'text'"),
    ("---\nid: a\ntitle: T\nlang: fr\n---\n", "'lang' is 'fr'"),
    ("---\nid: a\ntitle: T\nlibraries: {torch: 1}\n---\n", "'libraries' must be a list"),
    ("---\nid: a\ntitle: T\nroot_casue: typo\n---\n", "did you mean 'root_cause'"),
    ("---\nid: bad id!\ntitle: T\n---\n", "'id' is 'bad id!'"),
    ("---\nid: a\n---\n", "'title' is missing"),
])
def test_malformed_front_matter_names_the_file_and_the_problem(tmp_path, text, problem):
    raw = _entry(tmp_path, text)
    with pytest.raises(BadInput) as err:
        extract_document(raw, "kb/broken.md", set())
    assert "kb/broken.md" in err.value.user_message
    assert problem in err.value.user_message


def test_front_matter_that_is_not_a_mapping(tmp_path):
    raw = RawDocument(tmp_path / "e.md", "---\n- a\n- b\n---\nbody\n", "entry", "0" * 64)
    with pytest.raises(BadInput, match="must be a mapping"):
        parse_entry(raw, "e.md")


def test_bundled_entries_parse_when_present():
    entries = Path(__file__).resolve().parents[1] / "kb" / "data" / "entries"
    files = sorted(entries.glob("*.md"))
    if not files:
        pytest.skip("no bundled entries yet")
    for p in files:
        raw = read_path(p, 5_000_000)
        assert isinstance(raw, RawDocument) and raw.format == "entry", p.name
        doc = extract_document(raw, p.name, set())
        assert doc.title and doc.error_lines and doc.root_cause and doc.fixes, p.name
