"""A loaded knowledge base: documents + dense and BM25 indexes, with hybrid search over chunks."""
from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kb.config import Settings
from kb.errors import ModelUnavailable
from kb.index import store
from kb.index.dense import DenseIndex
from kb.index.fusion import best_per_doc, dense_norm, fused
from kb.index.glossary import gloss
from kb.index.sparse import SparseIndex
from kb.models import Document

def encoder_text(text: str) -> str:
    """What the query encoder reads of a text: at most its first 4000 characters, after the other language's names
    for the concepts it mentions (kb.index.glossary)."""
    text = text[:4000]
    prefix = gloss(text)
    return f"{prefix}\n{text}" if prefix else text


@dataclass
class SearchResult:
    doc_id: str
    chunk_id: str
    source: str
    section: str
    text: str
    score: float       # fused score: mean of normalised BM25 and normalised dense
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
        self._loading: threading.Thread | None = None
        self._load_error: BaseException | None = None

    @classmethod
    def open(cls, kb_dir: Path, settings: Settings) -> "KnowledgeBase":
        return cls(store.open_store(kb_dir), settings)

    def reopen(self) -> "KnowledgeBase":
        """The folder's live generation, opened beside this one. It shares this one's query encoder (seconds to
        load) when both were embedded by the same model with the same encoder; else it loads its own."""
        new = KnowledgeBase.open(self.path, self.settings)
        if (new.manifest.get("model"), new.encoder) == (self.manifest.get("model"), self.encoder):
            new._embedder = self._embedder
        return new

    @property
    def path(self) -> Path:
        return self.store.kb_dir

    def documents(self) -> Mapping[str, Document]:
        """doc_id -> Document, read from the store on access (see kb.index.store.DocumentMap)."""
        return self.store.documents()

    @property
    def encoder(self) -> str:
        """The encoder that embedded this KB's chunks; its queries are embedded by the same one."""
        from kb.index.encoder.factory import kb_encoder

        return kb_encoder(self.manifest)

    def preload_query_embedder(self) -> None:
        """Start loading the query encoder on a thread, so that a one-shot command overlaps it with the rest of its
        start-up (ONNX Runtime builds its session outside the interpreter lock). `query_embedder` waits for it and
        raises what loading raised. Not a daemon thread: a process that ends while ONNX Runtime is still building
        the session (an error, Ctrl-C) would abort in its C++ teardown, so the interpreter waits for it first; hence
        only a load known to be quick starts early (a first export or torch would hold up an interrupted process)."""
        from kb.index.encoder.factory import quick_to_load

        if (self._embedder is None and self._loading is None
                and quick_to_load(self.manifest["model"], self.settings.cache_dir, self.encoder)):
            self._loading = threading.Thread(target=self._load_quietly, name="query-encoder")
            self._loading.start()

    def _load_quietly(self) -> None:
        try:
            self._embedder = self._load_embedder()
        except BaseException as e:      # kept for the caller of query_embedder, on its own thread
            self._load_error = e

    def query_embedder(self):
        if self._loading is not None:
            self._loading.join()
            self._loading, error, self._load_error = None, self._load_error, None
            if error is not None:
                raise error
        if self._embedder is None:
            self._embedder = self._load_embedder()
        return self._embedder

    def _load_embedder(self):
        from kb.config import DEFAULT_MODEL
        from kb.index.encoder.factory import load_embedder

        model, built_with = self.manifest["model"], self.encoder
        wanted = getattr(self.settings, "encoder", "auto")
        if model == DEFAULT_MODEL and wanted not in ("auto", built_with):
            raise ModelUnavailable(
                f"The knowledge base {self.path} was embedded with the {built_with} encoder and TRIAGE_ENCODER="
                f"{wanted}: queries must be embedded by the encoder that embedded the KB. Re-ingest it with "
                f"TRIAGE_ENCODER={wanted} (everything is re-embedded), or unset TRIAGE_ENCODER.")
        try:
            return load_embedder(model, self.settings.cache_dir, purpose="query", encoder=built_with)
        except ModelUnavailable as e:
            if built_with == "torch":
                raise
            raise ModelUnavailable(
                f"The knowledge base {self.path} was embedded with the {built_with} encoder, which cannot run "
                f"here ({e.user_message}). Re-ingest it with TRIAGE_ENCODER=torch.") from e

    def embed_query(self, text: str) -> np.ndarray:
        return self.query_embedder().encode_queries([text])[0]

    def vectors_cosine(self, query: np.ndarray) -> np.ndarray:
        """Cosine of the query with every chunk row (exact; for evaluation and small KBs)."""
        return np.asarray(self.store.vectors() @ query.astype(np.float32))

    def chunk_vectors(self, doc_id: str) -> np.ndarray:
        """The vectors of a document's chunks."""
        return self.dense.vectors(self.store.rows_of(doc_id))

    def dense_search(self, text: str, k: int) -> list[tuple[int, float]]:
        """Nearest chunks to a query text (at most its first 4000 characters). The other language's names for the
        concepts it mentions go in front (kb.index.glossary): the encoder alone bridges languages only loosely."""
        return self.dense.search(self.embed_query(encoder_text(text)), k)

    def doc_scores(self, text: str, depth: int = 256) -> tuple[dict[str, tuple[int, float]], dict[str, tuple[int, float]]]:
        """Per document, its best chunk (row, score) among the top `depth` chunks of BM25 and of dense retrieval."""
        return (best_per_doc(self.sparse.search_text(text, depth), self.row_doc),
                best_per_doc(self.dense_search(text, depth), self.row_doc))

    def search(self, text: str, top: int = 5) -> list[SearchResult]:
        """Hybrid search: one result per document (its best chunk), by normalised BM25 + dense."""
        bm25, dense = self.doc_scores(text)
        top_bm25 = max((s for _, s in bm25.values()), default=0.0) or 1.0
        scores = {d: fused(bm25.get(d, (0, 0.0))[1] / top_bm25, dense.get(d, (0, 0.0))[1]) for d in {*bm25, *dense}}
        docs = self.documents()
        out = []
        for doc_id in sorted(scores, key=lambda d: -scores[d])[:top]:
            b_row, b_score = bm25.get(doc_id, (None, 0.0))
            d_row, d_score = dense.get(doc_id, (b_row, 0.0))
            row = b_row if b_row is not None and b_score / top_bm25 >= dense_norm(d_score) else d_row
            c = self.store.chunks([row])[0].chunk
            out.append(SearchResult(doc_id=doc_id, chunk_id=c.chunk_id, source=docs[doc_id].source, section=c.section,
                                    text=c.text, score=round(scores[doc_id], 4), dense=d_score, bm25=b_score))
        return out

    def close(self) -> None:
        self.dense.close()
        self.store.close()
