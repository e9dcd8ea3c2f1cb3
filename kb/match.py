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
with many known causes, says another name (class, keyword) or other words in the entry's message, or is another
message that agrees with the entry's only on a hard fact (the same missing package). The reporter's courtesy
(greetings, thanks, "the following error") is never corroboration: retrieval reads only what their words name. When the
report holds no error line at all, an entry is accepted when both retrievers independently agree on it, or when the
report at least says what failed (a sentence naming the error, or the call a cut traceback stops in) and one entry
of that error's class clearly leads both retrievers together. Both retrievers read across languages through the
glossary (kb.index.glossary).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from kb.feedback import FeedbackStore
from kb.index.glossary import gloss
from kb.index.hybrid import KnowledgeBase, dense_norm
from kb.index.talk import substance
from kb.models import Document
from kb.traceback.facts import FACTS
from kb.traceback.frames import reduce_frames
from kb.traceback.models import ErrorEvent, Report
from kb.traceback.parse import parse_report
from kb.traceback.signature import (Signature, divergence, hard_conflicts, signature_of_event,
                                    signature_of_line, similarity, values_agree, with_oom_phase)

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
    "symptom": None,                           # an in-place modification, a second backward, a batch-size mismatch ...
}
# Facts of how a message is put, and facts of what a report is about rather than what failed ("we train in fp16"):
# agreeing on them does not make a generic error specific.
PRESENTATION_FACTS = {"device.order"}
TOPIC_FACTS = {"dtype.mentioned"}
CORROBORATE = 0.6        # how strongly the rest of a report must point to an entry when its error is generic
TIE_SIG = 0.03           # entries this close on the report's error explain it equally well...
TIE_LEAD = 0.1           # ...and one is chosen only when the rest of the report favours it by this much
TIE_MARGIN = 0.04        # (the dense signal is skipped only when the leader is ahead by more than it could add + this)
QUOTE_SIM = 0.85         # a prose mention this close to an entry's line is a verbatim quote of it
DESCRIBED_LEAD = 0.12    # with no error line, the described entry must lead both retrievers fused by this much

# score = SIG·signature + DENSE·dense_norm + BM25·bm25 + FRAMES·frames
SIG_WEIGHT, DENSE_WEIGHT, BM25_WEIGHT, FRAMES_WEIGHT = 0.55, 0.2, 0.15, 0.1
SCORE_ALL_MAX = 5000     # a KB up to this many entries has every entry scored; a larger one, what retrieval finds
RETRIEVE_DEPTH = 256     # chunks each retriever returns
POOL_PER_RETRIEVER = 40  # on a big KB, the entries each retriever brings up that get scored
PROFILE_CACHE_MAX = 20_000

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
    diverges: tuple[list[str], list[str]] = ([], [])  # what the report's error says in place of the entry line's
    kin: list[str] = field(default_factory=list)     # hard facts a less alike entry line agrees on (same package...)
    reason: str = ""
    vetoed: str = ""                                 # feedback: people marked this entry wrong for this error
    notes: list[str] = field(default_factory=list)   # further evidence for the answer, in words
    measured: set[str] = field(default_factory=lambda: {"signature", "bm25", "frames"})

    def signals(self) -> dict[str, float]:
        """The signals that were computed for this answer (dense only when the others did not settle it)."""
        return {k: round(getattr(self, k), 4) for k in ("signature", "bm25", "dense", "frames", "corroboration")
                if k in self.measured}


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
    # An entry's OOM lines rarely say where it struck; its title does ("OOM in backward", "评估时 OOM").
    sigs = [(line, with_oom_phase(sig, doc.title, "entry's title")) for line, sig in sigs]
    return EntryProfile(doc=doc, sigs=sigs, frames=frames)


def _query_events(report: Report) -> list[QueryEvent]:
    out = []
    for ev in report.events:
        weight = ROLE_WEIGHT.get(ev.role, 0.5) * INFERRED_WEIGHT.get(ev.origin, 1.0)
        text = ev.lines[-1] if ev.lines else ev.message
        # An OOM whose own lines do not say where it struck: the reporter's words may ("fine in training, OOM in
        # evaluation"). Naming both phases names neither, so a stray mention cannot make a conflict.
        sig = with_oom_phase(signature_of_event(ev), report.prose, "report's text")
        out.append(QueryEvent(ev, sig, weight, text))
    return out


def _generic_fact(name: str, value: str) -> bool:
    return name in GENERIC_FACTS and (GENERIC_FACTS[name] is None or value in GENERIC_FACTS[name])


def _kin_facts(q: Signature, d: Signature) -> list[str]:
    """The hard, specific facts on which two different messages agree (`import.module=sentencepiece`)."""
    return sorted(f"{n}={q.facts[n]}" for n in set(q.facts) & set(d.facts) - PRESENTATION_FACTS - TOPIC_FACTS
                  if FACTS.get(n) is not None and FACTS[n].hard and not _generic_fact(n, q.facts[n])
                  and values_agree(q.facts[n], d.facts[n]))


def _is_generic(q: Signature, d: Signature) -> bool:
    """True when the report's error is a symptom shared by many root causes and the entry's line agrees with it on
    nothing more specific (e.g. both say "tensors on two devices", but only the report names the op)."""
    if not any(_generic_fact(n, v) for n, v in q.facts.items()):
        return False
    specific = [n for n in set(q.facts) & set(d.facts) - PRESENTATION_FACTS - TOPIC_FACTS
                if not _generic_fact(n, q.facts[n]) and values_agree(q.facts[n], d.facts[n])]
    return not specific


class Matcher:
    def __init__(self, kb: KnowledgeBase, feedback: FeedbackStore | None = None):
        self.kb = kb
        self.feedback = feedback
        self.docs = kb.documents()
        self.idf = kb.sparse.idf()
        self._profiles: dict[str, EntryProfile] = {}
        self._doc_tokens: dict[str, set[str]] | None = None
        # A small KB is scored whole (no entry can be missed by retrieval); a large one only where retrieval points.
        self.score_all = len(self.docs) <= SCORE_ALL_MAX
        if self.score_all:
            for doc_id in self.docs:
                self.profile(doc_id)

    def profile(self, doc_id: str) -> EntryProfile:
        prof = self._profiles.get(doc_id)
        if prof is None:
            if not self.score_all and len(self._profiles) >= PROFILE_CACHE_MAX:
                del self._profiles[next(iter(self._profiles))]      # oldest first: a bounded cache on big KBs
            prof = self._profiles[doc_id] = profile(self.docs[doc_id])
        return prof

    def _pool(self, scores: dict[str, float]) -> list[str]:
        """The entries a big KB scores for one retriever: its best few (a small KB scores all of them)."""
        return sorted(scores, key=lambda d: -scores[d])[:POOL_PER_RETRIEVER]

    def coverage(self, functions: list[str], doc_id: str) -> float:
        """How many of the library functions a traceback passes through this entry talks about: the IDF-weighted
        share of their tokens in the entry (rare ones weigh more). 0 unless the entry speaks of at least two of the
        functions: one (`from_pretrained`) is where half of any KB passes, and says nothing of the cause."""
        from kb.index.tokenize import tokenize

        if self._doc_tokens is None:
            self._doc_tokens = self.kb.store.doc_tokens()
        vocab = self._doc_tokens.get(doc_id, set())
        per_function = [set(tokenize(f)) for f in set(functions)]
        if sum(2 * len(toks & vocab) >= len(toks) > 0 for toks in per_function) < 2:
            return 0.0
        known = {t for toks in per_function for t in toks if t in self.idf}
        total = sum(self.idf[t] for t in known)
        return sum(self.idf[t] for t in known if t in vocab) / total if total > 0 else 0.0

    # -- retrieval: per entry, its best chunk ----------------------------------------------------------------
    def _bm25(self, text: str) -> dict[str, float]:
        """BM25 of each entry's best chunk, relative to the best entry."""
        best = _best_per_doc(self.kb.sparse.search_text(text, RETRIEVE_DEPTH), self.kb.row_doc)
        top = max(best.values(), default=0.0)
        return {d: (v / top if top > 0 else 0.0) for d, v in best.items()}

    def _dense(self, text: str) -> dict[str, float]:
        """Cosine of each entry's best chunk with the text (one query encoding: the expensive step)."""
        return _best_per_doc(self.kb.dense_search(text, RETRIEVE_DEPTH), self.kb.row_doc)

    # -- main -------------------------------------------------------------------------------------------------
    def match(self, text: str) -> Decision:
        report = parse_report(text)
        qevents = _query_events(report)
        query_text = _retrieval_text(report, text)
        qframes = {k for qe in qevents for k in qe.sig.frames}
        bm25 = self._bm25(query_text)
        pool = self.docs if self.score_all else self._pool(bm25)
        cands = {d: self._candidate(d, qevents, qframes, bm25) for d in pool}

        printed = _printed(qevents)
        if not self._decisive(list(cands.values()), printed):
            # The signature and BM25 alone do not settle it: bring in the dense retriever (and what it finds).
            dense = self._dense(query_text)
            for d in (dense if self.score_all else self._pool(dense)):
                if d not in cands:
                    cands[d] = self._candidate(d, qevents, qframes, bm25)
            for c in cands.values():
                c.dense = dense.get(c.doc_id, 0.0)
                c.measured.add("dense")
                c.score += DENSE_WEIGHT * dense_norm(c.dense)

        ranked = sorted(cands.values(), key=lambda c: -c.score)
        # Library frames say where it failed: their function names are evidence beyond the message.
        others = [qe for qe in qevents if qe.event.role in ("cause", "secondary") and not qe.event.inferred]
        rest = _Rest(self, substance(report.prose), sorted({k.split(":")[-1] for k in qframes}), others)
        # only these can be accepted on corroboration
        rest.corroborate([c for c in ranked if c.generic and (c.sig_raw >= SIG_ACCEPT or c.kin)])
        self._apply_feedback(ranked, qevents)
        verdict, confidence, reason = self._decide(report, qevents, ranked, rest)
        return Decision(verdict, confidence, ranked, reason, report, qevents)

    def _candidate(self, doc_id: str, qevents: list[QueryEvent], qframes: set[str], bm25: dict[str, float]) -> Candidate:
        prof = self.profile(doc_id)
        c = Candidate(doc_id=doc_id, bm25=bm25.get(doc_id, 0.0))
        for qe in qevents:
            conflicts = _entry_conflicts(qe.sig, prof.sigs)
            for line, dsig in prof.sigs:
                sim, why = similarity(qe.sig, dsig)
                weighted = sim * qe.weight
                if weighted > c.signature:
                    c.signature, c.sig_raw, c.sig_role = weighted, sim, qe.event.role
                    c.sig_pair = (qe.text, line)
                    c.sig_why = why
                    c.conflicts = conflicts
                    # Another name in the same words (another tokenizer class, another keyword), or a message that
                    # parts ways with the entry's, is the same kind of error; like a symptom with many causes, it
                    # needs the rest of the report to point here.
                    c.diverges = divergence(qe.sig, dsig)
                    c.generic = _is_generic(qe.sig, dsig) or bool(c.diverges[0])
                    # Another message that agrees on a hard fact (the same missing package, the same CPU-only torch)
                    # is the same failure told in other words, and like a symptom with many causes it needs the rest
                    # of the report to point here.
                    c.kin = _kin_facts(qe.sig, dsig) if SIG_RELATED <= sim < SIG_ACCEPT and not conflicts else []
                    c.generic = c.generic or bool(c.kin)
        if qframes and prof.frames:
            c.frames = len(qframes & prof.frames) / len(qframes)
        c.score = SIG_WEIGHT * c.signature + BM25_WEIGHT * c.bm25 + FRAMES_WEIGHT * c.frames
        return c

    @staticmethod
    def _decisive(cands: list[Candidate], printed: bool) -> bool:
        """True when the dense signal cannot change the answer: the report shows its error, and the best entry
        leads the rest by more than dense similarity could add to a rival (plus the tie margin)."""
        if not cands:
            return True
        top = sorted(cands, key=lambda c: -c.score)[:2]
        if not (printed or top[0].sig_raw >= QUOTE_SIM):
            return False
        return len(top) == 1 or top[0].score - top[1].score > DENSE_WEIGHT + TIE_MARGIN

    def _apply_feedback(self, ranked: list[Candidate], qevents: list[QueryEvent]) -> None:
        """An entry people marked wrong for this very error is not proposed for it again."""
        primary = next((qe.sig for qe in qevents if qe.event.role == "primary"), None)
        if self.feedback is None or primary is None:
            return
        for doc_id, who in self.feedback.rejected(primary.key).items():
            for c in ranked:
                if c.doc_id == doc_id:
                    c.vetoed = f"marked wrong for this error by {who}"

    def _decide(self, report: Report, qevents: list[QueryEvent], cands: list[Candidate], rest: "_Rest") -> tuple[str, float, str]:
        if not cands:
            return "no_match", 1.0, "the knowledge base is empty"
        printed = _printed(qevents)
        # The primary's best raw similarity anywhere: when the primary has no counterpart in the KB, a secondary
        # error of the report may carry the match instead.
        primary_known = max((c.sig_raw for c in cands if c.sig_role == "primary"), default=0.0) >= SIG_RELATED
        for c in cands:
            c.reason = c.vetoed or self._reject_reason(c, primary_known)
        best = cands[0]
        generic_ok = sorted((c for c in cands if c.generic and not c.reason), key=lambda c: -c.corroboration)
        if best.generic and generic_ok:
            # The error itself cannot tell these entries apart; what the rest of the report says can.
            cands.remove(generic_ok[0])
            cands.insert(0, generic_ok[0])
            best = cands[0]
        accepted = next((c for c in cands if not c.reason), None)
        settles = accepted is not None and {k.split("=", 1)[0] for k in accepted.kin} & {
            x.split(":", 1)[0] for x in best.conflicts}
        if (best.reason and (not best.conflicts or settles) and accepted is not None
                and (printed or accepted.sig_raw >= QUOTE_SIM)):
            # The top entry was turned down for a reason that says nothing against the others (it explains a
            # secondary line, or only shares words with the report): the best entry that explains the error stands.
            # A top entry turned down for a conflicting fact is different: the report is that entry's kind of
            # failure with another cause, and an entry lower down that merely lacks the fact must not take over;
            # one that agrees with the report on that very fact (a CPU-only torch, not another CUDA build) may.
            cands.remove(accepted)
            cands.insert(0, accepted)
            best = accepted
        second = cands[1] if len(cands) > 1 else None
        margin = best.score - (second.score if second else 0.0)
        anchored = printed or best.sig_raw >= QUOTE_SIM
        if anchored:
            if best.reason:
                conf = 0.5 + 0.4 * (1 - best.sig_raw)
                return "no_match", round(min(0.97, conf), 3), best.reason
            tied = [best] + [c for c in cands[1:] if not c.reason and abs(c.sig_raw - best.sig_raw) < TIE_SIG]
            if len(tied) > 1:
                # Several entries explain the error equally well (a shared header line such as "Error(s) in loading
                # state_dict"). Retrieval over that same line cannot separate them; the rest of the report can.
                rest.corroborate(tied)
                telling = rest.telling_lines(tied)
                tied.sort(key=lambda c: (-telling[c.doc_id], -c.corroboration))
                lead = tied[0].corroboration - tied[1].corroboration
                if telling[tied[0].doc_id] > telling[tied[1].doc_id]:
                    lead = max(lead, TIE_LEAD)       # an error line only this entry lists decides
                if lead < TIE_LEAD:
                    for c in tied:
                        c.reason = "another entry matches the report's error equally well; the report lacks the detail that tells them apart"
                    names = ", ".join(c.doc_id for c in tied[:3])
                    return "no_match", 0.55, f"the report's error fits {names} equally; it lacks the detail that tells them apart"
                cands.remove(tied[0])
                cands.insert(0, tied[0])
                best = cands[0]
                margin = lead
            # When the dense signal was not needed (a decisive lead), agreement is taken as middling, not perfect.
            agreement = dense_norm(best.dense) if "dense" in best.measured else 0.5
            conf = _sigmoid(8 * (best.sig_raw - 0.6) + 4 * margin + 1.5 * agreement)
            if best.generic:
                # The error alone did not decide; the rest of the report did, and only as far as it points here.
                conf = min(conf, 0.5 + 0.4 * best.corroboration)
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
        described, lead = self._described(qevents, cands)
        if described is not None:
            cands.remove(described)
            cands.insert(0, described)
            described.reason = ""
            said = " / ".join(qe.text[:160] for qe in qevents[:2])
            described.notes = [f"no error line; the report says: {said}",
                               f"leads the next entry by {lead:.2f} on BM25 and dense retrieval together"]
            bridge = gloss(said)
            if bridge:
                described.notes.append(f"across languages the report's words also read as: {bridge}")
            conf = _sigmoid(8 * (lead - DESCRIBED_LEAD) + 2 * (_fused(described) - 0.8))
            return ("match", round(min(conf, 0.7), 3),
                    "no error line in the report; the failure it describes points to this entry")
        best.reason = "no error line in the report, and its text does not single out this entry"
        return "no_match", 0.6, "the report shows no error line, and no entry is clearly described by its text"

    def _described(self, qevents: list[QueryEvent], cands: list[Candidate]) -> tuple[Candidate | None, float]:
        """The entry a report without an error line describes, if one stands out, and its lead.

        The report must say what failed in terms the entry can be held to (`_says_what`). The entry must lead on
        both retrievers fused (BM25 and dense, each across languages through the glossary), be first on at least
        one of them, and contradict no fact. When the report names an error class (out of memory, a device-side
        assert) only entries of that class compete: no other error explains it."""
        named = {(n, v) for qe in qevents for n, v in qe.sig.facts.items() if n in GENERIC_FACTS}
        if named:
            cands = [c for c in cands if self._of_class(c.doc_id, named)]
        if not qevents or not cands:
            return None, 0.0
        ranked = sorted(cands, key=lambda c: -_fused(c))
        top = ranked[0]
        lead = _fused(top) - (_fused(ranked[1]) if len(ranked) > 1 else 0.0)
        first_somewhere = top.doc_id in (max(cands, key=lambda c: c.bm25).doc_id,
                                         max(cands, key=lambda c: c.dense).doc_id)
        sigs = self.profile(top.doc_id).sigs
        conflicts = [x for qe in qevents for x in _entry_conflicts(qe.sig, sigs)]
        if lead < DESCRIBED_LEAD or conflicts or top.vetoed or not first_somewhere or not _says_what(qevents, sigs):
            # A look-alike that contradicts what the report says (an OOM in evaluation, not in backward) blocks.
            top.conflicts = top.conflicts or conflicts
            return None, 0.0
        return top, lead

    def _of_class(self, doc_id: str, named: set[tuple[str, str]]) -> bool:
        """True when some line of the entry carries every error-class fact the report names (e.g. oom.kind)."""
        sigs = self.profile(doc_id).sigs
        return all(any(n in d.facts and values_agree(v, d.facts[n]) for _, d in sigs) for n, v in named)

    @staticmethod
    def _reject_reason(c: Candidate, primary_known: bool) -> str:
        if c.conflicts:
            return "same kind of error, but a detail that tells the causes apart differs (" + "; ".join(c.conflicts) + ")"
        if c.sig_raw < SIG_ACCEPT and not c.kin:
            return "the report's error is not one this entry describes"
        if c.kin and c.corroboration < CORROBORATE:
            return (f"the report's error is another message of the same kind ({', '.join(c.kin)}), and nothing else "
                    f"in the report points to this entry (corroboration {c.corroboration:.2f})")
        if c.sig_role in ("wrapper", "cleanup") or (c.sig_role == "secondary" and primary_known):
            return "the entry matches a secondary message of the report, not its main error"
        if c.generic and c.corroboration < CORROBORATE and c.diverges[0]:
            return (f"the report's error says {', '.join(c.diverges[0][:4])} where this entry's says "
                    f"{', '.join(c.diverges[1][:4])}, and nothing else in the report points to this entry "
                    f"(corroboration {c.corroboration:.2f})")
        if c.generic and c.corroboration < CORROBORATE:
            return ("this error has several known causes, and nothing else in the report points to this one "
                    f"(corroboration {c.corroboration:.2f})")
        return ""


def _printed(qevents: list[QueryEvent]) -> bool:
    """Whether the report prints its failure: an error line other than a side remark. A traceback cut before its
    last line, with only a warning printed beside it, is judged as a report without an error line."""
    return any(not qe.event.inferred and qe.event.role != "secondary" for qe in qevents)


def _says_what(qevents: list[QueryEvent], sigs: list[tuple[str, Signature]]) -> bool:
    """Whether the report says what failed in terms an entry can be held to: a traceback cut inside a library
    call (the call names the operation), or a sentence naming a fact of the entry's error ("out of GPU memory",
    "HeaderTooLarge"). "It fails with an error" or "it hangs" says no more than the topic, and on topic alone the
    nearest entry is as often another failure as this one."""
    for qe in qevents:
        if qe.event.origin == "frame" and reduce_frames(qe.event.frames[-1:], libraries_only=True):
            return True
        for name, value in qe.sig.facts.items():
            if name in TOPIC_FACTS:
                continue
            if any(name in d.facts and values_agree(value, d.facts[name]) for _, d in sigs):
                return True
    return False


def _fused(c: Candidate) -> float:
    """Both retrievers on one scale: BM25 relative to the best entry, dense cosine mapped onto 0..1."""
    return 0.5 * c.bm25 + 0.5 * dense_norm(c.dense)


def _sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x))


def _retrieval_text(report: Report, text: str) -> str:
    """What the retrievers see: the error messages first (deduplicated), then what the reporter's words name."""
    parts = []
    for ev in report.events:
        if ev.message and ev.message not in parts:
            parts.append(ev.message[:600])
    parts.append(substance(report.prose[:1500]))
    joined = "\n".join(p for p in parts if p.strip())
    return joined if joined.strip() else text[:2000]



class _Rest:
    """The report apart from its main error: its prose, the library functions its frames pass through, and its
    other printed error lines (a warning that only one of two look-alike entries lists tells them apart).
    Retrieval over the prose costs a query encoding, so it runs once per report, and only when asked."""

    def __init__(self, matcher: "Matcher", prose: str, functions: list[str], others: list[QueryEvent]):
        self.matcher, self.prose, self.functions, self.others = matcher, prose, functions, others
        self._retrieved: dict[str, float] | None = None     # per entry: BM25 and dense over the prose, fused

    def corroborate(self, cands: list[Candidate]) -> None:
        """How strongly the rest of the report points to each of these entries (`corroboration`, 0..1)."""
        todo = [c for c in cands if "corroboration" not in c.measured]
        if not todo:
            return
        if self._retrieved is None:
            fused: dict[str, float] = {}
            if len(self.prose) >= 20:
                bm25, dense = self.matcher._bm25(self.prose), self.matcher._dense(self.prose)
                fused = {d: 0.5 * bm25.get(d, 0.0) + 0.5 * dense_norm(dense.get(d, 0.0)) for d in {*bm25, *dense}}
            self._retrieved = fused
        fused = self._retrieved
        best = max(fused.values(), default=0.0)
        for c in todo:
            # Both retrievers over the prose, less how far another entry is ahead: words that merely share the
            # topic ("8-bit", "LoRA"), or greetings in the language of half the KB, point to several entries at
            # once, and an entry the prose points to less than to another is not corroborated by it.
            own = fused.get(c.doc_id, 0.0)
            c.corroboration = max(0.0, own - (best - own), self.matcher.coverage(self.functions, c.doc_id))
            c.measured.add("corroboration")

    def telling_lines(self, tied: list[Candidate]) -> dict[str, int]:
        """Per tied entry, how many of the report's other error lines it explains that not every tied entry does
        (a warning only one of two look-alikes lists tells them apart; a line all of them list tells nothing)."""
        count = {c.doc_id: 0 for c in tied}
        for qe in self.others:
            explains = {c.doc_id for c in tied
                        if max((similarity(qe.sig, d)[0] for _, d in self.matcher.profile(c.doc_id).sigs),
                               default=0.0) >= SIG_ACCEPT}
            if explains and len(explains) < len(tied):
                for doc_id in explains:
                    count[doc_id] += 1
        return count


def _entry_conflicts(q: Signature, sigs: list[tuple[str, Signature]]) -> list[str]:
    """Hard facts on which the report disagrees with the entry. A conflict with any line of the entry counts (a
    bare header line such as "Error(s) in loading state_dict" must not carry a match that the entry's detailed
    line contradicts), unless another line of the entry agrees on that fact: entries list variants (two cuBLAS
    statuses, both sides of a mismatch) and the report needs to fit only one of them."""
    found: dict[str, set[str]] = {}
    agreed: set[str] = set()
    for _, dsig in sigs:
        conflicts = hard_conflicts(q, dsig)
        names = {x.split(":", 1)[0] for x in conflicts}
        for x in conflicts:
            found.setdefault(x.split(":", 1)[0], set()).add(x)
        agreed |= (set(q.facts) & set(dsig.facts)) - names
    return sorted(x for name, xs in found.items() if name not in agreed for x in xs)


def _best_per_doc(hits: list[tuple[int, float]], row_doc: list[str]) -> dict[str, float]:
    best: dict[str, float] = {}
    for row, score in hits:
        doc = row_doc[row]
        if score > best.get(doc, float("-inf")):
            best[doc] = score
    return best
