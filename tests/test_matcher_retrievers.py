"""The matcher behind the retriever interface (kb.index.retriever): driven by retrieval scores given in memory, on a
KB built with a stand-in encoder, with no embedding model loaded."""
from __future__ import annotations

from unittest import mock

import pytest

from ingest.build import ingest
from kb.config import Settings
from kb.index.hybrid import KnowledgeBase
from kb.index.retriever import ScoresRetriever
from kb.match import Matcher
from tests.fakes.embedder import StandIn

SHM = "RuntimeError: DataLoader worker (pid 2841) is killed by signal: Bus error."
NAN = "RuntimeError: Function 'LogSoftmaxBackward0' returned nan values in its 0th output."


@pytest.fixture
def kb(tmp_path, cache_dir):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "shm.md").write_text(f"# DataLoader workers die in Docker\n\n## Symptom\n```\n{SHM}\n```\n\n## Root cause\n"
                                   "The container's /dev/shm is 64 MB.\n\n## Fix\nRun with --shm-size=8g.\n")
    (corpus / "nan.md").write_text(f"# NaN in the loss under fp16\n\n## Symptom\n```\n{NAN}\n```\n\n## Root cause\n"
                                   "fp16 overflow in the attention logits.\n\n## Fix\nTrain in bf16.\n")
    settings = Settings(cache_dir=cache_dir, kb=None, encoder="torch")
    with mock.patch("kb.index.encoder.factory.load_embedder", lambda *a, **k: StandIn()):
        ingest([corpus], tmp_path / "kb", settings)
    opened = KnowledgeBase.open(tmp_path / "kb", settings)
    yield opened
    opened.close()


def test_dense_scores_given_in_memory_reach_the_candidates_without_a_model(kb):
    asked: list[str] = []

    def dense(text: str) -> dict[str, float]:
        asked.append(text)
        return {"nan": 0.95, "shm": 0.80}      # retrieval favours the other entry

    with mock.patch.object(KnowledgeBase, "embed_query", side_effect=AssertionError("no model may be loaded")):
        decision = Matcher(kb, dense=ScoresRetriever(dense)).match(f"Traceback (most recent call last):\n{SHM}\n")
    assert asked, "the matcher did not ask the given retriever"
    by_id = {c.doc_id: c for c in decision.ranked}
    assert by_id["nan"].dense == 0.95 and by_id["shm"].dense == 0.80
    # the report quotes one entry's own error line: that outweighs the other's retrieval
    assert decision.ranked[0].doc_id == "shm" and by_id["shm"].sig_raw > 0.9


def test_sparse_scores_are_relative_to_the_best_entry(kb):
    decision = Matcher(kb, dense=ScoresRetriever(lambda text: {})).match(NAN)
    bm25 = {c.doc_id: c.bm25 for c in decision.ranked}
    assert bm25["nan"] == 1.0 and 0.0 <= bm25["shm"] < 1.0


def test_the_meaning_products_are_the_report_encoding_times_the_entrys_nearest_chunk(kb):
    from kb.decision import MEANING_DIMS, SIGNALS

    with mock.patch("kb.index.encoder.factory.load_embedder", lambda *a, **k: StandIn()):
        decision = Matcher(kb).match(f"Traceback (most recent call last):\n{SHM}\n")
        considered = [c for c in decision.ranked if c.features]
        assert considered
        for c in considered:
            assert len(c.features) == SIGNALS + MEANING_DIMS
            # the products sum to the cosine of the report with the entry's nearest chunk: its dense score
            assert c.dense != 0.0 and sum(c.features[SIGNALS:]) == pytest.approx(c.dense, abs=1e-4)
        # a retriever given in memory has no encoding: no products, and the decision still answers
        plain = Matcher(kb, dense=ScoresRetriever(lambda text: {})).match(NAN)
        assert all(len(c.features) == SIGNALS for c in plain.ranked if c.features)


def test_a_report_with_words_of_its_own_costs_two_encodings_not_three(kb):
    """Retrieval encodes the report's retrieval text, corroboration its prose, and the meaning feature the
    retrieval text again: that last one must come from the first, not from the encoder."""
    words = "Our data loader runs inside a Docker container with the default settings and dies at the first batch."
    with mock.patch("kb.index.encoder.factory.load_embedder", lambda *a, **k: StandIn()):
        with mock.patch.object(kb, "embed_query", wraps=kb.embed_query) as encode:
            decision = Matcher(kb).match(f"{words}\n\nTraceback (most recent call last):\n{SHM}\n")
    texts = [call.args[0] for call in encode.call_args_list]
    assert len(texts) == 2 and len(set(texts)) == 2, texts
    assert any(c.features for c in decision.ranked)
