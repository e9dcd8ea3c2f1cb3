"""Build the bundled starter KB into the user's cache on first use, and again whenever its entries or the code that
extracts them change (an update re-extracts; unchanged chunks keep their vectors).

The package ships the starter chunks' vectors (`kb/data/starter_vectors/`), written by `python -m ingest.starter`
(`make starter-vectors`) with the int8 encoder, keyed by the sha256 of each chunk's text and stamped with the
encoder's recipe and the model file's sha256. A first build embeds only the chunks they do not cover (an entry
edited or added since they were written), and uses none of them when the local encoder is another one (another
recipe, other weights, TRIAGE_ENCODER=torch)."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from kb.config import Settings
from kb.starter import ENTRIES_DIR, entries_hash
from ingest.version import EXTRACTOR_VERSION

if TYPE_CHECKING:
    from ingest.build import Progress

HASH_FILE = "STARTER_HASH"
SHIPPED_DIR = ENTRIES_DIR.parent / "starter_vectors"
SHIPPED_META = "vectors.json"
SHIPPED_VECTORS = "vectors.npy"


def starter_kb_dir(settings: Settings) -> Path:
    return settings.cache_dir / f"starter-kb-{settings.model.replace('/', '_')}"


def _encoder_stamp(settings: Settings, encoder: str) -> dict | None:
    """What shipped vectors must carry to be this machine's `encoder`'s: its name, recipe and weights' sha256."""
    from kb.config import DEFAULT_MODEL
    from kb.index.encoder.factory import ONNX_INT8

    if settings.model != DEFAULT_MODEL or encoder != ONNX_INT8:
        return None
    from kb.index.encoder import onnx_e5

    marker = onnx_e5.read_marker(onnx_e5.ensure_exported(settings.cache_dir)) or {}
    return {"encoder": encoder, "recipe": marker.get("recipe"), "source_sha256": marker.get("source_sha256")}


def shipped_vectors(settings: Settings, encoder: str, folder: Path = SHIPPED_DIR) -> dict[str, np.ndarray]:
    """text sha256 -> vector, from the package, when they were made by this very encoder; else {}."""
    stamp = _encoder_stamp(settings, encoder)
    try:
        meta = json.loads((folder / SHIPPED_META).read_text(encoding="utf-8"))
        vectors = np.load(folder / SHIPPED_VECTORS)
    except (OSError, ValueError):
        return {}
    if stamp is None or {k: meta.get(k) for k in stamp} != stamp or len(meta.get("texts", [])) != len(vectors):
        return {}
    return dict(zip(meta["texts"], vectors))


def write_shipped_vectors(settings: Settings, folder: Path = SHIPPED_DIR) -> dict:
    """Build the starter KB with the int8 encoder and write its chunk vectors into `folder` (package data)."""
    from kb.index import store
    from kb.index.encoder.factory import ONNX_INT8

    settings = settings.model_copy(update={"encoder": ONNX_INT8})
    kb_dir = ensure_starter_kb(settings)
    st = store.open_store(kb_dir)
    try:
        rows = st.conn.execute("SELECT row, text_hash FROM chunks ORDER BY row").fetchall()
        vectors = np.asarray(st.vectors(), dtype=np.float32)
        manifest = st.manifest
    finally:
        st.close()
    texts, keep, seen = [], [], set()
    for row, text_hash in rows:
        if text_hash not in seen:
            seen.add(text_hash)
            texts.append(text_hash)
            keep.append(row)
    meta = {**_encoder_stamp(settings, ONNX_INT8), "entries_sha256": entries_hash(),
            "extractor": manifest.get("extractor"), "texts": texts}
    folder.mkdir(parents=True, exist_ok=True)
    np.save(folder / SHIPPED_VECTORS, vectors[keep])
    (folder / SHIPPED_META).write_text(json.dumps(meta, indent=0) + "\n", encoding="utf-8")
    return {"chunks": len(keep), "folder": str(folder)}


def ensure_starter_kb(settings: Settings, progress: Progress | None = None) -> Path:
    from kb.index.encoder.factory import resolve_encoder

    kb_dir = starter_kb_dir(settings)
    # the starter KB is small and ships its vectors: it is embedded the same way on every machine, GPU or not
    settings = settings.model_copy(update={"device": "cpu"})
    encoder = resolve_encoder(settings.model, settings.cache_dir, settings.encoder)
    # new entries, new extraction code or another encoder (TRIAGE_ENCODER): bring it up to date
    want = f"{entries_hash()} {EXTRACTOR_VERSION} {encoder}"
    stamp = kb_dir / HASH_FILE
    if stamp.exists() and stamp.read_text().strip() == want and (kb_dir / "CURRENT").exists():
        return kb_dir
    print("Building the bundled starter knowledge base (first use)...", file=sys.stderr)
    from ingest.build import ingest

    ingest([ENTRIES_DIR], kb_dir, settings, prune=True, progress=progress,
           known_vectors=lambda enc: shipped_vectors(settings, enc))
    stamp.write_text(want + "\n")
    return kb_dir


if __name__ == "__main__":   # python -m ingest.starter: refresh the shipped vectors (make starter-vectors)
    from kb.config import load_settings

    print(json.dumps(write_shipped_vectors(load_settings())))
