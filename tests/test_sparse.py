"""The BM25 reader scores exactly as bm25s does, without importing it (the index is still built by bm25s)."""
from __future__ import annotations

import json

import bm25s
import numpy as np
import pytest

from kb.errors import IndexIncompatible
from kb.index import sparse
from kb.index.tokenize import tokenize

DOCS = [
    "RuntimeError: Error(s) in loading state_dict: size mismatch torch.Size([0]) ZeRO-3 partitioned checkpoint",
    "NCCL error: unhandled system error, /dev/shm too small in the docker container",
    "加载 ZeRO-3 checkpoint 报错 size mismatch，参数是空的 torch.Size([0])",
    "",
    "ValueError: Asking to pad but the tokenizer does not have a padding token",
    "size mismatch for lm_head.weight: copying a param with shape torch.Size([32008, 4096]) from checkpoint",
]
QUERIES = ["size mismatch torch.Size([0]) zero3", "NCCL shm docker", "padding token tokenizer", "checkpoint 报错",
           "nothing in the vocabulary at all", "size size mismatch mismatch"]


def test_scores_equal_bm25s_bit_for_bit(tmp_path):
    sparse.build([tokenize(d) for d in DOCS], tmp_path)
    ours = sparse.SparseIndex(tmp_path)
    ref = bm25s.BM25.load(str(tmp_path / sparse.INDEX_DIR))
    for q in QUERIES:
        toks = tokenize(q)
        known = [t for t in toks if t in ref.vocab_dict]
        want = ref.get_scores(known) if known else np.zeros(len(DOCS), dtype=np.float32)
        got = ours.scores(toks)
        assert got.dtype == want.dtype and np.array_equal(got, want), q
    assert ours.search(tokenize(QUERIES[0]), 3)[0][0] in (0, 2, 5)
    assert ours.search(tokenize(QUERIES[4]), 3) == []
    assert set(ours.idf()) == {t for t in ref.vocab_dict if t}


def test_idf_is_bm25s_formula_over_the_chunks_that_hold_each_token(tmp_path):
    token_lists = [tokenize(d) for d in DOCS]
    sparse.build(token_lists, tmp_path)
    idf = sparse.SparseIndex(tmp_path).idf()
    n = len(DOCS)
    for tok in {t for toks in token_lists for t in toks}:
        df = sum(tok in toks for toks in token_lists)
        assert idf[tok] == pytest.approx(np.log(1 + (n - df + 0.5) / (df + 0.5))), tok
        assert tok in idf and idf.get(tok) == idf[tok]
    assert idf["mismatch"] < idf["shm"]          # in three chunks against one
    assert "" not in idf and "never-indexed" not in idf and idf.get("never-indexed", -1.0) == -1.0
    with pytest.raises(KeyError):
        idf["never-indexed"]
    placeholder = {"\x00empty"}                 # the row of the empty chunk (sparse.build)
    assert set(idf) == {t for toks in token_lists for t in toks} | placeholder and len(idf) == len(set(idf))


def test_an_index_scored_with_a_non_occurrence_term_is_refused(tmp_path):
    sparse.build([tokenize(d) for d in DOCS], tmp_path)
    params = tmp_path / sparse.INDEX_DIR / "params.index.json"
    params.write_text(json.dumps({**json.loads(params.read_text()), "method": "bm25+"}))
    with pytest.raises(IndexIncompatible):
        sparse.SparseIndex(tmp_path)
