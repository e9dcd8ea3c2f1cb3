"""Summary figures of a loaded knowledge base (`triage stats`)."""
from __future__ import annotations

from collections import Counter

from kb.index.hybrid import KnowledgeBase


def _folder_bytes(path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def kb_stats(kb: KnowledgeBase) -> dict:
    docs = kb.documents()
    langs = Counter(lang for d in docs.values() for lang in (d.langs or ["unknown"]))
    return {
        "kb": str(kb.path),
        "documents": len(docs),
        "chunks": kb.store.chunk_count(),
        "languages": dict(sorted(langs.items())),
        "model": kb.manifest.get("model"),
        "dim": kb.manifest.get("dim"),
        "tokenizer": kb.manifest.get("tokenizer"),
        "built": kb.manifest.get("created"),
        "bytes_on_disk": _folder_bytes(kb.store.gen),
    }
