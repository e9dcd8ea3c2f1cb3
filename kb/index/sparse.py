"""BM25 index over chunk tokens, using our bilingual code-aware tokenizer.

bm25s builds the index (at ingest) and writes its precomputed per-token scores as a sparse column matrix; reading
and scoring it needs only numpy, so answering a query imports neither bm25s nor scipy (a third of a second of a
one-shot `diagnose`). The arithmetic is bm25s's own: a query's score per chunk is the sum, token by token in order,
of that token's column (the lucene method has no non-occurrence term).
"""
from __future__ import annotations

import json
import logging
from collections.abc import Iterator, Mapping
from pathlib import Path

import numpy as np

from kb.errors import IndexIncompatible
from kb.index.glossary import query_terms

INDEX_DIR = "bm25"
_SCORED_WITHOUT_NONOCCURRENCE = ("robertson", "lucene", "atire")


def build(token_lists: list[list[str]], gen: Path) -> None:
    import bm25s

    logging.getLogger("bm25s").setLevel(logging.ERROR)
    retriever = bm25s.BM25()
    # An empty document would make bm25s drop its row; a placeholder keeps rows aligned with chunk rows.
    retriever.index([toks or ["\x00empty"] for toks in token_lists], show_progress=False)
    retriever.save(str(gen / INDEX_DIR), show_progress=False)


def bm25_idf(num_docs: int, df: int) -> float:
    """BM25's inverse document frequency of a token in `df` of `num_docs` chunks (bm25s's lucene formula)."""
    return float(np.log(1 + (num_docs - df + 0.5) / (df + 0.5)))


class Idf(Mapping[str, float]):
    """token -> IDF, each computed when asked: a matcher looks up a handful of tokens per report, and the whole table
    took longer to build than a diagnosis (60 ms for the bundled KB's vocabulary)."""

    def __init__(self, vocab: dict[str, int], df: np.ndarray, num_docs: int) -> None:
        self._vocab, self._df, self._n = vocab, df, num_docs

    def _col(self, tok: str) -> int | None:
        # bm25s keeps an empty token in its vocabulary without a column of its own.
        col = self._vocab.get(tok) if tok else None
        return col if col is not None and col < len(self._df) else None

    def __getitem__(self, tok: str) -> float:
        col = self._col(tok)
        if col is None:
            raise KeyError(tok)
        return bm25_idf(self._n, self._df[col])

    def __contains__(self, tok: object) -> bool:
        return isinstance(tok, str) and self._col(tok) is not None

    def __iter__(self) -> Iterator[str]:
        return (tok for tok in self._vocab if self._col(tok) is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)


class SparseIndex:
    def __init__(self, gen: Path):
        folder = gen / INDEX_DIR
        params = json.loads((folder / "params.index.json").read_text(encoding="utf-8"))
        if params.get("method", "lucene") not in _SCORED_WITHOUT_NONOCCURRENCE:
            raise IndexIncompatible(f"BM25 index at {folder} uses method {params.get('method')!r}, which this "
                                    f"reader does not score; rebuild the knowledge base")
        self.vocab: dict[str, int] = json.loads((folder / "vocab.index.json").read_text(encoding="utf-8"))
        self.data = np.load(folder / "data.csc.index.npy")
        self.indices = np.load(folder / "indices.csc.index.npy")
        self.indptr = np.load(folder / "indptr.csc.index.npy")
        self.num_docs = int(params["num_docs"])
        self.dtype = np.dtype(params.get("dtype", "float32"))

    def idf(self) -> "Idf":
        """Inverse document frequency (over chunks) of every indexed token, BM25's own formula."""
        return Idf(self.vocab, np.diff(self.indptr), self.num_docs)

    def scores(self, tokens: list[str]) -> np.ndarray:
        """BM25 score of every chunk row for the query tokens (unknown tokens ignored)."""
        scores = np.zeros(self.num_docs, dtype=self.dtype)
        for tok in tokens:
            col = self.vocab.get(tok)
            if col is None or col + 1 >= len(self.indptr):
                continue
            start, end = self.indptr[col], self.indptr[col + 1]
            np.add.at(scores, self.indices[start:end], self.data[start:end])
        return scores

    def search_text(self, text: str, k: int) -> list[tuple[int, float]]:
        """BM25 for a query text, with the other language's names for the concepts it mentions (an English report
        reaches a Chinese postmortem and back; kb.index.glossary)."""
        return self.search(query_terms(text), k)

    def search(self, tokens: list[str], k: int) -> list[tuple[int, float]]:
        scores = self.scores(tokens)
        k = min(k, len(scores))
        if k <= 0:
            return []
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top])]
        return [(int(r), float(scores[r])) for r in top if scores[r] > 0]
