"""Pydantic models that cross module boundaries (ingest -> kb -> bot).

Nothing here does work beyond validation: parsing, extraction and matching live in their own modules.
"""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

# The stored KB's document schema (a generation's manifest says which wrote it). 2: imported issue threads carry
# their opening post's `author` and `created_at`; 3: documents may carry `texts` (an entry's title, root cause and
# fixes per language). A KB of an older schema this version still reads is listed in READABLE_SCHEMAS (its documents
# load with those fields unset, shown as written); any other is refused with how to rebuild it.
SCHEMA_VERSION = 3
READABLE_SCHEMAS = frozenset({1, 2, 3})

SectionKind = Literal[
    "title", "background", "symptoms", "environment", "root_cause", "fix", "workaround", "notes", "body"
]
VerifiedBy = Literal["repro", "maintainer", "reporter", "none"]


class Fix(BaseModel):
    text: str
    verified_by: VerifiedBy = "none"

    @property
    def verified(self) -> bool:
        return self.verified_by != "none"


class LocalText(BaseModel):
    """An entry's words in one language: its title, root cause and the text of each fix (in the order of
    Document.fixes; who verified a fix does not depend on the language)."""

    model_config = ConfigDict(extra="forbid")

    title: str = ""
    root_cause: str = ""
    fixes: list[str] = Field(default_factory=list)


class Section(BaseModel):
    """One headed part of a postmortem; `kind` is the normalised meaning of its heading."""

    heading: str
    kind: SectionKind
    text: str


ResolutionKind = Literal["maintainer", "reporter", "pull_request", "commit"]


class Resolution(BaseModel):
    """How an issue thread was resolved, and who said so (documents imported from an issue tracker)."""

    text: str
    kind: ResolutionKind               # a maintainer's diagnosis, the reporter's confirmation, the closing PR/commit
    comment_id: int | None = None      # the comment it was taken from
    author_association: str | None = None   # OWNER, MEMBER, COLLABORATOR, NONE, ... of that comment's author
    pull_request: int | None = None    # the pull request that closed the issue, when one did (whatever the kind)
    commit: str | None = None          # the commit that closed it, when one did


class Document(BaseModel):
    """One postmortem as extracted by ingest (or read from an entry's front matter), or an imported issue thread."""

    model_config = ConfigDict(extra="forbid")

    doc_id: str                      # stable id: the entry id, else derived from `source`
    source: str                      # path relative to the folder given to `triage ingest`
    content_hash: str                # sha256 of the raw bytes; drives incremental ingest
    title: str = ""
    langs: list[str] = Field(default_factory=list)        # "zh", "en"
    libraries: list[str] = Field(default_factory=list)    # torch, deepspeed, transformers, ...
    symptoms: str = ""
    error_lines: list[str] = Field(default_factory=list)  # verbatim error / warning / log lines
    tracebacks: list[str] = Field(default_factory=list)   # verbatim multi-line traceback or code blocks with errors
    root_cause: str = ""
    fixes: list[Fix] = Field(default_factory=list)
    versions: list[str] = Field(default_factory=list)     # "transformers==4.37.2", "torch 2.1", ...
    references: list[str] = Field(default_factory=list)   # owner/repo#N, URLs
    sections: list[Section] = Field(default_factory=list)
    body: str = ""                   # the cleaned text, noise removed
    # Fields only entries with front matter carry (kb/data/entries format).
    curated: bool = False            # signatures, cause and fixes written as fields, not extracted from prose
    affected: str | None = None
    fixed_in: str | None = None
    repro: str | None = None
    # An entry written in several languages (title_en/title_zh, ...): its words in each, keyed "en" / "zh". The
    # fields above (title, root_cause, fixes) hold one of them, the one the index reads; empty for a document
    # written in one language, which is shown as written.
    texts: dict[str, LocalText] = Field(default_factory=dict)
    # Fields only documents imported from an issue tracker carry (`triage import github`; source github:OWNER/REPO#N).
    url: str | None = None
    state: str | None = None           # open, closed
    state_reason: str | None = None    # completed, not_planned, duplicate, reopened
    labels: list[str] = Field(default_factory=list)
    closed_at: str | None = None
    author: str | None = None          # login of whoever opened the issue (None in a KB built before schema 2)
    created_at: str | None = None      # when the issue was opened (ISO 8601, as GitHub gives it)
    resolution: Resolution | None = None    # None: imported as unresolved (it may be related, never the answer)
    duplicate_of: str | None = None    # OWNER/REPO#M when the thread was closed as a duplicate of another

    @property
    def bilingual(self) -> bool:
        return len(self.texts) > 1

    def localized(self, lang: str) -> tuple[str, str, list[Fix]]:
        """(title, root cause, fixes) in `lang` when the entry is written in it, else as stored."""
        local = self.texts.get(lang)
        if local is None:
            return self.title, self.root_cause, list(self.fixes)
        fixes = [Fix(text=t or f.text, verified_by=f.verified_by) for f, t in zip(self.fixes, local.fixes)]
        fixes += self.fixes[len(fixes):]
        return local.title or self.title, local.root_cause or self.root_cause, fixes

    @property
    def is_issue(self) -> bool:
        return self.source.startswith("github:")

    @property
    def issue_number(self) -> int | None:
        tail = self.source.rpartition("#")[2]
        return int(tail) if self.is_issue and tail.isdigit() else None


class Chunk(BaseModel):
    chunk_id: str        # f"{doc_id}#{ordinal}"
    doc_id: str
    ordinal: int
    section: str         # SectionKind of the section it came from
    lang: str            # "zh", "en" or "mixed"
    text: str


class FixOut(BaseModel):
    text: str
    verified: bool
    verified_by: VerifiedBy = "none"


YOUR_LINE = "your line: "
ENTRY_LINE = "the entry's line: "

# What a piece of evidence is about: the two lines side by side, how their exception types relate, a fact both lines
# state (same, close, or not compared), a fact that tells them apart, or anything else said in words.
EvidenceKind = Literal["line", "type", "fact", "conflict", "note"]


class Evidence(BaseModel):
    """One reason an entry was (or was not) taken, in the words kb.evidence gives it. Renderers read these fields;
    they never take the strings of `MatchOut.evidence` apart."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: EvidenceKind
    report_line: str | None = None     # "line": the report's line that matched best (clipped for reading)
    entry_line: str | None = None      # "line": the entry's line it matched
    fact: str | None = None            # "fact", "conflict": the fact's name (kb.traceback.facts), for tools
    note: str = ""                     # the sentence a person reads ("line": empty)

    def lines(self) -> list[str]:
        """As `MatchOut.evidence` writes it: a "line" is two strings, the report's and the entry's."""
        if self.kind == "line":
            return [YOUR_LINE + (self.report_line or ""), ENTRY_LINE + (self.entry_line or "")]
        return [self.note]


class MatchOut(BaseModel):
    """One knowledge-base entry proposed for a report (or listed as related, with the reason it was not accepted).

    It carries everything any surface shows of the entry, so no renderer needs the KB's documents."""

    entry_id: str
    title: str
    source: str
    score: float
    root_cause: str
    fixes: list[FixOut]
    evidence: list[str] = Field(default_factory=list)   # evidence_items as strings (the JSON field people read)
    signals: dict[str, float] = Field(default_factory=dict)
    reason: str | None = None                 # for related entries: why it was not accepted
    issue: "IssueOut | None" = None           # when the entry is an imported issue thread: what to cite
    versions: list[str] = Field(default_factory=list)   # the entry's affected/fixed_in against the report's versions
    evidence_items: list[Evidence] = Field(default_factory=list)   # which report lines matched which entry lines
    affected: str | None = None               # the entry's own words: which versions fail
    fixed_in: str | None = None               # ... and which carry the fix
    versions_seen: list[str] = Field(default_factory=list)   # versions the entry names ("transformers==4.37.2")
    references: list[str] = Field(default_factory=list)      # owner/repo#N, URLs
    repro: str | None = None                  # the entry's reproduction recipe
    verified_on: dict[str, str | None] | None = None   # python, torch, cuda, device of the run that confirmed its fix

    @model_validator(mode="after")
    def _evidence_strings(self) -> "MatchOut":
        # The one place the strings are written: from the structured items, whenever there are any.
        if self.evidence_items:
            self.evidence = [line for item in self.evidence_items for line in item.lines()]
        return self


class IssueOut(BaseModel):
    """An imported issue thread as an answer cites it: number, title, state, resolution and link."""

    repo: str
    number: int
    title: str
    state: str | None
    state_reason: str | None = None
    url: str | None
    labels: list[str] = Field(default_factory=list)
    closed_at: str | None = None
    resolution: Resolution | None = None
    pull_request: int | None = None           # the closing pull request
    duplicate_of: str | None = None


MatchOut.model_rebuild()


class QueryOut(BaseModel):
    exception_type: str | None
    message: str
    signature: str
    facts: dict[str, str] = Field(default_factory=dict)
    error_lines: list[str] = Field(default_factory=list)
    versions: dict[str, str] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)


class Diagnosis(BaseModel):
    input: str
    verdict: Literal["match", "no_match"]
    confidence: float
    matches: list[MatchOut]
    related: list[MatchOut] = Field(default_factory=list)
    query: QueryOut
    reason: str = ""                          # one line: why this verdict
    lang: Literal["en", "zh"] = "en"          # the language answered in (entries written in it are shown in it)


class KBIdentity(BaseModel):
    """Which knowledge base answered (kb.stats.kb_identity): its folder, how many documents, when it was built."""

    path: str
    documents: int | None
    built_at: str | None


class Answer(Diagnosis):
    """What `diagnose --json` prints and `/v1/diagnose` returns: the diagnosis and the KB it came from."""

    kb: KBIdentity
