"""Ingest into a real KB folder: SQLite + FAISS + BM25 + the real embedding model. Incremental and crash-safe."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kb.errors import IndexCorrupt, IndexIncompatible, IndexNotFound
from kb.index.hybrid import KnowledgeBase
from kb.models import SCHEMA_VERSION
from kb.traceback.signature import SIGNATURE_VERSION
from kb.index import store
from ingest.build import ingest

pytestmark = pytest.mark.slow

DATA = Path(__file__).parent / "data" / "corpus_small"
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def corpus(tmp_path) -> Path:
    dst = tmp_path / "corpus"
    shutil.copytree(DATA, dst)
    return dst


def test_ingest_then_search_and_reingest_is_a_no_op(corpus, tmp_path, settings):
    kb_dir = tmp_path / "kb"
    first = ingest([corpus], kb_dir, settings)
    assert sorted(first.added) == ["lfs_pointer_zh.md", "nccl_shm.md", "zero3_load.md"]
    assert first.embedded == first.chunks > 0
    gen = store.current_generation(kb_dir)

    second = ingest([corpus], kb_dir, settings)
    assert (len(second.unchanged), second.added, second.updated, second.embedded) == (3, [], [], 0)
    assert store.current_generation(kb_dir) == gen, "nothing changed, so no new generation"

    kb = KnowledgeBase.open(kb_dir, settings)
    assert kb.store.chunk_count() == first.chunks
    assert len(kb.documents()) == 3
    # Cross-lingual: an English question finds the Chinese postmortem.
    hits = kb.search("model weights file is a git lfs pointer, unpickling fails", top=3)
    assert hits[0].source == "lfs_pointer_zh.md"
    kb.close()


def test_changed_file_reembeds_only_its_new_chunks_and_prune_drops_deleted(corpus, tmp_path, settings):
    kb_dir = tmp_path / "kb"
    first = ingest([corpus], kb_dir, settings)
    path = corpus / "nccl_shm.md"
    path.write_text(path.read_text() + "\n## Notes\nAlso seen with Kubernetes pods that mount an emptyDir.\n")
    again = ingest([corpus], kb_dir, settings)
    assert again.updated == ["nccl_shm.md"] and again.added == []
    assert 0 < again.embedded < first.chunks
    (corpus / "zero3_load.md").unlink()
    kept = ingest([corpus], kb_dir, settings)
    assert kept.removed == [] and kept.documents == 3, "without --prune, documents of gone files stay"
    pruned = ingest([corpus], kb_dir, settings, prune=True)
    assert pruned.removed == ["zero3_load.md"] and pruned.documents == 2


def test_new_extraction_code_re_extracts_every_document_without_re_embedding(corpus, tmp_path, settings, monkeypatch):
    import ingest.build as build

    kb_dir = tmp_path / "kb"
    first = ingest([corpus], kb_dir, settings)
    assert store.open_store(kb_dir).manifest["extractor"] == build.EXTRACTOR_VERSION
    assert store.open_store(kb_dir).manifest["signatures"] == SIGNATURE_VERSION
    monkeypatch.setattr(build, "EXTRACTOR_VERSION", "extract:other")
    again = ingest([corpus], kb_dir, settings)
    assert sorted(again.updated) == sorted(first.added) and not again.unchanged
    assert again.embedded == 0                       # the same chunk texts keep their vectors
    assert store.open_store(kb_dir).manifest["extractor"] == "extract:other"


def test_the_extractor_version_follows_the_rule_files_as_well_as_the_code(tmp_path):
    """The parser's line rules are data (kb/data/rules): editing one must re-extract documents like a code change."""
    from ingest.version import EXTRACTOR_VERSION, extractor_version
    from kb.rules import version_inputs

    repo = Path(__file__).resolve().parent.parent
    copy = tmp_path / "repo"
    shutil.copytree(repo / "ingest", copy / "ingest")
    for path in version_inputs():
        target = copy / "kb" / path.relative_to(repo / "kb")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, target)
    assert extractor_version(copy / "ingest") == EXTRACTOR_VERSION
    lines = copy / "kb" / "data" / "rules" / "lines.toml"
    lines.write_text(lines.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    assert extractor_version(copy / "ingest") != EXTRACTOR_VERSION


def test_sources_are_relative_to_the_folder_given(corpus, tmp_path, settings):
    kb_dir = tmp_path / "kb"
    ingest([corpus / "nccl_shm.md"], kb_dir, settings)
    kb = KnowledgeBase.open(kb_dir, settings)
    assert [d.source for d in kb.documents().values()] == ["nccl_shm.md"]
    kb.close()


def test_killed_ingest_leaves_previous_kb_loadable(corpus, tmp_path, settings):
    kb_dir = tmp_path / "kb"
    ingest([corpus], kb_dir, settings)
    before = store.current_generation(kb_dir)
    for i in range(40):
        (corpus / f"extra_{i}.md").write_text(f"# Extra {i}\n\nRuntimeError: synthetic failure number {i}\n" * 30)
    env = {**os.environ, "TRIAGE_CACHE_DIR": str(settings.cache_dir)}
    proc = subprocess.Popen([sys.executable, "-m", "bot.cli", "ingest", str(corpus), "--kb", str(kb_dir), "--json"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # Wait until the new build has started writing a generation (or a few seconds), then kill it hard.
    deadline = time.time() + 60
    while time.time() < deadline and proc.poll() is None:
        if len([p for p in kb_dir.iterdir() if p.name.startswith("gen-")]) > 1:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert store.current_generation(kb_dir) == before
    kb = KnowledgeBase.open(kb_dir, settings)
    assert len(kb.documents()) == 3
    assert kb.search("shared memory segment /dev/shm", top=1)[0].source == "nccl_shm.md"
    kb.close()
    # The next ingest cleans up the leftovers and succeeds.
    report = ingest([corpus], kb_dir, settings)
    assert report.documents == 43
    assert [p.name for p in kb_dir.iterdir() if p.name.startswith("gen-")] == [store.current_generation(kb_dir).name]


def test_bad_kb_folders_give_clear_errors(tmp_path, settings):
    with pytest.raises(IndexNotFound, match="triage ingest"):
        store.open_store(tmp_path / "nope")
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "CURRENT").write_text("gen-missing\n")
    with pytest.raises(IndexCorrupt, match="rebuild"):
        store.open_store(tmp_path / "broken")


def test_kb_from_another_schema_says_how_to_rebuild(corpus, tmp_path, settings):
    kb_dir = tmp_path / "kb"
    ingest([corpus], kb_dir, settings)
    gen = store.current_generation(kb_dir)
    manifest = json.loads((gen / store.MANIFEST).read_text())
    manifest["schema_version"] = 999
    (gen / store.MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(IndexIncompatible, match="triage ingest"):
        store.open_store(kb_dir)


def test_kb_built_before_bilingual_entries_still_loads(corpus, tmp_path, settings):
    """Schema 1 (before documents carried `texts`): its documents read as they are, shown as written."""
    kb_dir = tmp_path / "kb"
    ingest([corpus], kb_dir, settings)
    gen = store.current_generation(kb_dir)
    manifest = json.loads((gen / store.MANIFEST).read_text())
    assert manifest["schema_version"] == SCHEMA_VERSION
    manifest["schema_version"] = 1
    (gen / store.MANIFEST).write_text(json.dumps(manifest))
    opened = store.open_store(kb_dir)
    docs = opened.documents()
    assert docs and all(not d.bilingual for d in docs.values())
    opened.close()


def test_english_query_finds_the_chinese_zero3_seed(shared_dir, tmp_path, settings):
    kb_dir = tmp_path / "kb"
    report = ingest([shared_dir / "seeds"], kb_dir, settings)
    assert report.documents == 4 and not report.skipped
    kb = KnowledgeBase.open(kb_dir, settings)
    hits = kb.search("shape mismatch when loading weights under ZeRO-3", top=4)
    assert hits[0].source == "000_afec80fa3734705a.txt"
    # Page noise never reaches the index: the seeds end in blurbs of unrelated "recommended" projects.
    texts = [sc.chunk.text for d in kb.documents() for sc in kb.store.chunks_of(d)]
    assert not any("Kimi" in t or "GLM-4.7" in t for t in texts)
    kb.close()


def test_kept_documents_are_copied_as_stored_and_keep_their_ids(corpus, tmp_path, settings):
    """A later ingest copies unchanged documents from the live generation (rows, vectors, tokens) without re-reading
    them; a new file whose id collides with a kept document's is the one that gets a suffix."""
    kb_dir = tmp_path / "kb"
    ingest([corpus], kb_dir, settings)
    before = store.open_store(kb_dir)
    kept = {c.chunk.chunk_id: (c.chunk.text, before.vectors()[c.row].copy()) for c in before.chunks_of("nccl_shm")}
    before.close()
    assert kept
    # nccl_shm.html sorts before the kept nccl_shm.md and slugs to the same id.
    (corpus / "nccl_shm.html").write_text("<html><body><h1>NCCL in a container</h1><pre>NCCL error: unhandled system "
                                          "error</pre><p>Root cause: /dev/shm too small in the container; fix: "
                                          "--shm-size=8g or --ipc=host.</p></body></html>\n")
    again = ingest([corpus], kb_dir, settings)
    assert again.added == ["nccl_shm.html"] and len(again.unchanged) == 3 and again.embedded > 0
    after = store.open_store(kb_dir)
    sources = {d.source: d.doc_id for d in after.documents().values()}
    assert sources["nccl_shm.md"] == "nccl_shm"
    assert sources["nccl_shm.html"].startswith("nccl_shm-")
    for c in after.chunks_of("nccl_shm"):
        text, vector = kept[c.chunk.chunk_id]
        assert c.chunk.text == text
        assert (after.vectors()[c.row] == vector).all()
    rows = sorted(c.row for d in after.documents() for c in after.chunks_of(d))
    assert rows == list(range(after.chunk_count())), "rows are renumbered densely in the new generation"
    after.close()
    kb = KnowledgeBase.open(kb_dir, settings)
    assert kb.search("container /dev/shm too small for NCCL", top=2)[0].source.startswith("nccl_shm")
    kb.close()
