"""The matcher: pair a parsed report with knowledge-base entries, or abstain.

Signals per entry (each explained in the answer):
- `signature`: the best similarity between an event of the report (weighted by its role: the primary error counts
  most, wrappers and cleanup errors little) and an error line of the entry, facts included: a conflicting
  discriminating literal (the zero size on the other side, another load-key byte, another device op) vetoes.
- `bm25`: BM25 over chunks, the entry's best chunk, relative to the best entry for this report.
- `dense`: cosine of the report with the entry's best chunk (multilingual e5, so English finds Chinese).
- `frames`: library frames (`module:function`) the report shares with the entry's tracebacks.

The verdict rests on the failure mechanism: an entry is accepted when its error lines explain the report's
primary error (same signature, no conflicting fact), corroborated by the rest of the report when that error is one
with many known causes; when the report holds no error line at all, only when both retrievers independently agree.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from kb.index.hybrid import KnowledgeBase, dense_norm
from kb.models import Document
from kb.traceback.frames import reduce_frames
from kb.traceback.models import ErrorEvent, Report
from kb.traceback.parse import parse_report
from kb.traceback.signature import Signature, hard_conflicts, signature_of_event, signature_of_line, similarity

# How much an event of the report counts, by role; inferred events (no printed error line) count less.
ROLE_WEIGHT = {"primary": 1.0, "cause": 0.95, "secondary": 0.8, "wrapper": 0.45, "cleanup": 0.3}
INFERRED_WEIGHT = {"frame": 0.6, "prose": 0.55}

# Signals whose value is the same for many unrelated root causes: a report whose only evidence is one of these
# needs corroboration from the rest of the report before an entry is accepted.
GENERIC_FACTS = {
    "cuda_assert.condition": None,            # any out-of-range index on the GPU
    "cuda.error": {"device-side assert triggered", "out of memory", "an illegal memory access was encountered"},
    "oom.kind": None,                          # many things run out of memory
    "signal": None,
    "exitcode": None,
    "device.pair": None,                       # a tensor on the wrong device: which one is the whole question
    "cuda_assert.kernel": None,                # the kernel of an index assert names the op, not the cause
}
CORROBORATE = 0.6        # how strongly the rest of a report must point to an entry when its error is generic
TIE_SIG, TIE_MARGIN = 0.03, 0.04   # two entries this close on the error, and this close overall, are a tie
QUOTE_SIM = 0.85         # a prose mention this close to an entry's line is a verbatim quote of it

SIG_ACCEPT = 0.72        # a signature this close explains the report's error
SIG_RELATED = 0.45       # below this an entry is not about the report's error at all


@dataclass
class EntryProfile:
    """What the matcher needs of one entry, computed once per loaded KB."""

    doc: Document
    sigs: list[tuple[str, Signature]]
    frames: set[str]


@dataclass
class QueryEvent:
    event: ErrorEvent
    sig: Signature
    weight: float
    text: str


@dataclass
class Candidate:
    doc_id: str
    score: float = 0.0
    signature: float = 0.0
    bm25: float = 0.0
    dense: float = 0.0
    frames: float = 0.0
    corroboration: float = 0.0
    sig_raw: float = 0.0                             # the best pair's similarity before the event's weight
    sig_role: str = ""                               # role of the report event in the best pair
    sig_pair: tuple[str, str] | None = None          # (report line, entry line) that matched best
    sig_why: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    generic: bool = False
    reason: str = ""

    def signals(self) -> dict[str, float]:
        return {k: round(getattr(self, k), 4) for k in ("signature", "bm25", "dense", "frames", "corroboration")}


@dataclass
class Decision:
    verdict: str
    confidence: float
    ranked: list[Candidate]
    reason: str
    report: Report
    query_events: list[QueryEvent]


def profile(doc: Document) -> EntryProfile:
    seen: set[tuple[str | None, str]] = set()
    sigs: list[tuple[str, Signature]] = []
    frames: set[str] = set()

    def add(line: str, sig: Signature) -> None:
        key = (sig.exc_type, sig.template)
        if key not in seen and sig.template.strip():
            seen.add(key)
            sigs.append((line, sig))

    # Traceback blocks first: their events join multi-line messages (load_state_dict details) and carry frames.
    for block in doc.tracebacks:
        rep = parse_report(block)
        for ev in rep.events:
            if ev.origin in ("prose",):
                continue
            add(ev.lines[-1] if ev.lines else ev.message, signature_of_event(ev))
            frames.update(reduce_frames(ev.frames, libraries_only=True))
    for line in doc.error_lines:
        add(line, signature_of_line(line))
    return EntryProfile(doc=doc, sigs=sigs, frames=frames)


def _query_events(report: Report) -> list[QueryEvent]:
    out = []
    for ev in report.events:
        weight = ROLE_WEIGHT.get(ev.role, 0.5) * INFERRED_WEIGHT.get(ev.origin, 1.0)
        text = ev.lines[-1] if ev.lines else ev.message
        out.append(QueryEvent(ev, signature_of_event(ev), weight, text))
    return out


def _generic_fact(name: str, value: str) -> bool:
    return name in GENERIC_FACTS and (GENERIC_FACTS[name] is None or value in GENERIC_FACTS[name])


def _is_generic(q: Signature, d: Signature) -> bool:
    """True when the report's error is a symptom shared by many root causes and the entry's line agrees with it on
    nothing more specific (e.g. both say "tensors on two devices", but only the report names the op)."""
    if not any(_generic_fact(n, v) for n, v in q.facts.items()):
        return False
    specific = [n for n in set(q.facts) & set(d.facts)
                if not _generic_fact(n, q.facts[n]) and set(q.facts[n].split("|")) & set(d.facts[n].split("|"))]
    return not specific


class Matcher:
    def __init__(self, kb: KnowledgeBase):
        self.kb = kb
        self.profiles = {doc_id: profile(doc) for doc_id, doc in kb.documents().items()}
        self.doc_tokens = kb.store.doc_tokens()
        self.idf = kb.sparse.idf()

    def coverage(self, tokens: list[str], doc_id: str) -> float:
        """IDF-weighted share of the (known) tokens that the entry also uses: e.g. how many of the functions a
        traceback passes through (rare ones weigh more) this entry talks about."""
        known = {t for t in tokens if t in self.idf}
        total = sum(self.idf[t] for t in known)
        if total <= 0:
            return 0.0
        vocab = self.doc_tokens.get(doc_id, set())
        return sum(self.idf[t] for t in known if t in vocab) / total

    def _retrieval(self, text: str) -> tuple[dict[str, float], dict[str, float]]:
        """Per entry: BM25 of its best chunk relative to the best entry, and cosine of its best chunk."""
        bm25, dense = self.kb.doc_scores(text)
        top = max((s for _, s in bm25.values()), default=0.0)
        return ({d: (s / top if top > 0 else 0.0) for d, (_, s) in bm25.items()},
                {d: s for d, (_, s) in dense.items()})

    # -- main -------------------------------------------------------------------------------------------------
    def match(self, text: str) -> Decision:
        from kb.index.tokenize import tokenize

        report = parse_report(text)
        qevents = _query_events(report)
        query_text = _retrieval_text(report, text)
        bm25, dense = self._retrieval(query_text)
        rest_text = report.prose.strip()
        rest_bm25, rest_dense = self._retrieval(rest_text) if len(rest_text) >= 20 else ({}, {})
        qframes = {k for qe in qevents for k in qe.sig.frames}
        # Library frames say where it failed: their function names are evidence beyond the message.
        frame_tokens = tokenize(" ".join(k.split(":")[-1] for k in qframes))

        cands: list[Candidate] = []
        for doc_id, prof in self.profiles.items():
            c = Candidate(doc_id=doc_id, bm25=bm25.get(doc_id, 0.0), dense=dense.get(doc_id, 0.0))
            for qe in qevents:
                # A conflict with any line of the entry counts: a bare header line of the entry ("Error(s) in
                # loading state_dict") must not carry a match that its detailed line contradicts.
                conflicts = sorted({x for _, dsig in prof.sigs for x in hard_conflicts(qe.sig, dsig)})
                for line, dsig in prof.sigs:
                    sim, why = similarity(qe.sig, dsig)
                    weighted = sim * qe.weight
                    if weighted > c.signature:
                        c.signature, c.sig_raw, c.sig_role = weighted, sim, qe.event.role
                        c.sig_pair = (qe.text, line)
                        c.sig_why = why
                        c.conflicts = conflicts
                        c.generic = _is_generic(qe.sig, dsig)
            if qframes and prof.frames:
                c.frames = len(qframes & prof.frames) / len(qframes)
            c.corroboration = max(0.5 * rest_bm25.get(doc_id, 0.0) + 0.5 * dense_norm(rest_dense.get(doc_id, 0.0)),
                                  self.coverage(frame_tokens, doc_id))
            c.score = 0.55 * c.signature + 0.2 * dense_norm(c.dense) + 0.15 * c.bm25 + 0.1 * c.frames
            cands.append(c)
        cands.sort(key=lambda c: -c.score)
        verdict, confidence, reason = self._decide(report, qevents, cands)
        return Decision(verdict, confidence, cands, reason, report, qevents)

    def _decide(self, report: Report, qevents: list[QueryEvent], cands: list[Candidate]) -> tuple[str, float, str]:
        if not cands:
            return "no_match", 1.0, "the knowledge base is empty"
        printed = any(not qe.event.inferred for qe in qevents)
        # The primary's best raw similarity anywhere: when the primary has no counterpart in the KB, a secondary
        # error of the report may carry the match instead.
        primary_known = max((c.sig_raw for c in cands if c.sig_role == "primary"), default=0.0) >= SIG_RELATED
        for c in cands:
            c.reason = self._reject_reason(c, primary_known)
        best = cands[0]
        if best.generic and not best.reason:
            # The error itself cannot tell these entries apart; what the rest of the report says can.
            generic_ok = sorted((c for c in cands if c.generic and not c.reason), key=lambda c: -c.corroboration)
            cands.remove(generic_ok[0])
            cands.insert(0, generic_ok[0])
            best = cands[0]
        second = cands[1] if len(cands) > 1 else None
        margin = best.score - (second.score if second else 0.0)
        anchored = printed or best.sig_raw >= QUOTE_SIM
        if anchored:
            if best.reason:
                conf = 0.5 + 0.4 * (1 - best.sig_raw)
                return "no_match", round(min(0.97, conf), 3), best.reason
            rival = next((c for c in cands[1:] if not c.reason), None)
            if rival and abs(rival.sig_raw - best.sig_raw) < TIE_SIG and best.score - rival.score < TIE_MARGIN:
                # Both entries explain the error equally well and nothing else in the report separates them.
                for c in (best, rival):
                    c.reason = "another entry matches the report's error equally well; the report lacks the detail that tells them apart"
                return "no_match", 0.55, f"the report's error fits both {best.doc_id} and {rival.doc_id}; it lacks the detail that tells them apart"
            conf = _sigmoid(8 * (best.sig_raw - 0.6) + 4 * margin + 1.5 * dense_norm(best.dense))
            return "match", round(conf, 3), f"the report's error matches {best.doc_id}"
        # No printed error line: retrieval alone must be decisive, and both retrievers must agree.
        by_dense = max(cands, key=lambda c: c.dense)
        by_bm25 = max(cands, key=lambda c: c.bm25)
        dense_second = sorted((c.dense for c in cands), reverse=True)[1] if len(cands) > 1 else 0.0
        if (by_dense.doc_id == by_bm25.doc_id == best.doc_id and best.dense >= 0.86
                and best.dense - dense_second >= 0.02 and best.signature >= 0.3):
            best.reason = ""
            conf = _sigmoid(20 * (best.dense - 0.86) + 4 * margin)
            return "match", round(min(conf, 0.75), 3), "no error line in the report; its description matches"
        best.reason = "no error line in the report, and its text does not single out this entry"
        return "no_match", 0.6, "the report shows no error line, and no entry is clearly described by its text"

    @staticmethod
    def _reject_reason(c: Candidate, primary_known: bool) -> str:
        if c.conflicts:
            return "same kind of error, but a detail that tells the causes apart differs (" + "; ".join(c.conflicts) + ")"
        if c.sig_raw < SIG_ACCEPT:
            return "the report's error is not one this entry describes"
        if c.sig_role in ("wrapper", "cleanup") or (c.sig_role == "secondary" and primary_known):
            return "the entry matches a secondary message of the report, not its main error"
        if c.generic and c.corroboration < CORROBORATE:
            return ("this error has several known causes, and nothing else in the report points to this one "
                    f"(corroboration {c.corroboration:.2f})")
        return ""


def _sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x))


def _retrieval_text(report: Report, text: str) -> str:
    """What the retrievers see: the error messages first (deduplicated), then the reporter's words."""
    parts = []
    for ev in report.events:
        if ev.message and ev.message not in parts:
            parts.append(ev.message[:600])
    parts.append(report.prose[:1500])
    joined = "\n".join(p for p in parts if p.strip())
    return joined if joined.strip() else text[:2000]

