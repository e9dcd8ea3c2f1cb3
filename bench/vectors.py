"""Generated embedding vectors for sizes the machine cannot encode in the benchmark's time.

Uniform random unit vectors would be a poor stand-in: real e5 vectors crowd into a narrow cone (unrelated texts
still have cosine ~0.75) and form topic clusters, which is what decides how well an IVF index partitions them.
So each generated vector is a real chunk vector moved along differences of other real vectors (directions the
model actually uses) plus a little isotropic noise, then re-normalised; its cosine to its base is ~0.9, like a
paraphrase or the same error in another postmortem.
"""
from __future__ import annotations

import numpy as np

SPREAD = 0.35     # weight of each real-difference direction
NOISE = 0.01      # per-dimension isotropic noise


def generated_vectors(bases: np.ndarray, n: int, seed: int, out: np.ndarray | None = None,
                      batch: int = 65536) -> np.ndarray:
    """`n` unit vectors derived from the real unit vectors `bases` (rows); deterministic in `seed`.

    `out`, if given (e.g. a memory-mapped .npy), receives the rows batch by batch, so 1M vectors never need a
    second copy in memory.
    """
    bases = np.ascontiguousarray(bases, dtype=np.float32)
    dim = bases.shape[1]
    out = np.empty((n, dim), dtype=np.float32) if out is None else out
    rng = np.random.default_rng(seed)
    for start in range(0, n, batch):
        m = min(batch, n - start)
        i, j, k, a, b = rng.integers(0, len(bases), size=(5, m))
        v = bases[i] + SPREAD * (bases[j] - bases[k]) + SPREAD * (bases[a] - bases[b])
        v += NOISE * rng.standard_normal((m, dim), dtype=np.float32)
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        out[start:start + m] = v
    return out


class GeneratedEmbedder:
    """Stands in for the embedding model where the benchmark measures everything but the model: each text gets a
    generated vector seeded by its content, so equal texts get equal vectors."""

    name = "multilingual-e5-small"

    def __init__(self, bases: np.ndarray):
        self.bases = np.ascontiguousarray(bases, dtype=np.float32)
        self.dim = int(bases.shape[1])

    def _one(self, text: str) -> np.ndarray:
        import zlib

        return generated_vectors(self.bases, 1, zlib.crc32(text.encode("utf-8")))[0]

    def encode_passages(self, texts: list[str], batch_size: int = 32, progress=None) -> np.ndarray:
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(texts), batch_size):
            for i, t in enumerate(texts[start:start + batch_size], start):
                out[i] = self._one(t)
            if progress is not None:
                progress(min(batch_size, len(texts) - start))
        return out

    def encode_queries(self, texts: list[str]) -> np.ndarray:
        return self.encode_passages(texts)
