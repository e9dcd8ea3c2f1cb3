"""Summary figures of a knowledge base: which one it is (`kb_identity`, shown beside every answer) and what is in it
(`kb_stats`, `triage stats`)."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from kb.index import store
from kb.index.hybrid import KnowledgeBase


def _folder_bytes(path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def identity_from_manifest(kb_dir: Path, manifest: dict) -> dict:
    """{"path", "documents", "built_at"}: what names a KB to its reader (built_at as the manifest has it)."""
    return {"path": str(Path(kb_dir).resolve()), "documents": manifest.get("documents"),
            "built_at": manifest.get("created")}


def kb_identity(kb: KnowledgeBase) -> dict:
    """The identity of a loaded KB; documents counted from its store (the manifest's count could be absent)."""
    return {**identity_from_manifest(kb.path, kb.manifest), "documents": len(kb.documents())}


def peek_identity(kb_dir: Path) -> dict | None:
    """The identity of the KB at `kb_dir` from its manifest alone (no index loaded); None when none is built there
    or it cannot be read."""
    try:
        gen = store.current_generation(Path(kb_dir))
        if gen is None:
            return None
        manifest = json.loads((gen / store.MANIFEST).read_text(encoding="utf-8"))
    except Exception:  # noqa: BLE001 - a broken KB is reported when it is opened, not here
        return None
    return identity_from_manifest(kb_dir, manifest)


def kb_stats(kb: KnowledgeBase) -> dict:
    docs = kb.documents()
    langs = Counter(lang for d in docs.values() for lang in (d.langs or ["unknown"]))
    return {
        "kb": str(kb.path),
        "documents": len(docs),
        "chunks": kb.store.chunk_count(),
        "languages": dict(sorted(langs.items())),
        # entries written in both languages (title, root cause and fixes in each): answered in the reader's
        "bilingual": sum(d.bilingual for d in docs.values()),
        "model": kb.manifest.get("model"),
        "dim": kb.manifest.get("dim"),
        "tokenizer": kb.manifest.get("tokenizer"),
        "built": kb.manifest.get("created"),
        "bytes_on_disk": _folder_bytes(kb.store.gen),
    }
