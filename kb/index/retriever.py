"""The matcher's two retrievers behind one interface: for a text, per entry the score of its best chunk.

`SparseRetriever` (BM25, relative to the best entry) and `DenseRetriever` (cosine with the query encoding) read a
loaded KB; `ScoresRetriever` answers from scores computed in memory, so the matcher can be driven by synthetic
retrieval, with no embedding model.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np

from kb.index.fusion import best_per_doc, relative


class Retriever(Protocol):
    def scores(self, text: str, depth: int) -> dict[str, float]:
        """Per entry (doc id), the score of its best chunk among the `depth` best chunks for `text`."""


class SparseRetriever:
    """BM25 over the KB's chunks, each entry's best chunk relative to the best entry's."""

    def __init__(self, kb):
        self.kb = kb

    def scores(self, text: str, depth: int) -> dict[str, float]:
        hits = best_per_doc(self.kb.sparse.search_text(text, depth), self.kb.row_doc)
        return relative({d: score for d, (_, score) in hits.items()})


class DenseRetriever:
    """Cosine of the query encoding with the KB's chunk vectors (`embed`: the text's query encoding)."""

    def __init__(self, kb, embed: Callable[[str], np.ndarray]):
        self.kb, self.embed = kb, embed

    def scores(self, text: str, depth: int) -> dict[str, float]:
        hits = best_per_doc(self.kb.dense.search(self.embed(text), depth), self.kb.row_doc)
        return {d: score for d, (_, score) in hits.items()}


class ScoresRetriever:
    """Scores from a function of the text (tests, experiments): no index, no model."""

    def __init__(self, score: Callable[[str], dict[str, float]]):
        self.score = score

    def scores(self, text: str, depth: int) -> dict[str, float]:
        return dict(self.score(text))
