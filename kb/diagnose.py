"""diagnose(): the one function every surface calls. Parse -> match -> a Diagnosis (kb.models).

Imported issue threads (source github:OWNER/REPO#N) are answers only when resolved: a match on a thread without a
resolution (closed as stale, not planned, or as a duplicate) is shown as related, "an unresolved report of the same
failure: #N", and a duplicate points to the thread it duplicates, which answers in its place when it is resolved.

A caller answering a report it knows the author and time of (the GitHub auto-commenter) passes `not_by`: a thread
opened by the same person within the hour of the report is that person's own report of the failure again (filed
twice, or imported before the bot answered), not a known fix. It is never the answer; it may be listed as related,
saying why.
"""
from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime, timezone

from kb.evidence import evidence_items, plain_reason
from kb.feedback import FeedbackStore
from kb.lang import answer_lang
from kb.index.hybrid import KnowledgeBase
from kb.match import Candidate, Decision, Matcher
from kb.policy import POLICY, MatchPolicy
from kb.models import Diagnosis, Document, Evidence, Fix, FixOut, IssueOut, MatchOut, QueryOut
from kb.repro.results import ResultStore
from kb.versions import version_lines

RELATED_MAX = 3
SAME_AUTHOR_WINDOW_S = 3600.0


def _epoch(value: str | float | datetime | None) -> float | None:
    """Seconds since the epoch of an ISO 8601 time (GitHub's 2024-05-01T12:00:00Z), a datetime, or a number."""
    if value is None or value == "":
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, datetime):
        return (value if value.tzinfo else value.replace(tzinfo=timezone.utc)).timestamp()
    try:
        got = datetime.fromisoformat(str(value).strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return (got if got.tzinfo else got.replace(tzinfo=timezone.utc)).timestamp()


@dataclass(frozen=True)
class NotBy:
    """Who wrote the report and when: an imported thread opened by the same login (case-insensitive) within
    `window_s` of `at` (either side) is never proposed as the known fix for it."""

    author: str
    at: str | float | datetime
    window_s: float = SAME_AUTHOR_WINDOW_S

    def why(self, doc: Document) -> str | None:
        """Why `doc` may not answer this report, or None. A thread that does not say who opened it and when (a KB
        imported before schema 2) cannot be told apart, and is not ruled out."""
        if not self.author or not doc.is_issue or not doc.author or doc.author.lower() != self.author.lower():
            return None
        at, opened = _epoch(self.at), _epoch(doc.created_at)
        if at is None or opened is None or abs(at - opened) > self.window_s:
            return None
        return (f"opened by @{doc.author}, who wrote this report, within an hour of it: their own report of it, "
                f"not a known fix")


class Diagnoser:
    """Holds a loaded KB and its matcher; `diagnose` is cheap after the first call."""

    def __init__(self, kb: KnowledgeBase, feedback: FeedbackStore | None = None, repro: ResultStore | None = None,
                 policy: MatchPolicy = POLICY):
        self.kb = kb
        self.repro = repro
        self.matcher = Matcher(kb, feedback, policy=policy)
        self.last_ranking: list[tuple[str, float]] = []
        self._by_source: dict[str, str] | None = None
        self._lang = "en"          # the language of the answer being made

    def doc_id_of_source(self, source: str) -> str | None:
        if self._by_source is None:
            self._by_source = {src: doc_id for src, (doc_id, _, _) in self.kb.store.doc_index().items()}
        return self._by_source.get(source)

    # A report in both languages with a traceback: what a first diagnosis prepares (the query encoder's session,
    # regexes compiled on first use, the entries' profiles, the Chinese word table) is prepared by this one.
    WARM_UP_REPORT = ('Traceback (most recent call last):\n  File "train.py", line 1, in <module>\n'
                      'RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n训练时显存不足')

    def warm_up(self) -> None:
        """Diagnose a made-up report once, so that a service's first real report is answered as fast as the rest."""
        self.diagnose(self.WARM_UP_REPORT, name="warm-up")

    def diagnose(self, text: str, name: str = "<stdin>", top: int = 3, exclude: Collection[str] = (),
                 not_by: NotBy | None = None, lang: str | None = None) -> Diagnosis:
        """`exclude`: sources (github:OWNER/REPO#N) never to propose nor show, such as the issue the report is.
        `not_by`: the report's author and time; threads that author opened within the hour are never the answer
        (shown as related, with the reason). `lang`: the language to answer in, "en" or "zh", or "auto" (None) for
        the report's own (kb.lang.report_lang); an entry written in it is shown in it, one written in one language
        as written."""
        self._lang = answer_lang(lang, text)
        if not text.strip():
            self.last_ranking = []
            return Diagnosis(input=name, verdict="no_match", confidence=1.0, matches=[], reason="the report is empty",
                             query=QueryOut(exception_type=None, message="", signature=""), lang=self._lang)
        left_out = {d for d in (self.doc_id_of_source(s) for s in exclude) if d}
        same_author: dict[str, str] = {}          # doc id -> why it is not the answer (not_by)

        def rule_out(doc_id: str) -> str | None:
            if doc_id in left_out:
                return "left out: the report is this very issue"
            why = not_by.why(self.kb.documents()[doc_id]) if not_by is not None else None
            if why:
                same_author[doc_id] = why
            return why

        decision = self.matcher.match(text, rule_out=rule_out if (left_out or not_by is not None) else None)
        if left_out:
            decision.ranked[:] = [c for c in decision.ranked if c.doc_id not in left_out]
        self.last_ranking = [(c.doc_id, c.score) for c in decision.ranked]
        query = _query_out(decision)
        verdict, confidence, reason = decision.verdict, decision.confidence, decision.reason
        matches: list[MatchOut] = []
        related: list[MatchOut] = []
        if verdict == "match":
            accepted = [c for c in decision.ranked if not c.reason][:top]
            for c in accepted:
                doc = self.kb.documents()[c.doc_id]
                if not _unresolved(doc):
                    matches.append(self._entry_out(c, decision))
                    continue
                target = self._duplicate_target(doc)
                if target is not None and not_by is not None and not_by.why(self.kb.documents()[target]):
                    target = None
                if target is not None and target not in {m.entry_id for m in matches} | left_out:
                    # A duplicate's failure is that of the thread it duplicates: that one answers, when resolved.
                    matches.append(self._entry_out(c, decision, doc_id=target, first=Evidence(
                        kind="note",
                        note=f"the report matches #{doc.issue_number}, closed as a duplicate of {doc.duplicate_of}")))
                else:
                    related.append(self._entry_out(c, decision, reason=_unresolved_reason(doc)))
            if matches:
                # The same author's own report of it ranked above the answer: listed, saying why it is not one.
                above = []
                for c in decision.ranked:
                    if c is accepted[0]:
                        break
                    if c.doc_id in same_author:
                        above.append(self._entry_out(c, decision))
                related += above[:max(0, RELATED_MAX - len(related))]
            if not matches:
                verdict, confidence = "no_match", round(1 - decision.confidence, 3)
                reason = related[0].reason or reason
                seen = {r.entry_id for r in related}
                related += [self._entry_out(c, decision) for c in decision.ranked
                            if c.doc_id not in seen and c.reason][:max(0, RELATED_MAX - len(related))]
        else:
            for c in decision.ranked[:RELATED_MAX]:
                doc = self.kb.documents()[c.doc_id]
                related.append(self._entry_out(c, decision, reason=(
                    f"{plain_reason(c.reason)}; {_unresolved_reason(doc)}" if _unresolved(doc) else None)))
        # The reason names the entry it is about by its title (the first shown: the answer, or the nearest entry).
        first = (matches or related or [None])[0]
        reason = plain_reason(reason, first.title, first.entry_id) if first else plain_reason(reason)
        return Diagnosis(input=name, verdict=verdict, confidence=confidence, matches=matches, related=related,
                         query=query, reason=reason, lang=self._lang)

    def _duplicate_target(self, doc: Document) -> str | None:
        """The doc id of the resolved thread `doc` was closed as a duplicate of, when the KB holds it."""
        if not doc.duplicate_of:
            return None
        target = self.doc_id_of_source(f"github:{doc.duplicate_of}")
        if target is None or _unresolved(self.kb.documents()[target]):
            return None
        return target

    def _entry_out(self, c: Candidate, decision: Decision, doc_id: str | None = None,
                   reason: str | None = None, first: Evidence | None = None) -> MatchOut:
        """`first`: evidence said before the matcher's (why a duplicate's target answers)."""
        doc_id = doc_id or c.doc_id
        doc = self.kb.documents()[doc_id]
        title, root_cause, fixes = doc.localized(self._lang)
        # With a results store, a fix marked "repro" counts as verified only once its recipe's fix run passed.
        confirmed = (self.repro.verified_fix(doc_id)
                     if self.repro is not None and any(f.verified_by == "repro" for f in fixes) else None)
        evidence = evidence_items(c.sig_pair, c.sig_why, c.conflicts, c.notes)
        return MatchOut(
            entry_id=doc_id, title=title, source=doc.source, score=round(c.score, 4),
            root_cause=root_cause,
            fixes=[self._fix_out(f, confirmed) for f in fixes],
            # Evidence and reason in plain words (kb.evidence); the one number shown is the answer's confidence.
            evidence_items=[first, *evidence] if first else evidence, signals=c.signals(),
            # (shown beside the entry's title, so it says "this entry"; the diagnosis' own reason names the title)
            reason=reason or plain_reason(c.reason) or None,
            issue=issue_out(doc),
            versions=version_lines(doc.fixed_in, doc.affected, decision.report.env, self._lang),
            affected=doc.affected, fixed_in=doc.fixed_in, versions_seen=doc.versions, references=doc.references,
            repro=doc.repro, verified_on=_ran_on(confirmed.environment) if confirmed else None,
        )

    def _fix_out(self, f: Fix, confirmed) -> FixOut:
        verified = f.verified
        if f.verified_by == "repro" and self.repro is not None:
            verified = confirmed is not None
        return FixOut(text=f.text, verified=verified, verified_by=f.verified_by)


def answer_json(diag: Diagnosis, kb: dict, **extra) -> str:
    """One answer as the single line of JSON that `diagnose --json` prints and `/v1/diagnose` returns, byte for
    byte: the diagnosis, then `kb` (kb.stats.kb_identity), then any `extra` keys (verification)."""
    return json.dumps({**diag.model_dump(mode="json"), "kb": kb, **extra}, ensure_ascii=False)


def _ran_on(environment: dict) -> dict[str, str | None]:
    """What an answer says of the machine a fix was confirmed on."""
    return {k: None if environment.get(k) is None else str(environment[k])
            for k in ("python", "torch", "cuda", "device")}


def _unresolved(doc: Document) -> bool:
    """An imported issue thread nobody resolved: it may be related, never the answer."""
    return doc.is_issue and doc.resolution is None


def _unresolved_reason(doc: Document) -> str:
    why = f"an unresolved report of the same failure: #{doc.issue_number}"
    if doc.duplicate_of:
        why += f" (closed as a duplicate of {doc.duplicate_of})"
    elif doc.state_reason == "not_planned":
        why += " (closed as not planned)"
    elif doc.state_reason == "reopened":
        why += " (reopened: what closed it did not hold)"
    elif doc.state == "open":
        why += " (still open)"
    return why


def issue_out(doc: Document) -> IssueOut | None:
    """What an answer cites of an imported issue thread: number, title, state, resolution, closing PR, link."""
    if not doc.is_issue or doc.issue_number is None:
        return None
    repo = doc.source[len("github:"):].rpartition("#")[0]
    return IssueOut(repo=repo, number=doc.issue_number, title=doc.title, state=doc.state,
                    state_reason=doc.state_reason, url=doc.url, labels=doc.labels, closed_at=doc.closed_at,
                    resolution=doc.resolution, pull_request=doc.resolution.pull_request if doc.resolution else None,
                    duplicate_of=doc.duplicate_of)


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
