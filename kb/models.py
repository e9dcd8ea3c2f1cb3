"""Pydantic models that cross module boundaries (ingest -> kb -> bot).

Nothing here does work beyond validation: parsing, extraction and matching live in their own modules.
"""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = 1

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


class Section(BaseModel):
    """One headed part of a postmortem; `kind` is the normalised meaning of its heading."""

    heading: str
    kind: SectionKind
    text: str


class Document(BaseModel):
    """One postmortem as extracted by ingest (or read from an entry's front matter)."""

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


class Chunk(BaseModel):
    chunk_id: str        # f"{doc_id}#{ordinal}"
    doc_id: str
    ordinal: int
    section: str         # SectionKind of the section it came from
    lang: str            # "zh", "en" or "mixed"
    text: str


class Hit(BaseModel):
    """A retrieval result for one chunk."""

    chunk_id: str
    doc_id: str
    score: float
    retriever: Literal["dense", "bm25"]


class FixOut(BaseModel):
    text: str
    verified: bool
    verified_by: VerifiedBy = "none"


class MatchOut(BaseModel):
    """One knowledge-base entry proposed for a report (or listed as related, with the reason it was not accepted)."""

    entry_id: str
    title: str
    source: str
    score: float
    root_cause: str
    fixes: list[FixOut]
    evidence: list[str]                       # which report lines matched which entry lines/fields
    signals: dict[str, float] = Field(default_factory=dict)
    reason: str | None = None                 # for related entries: why it was not accepted


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


class KBIdentity(BaseModel):
    """Which knowledge base answered (kb.stats.kb_identity): its folder, how many documents, when it was built."""

    path: str
    documents: int | None
    built_at: str | None


class Answer(Diagnosis):
    """What `diagnose --json` prints and `/v1/diagnose` returns: the diagnosis and the KB it came from."""

    kb: KBIdentity
