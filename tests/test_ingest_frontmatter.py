"""ingest.frontmatter: entries with YAML front matter, valid and malformed."""
from __future__ import annotations

from pathlib import Path

import pytest

from kb.errors import BadInput
from ingest.extract.document import extract_document
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
        # every bundled entry is written in both languages, and the index reads the language of its body
        assert doc.bilingual and set(doc.texts) == {"en", "zh"}, p.name
        assert doc.title in (doc.texts["en"].title, doc.texts["zh"].title), p.name


BILINGUAL = """---
id: {id}
title_en: ZeRO-3 leaves embeddings empty when loading a checkpoint
title_zh: ZeRO-3 加载 checkpoint 时嵌入层是空的
lang: [en, zh]
signatures:
  - "size mismatch for model.embed_tokens.weight: copying a param with shape torch.Size([32000, 4096])"
root_cause_en: >-
  Under ZeRO-3 the parameters are empty placeholders until they are gathered.
root_cause_zh: >-
  ZeRO-3 下参数在 gather 之前只是空占位。
fixes:
  - text_en: Load the model inside deepspeed.zero.Init.
    text_zh: 在 deepspeed.zero.Init 中加载模型。
    verified_by: maintainer
  - text_en: Gather before copying.
    text_zh: 拷贝之前先 gather。
---
## Symptom
{body}
"""


def test_bilingual_entry_keeps_both_languages_and_indexes_its_bodys_language(tmp_path):
    doc = parse_entry(_entry(tmp_path, BILINGUAL.format(id="z3", body="The load fails when the model is built.")),
                      "z3.md")
    assert doc.langs == ["en", "zh"] and doc.bilingual
    # the fields the index reads are the body's language (English here)
    assert doc.title == "ZeRO-3 leaves embeddings empty when loading a checkpoint"
    assert doc.root_cause.startswith("Under ZeRO-3")
    assert [(f.text, f.verified_by) for f in doc.fixes] == [("Load the model inside deepspeed.zero.Init.", "maintainer"),
                                                            ("Gather before copying.", "none")]
    assert doc.texts["zh"].title == "ZeRO-3 加载 checkpoint 时嵌入层是空的"
    assert doc.texts["zh"].fixes == ["在 deepspeed.zero.Init 中加载模型。", "拷贝之前先 gather。"]
    title, cause, fixes = doc.localized("zh")
    assert (title, cause) == ("ZeRO-3 加载 checkpoint 时嵌入层是空的", "ZeRO-3 下参数在 gather 之前只是空占位。")
    assert [(f.text, f.verified_by) for f in fixes] == [("在 deepspeed.zero.Init 中加载模型。", "maintainer"),
                                                        ("拷贝之前先 gather。", "none")]
    # a Chinese body: the Chinese texts feed the index
    zh = parse_entry(_entry(tmp_path, BILINGUAL.format(id="z3", body="加载模型时报错，嵌入层的形状是零，训练无法开始。")),
                     "z3.md")
    assert zh.title == "ZeRO-3 加载 checkpoint 时嵌入层是空的" and zh.fixes[1].text == "拷贝之前先 gather。"


def test_one_language_entry_of_either_form_is_shown_as_written(tmp_path):
    old = parse_entry(_entry(tmp_path, "---\nid: a\ntitle: 显存不足\nroot_cause: 激活太多。\nfixes: [开启梯度检查点]\n---\n"),
                      "a.md")
    assert not old.bilingual and old.localized("en")[0] == "显存不足"
    one = parse_entry(_entry(tmp_path, "---\nid: b\ntitle_zh: 显存不足\nroot_cause_zh: 激活太多。\n"
                                       "fixes:\n  - text_zh: 开启梯度检查点\n---\n"), "b.md")
    assert one.langs == ["zh"] and not one.bilingual
    assert one.localized("en")[:2] == ("显存不足", "激活太多。") and one.fixes[0].text == "开启梯度检查点"


@pytest.mark.parametrize("edit,problem", [
    # a fix missing its Chinese text where the entry is written in both languages
    (lambda t: t.replace("    text_zh: 拷贝之前先 gather。\n", ""), "'fixes' item 2 needs a non-empty 'text_zh'"),
    (lambda t: t.replace("root_cause_zh: >-\n  ZeRO-3 下参数在 gather 之前只是空占位。\n", ""), "'root_cause_zh' is missing"),
    (lambda t: t.replace("title_zh: ZeRO-3 加载 checkpoint 时嵌入层是空的\n", ""), "'title_zh' is missing"),
    (lambda t: t.replace("lang: [en, zh]", "lang: en"), "'lang' is [en] but the entry has zh fields"),
    (lambda t: t.replace("title_en:", "title:"), "'title' is given beside 'title_zh'"),
    (lambda t: t.replace("  - text_en: Gather", "  - text: Gather"), "'fixes' item 2 needs a non-empty 'text_en'"),
])
def test_malformed_bilingual_entry_is_one_line_naming_the_file_and_field(tmp_path, edit, problem):
    raw = _entry(tmp_path, edit(BILINGUAL.format(id="z3", body="The load fails.")))
    with pytest.raises(BadInput) as err:
        extract_document(raw, "entries/z3.md", set())
    message = err.value.user_message
    assert message.startswith("entries/z3.md: front matter field ") and "\n" not in message
    assert problem in message


def test_a_bundled_entry_must_be_written_in_both_languages(tmp_path, monkeypatch):
    import ingest.frontmatter as fm

    monkeypatch.setattr(fm, "ENTRIES_DIR", tmp_path)
    one = _entry(tmp_path, "---\nid: b\ntitle_en: Out of memory\nroot_cause_en: Too many activations.\n"
                           "fixes:\n  - text_en: Turn checkpointing on.\n---\n")
    with pytest.raises(BadInput, match="entry.md: front matter field 'lang' is \\['en'\\]: a bundled entry"):
        extract_document(one, "entry.md", set())
    old = _entry(tmp_path, "---\nid: b\ntitle: Out of memory\n---\n")
    with pytest.raises(BadInput, match="'title_en' is missing: a bundled entry is written in both languages"):
        extract_document(old, "entry.md", set())
