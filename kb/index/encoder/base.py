"""What every encoder shares: the e5 prefixes and token limit, the `Embedder` contract, and how texts go in and
vectors come out."""
from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

import numpy as np

QUERY_PREFIX = "query: "
PASSAGE_PREFIX = "passage: "
MAX_TOKENS = 512  # the model's position limit, <s> and </s> included

Progress = Callable[[int], None]


@runtime_checkable
class Embedder(Protocol):
    """Text -> float32, L2-normalized vectors of shape (n, dim)."""

    name: str
    dim: int

    def encode_passages(
        self, texts: list[str], batch_size: int = 32, progress: Progress | None = None
    ) -> np.ndarray:
        """Embed documents/chunks. `progress`, if given, is called after each batch with the number of texts
        that batch encoded (so it can feed a progress bar's `advance`)."""
        ...

    def encode_queries(self, texts: list[str]) -> np.ndarray:
        ...


def encodable_text(text: str) -> str:
    """What both runtimes feed: NUL (which ends a C string) becomes a space; lone surrogates become '?'."""
    if "\x00" in text:
        text = text.replace("\x00", " ")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "replace").decode("utf-8")
    return text


def normalize_rows(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, dtype=np.float32)
    if v.ndim == 1:
        v = v[None, :]
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    np.maximum(norms, 1e-12, out=norms)
    return np.ascontiguousarray(v / norms, dtype=np.float32)
