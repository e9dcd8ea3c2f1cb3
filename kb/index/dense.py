"""FAISS index over chunk embeddings (inner product on L2-normalised vectors = cosine)."""
from __future__ import annotations

from pathlib import Path

import numpy as np

INDEX_FILE = "dense.faiss"
# Exact search is fast enough below this many vectors; above it an approximate index keeps queries quick.
EXACT_MAX = 200_000


def build(vectors: np.ndarray, gen: Path) -> None:
    import faiss

    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    dim = vectors.shape[1]
    if len(vectors) <= EXACT_MAX:
        index = faiss.IndexFlatIP(dim)
    else:
        nlist = int(4 * np.sqrt(len(vectors)))
        quantizer = faiss.IndexFlatIP(dim)
        index = faiss.IndexIVFScalarQuantizer(quantizer, dim, nlist, faiss.ScalarQuantizer.QT_8bit, faiss.METRIC_INNER_PRODUCT)
        sample = vectors[np.random.default_rng(0).choice(len(vectors), min(len(vectors), 100 * nlist), replace=False)]
        index.train(sample)
        index.nprobe = 16
    index.add(vectors)
    faiss.write_index(index, str(gen / INDEX_FILE))


class DenseIndex:
    def __init__(self, gen: Path):
        import faiss

        self.index = faiss.read_index(str(gen / INDEX_FILE))

    def __len__(self) -> int:
        return self.index.ntotal

    def search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        """(row, cosine) pairs, best first."""
        k = min(k, self.index.ntotal)
        if k <= 0:
            return []
        scores, rows = self.index.search(np.ascontiguousarray(query.reshape(1, -1), dtype=np.float32), k)
        return [(int(r), float(s)) for r, s in zip(rows[0], scores[0]) if r >= 0]
