"""The torch runtime for the index: any sentence-transformers model (the unpacked default one included), from local
files only; float32 on CPU, float16 on a CUDA GPU. torch, transformers and sentence-transformers are imported when it
is built."""
from __future__ import annotations

import logging
import os
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from kb.config import DEFAULT_MODEL
from kb.errors import ModelUnavailable
from kb.index.encoder.base import Progress, encodable_text, normalize_rows
from kb.index.encoder.unpack import read_marker

_quiet_done = False


def _quiet_hf() -> None:
    """Offline, no progress bars, no info chatter. Must run before transformers / huggingface_hub are imported."""
    global _quiet_done
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ["HF_DATASETS_OFFLINE"] = "1"
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
    if _quiet_done:
        return
    import transformers
    from transformers.utils import logging as tf_logging

    tf_logging.set_verbosity_error()
    tf_logging.disable_progress_bar()
    try:
        from huggingface_hub.utils import disable_progress_bars

        disable_progress_bars()
    except ImportError:  # pragma: no cover - very old huggingface_hub
        pass
    for name in ("sentence_transformers", "transformers", "huggingface_hub", "torch"):
        logging.getLogger(name).setLevel(logging.ERROR)
    del transformers
    _quiet_done = True


# Texts per forward pass on a GPU: throughput is flat from 1,024 to 4,096 on an H100 (bench/RESULTS.md, section 7)
GPU_FORWARD_BATCH = 1024


class SentenceTransformerEmbedder:
    """Any sentence-transformers model, loaded from local files only, on CPU (float32) or a CUDA device (float16).

    `model` is a folder or a model name already in the local Hugging Face cache. Folders written by
    `unpack_default_model` are recognised by their marker file and get e5's "query: " / "passage: " prefixes;
    every other model is used as-is.

    `encode_passages(batch_size=...)` sets how many texts go between progress calls; the model itself runs at most
    `forward_batch` texts per forward pass (on 2 CPU cores, ~200-token chunks: 8 -> 12 texts/s, 32 -> 8 texts/s).

    On a GPU the tokenizer, not the model, bounds the rate (one core tokenizes ~2,700 chunks/s, an H100's float16
    forward takes ~5,700), so `prefetch` tokenizes the next batch on all cores while the device runs this one, and
    batches are at least `forward_batch` texts whatever `batch_size` asks. It is on for CUDA devices.
    """

    def __init__(
        self, model: str | Path, *, name: str | None = None, device: str = "cpu", forward_batch: int | None = None,
        prefetch: bool | None = None,
    ) -> None:
        on_gpu = device.startswith("cuda")
        self.forward_batch = max(1, int(forward_batch or (GPU_FORWARD_BATCH if on_gpu else 8)))
        self.prefetch = on_gpu if prefetch is None else prefetch
        _quiet_hf()
        if on_gpu:
            # the ingest process tokenizes for the GPU on every core; _quiet_hf's default keeps CPU runs single-threaded
            os.environ["TOKENIZERS_PARALLELISM"] = "true"
        from sentence_transformers import SentenceTransformer

        spec = str(model)
        self.query_prefix = self.passage_prefix = ""
        folder = Path(spec).expanduser()
        is_folder = folder.is_dir()
        marker = read_marker(folder) if is_folder else None
        if marker:
            self.query_prefix = marker.get("query_prefix", "")
            self.passage_prefix = marker.get("passage_prefix", "")
        self.name = name or (marker or {}).get("name") or spec
        # "org/name" may be a Hugging Face name; "/x", "./x", "~/x", "a/b/c" can only be folders
        looks_like_path = isinstance(model, Path) or spec.startswith((".", "~", "/")) or spec.count("/") > 1
        if not is_folder and looks_like_path:
            raise ModelUnavailable(f"Embedding model folder {spec} does not exist. Give an existing "
                                   f"sentence-transformers folder, or use the bundled {DEFAULT_MODEL!r}.")
        try:
            self.model = SentenceTransformer(str(folder) if is_folder else spec, device=device,
                                             local_files_only=True)
        except Exception as e:  # ST/transformers/hub raise OSError, ValueError, RepositoryNotFoundError, ...
            if is_folder:
                detail = f"the folder {spec} could not be loaded as a sentence-transformers model"
            else:
                detail = (f"{spec!r} is neither a folder nor a model in the local Hugging Face cache, and "
                          "triage-kb never downloads models (download it once yourself, then retry)")
            raise ModelUnavailable(
                f"Embedding model unavailable: {detail} ({type(e).__name__}: {str(e).splitlines()[0][:200]}). "
                f"Give a sentence-transformers folder or a cached model name, or use the bundled {DEFAULT_MODEL!r}."
            ) from e
        if on_gpu:
            self.model.half()   # float16 vectors have cosine 1.0 to float32 ones (bench/RESULTS.md, section 7)
        dim_fn = getattr(self.model, "get_embedding_dimension", None) or getattr(
            self.model, "get_sentence_embedding_dimension"
        )
        dim = dim_fn()
        if not dim:
            dim = int(self._encode(["dimension probe"], 1).shape[1])
        self.dim = int(dim)

    def _encode(self, texts: Sequence[str], batch_size: int) -> np.ndarray:
        import torch

        with torch.inference_mode():
            out = self.model.encode(
                list(texts), batch_size=batch_size, show_progress_bar=False, convert_to_numpy=True,
            )
        return normalize_rows(out)

    def _features(self, texts: list[str]) -> dict:
        """Token ids and masks of `texts` as the model's first module makes them (`preprocess` since
        sentence-transformers 6, `tokenize` before)."""
        prep = getattr(self.model, "preprocess", None)
        return prep(texts) if prep is not None else self.model.tokenize(texts)

    def _forward(self, features: dict) -> np.ndarray:
        import torch
        from sentence_transformers.util import batch_to_device

        with torch.inference_mode():
            out = self.model(batch_to_device(features, self.model.device))["sentence_embedding"]
            return normalize_rows(out.float().cpu().numpy())

    def _prefetched(self, batches: list[list[str]]) -> Iterator[np.ndarray]:
        """Vectors of each batch in turn, the next batch tokenized in a thread while this one runs (the tokenizer
        releases the GIL)."""
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="tokenize") as pool:
            pending = pool.submit(self._features, batches[0])
            for k in range(len(batches)):
                features = pending.result()
                if k + 1 < len(batches):
                    pending = pool.submit(self._features, batches[k + 1])
                yield self._forward(features)

    def _run(self, texts: list[str], prefix: str, batch_size: int, progress: Progress | None) -> np.ndarray:
        n = len(texts)
        if n == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        batch_size = max(1, int(batch_size))
        if self.prefetch:
            batch_size = max(batch_size, self.forward_batch)
        prepared = [prefix + encodable_text(t) for t in texts]
        # longest first, so each batch pads to similar lengths; results go back to input order
        order = sorted(range(n), key=lambda i: -len(prepared[i]))
        groups = [order[start : start + batch_size] for start in range(0, n, batch_size)]
        out = np.empty((n, self.dim), dtype=np.float32)
        if self.prefetch:
            vectors = self._prefetched([[prepared[i] for i in idx] for idx in groups])
        else:
            vectors = (self._encode([prepared[i] for i in idx], min(batch_size, self.forward_batch)) for idx in groups)
        for idx, v in zip(groups, vectors):
            out[idx] = v
            if progress is not None:
                progress(len(idx))
        return out

    def encode_passages(
        self, texts: list[str], batch_size: int = 32, progress: Progress | None = None
    ) -> np.ndarray:
        return self._run(texts, self.passage_prefix, batch_size, progress)

    def encode_queries(self, texts: list[str]) -> np.ndarray:
        return self._run(texts, self.query_prefix, 32, None)
