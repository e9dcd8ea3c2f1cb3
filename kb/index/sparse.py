"""BM25 index over chunk tokens (bm25s), using our bilingual code-aware tokenizer."""
from __future__ import annotations

import logging
from pathlib import Path

import numpy as np

from kb.index.glossary import query_terms

INDEX_DIR = "bm25"


def build(token_lists: list[list[str]], gen: Path) -> None:
    import bm25s

    logging.getLogger("bm25s").setLevel(logging.ERROR)
    retriever = bm25s.BM25()
    # An empty document would make bm25s drop its row; a placeholder keeps rows aligned with chunk rows.
    retriever.index([toks or ["\x00empty"] for toks in token_lists], show_progress=False)
    retriever.save(str(gen / INDEX_DIR), show_progress=False)


class SparseIndex:
    def __init__(self, gen: Path):
        import bm25s

        self.retriever = bm25s.BM25.load(str(gen / INDEX_DIR), show_progress=False)
        self.vocab = self.retriever.vocab_dict

    def idf(self) -> dict[str, float]:
        """Inverse document frequency (over chunks) of every indexed token, BM25's own formula."""
        indptr = np.asarray(self.retriever.scores["indptr"])
        n = self.retriever.scores["num_docs"]
        df = np.diff(indptr)
        # bm25s keeps an empty token in its vocabulary without a column of its own.
        return {tok: float(np.log(1 + (n - df[col] + 0.5) / (df[col] + 0.5)))
                for tok, col in self.vocab.items() if tok and col < len(df)}

    def scores(self, tokens: list[str]) -> np.ndarray:
        """BM25 score of every chunk row for the query tokens (unknown tokens ignored)."""
        known = [t for t in tokens if t in self.vocab]
        n = self.retriever.scores["num_docs"]
        if not known:
            return np.zeros(n, dtype=np.float32)
        return self.retriever.get_scores(known)

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
