"""diagnose(): the one function every surface calls. Parse -> match -> a Diagnosis (kb.models)."""
from __future__ import annotations

import json

from kb.evidence import evidence_lines, plain_reason
from kb.feedback import FeedbackStore
from kb.index.hybrid import KnowledgeBase
from kb.match import Candidate, Decision, Matcher
from kb.models import Diagnosis, Fix, FixOut, MatchOut, QueryOut
from kb.repro.results import ResultStore

RELATED_MAX = 3


class Diagnoser:
    """Holds a loaded KB and its matcher; `diagnose` is cheap after the first call."""

    def __init__(self, kb: KnowledgeBase, feedback: FeedbackStore | None = None, repro: ResultStore | None = None):
        self.kb = kb
        self.repro = repro
        self.matcher = Matcher(kb, feedback)
        self.last_ranking: list[tuple[str, float]] = []

    def diagnose(self, text: str, name: str = "<stdin>", top: int = 3) -> Diagnosis:
        if not text.strip():
            self.last_ranking = []
            return Diagnosis(input=name, verdict="no_match", confidence=1.0, matches=[], reason="the report is empty",
                             query=QueryOut(exception_type=None, message="", signature=""))
        decision = self.matcher.match(text)
        self.last_ranking = [(c.doc_id, c.score) for c in decision.ranked]
        query = _query_out(decision)
        if decision.verdict == "match":
            accepted = [c for c in decision.ranked if not c.reason][:top]
            matches = [self._entry_out(c, decision) for c in accepted]
            related = []
        else:
            matches = []
            related = [self._entry_out(c, decision) for c in decision.ranked[:RELATED_MAX]]
        # The reason names the entry it is about by its title (the first shown: the answer, or the nearest entry).
        first = (matches or related or [None])[0]
        reason = plain_reason(decision.reason, first.title, first.entry_id) if first else plain_reason(decision.reason)
        return Diagnosis(input=name, verdict=decision.verdict, confidence=decision.confidence, matches=matches,
                         related=related, query=query, reason=reason)

    def _entry_out(self, c: Candidate, decision: Decision) -> MatchOut:
        doc = self.kb.documents()[c.doc_id]
        return MatchOut(
            entry_id=c.doc_id, title=doc.title, source=doc.source, score=round(c.score, 4),
            root_cause=doc.root_cause,
            fixes=[self._fix_out(c.doc_id, f) for f in doc.fixes],
            # Evidence and reason in plain words (kb.evidence); the one number shown is the answer's confidence.
            evidence=evidence_lines(c.sig_pair, c.sig_why, c.conflicts, c.notes), signals=c.signals(),
            # (shown beside the entry's title, so it says "this entry"; the diagnosis' own reason names the title)
            reason=plain_reason(c.reason) or None,
        )

    def _fix_out(self, entry_id: str, f: Fix) -> FixOut:
        # With a results store, a fix marked "repro" counts as verified only once its recipe's fix run passed.
        verified = f.verified
        if f.verified_by == "repro" and self.repro is not None:
            verified = self.repro.verified_fix(entry_id) is not None
        return FixOut(text=f.text, verified=verified, verified_by=f.verified_by)


def answer_json(diag: Diagnosis, kb: dict, **extra) -> str:
    """One answer as the single line of JSON that `diagnose --json` prints and `/v1/diagnose` returns, byte for
    byte: the diagnosis, then `kb` (kb.stats.kb_identity), then any `extra` keys (verification)."""
    return json.dumps({**diag.model_dump(mode="json"), "kb": kb, **extra}, ensure_ascii=False)


def _query_out(decision: Decision) -> QueryOut:
    report = decision.report
    prim = report.primary
    # The matcher already signed every event; reuse the primary's signature.
    sig = next((qe.sig for qe in decision.query_events if qe.event.role == "primary"), None)
    return QueryOut(
        exception_type=prim.type if prim else None,
        message=prim.message if prim else "",
        signature=sig.key if sig else "",
        facts=sig.facts if sig else {},
        error_lines=report.error_lines,
        versions=report.env,
        notes=report.notes,
    )
