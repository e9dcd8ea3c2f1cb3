"""Training the decision on labelled sets, and measuring it only on sets it was not trained on.

`measure_set` ingests a set's corpus into a KB kept in the cache (re-ingested incrementally when the corpus or the
extraction code changes) and records, per query, the features of every candidate the matcher weighs.
`cross_validate` trains on all sets but one and answers the held-out one, for each set in turn (leave one set out).
Writers of different sets sometimes quoted the same public thread; a report of another set quoted from a thread the
held-out set also quotes is left out of that round's training, so no held-out report is answered by weights that saw
its twin;
`train` fits the weights the matcher ships (`triage train-decision`).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from kb.config import Settings
from kb.decision import DecisionModel, QueryRows, fit, neutral_model, outcome, shown_order

# Confidence bins of the calibration table.
BINS = [(0.0, 0.5), (0.5, 0.7), (0.7, 0.8), (0.8, 0.9), (0.9, 0.95), (0.95, 1.0001)]
SHOWN = 3          # helpful@3: the right entry among the first three the answer shows (matches, then related)


def set_name(setdir: Path) -> str:
    return Path(setdir).resolve().name


def set_kb(setdir: Path, settings: Settings, progress=None) -> Path:
    """The set's corpus as a KB in the cache, brought up to date (incremental: unchanged chunks keep vectors)."""
    from ingest.build import ingest

    setdir = Path(setdir).resolve()
    key = hashlib.sha256(str(setdir).encode()).hexdigest()[:10]
    kb_dir = settings.cache_dir / "eval-kbs" / f"{setdir.name}-{key}"
    ingest([setdir / "corpus"], kb_dir, settings, prune=True, progress=progress)
    return kb_dir


@dataclass
class Measured:
    """A set as the matcher saw it: per query the candidates it weighs with their features (weights play no part),
    and the whole-document BM25 baseline's ranking and top score."""

    rows: list[QueryRows]
    bm25: list[tuple[list[str], float]]
    threads: list[str | None] = field(default_factory=list)   # per query, the thread it was quoted from (if known)


def measure_set(setdir: Path, settings: Settings, progress=None) -> Measured:
    from bot.evaluate import WholeDocBM25, load_labels
    from kb.index.hybrid import KnowledgeBase
    from kb.index.tokenize import tokenize
    from kb.match import Matcher

    setdir = Path(setdir)
    labels = load_labels(setdir)
    kb = KnowledgeBase.open(set_kb(setdir, settings, progress), settings)
    try:
        matcher = Matcher(kb, model=neutral_model())
        docs = kb.documents()
        source_of = {d.doc_id: d.source for d in docs.values()}
        baseline = WholeDocBM25(docs, tokenize)
        out, bm25 = [], []
        for i, lab in enumerate(labels):
            if progress:
                progress(f"measure {set_name(setdir)}", i + 1, len(labels))
            text = (setdir / lab.query).read_text(encoding="utf-8", errors="replace")
            cands = []
            if text.strip():
                cands = [(source_of[c.doc_id], c.features, bool(c.conflicts or c.vetoed))
                         for c in matcher.match(text).ranked if c.features]
            out.append(QueryRows(lab.query, lab.kind, lab.expected, cands))
            bm25.append(baseline.rank(tokenize(text)))
        return Measured(out, bm25, [lab.thread for lab in labels])
    finally:
        kb.close()


def bm25_baseline(measured: Measured) -> dict:
    """The whole-document BM25 baseline at the threshold that suits it best on this very set (an upper bound)."""
    from bot.evaluate import Label, best_threshold

    labels = [Label(q.query, q.expected, q.kind) for q in measured.rows]
    f = best_threshold("bm25", labels, measured.bm25)
    answers = [Answer("", q.query, q.kind, q.expected, s >= f.threshold,
                      (s >= f.threshold and r[:1] == [q.expected]) or (s < f.threshold and q.expected is None),
                      0.0, r[:SHOWN]) for q, (r, s) in zip(measured.rows, measured.bm25)]
    return figures(answers)


@dataclass
class Answer:
    """The decision on one held-out query."""

    set: str
    query: str
    kind: str
    expected: str | None
    matched: bool
    right: bool
    confidence: float
    shown: list[str]


def answer(set_: str, q: QueryRows, model: DecisionModel) -> Answer:
    xs = [x for _, x, _ in q.candidates]
    probs, unvetoed = model.probabilities_with_unvetoed(xs, [r for _, _, r in q.candidates])
    matched, right, conf = outcome(q, probs, model)
    shown = [q.candidates[i][0] for i in shown_order(probs, unvetoed, matched)]
    return Answer(set_, q.query, q.kind, q.expected, matched, right, round(conf, 4), shown[:SHOWN])


def figures(answers: list[Answer]) -> dict:
    positives = [a for a in answers if a.expected]
    nulls = [a for a in answers if not a.expected]
    wrong = sum(a.matched and not a.right for a in positives)
    return {
        "n": len(answers),
        "accuracy": _share(sum(a.right for a in answers), len(answers)),
        "top1": _share(sum(a.right for a in positives), len(positives)),
        "wrong_on_positives": _share(wrong, len(positives)),
        "abstention": _share(sum(a.right for a in nulls), len(nulls)),
        "helpful_at_3": _share(sum(a.expected in a.shown for a in positives), len(positives)),
    }


def calibration(answers: list[Answer]) -> list[dict]:
    table = []
    for lo, hi in BINS:
        inside = [a for a in answers if lo <= a.confidence < hi]
        table.append({"lo": lo, "hi": min(hi, 1.0), "n": len(inside), "right": sum(a.right for a in inside)})
    return table


def _share(k: int, n: int) -> float:
    return round(k / n, 4) if n else 0.0


def _without_threads(m: Measured, threads: set[str]) -> list[QueryRows]:
    if not m.threads:
        return m.rows
    return [q for q, t in zip(m.rows, m.threads) if t is None or t not in threads]


def cross_validate(measured: dict[str, Measured]) -> tuple[dict, list[Answer]]:
    """Leave one set out: for each set, train on all the others and answer it. Needs at least two sets. Beside the
    figures, `baselines` gives whole-document BM25 at each set's own best threshold."""
    answers: list[Answer] = []
    per_set: dict[str, dict] = {}
    twins = 0
    for held in sorted(measured):
        training = {n: _without_threads(m, set(filter(None, measured[held].threads)))
                    for n, m in measured.items() if n != held}
        twins += sum(len(m.rows) for n, m in measured.items() if n != held) - sum(map(len, training.values()))
        model = fit(training)
        got = [answer(held, q, model) for q in measured[held].rows]
        per_set[held] = {**figures(got), "threshold": model.threshold}
        answers += got
    baselines = {n: bm25_baseline(m) for n, m in sorted(measured.items())}
    right = sum(b["accuracy"] * b["n"] for b in baselines.values())
    result = {"pooled": figures(answers), "sets": per_set, "calibration": calibration(answers),
              "twins_left_out_of_training": twins,
              "baselines": {"bm25_best_threshold_per_set": baselines,
                            "bm25_pooled_accuracy": _share(round(right), len(answers))}}
    return result, answers
