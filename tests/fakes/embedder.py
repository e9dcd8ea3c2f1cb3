"""A stand-in for the embedding model, for tests that build a KB but read no meaning from its vectors."""
from __future__ import annotations

import zlib

import numpy as np


class StandIn:
    """Stands in for the embedding model: a vector seeded by each text (export reads no vector)."""

    name = "multilingual-e5-small"
    dim = 384

    def encode_passages(self, texts: list[str], batch_size: int = 32, progress=None) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            v = np.random.default_rng(zlib.crc32(text.encode("utf-8"))).standard_normal(self.dim)
            out[i] = v / np.linalg.norm(v)
        if progress is not None:
            progress(len(texts))
        return out

    def encode_queries(self, texts: list[str]) -> np.ndarray:
        return self.encode_passages(texts)
