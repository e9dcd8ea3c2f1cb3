"""The matcher: pair a parsed report with knowledge-base entries, or abstain.

Signals per entry (each explained in the answer):
- `signature`: the best similarity between an event of the report (weighted by its role: the primary error counts
  most, wrappers and cleanup errors little) and an error line of the entry, facts included: a conflicting
  discriminating literal (the zero size on the other side, another load-key byte, another device op) vetoes.
- `bm25`: BM25 over chunks, the entry's best chunk, relative to the best entry for this report.
- `dense`: cosine of the report with the entry's best chunk (multilingual e5, so English finds Chinese).
- `frames`: library frames (`module:function`) the report shares with the entry's tracebacks.
- `corroboration`: how strongly the rest of the report (the reporter's words, less their courtesy, and the library
  functions of its frames) points to the entry.

The verdict is learned (kb.decision): the few best candidates get a feature vector (the signals, margins to the
runner-up, whether the report prints an error line, and the old hand rules as features: a symptom with many known
causes, another name in the same words, another message agreeing on a hard fact, a secondary line) and a
probability of being the report's root cause. The most probable is the answer when it reaches the trained
threshold; a hard fact conflict or a feedback veto rules a candidate out. Both retrievers read across languages
through the glossary (kb.index.glossary).
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from kb.decision import FEATURE_NAMES, MEANING_DIMS, SIGNALS, DecisionModel, load_model, log_count, shown_order
from kb.feedback import FeedbackStore
from kb.index.glossary import gloss
from kb.index.fusion import dense_norm, fused
from kb.index.hybrid import KnowledgeBase, encoder_text
from kb.index.retriever import DenseRetriever, Retriever, SparseRetriever
from kb.index.sparse import bm25_idf
from kb.index.talk import substance
from kb.index.tokenize import tokenize
from kb.models import Document
from kb.policy import POLICY, MatchPolicy
from kb.traceback.facts import FACTS
from kb.traceback.frames import reduce_frames
from kb.traceback.models import ErrorEvent, Report
from kb.traceback.parse import documents_error, parse_report
from kb.traceback.signature import (Signature, divergence, hard_conflicts, named_like, shared_quoted,
                                    signature_of_event, signature_of_line, similarity, values_agree, with_oom_phase)

_TIED_ALONE = FEATURE_NAMES.index("tied_alone")


@dataclass
class EntryProfile:
    """What the matcher needs of one entry, computed once per loaded KB."""

    doc: Document
    sigs: list[tuple[str, Signature]]
    frames: set[str]
    line_terms: frozenset[str]           # terms of its error lines
    cause_terms: frozenset[str]          # terms of its cause and fixes that its error lines do not print


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
    cause_lead: float = 0.0                          # its cause terms the report uses, less the best other's
    sig_role: str = ""                               # role of the report event in the best pair
    sig_pair: tuple[str, str] | None = None          # (report line, entry line) that matched best
    sig_why: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    generic: bool = False                            # the error alone does not pick the entry (any of the next three)
    symptom: bool = False                            # a symptom with many known causes
    sig_inferred: bool = False                       # the best pair's report event has no printed line
    agree: int = 0                                   # specific facts the best pair agrees on
    # what the report's error says in place of the entry line's words
    diverges: tuple[list[str], list[str]] = field(default_factory=lambda: ([], []))
    kin: list[str] = field(default_factory=list)     # hard facts a less alike entry line agrees on (same package...)
    reason: str = ""
    vetoed: str = ""                                 # feedback: people marked this entry wrong for this error
    notes: list[str] = field(default_factory=list)   # further evidence for the answer, in words
    measured: set[str] = field(default_factory=lambda: {"signature", "bm25", "dense", "frames"})
    # for the considered candidates: the signals (kb.decision.FEATURES), then the meaning products (_meaning)
    features: list[float] = field(default_factory=list)
    probability: float = 0.0                          # the decision model's: this entry is the report's root cause

    def signals(self) -> dict[str, float]:
        """The signals that were computed for this answer."""
        out = {k: round(getattr(self, k), 4) for k in ("signature", "bm25", "dense", "frames", "corroboration")
               if k in self.measured}
        if self.features:
            out["probability"] = round(self.probability, 4)
        return out


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
        if key not in seen and (sig.template.strip() or sig.exc_type):     # a bare `StopIteration` is a line too
            seen.add(key)
            sigs.append((line, sig))

    # Traceback blocks first: their events join multi-line messages (load_state_dict details) and carry frames.
    for block in doc.tracebacks:
        rep = parse_report(block)
        for ev in rep.events:
            if not documents_error(ev, bool(doc.error_lines)):
                continue
            add(ev.lines[-1] if ev.lines else ev.message, signature_of_event(ev))
            frames.update(reduce_frames(ev.frames, libraries_only=True))
    for line in doc.error_lines:
        add(line, signature_of_line(line))
    # An entry's OOM lines rarely say where it struck; its title does ("OOM in backward", "评估时 OOM").
    sigs = [(line, with_oom_phase(sig, doc.title, "entry's title")) for line, sig in sigs]
    line_terms = frozenset(tokenize("\n".join(doc.error_lines)))
    return EntryProfile(doc=doc, sigs=sigs, frames=frames, line_terms=line_terms,
                        cause_terms=_cause_words(doc) - line_terms)


def _cause_words(doc: Document) -> frozenset[str]:
    """The terms an entry uses to say why it failed and how it was fixed, in every language it is written in. Less
    those of its error lines, they are what can tell the same cause from a look-alike that prints the same message
    (a config key, a package, a flag, a platform)."""
    words = [doc.root_cause, *(f.text for f in doc.fixes)]
    for local in doc.texts.values():
        words += [local.root_cause, *local.fixes]
    return frozenset(tokenize(" ".join(words)))


def _query_events(report: Report, p: MatchPolicy) -> list[QueryEvent]:
    out = []
    for ev in report.events:
        weight = p.event_weight(ev.role, ev.origin)
        text = ev.lines[-1] if ev.lines else ev.message
        # An OOM whose own lines do not say where it struck: the reporter's words may ("fine in training, OOM in
        # evaluation"). Naming both phases names neither, so a stray mention cannot make a conflict.
        sig = with_oom_phase(signature_of_event(ev), report.prose, "report's text")
        out.append(QueryEvent(ev, sig, weight, text))
    return out


def _agreeing(q: Signature, d: Signature, p: MatchPolicy) -> list[str]:
    """Facts both signatures carry and agree on, leaving out how a message is put and what a report is about."""
    return [n for n in set(q.facts) & set(d.facts) - p.presentation_facts - p.topic_facts
            if values_agree(q.facts[n], d.facts[n])]


def _kin_facts(q: Signature, d: Signature, p: MatchPolicy) -> list[str]:
    """The hard, specific facts on which two different messages agree (`import.module=sentencepiece`)."""
    return sorted(f"{n}={q.facts[n]}" for n in _agreeing(q, d, p)
                  if FACTS.get(n) is not None and FACTS[n].hard and not p.generic_fact(n, q.facts[n]))


def _is_generic(q: Signature, d: Signature, p: MatchPolicy = POLICY) -> bool:
    """True when the report's error is a symptom shared by many root causes and the entry's line agrees with it on
    nothing more specific (e.g. both say "tensors on two devices", but only the report names the op). A quoted value
    both name (`'compute_86'` beside an exit code) is specific."""
    if not any(p.generic_fact(n, v) for n, v in q.facts.items()) or shared_quoted(q, d):
        return False
    return not any(not p.generic_fact(n, q.facts[n]) for n in _agreeing(q, d, p))


def _considered(ranked: list[Candidate], p: MatchPolicy) -> list[Candidate]:
    """The candidates the decision weighs: the best by fused score, and the best few by the signature alone and by
    retrieval alone (an entry that only one signal favours still gets its probability)."""
    picked = ranked[:p.consider_top]
    for key in (lambda c: c.sig_raw, _fused):
        picked += sorted(ranked, key=lambda c: -key(c))[:p.consider_each]
    seen: set[str] = set()
    return [c for c in picked if not (c.doc_id in seen or seen.add(c.doc_id))]


class Matcher:
    def __init__(self, kb: KnowledgeBase, feedback: FeedbackStore | None = None, model: DecisionModel | None = None,
                 policy: MatchPolicy = POLICY, sparse: Retriever | None = None, dense: Retriever | None = None):
        """`sparse`/`dense`: the retrievers (default: the KB's BM25 and its dense index with the query encoder)."""
        self.kb = kb
        self.policy = policy
        self.sparse = sparse or SparseRetriever(kb)
        self.dense = dense or DenseRetriever(kb, self._embed)
        self.feedback = feedback
        self.model = model or load_model()
        self.docs = kb.documents()
        self.idf = kb.sparse.idf()
        # the IDF of a token in `rare_chunks` chunks: a function name at least this rare tells where a failure is
        self._rare_idf = bm25_idf(kb.sparse.num_docs, policy.rare_chunks)
        self._profiles: dict[str, EntryProfile] = {}
        self._embeddings: dict[str, np.ndarray] = {}     # the last two texts' query encodings (_embed)
        self._doc_tokens: dict[str, set[str]] | None = None
        # A small KB is scored whole (no entry can be missed by retrieval); a large one only where retrieval points.
        self.score_all = len(self.docs) <= policy.score_all_max
        if self.score_all:
            from kb.profile_cache import cache_file, load_or_build

            self._profiles = load_or_build(cache_file(kb.settings.cache_dir, kb.path), kb.store.gen.name,
                                           list(self.docs), lambda d: profile(self.docs[d]))

    def profile(self, doc_id: str) -> EntryProfile:
        prof = self._profiles.get(doc_id)
        if prof is None:
            if not self.score_all and len(self._profiles) >= self.policy.profile_cache_max:
                del self._profiles[next(iter(self._profiles))]      # oldest first: a bounded cache on big KBs
            prof = self._profiles[doc_id] = profile(self.docs[doc_id])
        return prof

    def _pool(self, scores: dict[str, float]) -> list[str]:
        """The entries a big KB scores for one retriever: its best few (a small KB scores all of them)."""
        return sorted(scores, key=lambda d: -scores[d])[:self.policy.pool_per_retriever]

    def coverage(self, functions: list[str], doc_id: str) -> float:
        """How many of the library functions a traceback passes through this entry talks about: the IDF-weighted
        share of their tokens in the entry (rare ones weigh more). 0 unless the entry speaks of at least two of the
        functions, or of one whose whole name only a few chunks of the KB use (`_validate_model_kwargs`): a
        common one (`from_pretrained`) is where half of any KB passes, and says nothing of the cause."""
        if self._doc_tokens is None:
            self._doc_tokens = self.kb.store.doc_tokens()
        vocab = self._doc_tokens.get(doc_id, set())
        names = [tokenize(f) for f in set(functions)]
        per_function = [set(toks) for toks in names]
        spoken = sum(2 * len(toks & vocab) >= len(toks) > 0 for toks in per_function)
        if spoken < 2 and not (spoken and any(self._rare_name(toks, vocab) for toks in names)):
            return 0.0
        known = {t for toks in per_function for t in toks if t in self.idf}
        total = sum(self.idf[t] for t in known)
        return sum(self.idf[t] for t in known if t in vocab) / total if total > 0 else 0.0

    def _rare_name(self, tokens: list[str], vocab) -> bool:
        """A function name of three parts or more, whole in the entry and in at most `rare_chunks` chunks of the KB
        (the tokenizer gives an identifier whole first, then its parts)."""
        whole = tokens[0] if tokens else ""
        return whole.count("_") >= 2 and whole in vocab and self.idf.get(whole, 0.0) >= self._rare_idf

    # -- retrieval: per entry, its best chunk ----------------------------------------------------------------
    def _bm25(self, text: str) -> dict[str, float]:
        """BM25 of each entry's best chunk, relative to the best entry."""
        return self.sparse.scores(text, self.policy.retrieve_depth)

    def _dense(self, text: str) -> dict[str, float]:
        """Cosine of each entry's best chunk with the text (one query encoding: the expensive step)."""
        return self.dense.scores(text, self.policy.retrieve_depth)

    def _embed(self, text: str) -> np.ndarray:
        """The query encoding of a text, kept for later calls with the same text: a report's retrieval text and its
        prose are each encoded once, though retrieval, corroboration and the meaning feature all use them (one
        remembered text made the retrieval text's encoding be computed again after the prose's)."""
        text = encoder_text(text)
        if text not in self._embeddings:
            if len(self._embeddings) >= 2:
                self._embeddings.pop(next(iter(self._embeddings)))
            self._embeddings[text] = self.kb.embed_query(text)
        return self._embeddings[text]

    # -- main -------------------------------------------------------------------------------------------------
    def match(self, text: str, rule_out: Callable[[str], str | None] | None = None) -> Decision:
        """`rule_out(doc_id)`: why that entry may not be the answer to this report (None: it may); a ruled-out
        entry is treated like one marked wrong (kb.diagnose: the issue itself, the same author's own report)."""
        report = parse_report(text)
        p = self.policy
        qevents = _query_events(report, p)
        prose = substance(report.prose)           # the reporter's words, less their courtesy
        query_text = _retrieval_text(report, prose, text)
        qframes = {k for qe in qevents for k in qe.sig.frames}
        bm25, dense = self._bm25(query_text), self._dense(query_text)
        pool = self.docs if self.score_all else dict.fromkeys(self._pool(bm25) + self._pool(dense))
        cands = [self._candidate(d, qevents, qframes, bm25, dense) for d in pool]
        ranked = sorted(cands, key=lambda c: -c.score)
        if not ranked:
            return Decision("no_match", 1.0, [], "the knowledge base is empty", report, qevents)
        # Library frames say where it failed: their function names are evidence beyond the message.
        others = [qe for qe in qevents if qe.event.role in ("cause", "secondary") and not qe.event.inferred]
        rest = _Rest(self, prose, sorted({k.split(":")[-1] for k in qframes}), others)
        considered = _considered(ranked, p)
        rest.corroborate(considered)
        if rest.worded:
            self._cause_overlap(considered, text)
        self._apply_feedback(ranked, qevents, rule_out)
        printed = _printed(qevents)
        primary_known = max((c.sig_raw for c in ranked if c.sig_role == "primary"), default=0.0) >= p.sig_related
        for c in ranked:
            c.reason = c.vetoed or _reject_reason(c, primary_known, p)
        leaders = _Leaders(ranked, p.sig_related)
        query_vector = self._embed(query_text) if isinstance(self.dense, DenseRetriever) else None
        for c in considered:
            c.features = self._features(c, ranked, leaders, qevents, printed, primary_known, rest)
            c.features += self._meaning(c.doc_id, query_vector)
        xs = [c.features for c in considered]
        ruled_out = [bool(c.conflicts or c.vetoed) for c in considered]
        probs, unvetoed = self.model.probabilities_with_unvetoed(xs, ruled_out)
        for c, p in zip(considered, probs):
            c.probability = p
        return self._decide(report, qevents, ranked, considered, printed, unvetoed)

    def _candidate(self, doc_id: str, qevents: list[QueryEvent], qframes: set[str], bm25: dict[str, float],
                   dense: dict[str, float]) -> Candidate:
        p = self.policy
        prof = self.profile(doc_id)
        c = Candidate(doc_id=doc_id, bm25=bm25.get(doc_id, 0.0), dense=dense.get(doc_id, 0.0))
        for qe in qevents:
            conflicts = _entry_conflicts(qe.sig, prof.sigs)
            for line, dsig in prof.sigs:
                qsig = qe.sig
                sim, why = similarity(qsig, dsig)
                if sim < p.sig_accept and len(prof.sigs) > 1:
                    variant = named_like(qsig, dsig, [s for _, s in prof.sigs])
                    if variant is not None and (alt := similarity(variant, dsig))[0] > sim:
                        qsig, (sim, why) = variant, alt
                weighted = sim * qe.weight
                if weighted > c.signature:
                    c.signature, c.sig_raw, c.sig_role = weighted, sim, qe.event.role
                    c.sig_inferred = qe.event.inferred
                    c.sig_pair = (qe.text, line)
                    c.sig_why = why
                    c.conflicts = conflicts
                    # Another name in the same words (another tokenizer class, another keyword), or a message that
                    # parts ways with the entry's, is the same kind of error; like a symptom with many causes, it
                    # needs the rest of the report to point here.
                    c.diverges = divergence(qsig, dsig)
                    c.symptom = _is_generic(qsig, dsig, p)
                    # Another message that agrees on a hard fact (the same missing package, the same CPU-only torch)
                    # is the same failure told in other words, and like a symptom with many causes it needs the rest
                    # of the report to point here.
                    c.kin = (_kin_facts(qsig, dsig, p) if p.sig_related <= sim < p.sig_accept and not conflicts
                             else [])
                    c.generic = c.symptom or bool(c.diverges[0]) or bool(c.kin)
                    c.agree = sum(not p.generic_fact(n, qsig.facts[n]) for n in _agreeing(qsig, dsig, p))
        if qframes and prof.frames:
            c.frames = len(qframes & prof.frames) / len(qframes)
        c.score = p.score(c.signature, c.bm25, dense_norm(c.dense), c.frames)
        return c

    def _apply_feedback(self, ranked: list[Candidate], qevents: list[QueryEvent],
                        rule_out: Callable[[str], str | None] | None = None) -> None:
        """An entry people marked wrong for this very error is not proposed for it again; nor one the caller rules
        out for this report."""
        primary = next((qe.sig for qe in qevents if qe.event.role == "primary"), None)
        if self.feedback is not None and primary is not None:
            for doc_id, who in self.feedback.rejected(primary.key).items():
                for c in ranked:
                    if c.doc_id == doc_id:
                        c.vetoed = f"marked wrong for this error by {who}"
        if rule_out is not None:
            for c in ranked:
                why = rule_out(c.doc_id)
                if why:
                    c.vetoed = why

    def _cause_overlap(self, considered: list[Candidate], text: str) -> None:
        """Per candidate, how far the IDF weight of its cause terms the report uses leads the best other
        candidate's (`cause_lead`). Measured only where the reporter wrote words of their own (the
        policy's prose_min, as for the meaning), and on its words that are not any candidate's error lines: the
        signature features compare the message, and a look-alike whose cause happens to use the words of another
        entry's message would otherwise lead the entry that prints it."""
        profiles = [self.profile(c.doc_id) for c in considered]
        terms = set(tokenize(text)).difference(*(prof.line_terms for prof in profiles))
        cause = [sum(self.idf[t] for t in prof.cause_terms & terms if t in self.idf) for prof in profiles]
        for i, c in enumerate(considered):
            c.cause_lead = cause[i] - max(cause[:i] + cause[i + 1:], default=0.0)

    def _features(self, c: Candidate, ranked: list[Candidate], leaders: "_Leaders", qevents: list[QueryEvent],
                  printed: bool, primary_known: bool, rest: "_Rest") -> list[float]:
        """The candidate's signals as the decision model's feature vector (kb.decision.FEATURES, in order)."""
        p = self.policy
        best = leaders.other
        prof = self.profile(c.doc_id)
        sigs = prof.sigs
        tied = [o for o in ranked if o is not c and not o.conflicts and o.sig_raw >= p.sig_accept
                and abs(o.sig_raw - c.sig_raw) < p.tie_sig] if c.sig_raw >= p.sig_accept else []
        counts = rest.telling_lines([c] + tied) if tied else {}
        telling = counts.get(c.doc_id, 0)
        # Entries that explain the error equally well are told apart only by the rest of the report.
        tied_alone = (bool(tied) and telling <= max(counts[o.doc_id] for o in tied)
                      and c.corroboration - max(o.corroboration for o in tied) < p.tie_lead
                      and (not rest.worded or _fused(c) - max(_fused(o) for o in tied) < p.tie_lead))
        named = {(n, v) for qe in qevents for n, v in qe.sig.facts.items() if n in p.generic_facts}
        says = _says_what(qevents, sigs, p)
        of_class = bool(named) and self._of_class(c.doc_id, named)
        needs_rest = float(c.generic)
        alone = c.corroboration < p.corroborate
        unprinted = 0.0 if printed else 1.0
        role = c.sig_role
        fused_margin = _fused(c) - best("fused", c)
        f = {
            "sig": c.sig_raw, "sig_weighted": c.signature,
            "sig_accept": float(c.sig_raw >= p.sig_accept), "sig_quote": float(c.sig_raw >= p.quote_sim),
            "sig_margin": c.sig_raw - best("sig", c),
            "role_primary": float(role == "primary" and not c.sig_inferred),
            "role_side": float(role in ("cause", "secondary") and not c.sig_inferred),
            "role_wrapper": float(role in ("wrapper", "cleanup") and not c.sig_inferred),
            "role_inferred": float(c.sig_inferred),
            "secondary_only": float(role == "secondary" and primary_known),
            "printed": float(printed),
            "symptom": float(c.symptom), "diverges": float(bool(c.diverges[0])), "kin": float(bool(c.kin)),
            "needs_rest": needs_rest, "corroboration": c.corroboration,
            "needs_rest_x_corr": needs_rest * c.corroboration,
            "alone_symptom": float(c.symptom and alone), "alone_diverges": float(bool(c.diverges[0]) and alone),
            "alone_kin": float(bool(c.kin) and alone),
            "bm25": c.bm25, "dense": dense_norm(c.dense), "fused": _fused(c),
            "fused_margin": fused_margin,
            "bm25_first": float(c.bm25 >= best("bm25", c) and c.bm25 > 0),
            "dense_first": float(c.dense >= best("dense", c) and c.dense > 0),
            "score_margin": c.score - best("score", c),
            "frames": c.frames, "coverage": self.coverage(rest.functions, c.doc_id) if rest.functions else 0.0,
            "tied": log_count(len(tied)), "telling": log_count(telling), "tied_alone": float(tied_alone),
            "agree_specific": log_count(c.agree),
            "says_what": float(says), "of_class": float(of_class), "other_class": float(bool(named) and not of_class),
            "unprinted_x_fused_margin": unprinted * fused_margin,
            "unprinted_x_says_what": unprinted * float(says),
            "blocked": float(best("conflicting", c) > c.sig_raw),
            "entry_curated": float(prof.doc.curated),
            "curated_quote": float(prof.doc.curated and c.sig_raw >= p.quote_sim and role == "primary"
                                   and not c.sig_inferred),
            "entry_lines": log_count(len(sigs)), "events": log_count(len(qevents)),
            "prose": math.log1p(len(rest.prose)) / 8,
            "cause_lead": math.copysign(math.log1p(abs(c.cause_lead)), c.cause_lead) / 3,
        }
        return [float(f[name]) for name in FEATURE_NAMES[:SIGNALS]]

    def _meaning(self, doc_id: str, query: np.ndarray | None) -> list[float]:
        """The report's query encoding times the entry's nearest chunk vector, dimension by dimension (the decision
        weighs the dimensions: kb.decision.Meaning); none without an encoding of the bundled encoder's size."""
        if query is None or len(query) != MEANING_DIMS:
            return []
        vectors = self.kb.chunk_vectors(doc_id)
        if not len(vectors) or vectors.shape[1] != MEANING_DIMS:
            return []
        nearest = vectors[int(np.argmax(vectors @ query))]
        return [float(v) for v in query * nearest]

    def _decide(self, report: Report, qevents: list[QueryEvent], ranked: list[Candidate],
                considered: list[Candidate], printed: bool, unvetoed: list[float]) -> Decision:
        """The most probable candidate is the answer when its probability reaches the model's threshold."""
        threshold = self.model.threshold
        best = max(considered, key=lambda c: c.probability)
        matched = best.probability >= threshold
        order = shown_order([c.probability for c in considered], unvetoed, matched)
        ids = {c.doc_id for c in considered}
        ranked[:] = [considered[i] for i in order] + [c for c in ranked if c.doc_id not in ids]
        for c in considered:
            if c.probability >= threshold and c is best:
                c.reason = ""
            elif not c.reason and c.features[_TIED_ALONE]:
                c.reason = ("another entry explains the report's error equally well, and nothing else in the report "
                            f"tells them apart (probability {c.probability:.2f}; an answer needs {threshold:.2f})")
            elif not c.reason:
                c.reason = (f"not likely enough to be the cause (probability {c.probability:.2f}; an answer needs "
                            f"{threshold:.2f})")
        if matched:
            if printed or best.sig_raw >= self.policy.quote_sim:
                why = f"the report's error matches {best.doc_id}"
            else:
                why = "no error line in the report; the failure it describes points to this entry"
                said = " / ".join(qe.text[:160] for qe in qevents[:2])
                best.notes = [f"no error line; the report says: {said}"] if said else []
                bridge = gloss(said) if said else ""
                if bridge:
                    best.notes.append(f"across languages the report's words also read as: {bridge}")
            return Decision("match", round(best.probability, 3), ranked, why, report, qevents)
        if printed or ranked[0].sig_raw >= self.policy.quote_sim:
            why = ranked[0].reason
        else:
            why = "the report shows no error line, and no entry is clearly described by its text"
        return Decision("no_match", round(self.model.answer_confidence(best.probability)[1], 3), ranked, why, report,
                        qevents)

    def _of_class(self, doc_id: str, named: set[tuple[str, str]]) -> bool:
        """True when some line of the entry carries every error-class fact the report names (e.g. oom.kind)."""
        sigs = self.profile(doc_id).sigs
        return all(any(n in d.facts and values_agree(v, d.facts[n]) for _, d in sigs) for n, v in named)


def _reject_reason(c: Candidate, primary_known: bool, p: MatchPolicy) -> str:
    if c.conflicts:
        return "same kind of error, but a detail that tells the causes apart differs (" + "; ".join(c.conflicts) + ")"
    if c.sig_raw < p.sig_accept and not c.kin:
        return "the report's error is not one this entry describes"
    if c.kin and c.corroboration < p.corroborate:
        return (f"the report's error is another message of the same kind ({', '.join(c.kin)}), and nothing else "
                f"in the report points to this entry (corroboration {c.corroboration:.2f})")
    if c.sig_role in ("wrapper", "cleanup") or (c.sig_role == "secondary" and primary_known):
        return "the entry matches a secondary message of the report, not its main error"
    if c.generic and c.corroboration < p.corroborate and c.diverges[0]:
        return (f"the report's error says {', '.join(c.diverges[0][:4])} where this entry's says "
                f"{', '.join(c.diverges[1][:4])}, and nothing else in the report points to this entry "
                f"(corroboration {c.corroboration:.2f})")
    if c.generic and c.corroboration < p.corroborate:
        return ("this error has several known causes, and nothing else in the report points to this one "
                f"(corroboration {c.corroboration:.2f})")
    return ""


def _printed(qevents: list[QueryEvent]) -> bool:
    """Whether the report prints its failure: an error line other than a side remark. A traceback cut before its
    last line, with only a warning printed beside it, is judged as a report without an error line."""
    return any(not qe.event.inferred and qe.event.role != "secondary" for qe in qevents)


def _says_what(qevents: list[QueryEvent], sigs: list[tuple[str, Signature]], p: MatchPolicy) -> bool:
    """Whether the report says what failed in terms an entry can be held to: a traceback cut inside a library
    call (the call names the operation), or a sentence naming a fact of the entry's error ("out of GPU memory",
    "HeaderTooLarge"). "It fails with an error" or "it hangs" says no more than the topic, and on topic alone the
    nearest entry is as often another failure as this one."""
    for qe in qevents:
        if qe.event.origin == "frame" and reduce_frames(qe.event.frames[-1:], libraries_only=True):
            return True
        for name, value in qe.sig.facts.items():
            if name in p.topic_facts:
                continue
            if any(name in d.facts and values_agree(value, d.facts[name]) for _, d in sigs):
                return True
    return False


def _fused(c: Candidate) -> float:
    return fused(c.bm25, c.dense)


class _Leaders:
    """The two best values of each signal over all candidates, so that a candidate's margin to the best of the
    others is read, not searched for, once per feature."""

    SIGNALS = {
        "sig": lambda c: c.sig_raw, "fused": _fused, "bm25": lambda c: c.bm25,
        "dense": lambda c: c.dense, "score": lambda c: c.score,
    }

    def __init__(self, ranked: list[Candidate], sig_related: float):
        # a look-alike ruled out by a conflicting fact, on the report's own error
        signals = {**self.SIGNALS, "conflicting": lambda c: c.sig_raw if c.conflicts and c.sig_raw >= sig_related
                   else 0.0}
        self.top: dict[str, list[tuple[float, str]]] = {}
        for name, key in signals.items():
            self.top[name] = sorted(((key(c), c.doc_id) for c in ranked), key=lambda t: -t[0])[:2]

    def other(self, name: str, c: Candidate) -> float:
        """The best value of a signal among the candidates other than `c` (0 when there is none)."""
        return next((v for v, d in self.top[name] if d != c.doc_id), 0.0)


def _retrieval_text(report: Report, prose: str, text: str) -> str:
    """What the retrievers see: the error messages first (deduplicated), then what the reporter's words name."""
    parts = []
    for ev in report.events:
        if ev.message and ev.message not in parts:
            parts.append(ev.message[:600])
    parts.append(prose[:1500])
    joined = "\n".join(p for p in parts if p.strip())
    return joined if joined.strip() else text[:2000]



class _Rest:
    """The report apart from its main error: its prose, the library functions its frames pass through, and its
    other printed error lines (a warning that only one of two look-alike entries lists tells them apart).
    Retrieval over the prose costs a query encoding, so it runs once per report, and only when asked."""

    def __init__(self, matcher: "Matcher", prose: str, functions: list[str], others: list[QueryEvent]):
        self.matcher, self.prose, self.functions, self.others = matcher, prose, functions, others
        self._retrieved: dict[str, float] | None = None     # per entry: BM25 and dense over the prose, fused

    @property
    def worded(self) -> bool:
        """The reporter wrote words of their own (the policy's prose_min): below it the rest says nothing."""
        return len(self.prose) >= self.matcher.policy.prose_min

    def corroborate(self, cands: list[Candidate]) -> None:
        """How strongly the rest of the report points to each of these entries (`corroboration`, 0..1)."""
        todo = [c for c in cands if "corroboration" not in c.measured]
        if not todo:
            return
        if self._retrieved is None:
            scores: dict[str, float] = {}
            if self.worded:
                bm25, dense = self.matcher._bm25(self.prose), self.matcher._dense(self.prose)
                scores = {d: fused(bm25.get(d, 0.0), dense.get(d, 0.0)) for d in {*bm25, *dense}}
            self._retrieved = scores
        scores = self._retrieved
        best = max(scores.values(), default=0.0)
        for c in todo:
            # Both retrievers over the prose, less how far another entry is ahead: words that merely share the
            # topic ("8-bit", "LoRA"), or greetings in the language of half the KB, point to several entries at
            # once, and an entry the prose points to less than to another is not corroborated by it.
            own = scores.get(c.doc_id, 0.0)
            c.corroboration = max(0.0, own - (best - own), self.matcher.coverage(self.functions, c.doc_id))
            c.measured.add("corroboration")

    def telling_lines(self, tied: list[Candidate]) -> dict[str, int]:
        """Per tied entry, how many of the report's other error lines it explains that not every tied entry does
        (a warning only one of two look-alikes lists tells them apart; a line all of them list tells nothing)."""
        count = {c.doc_id: 0 for c in tied}
        for qe in self.others:
            explains = {c.doc_id for c in tied
                        if max((similarity(qe.sig, d)[0] for _, d in self.matcher.profile(c.doc_id).sigs),
                               default=0.0) >= self.matcher.policy.sig_accept}
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

