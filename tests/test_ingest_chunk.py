"""ingest.chunk: ids, the title/error chunk, section-aware packing, unsplittable code and tracebacks, languages."""
from __future__ import annotations

from pathlib import Path

from kb.models import Document, Fix, Section
from ingest.chunk import chunk_document, chunk_lang
from ingest.extract.document import extract_document
from ingest.read import RawDocument, read_path

DATA = Path(__file__).parent / "data" / "postmortems"


def _doc(**kw) -> Document:
    base = dict(doc_id="d", source="d.md", content_hash="0" * 64, title="Title", langs=["en"])
    base.update(kw)
    return Document(**base)


def test_ids_title_chunk_and_sections():
    doc = _doc(error_lines=["RuntimeError: boom"], sections=[
        Section(heading="Symptom", kind="symptoms", text="It crashed."),
        Section(heading="Fix", kind="fix", text="Restart it."),
    ], fixes=[Fix(text="Restart it.")])
    chunks = chunk_document(doc)
    assert [c.chunk_id for c in chunks] == ["d#0", "d#1", "d#2"]
    assert [c.ordinal for c in chunks] == [0, 1, 2]
    assert chunks[0].section == "title" and chunks[0].text == "Title\nRuntimeError: boom"
    assert chunks[1].text == "Title\nSymptom\nIt crashed." and chunks[1].section == "symptoms"
    assert chunks[2].section == "fix"


def test_long_traceback_is_never_split_and_prose_respects_the_limit():
    frames = "".join(f'  File "m{i}.py", line {i}, in f{i}\n    call_{i}()\n' for i in range(60))
    tb = "```\nTraceback (most recent call last):\n" + frames + "RuntimeError: deep\n```"
    prose = " ".join(f"Sentence number {i} explains a part of the failure." for i in range(80))
    doc = _doc(sections=[Section(heading="Symptom", kind="symptoms", text=f"Intro.\n\n{tb}\n\n{prose}")])
    chunks = chunk_document(doc, max_chars=500)
    with_tb = [c for c in chunks if "Traceback (most recent call last):" in c.text]
    assert len(with_tb) == 1
    assert tb in with_tb[0].text and len(with_tb[0].text) > 500
    assert all(len(c.text) <= 500 for c in chunks if c is not with_tb[0])
    joined = " ".join(c.text for c in chunks)
    assert "Sentence number 79 explains" in joined


def test_unfenced_traceback_lines_stay_together():
    text = ("这个问题发生在加载时，" * 30 + "\n"
            "RuntimeError: Error(s) in loading state_dict for M:\n"
            "\tsize mismatch for a.weight: copying a param with shape torch.Size([2]) from checkpoint\n"
            "\tsize mismatch for b.weight: copying a param with shape torch.Size([3]) from checkpoint\n")
    doc = _doc(langs=["zh"], sections=[Section(heading="问题现象", kind="symptoms", text=text)])
    chunks = chunk_document(doc, max_chars=300)
    holding = [c for c in chunks if "RuntimeError: Error(s)" in c.text]
    assert len(holding) == 1 and "b.weight" in holding[0].text


def test_front_matter_root_cause_and_fixes_get_chunks():
    doc = _doc(root_cause="Only in front matter.", fixes=[Fix(text="Front matter fix.", verified_by="maintainer")],
               sections=[Section(heading="Symptom", kind="symptoms", text="x")])
    chunks = chunk_document(doc)
    kinds = {c.section: c.text for c in chunks}
    assert "Only in front matter." in kinds["root_cause"]
    assert "Front matter fix." in kinds["fix"]


def test_document_without_sections_uses_body():
    chunks = chunk_document(_doc(body="Just a body of text."))
    assert chunks[-1].section == "body" and chunks[-1].text.endswith("Just a body of text.")


def test_chunk_lang():
    assert chunk_lang("这是一个关于显存不足的中文段落，包含一些解释。", "en") == "zh"
    assert chunk_lang("The allocator keeps memory reserved for the next batch of requests.", "zh") == "en"
    assert chunk_lang("```\nx = 1\n```", "zh") == "zh"
    mixed = ("这是一个关于显存不足的中文段落，包含一些解释和背景。\n"
             "The allocator keeps memory reserved for the next batch, and this is the reason for it.")
    assert chunk_lang(mixed, "en") == "mixed"


def test_chunks_of_test_data_are_clean_and_bounded():
    for name in ("gbk_nccl_ifname_zh.txt", "page_with_chrome.html", "issue_export.json", "entry_grad_none.md",
                 "no_headings_en.txt"):
        raw = read_path(DATA / name, 5_000_000)
        assert isinstance(raw, RawDocument)
        doc = extract_document(raw, name, set())
        chunks = chunk_document(doc, max_chars=400)
        assert chunks and chunks[0].section == "title"
        assert all(c.lang in ("zh", "en", "mixed") for c in chunks)
        assert all(c.text.strip() for c in chunks)
        for c in chunks:
            assert "猜你喜欢" not in c.text and "首页" not in c.text and "Privacy" not in c.text


def test_a_bilingual_entry_is_indexed_in_its_other_language_too(tmp_path):
    text = ("---\nid: fork-cuda\ntitle_en: CUDA used in a forked child\ntitle_zh: 在 fork 出的子进程里使用 CUDA\n"
            "lang: [en, zh]\nsignatures:\n  - \"RuntimeError: Cannot re-initialize CUDA in forked subprocess.\"\n"
            "root_cause_en: The parent initialised CUDA before fork().\n"
            "root_cause_zh: 父进程在 fork() 之前已经初始化了 CUDA。\n"
            "fixes:\n  - text_en: Use the spawn start method.\n    text_zh: 改用 spawn 启动方式。\n"
            "    verified_by: maintainer\nreferences: [\"pytorch/pytorch#40403\"]\n---\n"
            "## Symptoms\nThe DataLoader workers die at once.\n")
    path = tmp_path / "fork-cuda.md"
    path.write_text(text, encoding="utf-8")
    doc = extract_document(read_path(path, 10**6), "fork-cuda.md")
    chunks = chunk_document(doc)
    zh = [c for c in chunks if c.lang == "zh"]
    assert len(zh) == 1 and zh[0].text == "在 fork 出的子进程里使用 CUDA\n父进程在 fork() 之前已经初始化了 CUDA。"
    assert all("父进程" not in c.text for c in chunks if c is not zh[0])     # the rest is as before, in English
