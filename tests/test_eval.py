"""`triage eval` end to end on the dev set: the harness works and reports all three systems (figures not asserted)."""
from __future__ import annotations

import json

import pytest

from bot.evaluate import Label, Outcome, best_threshold, load_labels, run_eval, score

pytestmark = pytest.mark.slow


def test_scoring_counts_right_wrong_and_abstentions():
    labels = [Label("q1", "a.md", "positive"), Label("q2", "b.md", "positive"), Label("q3", None, "negative")]
    outs = [Outcome(["a.md", "b.md"], True), Outcome(["a.md", "b.md"], True), Outcome(["a.md"], False)]
    f = score("x", labels, outs)
    assert (f.top1_positive, f.wrong_on_positive, f.abstention, f.recall_at_3) == (0.5, 1, 1.0, 1.0)
    assert f.overall == pytest.approx(2 / 3)
    assert f.misses == ["q2 (positive): expected b.md, got a.md"]
    # A plain ranking is scored at the threshold that is best for it.
    best = best_threshold("y", labels, [(["a.md"], 0.9), (["a.md"], 0.2), (["a.md"], 0.5)])
    assert best.threshold == 0.9 and best.overall == pytest.approx(2 / 3) and best.wrong_on_positive == 0


def test_eval_on_the_dev_set_reports_matcher_and_baselines(shared_dir, settings, tmp_path):
    setdir = shared_dir / "eval" / "dev"
    labels = load_labels(setdir)
    figures, details = run_eval(setdir, settings)
    assert [f.name.split()[0] for f in figures] == ["matcher", "bm25-only", "dense-only"]
    assert len(details) == len(labels)
    for f in figures:
        assert 0 <= f.top1_positive <= 1 and 0 <= f.abstention <= 1 and 0 <= f.recall_at_3 <= 1
    print(json.dumps([f.as_dict() for f in figures], indent=1))
