"""A loaded knowledge base: documents + dense and BM25 indexes, with hybrid search over chunks."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kb.config import Settings
from kb.index import store
from kb.index.dense import DenseIndex
from kb.index.sparse import SparseIndex
from kb.models import Document

# Reciprocal-rank fusion constant: the usual 60 keeps one retriever's top hit from drowning the other's list.
RRF_K = 60


@dataclass
class SearchResult:
    doc_id: str
    chunk_id: str
    source: str
    section: str
    text: str
    score: float       # fused (RRF) score
    dense: float       # cosine, 0 when the chunk was not in the dense candidates
    bm25: float


class KnowledgeBase:
    def __init__(self, st: store.KBStore, settings: Settings):
        self.store = st
        self.settings = settings
        self.manifest = st.manifest
        self.dense = DenseIndex(st.gen)
        self.sparse = SparseIndex(st.gen)
        self.row_doc = st.row_doc_ids()
        self._embedder = None

    @classmethod
    def open(cls, kb_dir: Path, settings: Settings) -> "KnowledgeBase":
        return cls(store.open_store(kb_dir), settings)

    @property
    def path(self) -> Path:
        return self.store.kb_dir

    def documents(self) -> dict[str, Document]:
        return self.store.documents()

    def embed_query(self, text: str) -> np.ndarray:
        if self._embedder is None:
            from kb.index.embed import load_embedder

            self._embedder = load_embedder(self.manifest["model"], self.settings.cache_dir, purpose="query")
        return self._embedder.encode_queries([text])[0]

    def vectors_cosine(self, query: np.ndarray) -> np.ndarray:
        """Cosine of the query with every chunk row (exact; for evaluation and small KBs)."""
        return np.asarray(self.store.vectors() @ query.astype(np.float32))

    def dense_search(self, text: str, k: int) -> list[tuple[int, float]]:
        return self.dense.search(self.embed_query(text), k)

    def bm25_search(self, tokens: list[str], k: int) -> list[tuple[int, float]]:
        return self.sparse.search(tokens, k)

    def search(self, text: str, top: int = 5, depth: int = 50) -> list[SearchResult]:
        """Hybrid search: RRF over the dense and BM25 rankings of chunks."""
        from kb.index.tokenize import tokenize

        dense_hits = self.dense_search(text, depth)
        bm25_hits = self.bm25_search(tokenize(text), depth)
        fused: dict[int, float] = {}
        for hits in (dense_hits, bm25_hits):
            for rank, (row, _) in enumerate(hits):
                fused[row] = fused.get(row, 0.0) + 1.0 / (RRF_K + rank + 1)
        dense_of = dict(dense_hits)
        bm25_of = dict(bm25_hits)
        best = sorted(fused, key=lambda r: -fused[r])[:top]
        docs = self.documents()
        out = []
        for sc in self.store.chunks(best):
            c = sc.chunk
            out.append(SearchResult(
                doc_id=c.doc_id, chunk_id=c.chunk_id, source=docs[c.doc_id].source, section=c.section, text=c.text,
                score=fused[sc.row], dense=dense_of.get(sc.row, 0.0), bm25=bm25_of.get(sc.row, 0.0),
            ))
        return out

    def close(self) -> None:
        self.store.close()
