"""The starter KB's vectors ship with the package: a first build embeds only what they do not cover, and they are
used only by the encoder (recipe and weights) that wrote them."""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from ingest.build import ingest
from ingest.starter import SHIPPED_DIR, SHIPPED_META, shipped_vectors
from kb.config import Settings
from kb.index import store
from kb.starter import ENTRIES_DIR

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def shipped(cache_dir):
    got = shipped_vectors(Settings(cache_dir=cache_dir), "onnx-int8")
    assert got, "kb/data/starter_vectors is missing or stale: run `make starter-vectors`"
    return got


def test_shipped_vectors_are_stamped_with_the_encoder_and_match_it(shipped, cache_dir):
    from kb.index.encoder.factory import load_embedder

    meta = json.loads((SHIPPED_DIR / SHIPPED_META).read_text())
    assert meta["encoder"] == "onnx-int8" and len(meta["texts"]) == len(shipped)
    # another encoder (or model) never gets them
    assert shipped_vectors(Settings(cache_dir=cache_dir), "torch") == {}
    # they are what this encoder computes for those texts
    st = store.open_store(_starter_kb(cache_dir))
    try:
        rows = st.conn.execute("SELECT text, text_hash FROM chunks ORDER BY row LIMIT 12").fetchall()
    finally:
        st.close()
    enc = load_embedder("multilingual-e5-small", cache_dir, "index", encoder="onnx-int8")
    fresh = enc.encode_passages([t for t, _ in rows])
    cos = np.sum(fresh * np.vstack([shipped[h] for _, h in rows]), axis=1)
    assert cos.min() > 0.999, cos


def _starter_kb(cache_dir):
    from ingest.starter import ensure_starter_kb

    return ensure_starter_kb(Settings(cache_dir=cache_dir, encoder="onnx-int8"))


def test_a_first_build_embeds_only_the_chunks_the_shipped_vectors_miss(shipped, cache_dir, tmp_path):
    entries = tmp_path / "entries"
    shutil.copytree(ENTRIES_DIR, entries)
    edited = sorted(entries.glob("*.md"))[0]
    edited.write_text(edited.read_text(encoding="utf-8") + "\n\nA paragraph added after the vectors were shipped.\n",
                      encoding="utf-8")
    settings = Settings(cache_dir=cache_dir, encoder="onnx-int8")
    report = ingest([entries], tmp_path / "kb", settings, known_vectors=lambda enc: shipped_vectors(settings, enc))
    assert report.reused_shipped > 0.9 * report.chunks
    assert 1 <= report.embedded <= 3 and report.embedded + report.reused_shipped == report.chunks
