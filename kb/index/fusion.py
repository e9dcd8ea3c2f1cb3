"""Retrieval scores on one scale, written once for the matcher and for `triage search`: per entry its best chunk,
BM25 relative to the best entry, the dense cosine mapped onto 0..1, and their mean."""
from __future__ import annotations

from collections.abc import Sequence

# e5 cosines of related and unrelated texts live in a narrow band; this maps the band onto 0..1 so that a dense
# score can be added to a BM25 score normalised by the best hit (a convex sum needs both sides on one scale).
DENSE_FLOOR, DENSE_CEIL = 0.78, 0.92


def dense_norm(cos: float) -> float:
    return min(1.0, max(0.0, (cos - DENSE_FLOOR) / (DENSE_CEIL - DENSE_FLOOR)))


def best_per_doc(hits: list[tuple[int, float]], row_doc: Sequence[str]) -> dict[str, tuple[int, float]]:
    """Per document, its best chunk among the hits: (row, score)."""
    best: dict[str, tuple[int, float]] = {}
    for row, score in hits:
        doc = row_doc[row]
        if doc not in best or score > best[doc][1]:
            best[doc] = (row, score)
    return best


def relative(scores: dict[str, float]) -> dict[str, float]:
    """Scores divided by the best one (BM25 has no fixed scale; its best hit does)."""
    top = max(scores.values(), default=0.0)
    return {d: (v / top if top > 0 else 0.0) for d, v in scores.items()}


def fused(bm25_relative: float, dense_cos: float) -> float:
    """Both retrievers on one scale: the mean of relative BM25 and the mapped dense cosine."""
    return 0.5 * bm25_relative + 0.5 * dense_norm(dense_cos)
